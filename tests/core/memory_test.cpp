// Memory model: the method's worked example (examples/gpt3-175b-1024-a100.json) and Korthikanti et al. 2022's
// activation formulas, each derived by hand below.
#include "pplan/model/memory.h"

#include <gtest/gtest.h>

#include "pplan/model/compute.h"
#include "pplan/model/estimate.h"
#include "../support/scenario_files.h"

namespace pplan {
namespace {

using testing::load_scenario;
using testing::scenario_from;

// A GPT-style layer (GeLU, f = 4h, dropout, MHA), Korthikanti's setting, without flash
// attention so the a·s² scores are stored: s = 2048, h = 12288, a = 96, b = 1.
Scenario korthikanti_gpt(bool flash) {
  Scenario s = scenario_from(R"({"model":"gpt3-175b","cluster":{"gpu":"a100-80gb","gpus":8},
      "training":{"seq_len":2048,"global_batch":8}})");
  s.training.flash_attention = flash;
  return s;
}

constexpr double kS = 2048, kB = 1, kH = 12288, kA = 96;
constexpr double kSbh = kS * kB * kH;

ParallelConfig tp_config(int tp, bool sp, Recompute recompute) {
  ParallelConfig p;
  p.tp = tp;
  p.sequence_parallel = sp;
  p.recompute = recompute;
  return p;
}

TEST(ActivationMemory, NoParallelismNoRecomputeIsSbhTimes34Plus5asOverH) {
  const double want = kSbh * (34.0 + 5.0 * kA * kS / kH);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(1, false, Recompute::kNone)), want);
}

TEST(ActivationMemory, TensorParallelWithoutSpReplicatesTenSbh) {
  const double t = 8;
  const double want = kSbh * (10.0 + 24.0 / t + 5.0 * kA * kS / (kH * t));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, false, Recompute::kNone)), want);
}

TEST(ActivationMemory, SequenceParallelDividesEverythingByT) {
  const double want = kSbh * (34.0 + 5.0 * kA * kS / kH) / 8.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, true, Recompute::kNone)), want);
}

TEST(ActivationMemory, SelectiveRecomputeWithSpIs34SbhOverT) {
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, true, Recompute::kSelective)),
                   34.0 * kSbh / 8.0);
}

TEST(ActivationMemory, SelectiveRecomputeWithoutSpIs10Plus24OverT) {
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, false, Recompute::kSelective)),
                   kSbh * (10.0 + 24.0 / 8.0));
}

TEST(ActivationMemory, FullRecomputeKeepsOnlyTheLayerInput) {
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, false, Recompute::kFull)),
                   2.0 * kSbh);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(false), tp_config(8, true, Recompute::kFull)),
                   2.0 * kSbh / 8.0);
}

TEST(ActivationMemory, FlashAttentionNeverStoresTheScores) {
  EXPECT_DOUBLE_EQ(layer_activation_bytes(korthikanti_gpt(true), tp_config(8, true, Recompute::kNone)),
                   34.0 * kSbh / 8.0);
}

TEST(ActivationMemory, LlamaLayerCountsGqaAndFusedSwiglu) {
  // Llama 3 405B, s 8192, b 1, t 8, SP: norms 4 + QKV in 2 + MLP in 2 (no dropout) + Q 2 +
  // K,V 4·(8/128) + attention out 2 + SwiGLU 6·53248/16384 = 31.75 bytes per s·b·h, / t.
  const Scenario s = scenario_from(R"({"model":"llama3-405b","cluster":{"gpu":"h100-sxm","gpus":8},
      "training":{"seq_len":8192,"global_batch":8}})");
  const double sbh = 8192.0 * 16384.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, tp_config(8, true, Recompute::kNone)), sbh * 31.75 / 8.0);
}

TEST(ActivationMemory, ContextParallelDividesTheSequence) {
  const Scenario s = scenario_from(R"({"model":"llama3-405b","cluster":{"gpu":"h100-sxm","gpus":128},
      "training":{"seq_len":131072,"global_batch":8}})");
  ParallelConfig p = tp_config(8, true, Recompute::kNone);
  p.cp = 16;
  const double sbh = 131072.0 / 16.0 * 16384.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(s, p), sbh * 31.75 / 8.0);
}

