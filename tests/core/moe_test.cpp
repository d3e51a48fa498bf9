// MoE and long context: parameter counts, expert sharding, dispatch memory, all-to-all bytes,
// EP placement rules, the search over ep, the DeepSeek-V3 layout, CP at 128K and Llama 3 128K.
// Every expected value is derived by hand from the architecture or taken from a publication.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "../support/diagnostics.h"
#include "../support/scenario_files.h"
#include "pplan/framework/framework.h"
#include "pplan/model/architecture.h"
#include "pplan/model/compute.h"
#include "pplan/model/comm.h"
#include "pplan/model/estimate.h"
#include "pplan/model/memory.h"
#include "pplan/model/placement.h"
#include "pplan/report/design_report.h"
#include "pplan/report/explain.h"
#include "pplan/search/search.h"
#include "pplan/io/api.h"

#include <nlohmann/json.hpp>

namespace pplan {
namespace {

using testing::load_scenario;
using testing::scenario_from;
using testing::has_code;
using nlohmann::json;

Scenario mixtral(int gpus = 64, int seq_len = 4096) {
  return scenario_from(R"({"model":"mixtral-8x7b","cluster":{"gpu":"h100-sxm","gpus":)" +
                       std::to_string(gpus) + R"(,"gpus_per_node":8},"training":{"seq_len":)" +
                       std::to_string(seq_len) + R"(,"global_batch":512}})");
}

// Mixtral 8x7B by hand (Jiang et al. 2024 Table 1): h 4096, 32 layers, 32 heads of 128, 8 kv
// heads, 8 SwiGLU experts of 14336, top-2, vocabulary 32000, untied.
constexpr double kH = 4096, kF = 14336, kV = 32000;
constexpr double kMixtralAttention = kH * (2 * kH + 2 * 8 * 128);  // Q, O: h²; K, V: h·1024
constexpr double kMixtralExpert = 3 * kH * kF;
constexpr double kMixtralRouter = kH * 8;
constexpr double kMixtralNorms = 2 * kH;

TEST(MoeParams, MixtralTotalMatchesTheHandCountAndThePublished46_7B) {
  const double per_layer = kMixtralAttention + 8 * kMixtralExpert + kMixtralRouter + kMixtralNorms;
  const double want = 32 * per_layer + 2 * kV * kH + kH;  // embedding, LM head, final norm
  const double got = total_params(mixtral().model, 4096);
  EXPECT_DOUBLE_EQ(got, want);
  EXPECT_NEAR(got / 46.7e9, 1.0, 0.005);  // Mistral AI 2023: 46.7B total
}

TEST(MoeParams, MixtralActiveMatchesTheHandCountAndThePublished12_9B) {
  const double per_layer = kMixtralAttention + 2 * kMixtralExpert + kMixtralRouter + kMixtralNorms;
  const double want = 32 * per_layer + 2 * kV * kH + kH;
  const double got = active_params(mixtral().model, 4096);
  EXPECT_DOUBLE_EQ(got, want);
  EXPECT_NEAR(got / 12.9e9, 1.0, 0.005);  // Mistral AI 2023: 12.9B used per token
}

// Multi-head latent attention of one DeepSeek-V3 layer (DeepSeek-AI 2024 §2.1.1; config_671B.json):
// q down 7168→1536 (+ norm), q up 1536→128·192, kv down 7168→512+64 (+ norm), kv up
// 512→128·(128 + 128), output 128·128→7168.
constexpr double kDsH = 7168;
constexpr double kDsMla = kDsH * 1536 + 1536.0 * 128 * 192 + 1536 + kDsH * 576 + 512.0 * 128 * 256 +
                          512 + 128.0 * 128 * kDsH;

TEST(MoeParams, DeepSeekV3CountsMlaExactly) {
  const ModelSpec model = load_presets().models.at("deepseek-v3");
  // DeepSeek-AI 2024: 671B total, 37B activated (36.7B + the 0.9B embedding... as published).
  const double h = kDsH, expert = 3 * h * 2048;
  const double attention_norms = kDsMla + 2 * h;
  const double total =
      61 * attention_norms + 3 * 3 * h * 18432 + 58 * (257 * expert + h * 256) + 2 * 129280 * h + h;
  const double active =
      61 * attention_norms + 3 * 3 * h * 18432 + 58 * (9 * expert + h * 256) + 2 * 129280 * h + h;
  EXPECT_NEAR(kDsMla / 187.1e6, 1.0, 0.001);
  EXPECT_DOUBLE_EQ(total_params(model, 4096), total);
  EXPECT_DOUBLE_EQ(active_params(model, 4096), active);
  EXPECT_NEAR(total / 671e9, 1.0, 0.001);
  EXPECT_NEAR(active / 37e9, 1.0, 0.02);
}

TEST(MoeFlops, ModelFlopsCountActiveExpertsOnly) {
  // One 4096-token sequence: per layer 2·T·(attention + 2 experts + router) + 4·T·s·h; LM head
  // 2·T·h·V; training = 3 × forward.
  const double T = 4096;
  const double layer =
      2 * T * (kMixtralAttention + 2 * kMixtralExpert + kMixtralRouter) + 4 * T * T * kH;
  const double want = 3 * (32 * layer + 2 * T * kH * kV);
  EXPECT_DOUBLE_EQ(model_flops_per_step(mixtral().model, 4096, 1), want);
}

ParallelConfig config(int tp, int pp, int dp, int ep, int cp = 1, int zero = 1) {
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  p.ep = ep;
  p.zero = zero;
  p.sequence_parallel = tp > 1;
  return p;
}

TEST(MoeMemory, ExpertsShardOverEpTimesExpertTp) {
  const Scenario s = mixtral();
  const ParallelConfig p = config(2, 1, 32, 8);
  const StageSplit split = split_layers(32, 1);
  const StageParams params = stage_params_per_gpu(s, p, split, 0);
  // 8 experts / ep 8 = 1 expert per GPU, its matrices split over expert-TP = tp = 2.
  EXPECT_DOUBLE_EQ(params.expert, 32 * 1 * kMixtralExpert / 2);
}

TEST(MoeMemory, ZeroShardsExpertStatesOverTheExpertDataParallelGroup) {
  const Scenario s = mixtral();
  const ParallelConfig p = config(1, 1, 64, 8, 1, 1);  // expert-DP = 64 / 8 = 8
  const StageSplit split = split_layers(32, 1);
  const StageParams params = stage_params_per_gpu(s, p, split, 0);
  const StageMemory mem = stage_memory(s, p, split, 0);
  EXPECT_DOUBLE_EQ(mem.optimizer_bytes, 12.0 * (params.dense / 64 + params.expert / 8));
  EXPECT_DOUBLE_EQ(mem.weights_bytes, 2.0 * (params.dense + params.expert));
}

TEST(MoeMemory, MoeLayerKeepsDispatchedCopiesAndWhatTheFrameworkKeepsOfTheExpertOutputs) {
  // Mixtral, s 4096, b 1, t 1, flash, no recompute, per token in units of h bytes:
  // norms 4 + QKV input 2 + MLP input 2 | Q 2 + K,V 4·8/32 + attention out 2 + SwiGLU 6·2f/h
  // | dispatch copies 2k = 8 + 47 + 4 = 59 under Megatron-Core, which scales by the routing
  // probabilities inside the experts' activation and keeps no expert outputs (experts.py:817);
  // + the k bf16 outputs (2k) under DeepSpeed-MoE's einsum combine = 63; + their fp32 copy (4k)
  // under torchtitan's scaling after the experts = 67.
  Scenario s = mixtral(8);
  const ParallelConfig p = config(1, 1, 8, 1);
  const double sbh = 4096.0 * 4096.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), sbh * 59.0);
  s.training.framework = Framework::kDeepSpeed;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), sbh * 63.0);
  s.training.framework = Framework::kTorchtitan;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), sbh * 67.0);
}

