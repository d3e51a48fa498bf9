// Pipeline schedules (parallel.schedule, issue #22): the zero-bubble and DualPipe bubbles of
// DeepSeek-AI 2024 Table 2 / deepseek-ai/DualPipe's README, their activation and parameter
// memory, DualPipe's hidden all-to-all, the schedule rules, what each framework runs, and the
// DeepSeek-V3 run as DeepSeek ran it. Every expected value is derived by hand in its comment or
// taken from the publication.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../support/diagnostics.h"
#include "../support/scenario_files.h"
#include "pplan/framework/framework.h"
#include "pplan/framework/rules.h"
#include "pplan/io/json_io.h"
#include "pplan/launch/launch.h"
#include "pplan/model/compute.h"
#include "pplan/model/estimate.h"
#include "pplan/model/memory.h"
#include "pplan/model/pipeline.h"
#include "pplan/search/search.h"

namespace pplan {
namespace {

using testing::load_scenario;
using testing::scenario_from;
using testing::has_code;

// F = 1, B = 2 (input and weight gradients), W = 1: the README's unit passes.
constexpr StagePasses kUnitPasses{1.0, 2.0, 1.0};

TEST(PipelineBubble, OneFOneBAndInterleavedArePMinusOneStageTimes) {
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kOneFOneB, 8, 1, kUnitPasses), 7.0 * 3.0);
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kInterleaved, 8, 2, kUnitPasses), 7.0 * 3.0 / 2.0);
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kOneFOneB, 1, 1, kUnitPasses), 0.0);
}

TEST(PipelineBubble, ZeroBubbleH1SubtractsTwoWeightGradients) {
  // ZB1P: (p−1)(F+B−2W) = 7 · (1 + 2 − 2) = 7, a third of 1F1B's 21 (sail-sg README: B_r/3).
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kZbH1, 8, 1, kUnitPasses), 7.0);
  // Interleaved over v chunks: 7/2.
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kZbH1, 8, 2, kUnitPasses), 3.5);
}

TEST(PipelineBubble, ZeroBubbleVIsZeroWhenForwardInputAndWeightGradientsAreEqual) {
  // F = I = W = 1 (B = I + W = 2): no bubble, as Qi et al. 2023 state for ZB-V.
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kZbV, 8, 2, kUnitPasses), 0.0);
  // I = 2: (p−1)(F + B − 3W)/2 = 7 · (1 + 3 − 3)/2 = 3.5.
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kZbV, 8, 2, StagePasses{1.0, 3.0, 1.0}), 3.5);
}

TEST(PipelineBubble, DualPipeIsHalfThePipelineOfOverlappedPairs) {
  // DeepSeek-AI 2024 Table 2: (PP/2 − 1)(F&B + B − 3W), F&B = F + B = 3: 7 · (3 + 2 − 3) = 14
  // at PP 16, against 1F1B's 15 · 3 = 45.
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kDualPipe, 16, 1, kUnitPasses), 14.0);
  // DualPipeV on 8 ranks is 16 stages of half a rank's layers: (8 − 1)(3 + 2 − 3)/2 = 7.
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kDualPipeV, 8, 2, kUnitPasses), 7.0);
}

TEST(PipelineBubble, NeverNegative) {
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kZbH1, 8, 1, StagePasses{0.1, 1.0, 1.0}), 0.0);
  EXPECT_DOUBLE_EQ(pipeline_bubble_s(ScheduleKind::kDualPipe, 8, 1, StagePasses{0.1, 1.0, 1.0}), 0.0);
}

TEST(ScheduleMemory, ActivationsInFlightFollowTable2) {
  // 1F1B's first stage: p micro-batches; ZB-H1 the same.
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(ScheduleKind::kZbH1, 0, 8, 1, 96, 12), 8.0 * 12);
  // ZB-V: p micro-batches of the rank's layers on every rank.
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(ScheduleKind::kZbV, 7, 8, 2, 96, 12), 8.0 * 12);
  // DualPipe: PP + 1 chunks of half the rank's layers (its stage's 4 and its mirror's 4).
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(ScheduleKind::kDualPipe, 3, 16, 1, 120, 8), 17.0 * 4);
  // DualPipeV on 8 ranks: 2·8 + 1 chunks of 8/2 layers.
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(ScheduleKind::kDualPipeV, 0, 8, 2, 96, 8), 17.0 * 4);
  // Never more than the step's micro-batches.
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(ScheduleKind::kDualPipe, 0, 16, 1, 4, 8), 4.0 * 4);
}