// The method's worked example: GPT-3 175B on 1024 A100-80GB, t 8, p 8, N 16, b 1, SP +
// selective recompute (examples/gpt3-175b-1024-a100.json).
class WorkedExample : public ::testing::Test {
 protected:
  Scenario scenario = load_scenario("examples/gpt3-175b-1024-a100.json");
  Estimate estimate = evaluate(scenario, resolve_defaults(scenario));
};

TEST_F(WorkedExample, ModelStatesAre2Point8TbSoAtLeast35Gpus) {
  EXPECT_DOUBLE_EQ(estimate.method.model_states_bytes, 2.8e12);
  EXPECT_EQ(estimate.method.min_gpus_per_replica, 35);
}

TEST_F(WorkedExample, PipelineOf4DoesNotFitAt87Point5Gb) {
  EXPECT_EQ(estimate.method.half_pp, 4);
  EXPECT_DOUBLE_EQ(estimate.method.half_pp_model_states_bytes_per_gpu, 87.5e9);
  EXPECT_FALSE(estimate.method.half_pp_fits);
}

TEST_F(WorkedExample, PipelineOf8Fits43Point75PlusActivations) {
  EXPECT_DOUBLE_EQ(estimate.method.model_states_bytes_per_gpu, 43.75e9);
  // 34·s·b·h·L/t = 34 · 2048 · 12288 · 96 / 8 = 10.267e9 bytes.
  EXPECT_DOUBLE_EQ(estimate.method.activations_bytes, 34.0 * 2048 * 12288 * 96 / 8);
  EXPECT_NEAR(estimate.method.activations_bytes / 1e9, 10.27, 0.005);
  EXPECT_NEAR(estimate.method.total_bytes / 1e9, 54.0, 0.05);
  EXPECT_TRUE(estimate.method.fits);
}

TEST_F(WorkedExample, ExactAccountingStaysCloseToTheHandCalculation) {
  // Exact: stage 0 holds 12 layers (12h² split over t = 8, two norms of h replicated) plus the
  // 51200×12288 embedding and the 2048×12288 position table split over t, at 18 bytes each:
  // the A100 example runs Megatron-LM, whose --bf16 keeps fp32 main gradients (2 + 4 + 12;
  // Megatron-LM docs dist_optimizer.md), where the method counts 16.
  const double h = 12288;
  const double layer = 12.0 * h * h / 8.0 + 2.0 * h;
  const double embedding = (51200.0 + 2048.0) * h / 8.0;
  const double states = 18.0 * (12.0 * layer + embedding);
  EXPECT_NEAR(estimate.memory.weights_bytes + estimate.memory.gradients_bytes +
                  estimate.memory.optimizer_bytes, states, 1.0);
  EXPECT_DOUBLE_EQ(estimate.memory.activations_bytes, 34.0 * 2048 * 12288 * 96 / 8);
  EXPECT_TRUE(estimate.fits_in_memory);
  EXPECT_LT(estimate.memory.total_bytes, 80e9);
}

TEST_F(WorkedExample, SixteenReplicasOf96MicroBatchesGiveA7Point3PercentBubble) {
  EXPECT_EQ(estimate.parallel.dp, 16);
  EXPECT_DOUBLE_EQ(estimate.microbatches, 96.0);
  EXPECT_DOUBLE_EQ(estimate.bubble_ratio, 7.0 / 96.0);
  EXPECT_DOUBLE_EQ(estimate.method.bubble_ratio, 7.0 / 96.0);
  EXPECT_DOUBLE_EQ(estimate.bubble_fraction, 7.0 / 103.0);
}

TEST_F(WorkedExample, DistributedOptimizerCutsModelStatesToAbout13Gb) {
  // 4Ψ/(t·p) + 12Ψ/(t·p·N) = 4·175e9/64 + 12·175e9/1024 = 10.9375e9 + 2.0508e9.
  EXPECT_DOUBLE_EQ(estimate.method.distributed_optimizer_bytes_per_gpu,
                   4.0 * 175e9 / 64 + 12.0 * 175e9 / 1024);
  EXPECT_NEAR(estimate.method.distributed_optimizer_bytes_per_gpu / 1e9, 13.0, 0.05);
}