TEST(MoeMemory, DenseLeadingLayersUseTheDenseWidth) {
  const Scenario s = scenario_from(R"({"model":"deepseek-v3","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":8}})");
  const ParallelConfig p = config(1, 1, 8, 1);
  const double sbh = 4096.0 * 7168.0;
  // Dense layer 0, in units of s·b·h bytes: norms 4 + attention and MLP inputs 2 + 2; MLA's
  // latents (q 1536, kv 512: their norm inputs and the up-projection inputs, 2 bytes each) and
  // the RoPE key (64); Q, K (128·192 each) and V (128·128); the attention output (128·128);
  // SwiGLU 6·18432. MoE layer 3: the same MLP width (9 × 2048) plus 2·k = 16 of dispatched
  // copies (Megatron-Core keeps no expert outputs).
  const double dense = 8 + (4.0 * 2048 + 2.0 * 64) / 7168 + 2.0 * 128 * (192 + 192 + 128) / 7168 +
                       2.0 * 128 * 128 / 7168 + 6.0 * 18432 / 7168;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), sbh * dense);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 3), sbh * (dense + 16));
}

TEST(MoeMemory, DeepSeekV3StageTwoHoldsTheMostExperts) {
  // 61 layers over 16 stages split 2/4/3: stage 1 holds layers 2–5 (layer 2 dense, 3 MoE),
  // stage 2 holds layers 6–9 (4 MoE) and must be among the stages checked for the peak.
  const Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  const ParallelConfig p = config(1, 16, 128, 64);
  const StageSplit split = split_layers(61, 16);
  ASSERT_EQ(split.first_layers, 2);
  ASSERT_EQ(split.middle_layers, 4);
  const auto stages = candidate_stages(s.model, split, 16);
  EXPECT_NE(std::find(stages.begin(), stages.end(), 2), stages.end());
  const double h = 7168, expert = 3 * h * 2048;
  const StageParams two = stage_params_per_gpu(s, p, split, 2);
  // 256 experts / ep 64 = 4 per GPU per layer; attention (MLA), norms, the shared expert and
  // the router are replicated over EP.
  EXPECT_DOUBLE_EQ(two.expert, 4 * 4 * expert);
  EXPECT_DOUBLE_EQ(two.dense, 4 * (kDsMla + 2 * h + expert + h * 256));
  EXPECT_GT(two.expert, stage_params_per_gpu(s, p, split, 1).expert);
}

TEST(MoePlacement, EpMustDivideExpertsAndDpTimesCp) {
  const Scenario s = mixtral();
  EXPECT_TRUE(has_code(evaluate(s, config(1, 1, 64, 16)), "plan.ep_not_divisible"));  // 8 % 16
  EXPECT_TRUE(
      has_code(evaluate(mixtral(48), config(4, 1, 12, 8)), "plan.ep_not_divisible"));  // 12 % 8
  EXPECT_FALSE(has_code(evaluate(s, config(1, 1, 64, 8)), "plan.ep_not_divisible"));
}

// Expert tensor parallelism apart from TP (Megatron-Core MoE parallel folding, arXiv 2504.14960):
// the expert part of a stage is etp × ep × expert-DP over the same tp·cp·dp GPUs.
TEST(MoeFolding, ExpertTpOneUnderTpTwoKeepsWholeExpertsAndShardsOverTheRest) {
  const Scenario s = mixtral();  // 64 GPUs
  ParallelConfig p = config(2, 1, 32, 8);
  p.etp = 1;
  const StageSplit split = split_layers(32, 1);
  const StageParams params = stage_params_per_gpu(s, p, split, 0);
  // 8 experts / ep 8 = 1 whole expert per GPU (etp 1), against half of one at etp = tp = 2.
  EXPECT_DOUBLE_EQ(params.expert, 32 * 1 * kMixtralExpert);
  // expert-DP = tp·cp·dp / (etp·ep) = 2·1·32 / (1·8) = 8.
  EXPECT_EQ(expert_dp(p), 8);
  p.zero = 1;
  const StageMemory mem = stage_memory(s, p, split, 0);
  EXPECT_DOUBLE_EQ(mem.optimizer_bytes, 12.0 * (params.dense / 32 + params.expert / 8));
  // EP follows expert-TP on the expert grid: stride etp = 1, so the 8 EP ranks share a node.
  const GroupPlacement ep_group = place_group(p, 8, Axis::kEp);
  EXPECT_EQ(ep_group.stride, 1);
  EXPECT_EQ(ep_group.nodes, 1);
  EXPECT_FALSE(has_code(evaluate(s, p), "plan.ep_spans_nodes"));
  EXPECT_TRUE(
      has_code(evaluate(s, config(2, 1, 32, 8)), "plan.ep_spans_nodes"));  // etp 2: stride 2
}