Scenario llama8b_pp4(const std::string& framework, const std::string& schedule) {
  return scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":32},
      "training":{"seq_len":8192,"global_batch":256,"framework":")" + framework + R"("},
      "parallel":{"tp":1,"pp":4,"dp":8,"zero":)" + (framework == "torchtitan" ? "2" : "1") +
                       R"(,"schedule":")" + schedule + R"("}})");
}

TEST(ScheduleMemory, DualPipeRanksHoldTheirStageAndTheMirroredOne) {
  const Scenario s = llama8b_pp4("megatron-core", "dualpipe");
  ParallelConfig p = resolve_defaults(s);
  ASSERT_EQ(p.schedule, ScheduleKind::kDualPipe);
  const StageSplit split = split_layers(s.model.layers, p.pp);
  const StageParams stage0 = stage_params_per_gpu(s, p, split, 0);
  const StageParams stage3 = stage_params_per_gpu(s, p, split, 3);
  const RankParams rank0 = rank_params(s, p, split, 0);
  EXPECT_DOUBLE_EQ(rank0.params.total(), stage0.total() + stage3.total());
  EXPECT_EQ(rank0.layers, split.layers_on_stage(0, 4) + split.layers_on_stage(3, 4));
  // Weights (bf16, unsharded under ZeRO-1): twice a 1F1B rank's middle stage.
  ParallelConfig one = p;
  one.schedule = ScheduleKind::kOneFOneB;
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 1).weights_bytes, 2.0 * stage_memory(s, one, split, 1).weights_bytes);
}

TEST(ScheduleMemory, AVShapePutsTheHeadOnTheFirstRank) {
  const Scenario s = llama8b_pp4("torchtitan", "zb-v");
  const ParallelConfig p = resolve_defaults(s);
  EXPECT_EQ(p.vpp, 2);  // the V's two chunks, filled in
  EXPECT_EQ(head_rank(p), 0);
  const StageSplit split = split_layers(s.model.layers, p.pp);
  EXPECT_GT(stage_params_per_gpu(s, p, split, 0).embedding_and_head,
            stage_params_per_gpu(s, p, split, 3).embedding_and_head);
}

TEST(ScheduleTime, DualPipeHidesTheAllToAllAsCombinedOneFOneBDoes) {
  // The same steady-state overlap per MoE layer (compute.cpp): DualPipe's EP time equals the
  // combined-1F1B switch's, and is below the exposed all-to-all.
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = resolve_defaults(s);
  ASSERT_EQ(p.schedule, ScheduleKind::kDualPipe);
  const int moe_layer = s.model.moe->dense_layers;
  const LayerTimes dualpipe = layer_times(s, p, moe_layer);
  const Estimate dualpipe_plan = evaluate(s, p);
  p.schedule = ScheduleKind::kOneFOneB;
  const LayerTimes exposed = layer_times(s, p, moe_layer);
  const Estimate exposed_plan = evaluate(s, p);
  s.training.overlap_moe_expert_parallel_comm = true;
  const LayerTimes combined = layer_times(s, p, moe_layer);
  EXPECT_LT(dualpipe.ep_forward_s, exposed.ep_forward_s);
  EXPECT_DOUBLE_EQ(dualpipe.ep_forward_s, combined.ep_forward_s);
  EXPECT_DOUBLE_EQ(dualpipe.ep_backward_s, combined.ep_backward_s);
  // And its bubble is smaller than 1F1B's.
  EXPECT_LT(dualpipe_plan.time.bubble_s, exposed_plan.time.bubble_s);
}

TEST(ScheduleTime, TorchtitansDualPipeVRunsThePairsOneAfterTheOther) {
  // torchtitan 75771f50 removed its DualPipeV EP overlap: F and B of a pair run in turn.
  Scenario s = scenario_from(R"({"model":"qwen3-30b-a3b","cluster":{"gpu":"h100-sxm","gpus":64},
      "training":{"seq_len":4096,"global_batch":512,"framework":"torchtitan"},
      "parallel":{"tp":1,"pp":4,"ep":8,"zero":1,"schedule":"dualpipev"}})");
  ParallelConfig p = resolve_defaults(s);
  EXPECT_FALSE(overlaps_f_and_b(s.training, p));
  s.training.framework = Framework::kMegatronCore;
  EXPECT_TRUE(overlaps_f_and_b(s.training, p));
}