TEST_F(WorkedExample, DistributedOptimizerLetsFourStagesFit) {
  ParallelConfig p = estimate.parallel;
  p.pp = 4;
  p.dp = 32;
  p.zero = 1;
  const Estimate four = evaluate(scenario, p);
  EXPECT_TRUE(four.fits_in_memory) << four.memory.total_bytes;
  p.zero = 0;
  EXPECT_FALSE(evaluate(scenario, p).fits_in_memory);
}

TEST(ZeroStages, EachStageShardsOneMoreStateOverDataParallel) {
  Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  ParallelConfig p = resolve_defaults(s);
  const StageSplit split = split_layers(96, 8);
  const double params = stage_params_per_gpu(s, p, split, 1).total();
  const double n = 16;
  p.zero = 0;
  StageMemory m0 = stage_memory(s, p, split, 1);
  EXPECT_DOUBLE_EQ(m0.optimizer_bytes, 12.0 * params);
  // Megatron-LM's fp32 main gradients: 4 bytes per parameter (the example runs Megatron-LM).
  p.zero = 1;
  StageMemory m1 = stage_memory(s, p, split, 1);
  EXPECT_DOUBLE_EQ(m1.optimizer_bytes, 12.0 * params / n);
  EXPECT_DOUBLE_EQ(m1.gradients_bytes, 4.0 * params);
  p.zero = 2;
  StageMemory m2 = stage_memory(s, p, split, 1);
  EXPECT_DOUBLE_EQ(m2.gradients_bytes, 4.0 * params / n);
  EXPECT_DOUBLE_EQ(m2.weights_bytes, 2.0 * params);
  p.zero = 3;
  StageMemory m3 = stage_memory(s, p, split, 1);
  // Sharded weights plus two gathered layers in flight.
  EXPECT_DOUBLE_EQ(m3.weights_bytes, 2.0 * params / n + 2.0 * 2.0 * params / 12.0);
}

TEST(ZeroStages, Bf16OptimizerStateIsSixBytesPerParameterEightWithFp32Master) {
  // bf16 moments (2 + 2) and a 2-byte master: Megatron's 16-bit remainders of fp32, NeMo's
  // distributed_fused_adam with dtype bf16, DeepSpeed's bf16 master; torchtitan keeps FSDP2's
  // fp32 parameters as the master, Megatron-FSDP its fp32 main params (4 + 2 + 2). Sharded
  // over DP = 16.
  Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  ParallelConfig p = resolve_defaults(s);
  p.zero = 1;
  const StageSplit split = split_layers(96, 8);
  const double params = stage_params_per_gpu(s, p, split, 1).total();
  s.training.optimizer_state_dtype = OptimizerStateDtype::kBf16;
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 1).optimizer_bytes, 6.0 * params / 16);
  p.zero = 2;  // Megatron-FSDP
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 1).optimizer_bytes, 8.0 * params / 16);
  s.training.framework = Framework::kDeepSpeed;
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 1).optimizer_bytes, 6.0 * params / 16);
  p.zero = 1;
  s.training.framework = Framework::kTorchtitan;
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 1).optimizer_bytes, 8.0 * params / 16);
}

TEST(OptimizerStep, StreamsThirtyBytesPerParameterOrEighteenWithBf16State) {
  // fp32 gradient read (4), state read and written (2 x 12 or 2 x 6), bf16 weight written (2).
  const Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  const Device device = device_of(s);
  const double per_byte_s = 1.0 / (device.gpu.hbm_bytes_per_s * device.calibration.hbm_efficiency);
  EXPECT_DOUBLE_EQ(optimizer_step_s(1e9, 12.0, device), 30e9 * per_byte_s);
  EXPECT_DOUBLE_EQ(optimizer_step_s(1e9, 6.0, device), 18e9 * per_byte_s);
}

TEST(PipelineMemory, FirstStageHoldsPMicroBatchesAndInterleavingAddsItsFactor) {
  Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  ParallelConfig p = resolve_defaults(s);
  const double per_layer = layer_activation_bytes(s, p);
  const StageSplit split = split_layers(96, 8);
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 0).activations_bytes, per_layer * 96);
  p.vpp = 3;
  // Korthikanti et al. 2022 §4.2.3: L·(1 + (p−1)/(p·v)).
  EXPECT_DOUBLE_EQ(stage_memory(s, p, split, 0).activations_bytes,
                   per_layer * 96 * (1.0 + 7.0 / (8.0 * 3.0)));
}

}  // namespace
}  // namespace pplan