TEST(MoeFolding, TheExpertGridMustTileAStageAndTheExpertWidth) {
  const Scenario s = mixtral();
  ParallelConfig p = config(1, 1, 64, 8);
  p.etp = 16;  // etp·ep = 128 does not divide tp·cp·dp = 64
  EXPECT_TRUE(has_code(evaluate(s, p), "plan.ep_not_divisible"));
  p.etp = 3;  // 14336 % 3 != 0 (and 24 does not divide 64)
  EXPECT_TRUE(has_code(evaluate(s, p), "plan.etp_not_divisible"));
  p.etp = 8;  // 8·8 = 64 divides 64; 14336 / 8 = 1792
  EXPECT_FALSE(has_code(evaluate(s, p), "plan.ep_not_divisible"));
  EXPECT_FALSE(has_code(evaluate(s, p), "plan.etp_not_divisible"));
}

TEST(MoeFolding, ExpertTpGathersTheDispatchedCopiesAndEtpOneDoesNot) {
  // Mixtral on 64 H100, tp 2 (SP), ep 8, s 4096, b 1: each GPU sends its 4096/2 tokens' top-2
  // copies, 2048·2·4096·2 = 33,554,432 bytes per all-to-all; expert-TP 2 then all-gathers the
  // copies of its pair before the experts and reduce-scatters after, each a ring phase over the
  // 2·33,554,432-byte gathered buffer (comm.h reduce_scatter_s). At etp 1 those two are gone.
  const Scenario s = mixtral();
  const ParallelConfig with_etp = config(2, 1, 32, 8);
  ParallelConfig without = with_etp;
  without.etp = 1;
  const double a2a_bytes = 2048.0 * 2 * 4096 * 2;
  EXPECT_DOUBLE_EQ(message_sizes(s, with_etp).ep_bytes, a2a_bytes);
  const GpuSpec& gpu = s.cluster.gpu;
  const LayerTimes folded = layer_times(s, without, 0);
  const LayerTimes gathered = layer_times(s, with_etp, 0);
  EXPECT_DOUBLE_EQ(folded.ep_forward_s,
                   2.0 * all_to_all_s(a2a_bytes, place_group(without, 8, Axis::kEp), gpu));
  EXPECT_DOUBLE_EQ(gathered.ep_forward_s,
                   2.0 * all_to_all_s(a2a_bytes, place_group(with_etp, 8, Axis::kEp), gpu) +
                       2.0 * reduce_scatter_s(2.0 * a2a_bytes, place_ranks(1, 2, 8), gpu));
  // The routed experts run the same FLOPs either way: at etp 1 each GPU holds whole experts
  // and gets half the rows.
  EXPECT_GT(gathered.ep_forward_s, folded.ep_forward_s);
}

TEST(MoeFolding, SearchTriesExpertTpOneWhenTpIsFree) {
  const Scenario s = mixtral();
  EXPECT_TRUE(searches_expert_tp(s));
  SearchOptions options;
  options.top = 50;
  const SearchResult r = search(s, options);
  const bool folded = std::any_of(r.plans.begin(), r.plans.end(), [](const Estimate& e) {
    return e.parallel.tp > 1 && expert_tp(e.parallel) == 1;
  });
  EXPECT_TRUE(folded);
  // A pinned tp keeps expert TP = tp, Megatron's default.
  const Scenario pinned =
      scenario_from(R"({"model":"mixtral-8x7b","cluster":{"gpu":"h100-sxm","gpus":64},
      "training":{"seq_len":4096,"global_batch":512},"parallel":{"tp":2}})");
  EXPECT_FALSE(searches_expert_tp(pinned));
}

// NVIDIA's Qwen3-235B-A22B on 256 H100 (Megatron-Bridge 26.04 table): TP 2, PP 8, EP 32. A stage
// has tp·cp·dp = 2 · 1 · 16 = 32 GPUs: expert TP 2 × EP 32 = 64 cannot fold over them, expert
// TP 1 × EP 32 can, so the layout ran with expert TP 1 and pplan takes it so when etp is left
// out; where expert TP = TP folds (EP 8: 16 of 32), Megatron's default stays.
TEST(MoeFolding, APinnedTpTakesExpertTpOneWhereOnlyOneFolds) {
  const auto qwen3 = [](int ep, const char* command) {
    return json::parse(handle_request(R"({"command":")" + std::string(command) + R"(","scenario":{"model":"qwen3-235b-a22b",
        "cluster":{"gpu":"h100-sxm","gpus":256},"training":{"seq_len":4096,"global_batch":8192,"precision":"fp8"},
        "parallel":{"tp":2,"pp":8,"dp":16,"cp":1,"ep":)" + std::to_string(ep) + R"(,"micro_batch":1,"zero":1}}})"));
  };
  const json planned = qwen3(32, "plan");
  ASSERT_TRUE(planned["ok"].get<bool>()) << planned.dump().substr(0, 300);
  ASSERT_FALSE(planned["plans"].empty()) << planned.dump().substr(0, 600);
  EXPECT_EQ(planned["plans"][0]["parallel"]["etp"].get<int>(), 1);
  const json evaluated = qwen3(32, "evaluate");
  EXPECT_TRUE(evaluated["fits"].get<bool>()) << evaluated.dump().substr(0, 600);
  EXPECT_EQ(evaluated["parallel"]["etp"].get<int>(), 1);
  EXPECT_NE(evaluated.dump().find("etp 1 (expert TP 2 cannot fold ep 32 over tp·cp·dp)"), std::string::npos);
  const json folds = qwen3(8, "plan");
  ASSERT_FALSE(folds["plans"].empty());
  EXPECT_EQ(folds["plans"][0]["parallel"]["etp"].get<int>(), 2);
}