TEST(ScheduleRules, EachScheduleChecksItsOwnConditions) {
  auto errors_of = [](const std::string& parallel) {
    const Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":48},
        "training":{"seq_len":8192,"global_batch":48}, "parallel":)" + parallel + "}");
    return evaluate(s, resolve_defaults(s));
  };
  // DualPipe pairs ranks from both ends (dualpipe.py:332).
  EXPECT_TRUE(has_code(errors_of(R"({"tp":1,"pp":3,"dp":16,"schedule":"dualpipe"})"), "plan.schedule_pp"));
  // At least 2·pp micro-batches: 48 / 6 = 8 < 2·8 (dualpipe.py:333).
  EXPECT_TRUE(has_code(errors_of(R"({"tp":1,"pp":8,"dp":6,"schedule":"dualpipe"})"), "plan.schedule_microbatches"));
  // 1F1B runs one chunk per rank.
  EXPECT_TRUE(has_code(errors_of(R"({"tp":1,"pp":4,"dp":12,"vpp":2,"schedule":"1f1b"})"), "plan.schedule_vpp"));
  // A pipeline schedule needs a pipeline.
  EXPECT_TRUE(has_code(errors_of(R"({"tp":1,"pp":1,"dp":48,"schedule":"zb-h1"})"), "plan.schedule_needs_pp"));
}

TEST(ScheduleInput, UnknownNamesAreRefusedNamingTheField) {
  try {
    scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":8},
        "training":{"seq_len":8192,"global_batch":8},"parallel":{"schedule":"gpipe"}})");
    FAIL() << "gpipe accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/parallel/schedule"), std::string::npos) << e.what();
  }
}

TEST(ScheduleFrameworks, EachFrameworkRunsItsOwn) {
  EXPECT_TRUE(framework_runs_schedule(LaunchFramework::kMegatron, ScheduleKind::kInterleaved, 2));
  EXPECT_FALSE(framework_runs_schedule(LaunchFramework::kNemo, ScheduleKind::kDualPipe, 1));
  EXPECT_TRUE(framework_runs_schedule(LaunchFramework::kTorchtitan, ScheduleKind::kDualPipeV, 2));
  EXPECT_FALSE(framework_runs_schedule(LaunchFramework::kTorchtitan, ScheduleKind::kDualPipe, 1));
  // InterleavedZeroBubble is multi-stage: two stages per rank or more.
  EXPECT_FALSE(framework_runs_schedule(LaunchFramework::kTorchtitan, ScheduleKind::kZbH1, 1));
  EXPECT_TRUE(framework_runs_schedule(LaunchFramework::kTorchtitan, ScheduleKind::kZbH1, 2));
  EXPECT_FALSE(framework_runs_schedule(LaunchFramework::kDeepSpeed, ScheduleKind::kZbH1, 2));
}

TEST(ScheduleSearch, MegatronCoreSearchesOnlyWhatItRunsAndTorchtitanTriesTheRest) {
  Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":32},
      "training":{"seq_len":8192,"global_batch":256},"parallel":{"tp":1,"pp":4}})");
  SearchOptions options;
  options.top = 50;
  for (const Estimate& e : search(s, options).plans) {
    EXPECT_TRUE(e.parallel.schedule == ScheduleKind::kOneFOneB || e.parallel.schedule == ScheduleKind::kInterleaved)
        << schedule_name(e.parallel.schedule);
  }
  s.training = with_framework_defaults(s.training, Framework::kTorchtitan, s.cluster.gpu);
  bool zero_bubble = false;
  for (const Estimate& e : search(s, options).plans) {
    zero_bubble = zero_bubble || e.parallel.schedule == ScheduleKind::kZbV || e.parallel.schedule == ScheduleKind::kZbH1;
    EXPECT_NE(e.parallel.schedule, ScheduleKind::kDualPipe);
  }
  EXPECT_TRUE(zero_bubble);
}

