// Feasibility: every structural rule raises its stable code; infeasible plans are results.
#include "pplan/model/estimate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/diagnostics.h"
#include "../support/scenario_files.h"

namespace pplan {
namespace {

using testing::scenario_from;
using testing::has_code;

Scenario gpt3(int gpus = 1024) {
  return scenario_from(R"({"model":"gpt3-175b","cluster":{"gpu":"a100-80gb","gpus":)" +
                       std::to_string(gpus) +
                       R"(,"gpus_per_node":8},"training":{"seq_len":2048,"global_batch":1536}})");
}

ParallelConfig config(int tp, int pp, int dp, int cp = 1) {
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  p.sequence_parallel = tp > 1;
  p.recompute = Recompute::kSelective;
  return p;
}

TEST(Feasibility, WorkedExampleIsFeasible) {
  const Estimate e = evaluate(gpt3(), config(8, 8, 16));
  EXPECT_TRUE(e.feasible);
  EXPECT_TRUE(e.diagnostics.empty());
}

TEST(StepTime, TheSlowestGpusWaitIsItsSpreadOfComputeRecomputeAndBubble) {
  // The worked example on 1,024 A100s: straggler = spread · E[max of 1,024 normals] ·
  // (compute + recompute + bubble), and the step adds it to the other parts.
  Scenario s = gpt3();
  s.calibration.ampere.gpu_speed_spread = 0.01;
  const Estimate e = evaluate(s, config(8, 8, 16));
  const TimeBreakdown& t = e.time;
  EXPECT_NEAR(t.straggler_s, 0.01 * 3.2482 * (t.compute_s + t.recompute_s + t.bubble_s), 1e-9 * e.step_time_s);
  EXPECT_DOUBLE_EQ(e.step_time_s, t.total_s());
  s.calibration.ampere.gpu_speed_spread = 0.0;
  const Estimate without = evaluate(s, config(8, 8, 16));
  EXPECT_EQ(without.time.straggler_s, 0.0);
  EXPECT_NEAR(e.step_time_s - without.step_time_s, t.straggler_s, 1e-9 * e.step_time_s);
}

TEST(Feasibility, ProductMustEqualTheGpuCount) {
  const Estimate e = evaluate(gpt3(), config(8, 8, 8));
  EXPECT_FALSE(e.feasible);
  EXPECT_TRUE(has_code(e, "plan.gpu_count_mismatch"));
}

TEST(Feasibility, HeadsMustDivideByTp) {
  const Estimate e = evaluate(gpt3(1280), config(5, 8, 32));  // 96 heads % 5 != 0
  EXPECT_TRUE(has_code(e, "plan.heads_not_divisible"));
}

TEST(Feasibility, KvHeadsAndTpMustDivideOneWay) {
  Scenario s = scenario_from(R"({"model":{"layers":8,"hidden":1536,"heads":12,"kv_heads":6,
      "ffn_hidden":4096,"vocab":32000,"activation":"swiglu"},"cluster":{"gpu":"h100-sxm","gpus":4},
      "training":{"seq_len":2048,"global_batch":8}})");
  EXPECT_TRUE(has_code(evaluate(s, config(4, 1, 1)), "plan.kv_heads_not_divisible"));
  EXPECT_FALSE(has_code(evaluate(s, config(2, 1, 2)), "plan.kv_heads_not_divisible"));
}

TEST(Feasibility, LayersMustSplitOverStages) {
  const Estimate e = evaluate(gpt3(), config(8, 128, 1));  // 96 layers, 128 stages
  EXPECT_TRUE(has_code(e, "plan.layers_not_divisible"));
}

TEST(Feasibility, UnevenLlamaStagesAreAllowed) {
  Scenario s = scenario_from(R"({"model":"llama3-405b","cluster":{"gpu":"h100-sxm","gpus":16384},
      "training":{"seq_len":8192,"global_batch":2048}})");
  const Estimate e = evaluate(s, config(8, 16, 128));
  EXPECT_FALSE(has_code(e, "plan.layers_not_divisible"));
  EXPECT_EQ(e.split.first_layers, 7);
}

TEST(Feasibility, GlobalBatchMustDivideByMicroBatchTimesDp) {
  ParallelConfig p = config(8, 8, 16);
  p.micro_batch = 5;  // 1536 % 80 != 0
  EXPECT_TRUE(has_code(evaluate(gpt3(), p), "plan.batch_not_divisible"));
}

TEST(Feasibility, VppMustDivideLayersPerStage) {
  ParallelConfig p = config(8, 8, 16);
  p.vpp = 5;  // 12 layers per stage
  EXPECT_TRUE(has_code(evaluate(gpt3(), p), "plan.vpp_not_divisible"));
  p.vpp = 3;
  EXPECT_FALSE(has_code(evaluate(gpt3(), p), "plan.vpp_not_divisible"));
}

TEST(Feasibility, VppNeedsPipelineParallelism) {
  ParallelConfig p = config(8, 1, 128);
  p.vpp = 2;
  EXPECT_TRUE(has_code(evaluate(gpt3(), p), "plan.vpp_needs_pp"));
}

TEST(Feasibility, TpBeyondTheNodeIsAWarningNotAnError) {
  Scenario s = gpt3();
  const Estimate e = evaluate(s, config(16, 8, 8));
  EXPECT_TRUE(has_code(e, "plan.tp_exceeds_node"));
  const auto it = std::find_if(e.diagnostics.begin(), e.diagnostics.end(),
                               [](const Diagnostic& d) { return d.code == "plan.tp_exceeds_node"; });
  EXPECT_EQ(it->severity, Severity::kWarning);
}

TEST(Feasibility, ContextParallelNeedsSeqDivisibleByTwoCp) {
  Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":24},
      "training":{"seq_len":8192,"global_batch":24}})");
  EXPECT_TRUE(has_code(evaluate(s, config(1, 1, 8, 3)), "plan.cp_seq_not_divisible"));  // 8192 % 6 != 0
}

TEST(Feasibility, ExpertParallelNeedsAnMoeModel) {
  ParallelConfig p = config(8, 8, 16);
  p.ep = 2;
  EXPECT_TRUE(has_code(evaluate(gpt3(), p), "plan.ep_without_moe"));
}

TEST(Feasibility, OutOfMemoryIsAResultWithNumbers) {
  ParallelConfig p = config(8, 4, 32);
  p.recompute = Recompute::kNone;
  p.sequence_parallel = false;
  const Estimate e = evaluate(gpt3(), p);
  EXPECT_FALSE(e.feasible);
  EXPECT_TRUE(has_code(e, "plan.out_of_memory"));
  EXPECT_GT(e.memory.total_bytes, 80e9);
  EXPECT_GT(e.step_time_s, 0.0);  // still estimated, so a user sees what it would cost
}

}  // namespace
}  // namespace pplan