TEST(MoeFolding, EtpOnADenseModelIsRefusedAtParse) {
  try {
    scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":8},
        "training":{"seq_len":4096,"global_batch":8},"parallel":{"etp":1}})");
    FAIL() << "etp on a dense model was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/parallel/etp"), std::string::npos) << e.what();
  }
}

TEST(MoePlacement, EpOnADenseModelIsAnError) {
  const Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":8}})");
  EXPECT_TRUE(has_code(evaluate(s, config(1, 1, 8, 2)), "plan.ep_without_moe"));
}

TEST(MoePlacement, EpBeyondOneNodeWarnsButStaysFeasible) {
  const Scenario s = mixtral();
  const Estimate inside = evaluate(s, config(1, 1, 64, 8));  // 8 ranks, stride 1: one node
  EXPECT_FALSE(has_code(inside, "plan.ep_spans_nodes"));
  const Estimate across = evaluate(s, config(2, 1, 32, 8));  // stride 2 -> 2 nodes
  EXPECT_TRUE(has_code(across, "plan.ep_spans_nodes"));
  for (const Diagnostic& d : across.diagnostics) {
    if (d.code == "plan.ep_spans_nodes") EXPECT_EQ(d.severity, Severity::kWarning);
  }
}

TEST(MoeTraffic, AllToAllBytesFollowTokensTimesTopKTimesHidden) {
  // DeepSeek-V3, tp 1, pp 16, ep 64, no recompute: 4 all-to-alls per MoE layer per micro-batch
  // of 4096·8·7168·2 = 469,762,048 bytes; 56/64 leaves the node, 7/64 rides NVLink. The
  // busiest stage holds 4 MoE layers; m = 15360 / 128 = 120.
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = config(1, 16, 128, 64);
  const Estimate e = evaluate(s, p);
  double network = -1, nvlink = -1;
  for (const AxisTraffic& t : communication_per_step(s, e)) {
    if (t.axis == "EP") {
      network = t.network_bytes;
      nvlink = t.nvlink_bytes;
    }
  }
  const double per_a2a = 4096.0 * 8 * 7168 * 2;
  EXPECT_DOUBLE_EQ(per_a2a, 469762048.0);
  EXPECT_DOUBLE_EQ(network, 120.0 * 4 * 4 * per_a2a * 56 / 64);
  EXPECT_DOUBLE_EQ(nvlink, 120.0 * 4 * 4 * per_a2a * 7 / 64);
}

TEST(MoeTraffic, AllToAllTimeIsBoundByTheSlowerOfNvlinkAndTheNic) {
  // Uniform routing over n ranks, k per node: (k−1)/n of the bytes stay on NVLink, (n−k)/n
  // leave over the GPU's own NIC, both at once.
  const GpuSpec gpu = load_presets().gpus.at("h100-sxm");
  const double bytes = 469762048.0;
  const GroupPlacement inside = place_ranks(1, 8, 8);
  EXPECT_DOUBLE_EQ(all_to_all_s(bytes, inside, gpu),
                   7.0 / 8 * bytes / nvlink(gpu).bytes_per_s + nvlink(gpu).latency_s);
  const GroupPlacement across = place_ranks(1, 64, 8);
  ASSERT_EQ(across.nodes, 8);
  const double on = 7.0 / 64 * bytes / nvlink(gpu).bytes_per_s + nvlink(gpu).latency_s;
  const double off = 56.0 / 64 * bytes / network(gpu).bytes_per_s + network(gpu).latency_s;
  EXPECT_DOUBLE_EQ(all_to_all_s(bytes, across, gpu), std::max(on, off));
  EXPECT_GT(all_to_all_s(bytes, across, gpu), 5 * all_to_all_s(bytes, inside, gpu));
}

TEST(MoeSearch, CoversEpAndRespectsItsRules) {
  const Scenario s = mixtral(64);
  SearchOptions options;
  options.top = 50;
  const auto start = std::chrono::steady_clock::now();
  const SearchResult r = search(s, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.plans.empty());
  bool some_ep = false;
  for (const Estimate& e : r.plans) {
    EXPECT_EQ(8 % e.parallel.ep, 0);
    // Parallel folding: etp·ep tiles a stage's tp·cp·dp GPUs.
    EXPECT_EQ(
        (e.parallel.tp * e.parallel.cp * e.parallel.dp) % (expert_tp(e.parallel) * e.parallel.ep),
        0);
    some_ep = some_ep || e.parallel.ep > 1;
  }
  EXPECT_TRUE(some_ep);
  EXPECT_GT(r.stats.rejected_by_reason.count("plan.ep_not_divisible"), 0u);
  EXPECT_LT(seconds, 10.0);
}

TEST(DeepSeekV3, PublishedLayoutFitsOnH800AndIsExplained) {
  // DeepSeek-AI 2024 §3.1–3.2: 2048 H800, PP 16, EP 64 (8 nodes), ZeRO-1, no TP.
  const Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.nvlink_bytes_per_s, 200e9);  // 400 GB/s bidirectional
  SearchOptions options;
  options.top = 1;
  const SearchResult r = search(s, options);
  ASSERT_FALSE(r.plans.empty());
  const Estimate& best = r.plans.front();
  EXPECT_TRUE(best.feasible);
  EXPECT_EQ(best.parallel.tp, 1);
  EXPECT_EQ(best.parallel.pp, 16);
  EXPECT_EQ(best.parallel.ep, 64);
  EXPECT_EQ(best.parallel.dp, 128);
  EXPECT_EQ(best.parallel.zero, 1);
  EXPECT_GT(best.time.ep_comm_s, 0.0);
  const Explanation x = explain(s, r);
  ASSERT_GE(x.steps.size(), 4u);
  const std::string& step4 = x.steps[3].text;
  EXPECT_NE(step4.find("EP = 64"), std::string::npos) << step4;
  EXPECT_NE(step4.find("256 experts"), std::string::npos) << step4;
  EXPECT_NE(step4.find("all-to-all"), std::string::npos) << step4;
  // 64 ranks over H800 nodes of 8: the group spans 8 NVLink domains, 56/64 of it off-node.
  EXPECT_NE(step4.find("8 NVLink domains"), std::string::npos) << step4;
  EXPECT_NE(step4.find("56/64"), std::string::npos) << step4;
  std::printf(
      "[ DeepSeek-V3 ] step %.2f s, MFU %.3f (fp8 peak), %.1f days for 14.8T tokens "
      "(published: 2.664M H800-hours = %.1f days on 2048 GPUs)\n",
      best.step_time_s, best.mfu, best.days_to_train, 2.664e6 / 2048 / 24);
}