TEST(ScheduleLaunch, TorchtitanNamesTheScheduleAndMegatronRefusesWhatItCannotRun) {
  const Scenario titan = llama8b_pp4("torchtitan", "zb-v");
  const LaunchResult zbv = launch_configuration(titan, evaluate(titan, resolve_defaults(titan)), "torchtitan");
  ASSERT_TRUE(zbv.problems.empty()) << zbv.problems.front().message;
  EXPECT_NE(zbv.text.find("\"ZBVZeroBubble\""), std::string::npos);
  const Scenario core = llama8b_pp4("megatron-core", "dualpipe");
  const LaunchResult refused = launch_configuration(core, evaluate(core, resolve_defaults(core)), "megatron");
  ASSERT_FALSE(refused.problems.empty());
  EXPECT_EQ(refused.problems.front().code, "megatron.schedule_unsupported");
  EXPECT_EQ(refused.problems.front().source, "Megatron-LM d98e8a64 megatron/core/pipeline_parallel/schedules.py:154");
}

TEST(ActivationFp8Store, HalvesSwiGlusInputAndLaunchesWhereItCan) {
  // Llama 3 8B, s 8192, b 1, t 1, BF16: SwiGLU's input is 2·14336 values of 2 bytes per token;
  // in FP8 one byte each: 2·14336 bytes of s·h·b less per layer.
  Scenario s = llama8b_pp4("megatron-core", "1f1b");
  const ParallelConfig p = resolve_defaults(s);
  const double bf16 = layer_activation_bytes(s, p, 0);
  s.training.activation_func_fp8_input_store = true;
  EXPECT_DOUBLE_EQ(bf16 - layer_activation_bytes(s, p, 0), 8192.0 * 2 * 14336);
  const Estimate plan = evaluate(s, p);
  const LaunchResult nemo = launch_configuration(s, plan, "nemo");
  ASSERT_TRUE(nemo.problems.empty()) << nemo.problems.front().message;
  EXPECT_NE(nemo.text.find("activation_func_fp8_input_store = True"), std::string::npos);
  // Megatron-LM lists it under "no CLI argument exists" (arguments.py:2329).
  const LaunchResult megatron = launch_configuration(s, plan, "megatron");
  ASSERT_FALSE(megatron.problems.empty());
  EXPECT_EQ(megatron.problems.front().code, "megatron.activation_fp8_store_no_flag");
  // A GeLU model has no SwiGLU input to store.
  EXPECT_THROW(scenario_from(R"({"model":"gpt3-175b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":2048,"global_batch":8,"activation_func_fp8_input_store":true}})"),
               InputError);
}

TEST(DeepSeekV3AsRun, FitsAndLandsWithinFifteenPercentOfThePublishedCost) {
  // DeepSeek-AI 2024 Table 1: 180K H800 GPU-hours per trillion tokens = 1e12 / (180e3 · 3600)
  // = 1,543 tokens/s per GPU. Done when (issue #22): fits in 80 GB, within 15%.
  const Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  const SearchResult r = search(s, SearchOptions{});
  ASSERT_FALSE(r.plans.empty());
  const Estimate& e = r.plans.front();
  EXPECT_EQ(e.parallel.schedule, ScheduleKind::kDualPipe);
  EXPECT_LE(e.memory.total_bytes, 80e9);
  const double published = 1e12 / (180e3 * 3600.0);
  const double tokens_per_gpu = e.tokens_per_s / s.cluster.gpus;
  EXPECT_NEAR(tokens_per_gpu / published, 1.0, 0.15) << tokens_per_gpu;
}

// FP8 parameters (training.fp8_param_gather; Megatron --fp8-param-gather, which Megatron-Bridge's
// FP8 recipes set): the weight is its FP8 bytes and their transpose, no BF16 copy beside them.
Scenario llama70b_fp8(const std::string& framework, int zero, bool fp8_params) {
  return scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"h100-sxm","gpus":64},
      "training":{"seq_len":8192,"global_batch":256,"precision":"fp8","fp8_recipe":"current",
                  "framework":")" + framework + R"(","fp8_param_gather":)" + (fp8_params ? "true" : "false") + R"(},
      "parallel":{"tp":8,"pp":4,"dp":2,"zero":)" + std::to_string(zero) + R"(}})");
}

TEST(Fp8ParamGather, KeepsTwoBytesPerLayerParameterLessAndGathersHalfTheBytes) {
  // Llama 3 70B, one layer: attention 8192·(8192 + 2·1024) + 8192·8192 = 150,994,944, SwiGLU
  // 3·8192·28672 = 704,643,072, two norms 16,384: split by TP 8 but the norms, 106,954,752 +
  // 16,384 = 106,971,136 per GPU. 20 layers per stage (pp 4): 2,139,422,720 layer parameters.
  // Without FP8 parameters the GPU holds BF16 weights (2) and TE's FP8 weight and transpose (2);
  // with them only the FP8 weight and transpose: 2 bytes less per layer parameter = 4.2789 GB.
  const Scenario bf16_weights = llama70b_fp8("megatron-core", 1, false);
  const Scenario fp8_weights = llama70b_fp8("megatron-core", 1, true);
  const ParallelConfig p = resolve_defaults(bf16_weights);
  const Estimate a = evaluate(bf16_weights, p);
  const Estimate b = evaluate(fp8_weights, p);
  ASSERT_EQ(a.memory.peak_stage, b.memory.peak_stage);
  EXPECT_NEAR(a.memory.weights_bytes - b.memory.weights_bytes, 2.0 * 20 * 106971136.0, 1e-3 * 4.2789e9);
  // Gradients, optimizer state and activations do not change; the step does not get slower.
  EXPECT_DOUBLE_EQ(a.memory.gradients_bytes, b.memory.gradients_bytes);
  EXPECT_DOUBLE_EQ(a.memory.activations_bytes, b.memory.activations_bytes);
  EXPECT_LE(b.step_time_s, a.step_time_s);
  // The all-gather of the nccl-tests plan: one byte per layer parameter (uint8), BF16 for the
  // embedding and head.
  const LaunchResult nccl_a = launch_configuration(bf16_weights, a, "nccl-tests");
  const LaunchResult nccl_b = launch_configuration(fp8_weights, b, "nccl-tests");
  ASSERT_TRUE(nccl_a.problems.empty() && nccl_b.problems.empty());
  EXPECT_NE(nccl_a.text.find("bf16 weight all-gather"), std::string::npos);
  EXPECT_NE(nccl_b.text.find("FP8 weight all-gather"), std::string::npos);
  EXPECT_NE(nccl_b.text.find("-d uint8"), std::string::npos);
}

TEST(Fp8ParamGather, LaunchesWhereTheFrameworkCanAndRefusesWhereItCannot) {
  const Scenario s = llama70b_fp8("megatron-core", 1, true);
  const Estimate plan = evaluate(s, resolve_defaults(s));
  const LaunchResult megatron = launch_configuration(s, plan, "megatron");
  ASSERT_TRUE(megatron.problems.empty()) << megatron.problems.front().message;
  EXPECT_NE(megatron.text.find("--fp8-param-gather"), std::string::npos);
  const LaunchResult nemo = launch_configuration(s, plan, "nemo");
  ASSERT_TRUE(nemo.problems.empty()) << nemo.problems.front().message;
  EXPECT_NE(nemo.text.find("fp8_param_gather = True"), std::string::npos);
  // Without it, Megatron gathers BF16 weights and NeMo says so.
  const Scenario plain = llama70b_fp8("megatron-core", 1, false);
  const Estimate plain_plan = evaluate(plain, resolve_defaults(plain));
  EXPECT_EQ(launch_configuration(plain, plain_plan, "megatron").text.find("--fp8-param-gather"), std::string::npos);
  EXPECT_NE(launch_configuration(plain, plain_plan, "nemo").text.find("fp8_param_gather = False"), std::string::npos);
  // Megatron needs the distributed optimizer for it (arguments.py:1095).
  const Scenario no_zero = llama70b_fp8("megatron-core", 0, true);
  const LaunchResult refused = launch_configuration(no_zero, evaluate(no_zero, resolve_defaults(no_zero)), "megatron");
  ASSERT_FALSE(refused.problems.empty());
  EXPECT_EQ(refused.problems.front().code, "megatron.fp8_params_need_zero");
  EXPECT_EQ(refused.problems.front().source, "Megatron-LM d98e8a64 megatron/training/arguments.py:1095");
  // torchtitan's Float8 converter has no such switch; Megatron-DeepSpeed keeps BF16 weights.
  const Scenario titan = llama70b_fp8("torchtitan", 2, true);
  const LaunchResult t = launch_configuration(titan, evaluate(titan, resolve_defaults(titan)), "torchtitan");
  ASSERT_FALSE(t.problems.empty());
  EXPECT_TRUE(std::any_of(t.problems.begin(), t.problems.end(), [](const auto& q) { return q.code == "torchtitan.fp8_params"; }));
  // BF16 training has no FP8 weights to keep.
  try {
    scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"h100-sxm","gpus":8},
        "training":{"seq_len":2048,"global_batch":8,"fp8_param_gather":true}})");
    FAIL() << "accepted fp8_param_gather on a BF16 plan";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "/training/fp8_param_gather");
  }
}