TEST(LongContext, CpSplitsActivationsBySequence) {
  // Llama 3 405B at 128K, tp 8 + SP, cp 16: each GPU holds s/c = 8192 tokens; per layer
  // (8 + 2 + 4·8/128 + 2 + 6·53248/16384)/8 = 31.75/8 bytes per token per h.
  const Scenario s = load_scenario("examples/llama3-405b-128k-16384-h100.json");
  ParallelConfig p = config(8, 16, 8, 1, 16, 2);
  const double sbh = 8192.0 * 16384.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p), sbh * 31.75 / 8.0);
}

TEST(LongContext, CpRingBytesAreKvChunksRoundTheRing) {
  // K and V of 8192 tokens, 8 kv heads of 128, split over tp 8, bf16: 8192·2·1024/8·2 bytes,
  // 3·(16−1) ring steps per layer per micro-batch; CP ranks sit on 16 different nodes.
  const Scenario s = load_scenario("examples/llama3-405b-128k-16384-h100.json");
  ParallelConfig p = config(8, 16, 8, 1, 16, 2);
  const Estimate e = evaluate(s, p);
  const double chunk = 8192.0 * 2 * 1024 / 8 * 2;
  const double layers = e.split.max_layers();
  for (const AxisTraffic& t : communication_per_step(s, e)) {
    if (t.axis != "CP") continue;
    EXPECT_DOUBLE_EQ(t.network_bytes, e.microbatches * layers * 3 * 15 * chunk);
    EXPECT_DOUBLE_EQ(t.nvlink_bytes, 0.0);
  }
}

TEST(LongContext, Llama3At128kFitsAndItsMfuIsWithin15PercentOf38) {
  // Llama Team 2024 Table 4: 405B, seq 131072, TP 8, CP 16, PP 16, DP 8 on 16,384 H100s,
  // MFU 38% (BF16 model FLOPs). As tests/validation/accuracy does: the planner chooses
  // the unpublished fields (vpp, micro-batch, recompute) and its best plan is compared, by
  // pplan's convention (the full score matrix counted, Narayanan et al. 2021 eq. 3); at 128K
  // the causal count (mfu_causal) is ~0.7 of it.
  const Scenario s = load_scenario("examples/llama3-405b-128k-16384-h100.json");
  SearchOptions options;
  options.top = 1;
  const SearchResult r = search(s, options);
  ASSERT_FALSE(r.plans.empty()) << "the published layout must fit";
  const Estimate& best = r.plans.front();
  EXPECT_TRUE(best.feasible);
  EXPECT_EQ(best.parallel.cp, 16);
  std::printf(
      "[ Llama 3 128K ] predicted MFU %.4f causal (%.4f full; published 0.38), vpp %d, step %.2f "
      "s\n",
      best.mfu_causal, best.mfu, best.parallel.vpp, best.step_time_s);
  EXPECT_NEAR(best.mfu / 0.38, 1.0, 0.15);
  EXPECT_LT(best.mfu_causal, best.mfu);
}

}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

// Node-limited routing and the deduplicating (flex / DeepEP) dispatcher: DeepSeek-V3 §2.1.2
// (each token to at most M = 4 nodes) and §3.2.2 (a token crosses InfiniBand once per node and
// is forwarded over NVLink there).
TEST(MoeRouting, RemoteNodesPerTokenByHand) {
  MoeSpec moe;
  moe.experts = 256;
  moe.top_k = 8;
  // Unlimited on 8 nodes: 8 copies over 8 nodes land on 8·(1 − (7/8)^8) = 5.2513 distinct nodes,
  // the token's own with probability 5.2513/8.
  const double unlimited = 8.0 * (1.0 - std::pow(7.0 / 8.0, 8));
  EXPECT_NEAR(remote_nodes_per_token(moe, 8), unlimited * 7.0 / 8.0, 1e-12);
  // 8 groups, top-4 (one group per node): 4 reachable nodes, 4·(1 − (3/4)^8) = 3.5995 distinct.
  moe.groups = 8;
  moe.group_top_k = 4;
  const double limited = 4.0 * (1.0 - std::pow(3.0 / 4.0, 8));
  EXPECT_NEAR(remote_nodes_per_token(moe, 8), limited * 7.0 / 8.0, 1e-12);
  EXPECT_NEAR(limited * 7.0 / 8.0, 3.1496, 1e-4);
  // EP inside one node (or one NVLink domain): nothing crosses the network.
  EXPECT_EQ(remote_nodes_per_token(moe, 1), 0.0);
}