// Activation offloading (parallel.offload_layers; Megatron --cpu-offloading-num-layers): the first
// layers' activations live in host memory between their forward and backward.
Scenario llama70b_gb300(const std::string& precision, const std::string& extra_parallel = "") {
  return scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"gb300","gpus":64},
      "training":{"seq_len":8192,"global_batch":256,"precision":")" + precision + R"(",)" +
                       (precision == "fp8" ? R"("fp8_recipe":"current","fp8_param_gather":true,)" : "") +
                       R"("framework":"megatron-core"},
      "parallel":{"tp":1,"pp":1,"dp":64,"micro_batch":2,"zero":3)" + extra_parallel + R"(}})");
}

TEST(ActivationOffload, OffloadsAboutAsManyLayersAsNvidiasGb300Recipes) {
  // Megatron-Bridge 067f987df perf_recipes/llama/gb300/llama3.py: Llama 3 70B on 64 GB300, TP 1,
  // PP 1, FSDP, micro-batch 2, no recomputation, cpu_offloading_num_layers 30 in BF16 and 20 in
  // FP8 (current scaling). pplan's search, free to recompute instead, offloads the fewest layers
  // that fit its memory model under the 10% headroom: within 3 layers of NVIDIA's choice.
  for (const auto& [precision, recipe_layers] : {std::pair<std::string, int>{"bf16", 30}, {"fp8", 20}}) {
    const Scenario s = llama70b_gb300(precision);
    const SearchResult r = search(s, SearchOptions{});
    ASSERT_FALSE(r.plans.empty()) << precision;
    const Estimate& e = r.plans.front();
    EXPECT_EQ(e.parallel.recompute, Recompute::kNone) << precision;
    EXPECT_NEAR(e.parallel.offload_layers, recipe_layers, 3) << precision;
    // And it beats recomputing every layer, which is what it chose before it could offload.
    const Scenario full = llama70b_gb300(precision, R"(,"recompute":"full")");
    const Estimate recomputed = evaluate(full, resolve_defaults(full));
    EXPECT_LT(e.step_time_s, recomputed.step_time_s) << precision;
  }
}

TEST(ActivationOffload, FreesTheOffloadedLayersAndExposesWhatTheCopiesTakeBeyondAPass) {
  const Scenario none = llama70b_gb300("bf16", R"(,"recompute":"none")");
  const Scenario off = llama70b_gb300("bf16", R"(,"recompute":"none","offload_layers":30)");
  const ParallelConfig p0 = resolve_defaults(none), p = resolve_defaults(off);
  ASSERT_EQ(p.offload_layers, 30);
  const Estimate a = evaluate(none, p0), b = evaluate(off, p);
  // One micro-batch in flight on one stage: 30 layers' activations fewer on the GPU.
  const double layer_bytes = layer_activation_bytes(off, p, 0);
  EXPECT_NEAR(a.memory.activations_bytes - b.memory.activations_bytes, 30 * layer_bytes, 1.0);
  // Each copy (one way per pass, at the GB300's 225 GB/s per GPU over NVLink-C2C) beyond its
  // neighbour's pass is exposed, per micro-batch: 256 / 64 / 2 = 2 of them.
  const LayerTimes lt = layer_times(off, p, 0);
  const double copy_s = layer_bytes / 225e9;
  const double per_layer = std::max(0.0, copy_s - lt.forward_s()) + std::max(0.0, copy_s - lt.backward_s());
  EXPECT_NEAR(b.time.offload_s, 2 * 30 * per_layer, 1e-9);
  EXPECT_NEAR(b.step_time_s - a.step_time_s, b.time.offload_s, 1e-9);
  // Over PCIe (an H100's 64 GB/s) the same copies take 3.5 times longer.
  Scenario pcie = off;
  pcie.cluster.gpu.host_link_bytes_per_s = 64e9;
  EXPECT_GT(evaluate(pcie, p).time.offload_s, b.time.offload_s);
}