TEST(MoeRouting, FlexDispatchSendsEachTokenOncePerRemoteNode) {
  // DeepSeek-V3 on 2048 H800 (tp 1, ep 64 over 8 nodes of 8): each GPU holds 4096 tokens of
  // 7168; the all-to-all sends 7/8 of the 8 copies over InfiniBand, flex 3.15 per token.
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = resolve_defaults(s);
  p.schedule = ScheduleKind::kOneFOneB;  // the all-to-all exposed, as it runs without DualPipe
  const GroupPlacement ep = place_group(p, s.cluster, Axis::kEp);
  ASSERT_EQ(ep.nodes, 8);
  const double token_bytes = 4096.0 * 7168 * 2;
  const double remote = remote_nodes_per_token(*s.model.moe, 8);
  const GpuSpec& gpu = s.cluster.gpu;
  const double network_s = token_bytes * remote / network(gpu).bytes_per_s + network(gpu).latency_s;
  const double nvlink_s = token_bytes * 8 * 63.0 / 64 / nvlink(gpu).bytes_per_s + nvlink(gpu).latency_s;
  EXPECT_DOUBLE_EQ(deduplicated_all_to_all_s(token_bytes, 8, remote, ep, gpu), std::max(network_s, nvlink_s));
  s.training.moe_dispatcher = MoeDispatcher::kAllToAll;
  const double all_to_all = layer_times(s, p, 5).ep_forward_s;
  s.training.moe_dispatcher = MoeDispatcher::kFlex;
  const LayerTimes flex = layer_times(s, p, 5);
  EXPECT_DOUBLE_EQ(flex.ep_forward_s, 2.0 * std::max(network_s, nvlink_s));
  EXPECT_LT(flex.ep_forward_s, 0.5 * all_to_all);  // 3.15 against 7 copies over the NIC
}

TEST(MoeRouting, OverlappedAllToAllHidesBehindTheOtherPassesCompute) {
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = resolve_defaults(s);
  p.schedule = ScheduleKind::kOneFOneB;  // without DualPipe's own overlap
  s.training.moe_dispatcher = MoeDispatcher::kFlex;
  const LayerTimes alone = layer_times(s, p, 5);
  s.training.overlap_moe_expert_parallel_comm = true;
  const LayerTimes hidden = layer_times(s, p, 5);
  const double comm = alone.ep_forward_s + alone.ep_backward_s;
  const double window = alone.gemm_forward_s + alone.attention_forward_s + alone.memory_forward_s +
                        alone.gemm_backward_s + alone.attention_backward_s + alone.memory_backward_s;
  EXPECT_DOUBLE_EQ(hidden.ep_forward_s + hidden.ep_backward_s,
                   exposed_after_overlap_s(comm, window, s.calibration.overlap_slowdown));
  EXPECT_LT(hidden.ep_forward_s, alone.ep_forward_s);
}

// The host launches each local expert's GEMMs (and FP8 casts) one by one in Megatron-Core
// (Transformer Engine's multi-stream cuBLAS grouped GEMM), after the dispatcher's host sync:
// 32 local experts under FP8 cost 32 · 4 launches of the forward, and the experts' section of
// the forward waits for them instead of hiding them behind the rest of the layer.
TEST(MoeHost, EachLocalExpertCostsItsLaunchesAfterTheDispatcherSync) {
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  ParallelConfig p = resolve_defaults(s);
  p.schedule = ScheduleKind::kOneFOneB;
  p.ep = 8;  // 256 experts / 8 = 32 per GPU
  const double launch_s = s.calibration.host_kernel_s;
  ASSERT_EQ(s.training.framework, Framework::kMegatronCore);
  ASSERT_EQ(s.training.precision, Precision::kFp8);
  const LayerTimes megatron = layer_times(s, p, 5);
  EXPECT_DOUBLE_EQ(megatron.host_expert_forward_s, 32 * 4 * launch_s);
  EXPECT_GT(megatron.expert_gemm_forward_s, 0.0);
  // Serial: at least the rest of the pass's GPU work plus the experts' launches.
  EXPECT_GE(megatron.forward_s(),
            megatron.gpu_forward_s() - megatron.expert_gemm_forward_s + megatron.host_expert_forward_s);
  EXPECT_DOUBLE_EQ(megatron.host_backward_s, 2 * megatron.host_forward_s);

  p.ep = 64;  // 4 per GPU: an eighth of the launches
  EXPECT_DOUBLE_EQ(layer_times(s, p, 5).host_expert_forward_s, 4 * 4 * launch_s);

  // torchtitan's torch._grouped_mm: one launch for all experts, none per expert.
  p.ep = 8;
  Scenario titan = s;
  titan.training.framework = Framework::kTorchtitan;
  const LayerTimes grouped = layer_times(titan, p, 5);
  EXPECT_EQ(grouped.host_expert_forward_s, 0.0);
  // DeepSpeed-MoE loops over its experts (3 launches each) but needs no host sync to do so.
  Scenario deepspeed = s;
  deepspeed.training.framework = Framework::kDeepSpeed;
  const LayerTimes looped = layer_times(deepspeed, p, 5);
  EXPECT_EQ(looped.host_expert_forward_s, 0.0);
  EXPECT_NEAR(looped.host_forward_s - grouped.host_forward_s,
              32 * 3 * launch_s + (kernels_per_layer_forward(Framework::kDeepSpeed) -
                                   kernels_per_layer_forward(Framework::kTorchtitan)) * launch_s,
              1e-12);
  // CUDA graphs replay every launch without the host.
  s.training.cuda_graphs = true;
  const LayerTimes graphed = layer_times(s, p, 5);
  EXPECT_EQ(graphed.host_forward_s + graphed.host_expert_forward_s + graphed.expert_gemm_forward_s, 0.0);
  EXPECT_EQ(graphed.forward_s(), graphed.gpu_forward_s());
}