TEST(ActivationOffload, LaunchesInMegatronAndNemoAndIsRefusedWhereItCannotRun) {
  const Scenario s = llama70b_gb300("bf16", R"(,"recompute":"none","offload_layers":30)");
  const Estimate plan = evaluate(s, resolve_defaults(s));
  const LaunchResult megatron = launch_configuration(s, plan, "megatron");
  ASSERT_TRUE(megatron.problems.empty()) << megatron.problems.front().message;
  EXPECT_NE(megatron.text.find("--cpu-offloading-num-layers 30"), std::string::npos);
  const LaunchResult nemo = launch_configuration(s, plan, "nemo");
  ASSERT_TRUE(nemo.problems.empty()) << nemo.problems.front().message;
  EXPECT_NE(nemo.text.find("cpu_offloading_num_layers = 30"), std::string::npos);
  EXPECT_NE(nemo.text.find("cpu_offloading_weights = False"), std::string::npos);
  // Megatron runs it on one stage without recomputation (transformer_config.py:1891, :1896).
  const Scenario staged = llama70b_gb300("bf16", R"(,"pp":2,"dp":32,"offload_layers":10)");
  EXPECT_EQ(evaluate(staged, resolve_defaults(staged)).rejection_code, std::string("plan.offload_needs_one_stage"));
  // Its per-layer CUDA graphs do not (transformer_config.py:2800).
  Scenario graphs = s;
  graphs.training.cuda_graphs = true;
  const LaunchResult g = launch_configuration(graphs, evaluate(graphs, resolve_defaults(graphs)), "megatron");
  ASSERT_FALSE(g.problems.empty());
  EXPECT_EQ(g.problems.front().code, "megatron.offload_cuda_graphs");
  // A GPU spec without a host link cannot price the copies.
  Scenario unknown = s;
  unknown.cluster.gpu.host_link_bytes_per_s = 0;
  EXPECT_EQ(evaluate(unknown, resolve_defaults(unknown)).rejection_code, std::string("plan.offload_needs_host_link"));
  // The offloaded activations must fit the host's share of DRAM: a DGX H100's 2 TB over 8 GPUs is
  // 256 GB, 230.4 GB usable under the 10% headroom. 77 layers of Llama 3 70B at micro-batch 8,
  // TP 2 with SP, hold about 77 x 4.6 GB: far more.
  const Scenario dgx = scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"h100-sxm","gpus":64},
      "training":{"seq_len":8192,"global_batch":256,"precision":"fp8"},
      "parallel":{"tp":2,"pp":1,"dp":32,"micro_batch":8,"zero":3,"recompute":"none","offload_layers":77}})");
  const Estimate over_host = evaluate(dgx, resolve_defaults(dgx));
  EXPECT_EQ(over_host.rejection_code, std::string("plan.out_of_host_memory"));
  EXPECT_GT(over_host.memory.offloaded_bytes, 0.9 * 256e9);
  // The count must leave a layer on the GPU (transformer_config.py:1884).
  EXPECT_THROW(scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"gb300","gpus":64},
      "training":{"seq_len":8192,"global_batch":256},"parallel":{"offload_layers":80}})"), InputError);
}


TEST(ExpertAllToAllOverlap, TheOutputNamesWhatHidesIt) {
  // DeepSeek's layout runs DualPipe (examples/deepseek-v3-2048-h800.json); the same plan under
  // 1F1B hides nothing unless Megatron's combined 1F1B is on; a dense model reports nothing.
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = resolve_defaults(s);
  ASSERT_EQ(p.schedule, ScheduleKind::kDualPipe);
  EXPECT_EQ(estimate_to_json(evaluate(s, p), s)["ep_comm_overlap"], "dualpipe");
  p.schedule = ScheduleKind::kOneFOneB;
  EXPECT_EQ(estimate_to_json(evaluate(s, p), s)["ep_comm_overlap"], "none");
  s.training.overlap_moe_expert_parallel_comm = true;
  EXPECT_EQ(estimate_to_json(evaluate(s, p), s)["ep_comm_overlap"], "combined-1f1b");
  const Scenario dense = llama8b_pp4("megatron-core", "1f1b");
  EXPECT_FALSE(estimate_to_json(evaluate(dense, resolve_defaults(dense)), dense).contains("ep_comm_overlap"));
}

}  // namespace
}  // namespace pplan