// Published: Qwen3-30B-A3B on 8 B200, MXFP8, EP 8 (16 experts per GPU), GBS 512 of 4,096
// tokens: 9,691 tokens/s/GPU at micro-batch 1 (Megatron-Bridge 26.02) and 26,695 at
// micro-batch 4 (26.02.01), NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md
// lines 530 and 444 at 067f987df; the other rows the two releases share agree within 2%. A
// micro-batch of 4,096 tokens gives each expert 256 rows: the launches, not the GEMMs, set
// the pace, so a quarter of the micro-batch runs at 0.36 of the throughput, not 0.74 as
// pricing the GPU's work alone says.
TEST(MoeHost, SmallMicroBatchesOfManyLocalExpertsAreHostBoundAsPublished) {
  auto tokens_per_gpu_s = [](int micro_batch) {
    const Scenario s = scenario_from(
        R"({"model":"qwen3-30b-a3b","cluster":{"gpu":"b200","gpus":8,"gpus_per_node":8},
            "training":{"seq_len":4096,"global_batch":512,"precision":"fp8","framework":"megatron-core",
                        "fp8_recipe":"mxfp8","fp8_param_gather":true},
            "parallel":{"tp":1,"pp":1,"cp":1,"dp":8,"ep":8,"micro_batch":)" +
        std::to_string(micro_batch) + R"(,"zero":1,"recompute":"none"}})");
    const Estimate e = evaluate(s, resolve_defaults(s));
    EXPECT_TRUE(e.feasible);
    return e.tokens_per_s / 8;
  };
  const double published_ratio = 9691.0 / 26695.0;
  EXPECT_NEAR(tokens_per_gpu_s(1) / tokens_per_gpu_s(4) / published_ratio, 1.0, 0.15);

  // The explanation names the remedy the launches call for.
  const Scenario pinned = scenario_from(
      R"({"model":"qwen3-30b-a3b","cluster":{"gpu":"b200","gpus":8,"gpus_per_node":8},
          "training":{"seq_len":4096,"global_batch":512,"precision":"fp8","framework":"megatron-core"},
          "parallel":{"tp":1,"pp":1,"cp":1,"dp":8,"ep":8,"micro_batch":1,"zero":1,"recompute":"none"}})");
  SearchOptions options;
  options.top = 1;
  const Explanation x = explain(pinned, search(pinned, options));
  ASSERT_TRUE(x.has_plan);
  EXPECT_NE(x.steps.back().text.find("fewer experts per GPU (a larger EP)"), std::string::npos) << x.steps.back().text;
}

TEST(MoeRouting, GroupsParseImportAndAreRefusedWhereTheyCannotRun) {
  // Both or neither, groups dividing the experts; the switches need experts.
  const std::string base = R"({"cluster":{"gpu":"h100-sxm","gpus":64},"training":{"seq_len":4096,"global_batch":64},)";
  auto error_path = [&](const std::string& doc) {
    try {
      scenario_from(doc);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string moe = R"("moe":{"experts":64,"top_k":4,"expert_ffn_hidden":1024)";
  const std::string model = R"("model":{"layers":8,"hidden":2048,"heads":16,"ffn_hidden":8192,"vocab":32000,"activation":"swiglu",)";
  EXPECT_NE(error_path(base + model + moe + R"(,"groups":8}}})").find("/model/moe/group_top_k"), std::string::npos);
  EXPECT_NE(error_path(base + model + moe + R"(,"groups":6,"group_top_k":2}}})").find("/model/moe/groups"), std::string::npos);
  EXPECT_EQ(error_path(base + model + moe + R"(,"groups":8,"group_top_k":2}}})"), "accepted");
  EXPECT_NE(error_path(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":8,"moe_dispatcher":"flex"}})").find("/training/moe_dispatcher"),
            std::string::npos);
  // The DeepSeek-V3 preset carries config_671B's n_group 8, topk_group 4.
  const Scenario ds = load_scenario("examples/deepseek-v3-2048-h800.json");
  EXPECT_EQ(ds.model.moe->groups, 8);
  EXPECT_EQ(ds.model.moe->group_top_k, 4);
}

}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

// Selective recomputation by module (Megatron --recompute-modules), on the Mixtral MoE layer of
// MoeMemory.MoeLayerKeepsDispatchedCopiesAndWhatTheFrameworkKeepsOfTheExpertOutputs: 59·s·b·h
// bytes kept without it under Megatron-Core (norm inputs 4, block inputs 2 + 2 | Q 2, K and V 1,
// attention output 2 | SwiGLU 6·2f/h = 42 | dispatch copies 4).
TEST(RecomputeModules, EachModuleDropsWhatItsRerunRecreates) {
  const Scenario s = scenario_from(R"({"model":"mixtral-8x7b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":512}})");
  ParallelConfig p;
  p.dp = 8;
  const double sbh = 4096.0 * 4096.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), 59.0 * sbh);
  p.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), 59.0 * sbh);  // core_attn: flash keeps no scores
  // layernorm: the two norms' outputs (2 + 2); moe_act: the routed experts' activation output,
  // 2 bytes · 14336 · top-2 / 4096 = 14.
  p.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), (59.0 - 4 - 14) * sbh);
  // moe: the whole block's inside (42) and its dispatch (4).
  p.recompute_modules = kRecomputeMoe;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p, 0), (59.0 - 42 - 4) * sbh);
}

TEST(RecomputeModules, EachModuleCostsItsForwardRerun) {
  const Scenario s = scenario_from(R"({"model":"mixtral-8x7b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":512}})");
  ParallelConfig p;
  p.dp = 8;
  p.recompute = Recompute::kSelective;
  p.recompute_modules = kRecomputeLayernorm;
  const LayerTimes norms = layer_times(s, p, 0);
  // Two norms, each reading and writing 4096 bf16 values per token, over HBM at its efficiency.
  const Device device = device_of(s);
  EXPECT_DOUBLE_EQ(norms.recompute_s, stream_s(4096.0 * 4.0 * 4096 * 2, device));
  p.recompute_modules = kRecomputeMoe;
  const LayerTimes block = layer_times(s, p, 0);
  EXPECT_DOUBLE_EQ(block.recompute_s, block.module_forward_s[module_index(kRecomputeMoe)]);
  EXPECT_GT(block.recompute_s, 0.3 * block.gemm_forward_s);  // the experts are most of the layer
  p.recompute_modules = kRecomputeMoe | kRecomputeLayernorm | kRecomputeCoreAttn;
  EXPECT_DOUBLE_EQ(layer_times(s, p, 0).recompute_s,
                   block.recompute_s + norms.recompute_s + block.attention_forward_s);
}

// gpt-oss-120b on 8 H100s, EP 8: each GPU's 4,096 tokens reach its experts as 4 copies of
// 2,880 values. Megatron-Core adds the experts' output bias outside the grouped GEMM, one local
// expert at a time in fp32 (framework.h): 28 bytes per value forward, 36 backward, 2 kernels
// per local expert (16 here); torchtitan's layers are priced without it.
TEST(ExpertBias, MegatronStreamsTheRoutedExpertsOutputBiasInFp32) {
  const std::string text = R"({"model":"gpt-oss-120b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":64,"framework":"megatron-core"},
      "parallel":{"tp":1,"pp":1,"dp":8,"ep":8,"micro_batch":1,"zero":1}})";
  Scenario with = scenario_from(text);
  ASSERT_TRUE(with.model.linear_bias);
  Scenario without = with;
  without.model.linear_bias = false;
  const ParallelConfig p = resolve_defaults(with);
  const LayerTimes a = layer_times(with, p, 0), b = layer_times(without, p, 0);
  const Device device = device_of(with);
  const double values = 4096.0 * 4 * 2880;
  EXPECT_NEAR(a.memory_forward_s - b.memory_forward_s, stream_s(28.0 * values, device), 1e-12);
  EXPECT_NEAR(a.memory_backward_s - b.memory_backward_s, stream_s(36.0 * values, device), 1e-12);
  const double host_kernel_s = with.calibration.host_kernel_s;
  EXPECT_NEAR(a.host_forward_s - b.host_forward_s, 16.0 * 2.0 * host_kernel_s, 1e-12);
  with.training.framework = without.training.framework = Framework::kTorchtitan;
  EXPECT_DOUBLE_EQ(layer_times(with, p, 0).memory_forward_s, layer_times(without, p, 0).memory_forward_s);
}

// gpt-oss's clamped SwiGLU: Megatron clamps the [tokens·top_k, 2·2880] expert input before its
// fused activation (chunk, two clamps, cat): 8 bytes per value forward, 6 backward, 3 kernels.
TEST(ClampedSwiglu, MegatronStreamsTheClampsBeforeItsFusedActivation) {
  const std::string text = R"({"model":"gpt-oss-120b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":64,"framework":"megatron-core"},
      "parallel":{"tp":1,"pp":1,"dp":8,"ep":8,"micro_batch":1,"zero":1}})";
  Scenario clamped = scenario_from(text);
  ASSERT_EQ(clamped.model.activation, Activation::kClampedSwiglu);
  Scenario plain = clamped;
  plain.model.activation = Activation::kSwiglu;
  const ParallelConfig p = resolve_defaults(clamped);
  const LayerTimes a = layer_times(clamped, p, 0), b = layer_times(plain, p, 0);
  const Device device = device_of(clamped);
  const double inputs = 4096.0 * 4 * 2 * 2880;
  EXPECT_NEAR(a.memory_forward_s - b.memory_forward_s, stream_s(8.0 * inputs, device), 1e-12);
  EXPECT_NEAR(a.memory_backward_s - b.memory_backward_s, stream_s(6.0 * inputs, device), 1e-12);
  EXPECT_NEAR(a.host_forward_s - b.host_forward_s, 3.0 * clamped.calibration.host_kernel_s, 1e-12);
  EXPECT_DOUBLE_EQ(a.gemm_forward_s, b.gemm_forward_s);  // the same matrices
  clamped.training.framework = plain.training.framework = Framework::kTorchtitan;
  EXPECT_DOUBLE_EQ(layer_times(clamped, p, 0).memory_forward_s, layer_times(plain, p, 0).memory_forward_s);
}

TEST(RecomputeModules, ParsedAsMegatronNamesThemAndRefusedWhereAbsent) {
  const std::string head = R"({"model":"mixtral-8x7b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":4096,"global_batch":512},"parallel":)";
  const Scenario s = scenario_from(head + R"({"recompute_modules":["moe_act","layernorm"]}})");
  EXPECT_EQ(*s.parallel.recompute, Recompute::kSelective);  // the modules set selective
  EXPECT_EQ(*s.parallel.recompute_modules, unsigned(kRecomputeMoeAct | kRecomputeLayernorm));
  auto error = [&](const std::string& parallel) {
    try {
      scenario_from(head + parallel + "}");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error(R"({"recompute_modules":["mla_up_proj"]})").find("/parallel/recompute_modules/0"), std::string::npos);
  EXPECT_NE(error(R"({"recompute":"full","recompute_modules":["moe"]})").find("/parallel/recompute_modules"),
            std::string::npos);
  EXPECT_NE(error(R"({"recompute_modules":["moe","attn"]})").find("/parallel/recompute_modules/1"), std::string::npos);
  EXPECT_NE(error(R"({"recompute_modules":["moe","moe"]})").find("listed twice"), std::string::npos);
}

}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

TEST(RecomputeModules, TheSearchPricesThePinnedModules) {
  // DeepSeek-V3 on 2048 H800 with DeepSeek's layout: rerunning the whole MoE block, the norms and
  // MLA's up-projections leaves 35 GB per GPU, which evaluate and the search must agree on (the
  // search once priced the default modules' memory and found nothing that fits).
  Scenario s = load_scenario("examples/deepseek-v3-2048-h800.json");
  s.parallel.recompute = Recompute::kSelective;
  s.parallel.recompute_modules = kRecomputeMoe | kRecomputeMlaUpProj | kRecomputeLayernorm;
  const SearchResult r = search(s, SearchOptions{});
  ASSERT_FALSE(r.plans.empty());
  const Estimate& plan = r.plans.front();
  EXPECT_EQ(plan.parallel.recompute_modules, unsigned(kRecomputeMoe | kRecomputeMlaUpProj | kRecomputeLayernorm));
  EXPECT_DOUBLE_EQ(plan.memory.total_bytes, evaluate(s, plan.parallel).memory.total_bytes);
  EXPECT_LT(plan.memory.total_bytes, 0.9 * s.cluster.gpu.memory_bytes);
}

}  // namespace
}  // namespace pplan
