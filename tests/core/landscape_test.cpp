// The search pictures (search/landscape.h): the Pareto front, the landscape sample, the scaling
// sweep's GPU counts and plans, the nearest GPU counts. Expectations are derived by hand in the
// comments (divisors, batch divisibility), not read back from the code.
#include <algorithm>
#include "pplan/search/landscape.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/scenario_files.h"
#include "pplan/io/api.h"
#include "pplan/model/estimate.h"

namespace pplan {
namespace {

using testing::load_scenario;
using testing::scenario_from;

// A small dense model that fits on one GPU many times over: 4 layers, hidden 512, 8 heads.
constexpr const char* kTiny = R"({
  "schema_version": 1,
  "model": {"name": "tiny", "layers": 4, "hidden": 512, "heads": 8, "ffn_hidden": 2048,
            "vocab": 32000, "activation": "gelu"},
  "cluster": {"gpu": "a100-80gb", "gpus": 16, "gpus_per_node": 8},
  "training": {"seq_len": 1024, "global_batch": 16},
  "parallel": )";
constexpr const char* kDataParallelOnly = R"({"tp": 1, "pp": 1, "cp": 1})";

/// The tiny model on 16 GPUs with the given `parallel` object.
std::string tiny_text(const std::string& parallel = kDataParallelOnly) {
  return std::string(kTiny) + parallel + "}";
}
Scenario tiny(const std::string& parallel = kDataParallelOnly) {
  return scenario_from(tiny_text(parallel));
}

TEST(ParetoFront, KeepsThePointsNothingDominates) {
  // (2, 5) twice: the first copy only; (3, 7) is beaten by (2, 5) in both; (1, 9) is fastest,
  // (4, 1) leanest.
  EXPECT_EQ(pareto_front({{1, 9}, {2, 5}, {3, 7}, {4, 1}, {2, 5}}),
            (std::vector<std::size_t>{0, 1, 3}));
}

TEST(ParetoFront, EdgeCases) {
  EXPECT_TRUE(pareto_front({}).empty());
  EXPECT_EQ(pareto_front({{3, 3}}), (std::vector<std::size_t>{0}));
  // Same time: only the leaner one. Same memory: only the faster one.
  EXPECT_EQ(pareto_front({{1, 5}, {1, 3}}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(pareto_front({{2, 4}, {1, 4}}), (std::vector<std::size_t>{1}));
  // A strictly improving staircase is all front, returned fastest first.
  EXPECT_EQ(pareto_front({{3, 1}, {2, 2}, {1, 3}}), (std::vector<std::size_t>{2, 1, 0}));
}

TEST(ScalingGpuCounts, PowersOfTwoAroundTheCluster) {
  EXPECT_EQ(scaling_gpu_counts(1024, 8),
            (std::vector<long long>{128, 256, 512, 1024, 2048, 4096, 8192}));
  // 257/8 = 32.1 -> 32; 257/4 = 64.25 -> 64; 257/2 = 128.5 -> 128 (nearest multiples of 8).
  EXPECT_EQ(scaling_gpu_counts(257, 8),
            (std::vector<long long>{32, 64, 128, 257, 514, 1028, 2056}));
  // Below one node every smaller count rounds up to the node (8 >= 6): none below.
  EXPECT_EQ(scaling_gpu_counts(6, 8), (std::vector<long long>{6, 12, 24, 48}));
  // 16: 2 and 4 round up to 8, 8 itself: one count below.
  EXPECT_EQ(scaling_gpu_counts(16, 8), (std::vector<long long>{8, 16, 32, 64, 128}));
  // Never above the parser's 2^20 GPUs.
  EXPECT_EQ(scaling_gpu_counts(1LL << 19, 8),
            (std::vector<long long>{1LL << 16, 1LL << 17, 1LL << 18, 1LL << 19, 1LL << 20}));
  EXPECT_LE(static_cast<int>(scaling_gpu_counts(3072, 8).size()), kScalingMaxCounts);
}

TEST(ScalingSweep, DpFollowsTheCountUntilTheBatchRunsOut) {
  // tp = pp = cp = 1 pinned, so dp = the GPU count; a global batch of 16 splits over 8 and 16
  // replicas, not over 32, 64 or 128.
  const std::vector<ScalingPoint> sweep = scaling_sweep(tiny());
  ASSERT_EQ(sweep.size(), 5u);
  const long long counts[] = {8, 16, 32, 64, 128};
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    EXPECT_EQ(sweep[i].gpus, counts[i]);
    if (counts[i] <= 16) {
      ASSERT_TRUE(sweep[i].plan.has_value()) << counts[i];
      EXPECT_EQ(sweep[i].plan->parallel.dp, counts[i]);
      EXPECT_TRUE(sweep[i].plan->feasible);
    } else {
      EXPECT_FALSE(sweep[i].plan.has_value()) << counts[i];
      EXPECT_EQ(sweep[i].reason, "plan.batch_not_divisible");
      EXPECT_GT(sweep[i].rejected, 0);
    }
  }
}

TEST(ScalingSweep, APinnedDpDoesNotStopTheSweep) {
  const std::vector<ScalingPoint> sweep =
      scaling_sweep(tiny(R"({"tp": 1, "pp": 1, "cp": 1, "dp": 16})"));
  ASSERT_TRUE(sweep[0].plan.has_value());
  EXPECT_EQ(sweep[0].plan->parallel.dp, 8);
}

TEST(Landscape, SamplesEveryGridOfAPinnedTinyModel) {
  // Only tp is free (pp, cp, micro-batch, sequence parallelism, recompute and ZeRO pinned):
  // tp ∈ {1, 2, 4, 8, 16} of 16 GPUs; 8 heads rule out tp 16 and a batch of 16 splits over
  // dp = 16, 8, 4, 2: four grids, one configuration each (vpp 1 at pp 1, sequence parallel on
  // when tp > 1), the same four the search ranks.
  const Scenario s = tiny(R"({"pp": 1, "cp": 1, "micro_batch": 1, "sequence_parallel": true,
                                "recompute": "none", "zero": 0})");
  SearchOptions options;
  const SearchResult result = search(s, options);
  const Landscape l = landscape(s, result.plans);
  EXPECT_EQ(l.candidates, 4);
  EXPECT_EQ(l.evaluated, 4);
  EXPECT_EQ(l.feasible, 4);
  ASSERT_EQ(l.points.size(), 4u);
  int tp_seen = 0;
  for (const LandscapePoint& p : l.points) {
    tp_seen |= p.parallel.tp;
    EXPECT_EQ(p.parallel.tp * p.parallel.dp, 16);
    EXPECT_EQ(p.parallel.sequence_parallel, p.parallel.tp > 1);
    EXPECT_GE(p.rank, 0);  // the search ranked all four
  }
  EXPECT_EQ(tp_seen, 1 | 2 | 4 | 8);
}

TEST(Landscape, MarksTheSearchsPlansAndAnHonestFront) {
  Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  s.parallel = ParallelConstraints{};
  SearchOptions options;
  const SearchResult result = search(s, options);
  ASSERT_FALSE(result.plans.empty());
  const Landscape l = landscape(s, result.plans);
  ASSERT_LE(static_cast<int>(l.points.size()), kLandscapeMaxPoints);
  EXPECT_LE(l.evaluated, kLandscapeMaxEvaluations);
  EXPECT_GT(l.feasible, static_cast<long long>(l.points.size()));  // thinned

  int ranked = 0;
  for (std::size_t i = 0; i < l.points.size(); ++i) {
    const LandscapePoint& p = l.points[i];
    if (i > 0) EXPECT_LE(l.points[i - 1].step_time_s, p.step_time_s);  // fastest first
    EXPECT_GT(p.mfu, 0);
    EXPECT_LT(p.mfu, 1);
    EXPECT_LE(p.memory_bytes, l.capacity_bytes);
    if (p.rank >= 0) {
      ++ranked;
      const Estimate& plan = result.plans[p.rank];
      EXPECT_EQ(p.parallel.tp, plan.parallel.tp);
      EXPECT_EQ(p.parallel.pp, plan.parallel.pp);
      EXPECT_EQ(p.parallel.dp, plan.parallel.dp);
      EXPECT_EQ(p.parallel.micro_batch, plan.parallel.micro_batch);
      EXPECT_DOUBLE_EQ(p.step_time_s, plan.step_time_s);
    }
    // A front point: nothing shown beats it in both step time and memory.
    if (p.pareto) {
      for (const LandscapePoint& q : l.points) {
        EXPECT_FALSE(q.step_time_s <= p.step_time_s && q.memory_bytes <= p.memory_bytes &&
                     (q.step_time_s < p.step_time_s || q.memory_bytes < p.memory_bytes));
      }
    }
    // The figures are evaluate()'s for that configuration.
    const Estimate e = evaluate(s, p.parallel);
    EXPECT_TRUE(e.feasible);
    EXPECT_DOUBLE_EQ(e.step_time_s, p.step_time_s);
    EXPECT_DOUBLE_EQ(e.memory.total_bytes, p.memory_bytes);
  }
  EXPECT_EQ(ranked, static_cast<int>(result.plans.size()));
  // The recommended plan is shown, and no point that fits the usable memory (1 − headroom)
  // beats it by more than the search's tie tolerance: within it, the simpler plan is chosen.
  const auto recommended = std::find_if(l.points.begin(), l.points.end(),
                                        [](const LandscapePoint& p) { return p.rank == 0; });
  ASSERT_NE(recommended, l.points.end());
  const double usable_bytes = (1 - s.training.memory_headroom) * l.capacity_bytes;
  for (const LandscapePoint& p : l.points) {
    if (p.memory_bytes <= usable_bytes) {
      EXPECT_GE(p.step_time_s * (1 + options.tie_tolerance), recommended->step_time_s);
    }
  }
}

TEST(Landscape, AFullyPinnedPlanIsOnePoint) {
  const Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  SearchOptions options;
  const Landscape l = landscape(s, search(s, options).plans);
  ASSERT_EQ(l.points.size(), 1u);
  EXPECT_EQ(l.points[0].rank, 0);
  EXPECT_TRUE(l.points[0].pareto);
  EXPECT_EQ(l.points[0].parallel.pp, 8);
}

TEST(NearestGpuCounts, GptThreeOn257SuggestsTheNeighbours) {
  // tp 8 · pp 8 pinned: the count must be 64·dp with dp dividing the batch of 1536 = 2^9·3.
  // Below 257: 256 = 64·4 (the first multiple of 8 tried). Above: 320 = 64·5 (5 ∤ 1536), then
  // 384 = 64·6; every multiple of 8 from 264 to 384 is tried: 16 counts, 17 in all.
  Scenario s = load_scenario("examples/gpt3-175b-1024-a100.json");
  s.parallel = ParallelConstraints{};
  s.parallel.tp = 8;
  s.parallel.pp = 8;
  s.parallel.dp = 16;  // a pinned dp is dropped: it follows the count
  s.cluster.gpus = 257;
  const NearestGpuCounts n = nearest_gpu_counts(s);
  ASSERT_TRUE(n.below.has_value());
  ASSERT_TRUE(n.above.has_value());
  EXPECT_EQ(n.below_gpus, 256);
  EXPECT_EQ(n.below->parallel.dp, 4);
  EXPECT_EQ(n.above_gpus, 384);
  EXPECT_EQ(n.above->parallel.dp, 6);
  EXPECT_EQ(n.searched, 17);
}

TEST(NearestGpuCounts, StopsAtTheBudget) {
  // tp 3 never divides 8 heads... no count has a plan: the search gives up after the budget.
  const Scenario s = tiny(R"({"tp": 3, "pp": 1, "cp": 1})");
  const NearestGpuCounts n = nearest_gpu_counts(s);
  EXPECT_FALSE(n.below.has_value());
  EXPECT_FALSE(n.above.has_value());
  EXPECT_EQ(n.searched, kNearestMaxSearches);
}

nlohmann::json request(const std::string& text) {
  return nlohmann::json::parse(handle_request(text));
}

TEST(LandscapeApi, CommandsAndOptionAnswerInTheDocumentedShapes) {
  const std::string scenario = tiny_text();
  const nlohmann::json landscape =
      request(R"({"command": "landscape", "top": 3, "scenario": )" + scenario + "}");
  ASSERT_TRUE(landscape["ok"].get<bool>()) << landscape.dump();
  const auto& points = landscape["landscape"]["points"];
  ASSERT_FALSE(points.empty());
  EXPECT_EQ(std::count_if(points.begin(), points.end(),
                          [](const nlohmann::json& p) { return p["rank"] == 0; }),
            1);
  EXPECT_TRUE(points[0].contains("parallel"));
  EXPECT_TRUE(points[0]["pareto"].is_boolean());
  EXPECT_EQ(landscape["landscape"]["max_points"], kLandscapeMaxPoints);

  const nlohmann::json scaling = request(R"({"command": "scaling", "scenario": )" + scenario + "}");
  ASSERT_TRUE(scaling["ok"].get<bool>()) << scaling.dump();
  EXPECT_EQ(scaling["scaling"]["gpu_counts"], nlohmann::json::parse("[8, 16, 32, 64, 128]"));
  EXPECT_TRUE(scaling["scaling"]["points"][2]["plan"].is_null());
  EXPECT_EQ(scaling["scaling"]["points"][2]["reason"], "plan.batch_not_divisible");
  EXPECT_TRUE(scaling["scaling"]["token_budget"].is_null());

  // 20 GPUs with tp = pp = cp = 1: dp = 20 does not divide a batch of 16, nothing fits. Below,
  // 16 (dp 16) is the first multiple of 8 tried; above, every count needs dp > 16: none.
  std::string twenty = scenario;
  twenty.replace(twenty.find("\"gpus\": 16"), 10, "\"gpus\": 20");
  const nlohmann::json plan =
      request(R"({"command": "plan", "nearest_gpus": true, "scenario": )" + twenty + "}");
  ASSERT_TRUE(plan["ok"].get<bool>()) << plan.dump();
  EXPECT_TRUE(plan["plans"].empty());
  EXPECT_EQ(plan["nearest_gpus"]["below"]["gpus"], 16);
  EXPECT_EQ(plan["nearest_gpus"]["below"]["plan"]["parallel"]["dp"], 16);
  EXPECT_TRUE(plan["nearest_gpus"]["above"].is_null());

  // Without the option, or when a plan fits, no suggestion.
  const nlohmann::json plain = request(R"({"command": "plan", "scenario": )" + twenty + "}");
  EXPECT_FALSE(plain.contains("nearest_gpus"));
  const nlohmann::json bad =
      request(R"({"command": "plan", "nearest_gpus": 1, "scenario": )" + scenario + "}");
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["path"], "/nearest_gpus");
}

TEST(LandscapeApi, IsDeterministic) {
  const std::string text =
      R"({"command": "landscape", "scenario": )" +
      testing::read_text(testing::source_path("examples/mixtral-8x7b-256-h100.json")) + "}";
  EXPECT_EQ(handle_request(text), handle_request(text));
}

}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

// The parser's near-limit space of HugeInputs (720720 GPUs, 55440 experts, 5040 layers, a batch
// with 768 divisors): the sample names 250,380 configurations and evaluates at most 60,000;
// the sweep stops below 2^20 GPUs (720720 · 2 is over it).
TEST(LandscapeHugeInputs, StaysWithinItsBounds) {
  const Scenario s = testing::scenario_from(
      R"({"model":{"layers":5040,"hidden":5040,"heads":5040,"ffn_hidden":20160,"vocab":32000,
          "activation":"swiglu","moe":{"experts":55440,"top_k":2,"expert_ffn_hidden":512}},
          "cluster":{"gpu":"h100-sxm","gpus":720720,"gpus_per_node":8},
          "training":{"seq_len":2048,"global_batch":73513440}})");
  const Landscape l = landscape(s, {});
  EXPECT_GT(l.candidates, kLandscapeMaxEvaluations);
  EXPECT_EQ(l.evaluated, kLandscapeMaxEvaluations);
  EXPECT_LE(static_cast<int>(l.points.size()), kLandscapeMaxPoints);
  // To whole nodes of 8: 720720/8 = 90090 = 11261.25 nodes -> 11261 (90088); /4 = 180180 =
  // 22522.5 nodes -> 22523 (180184, half rounds up); /2 = 360360 = 45045 nodes. 2·720720 > 2^20.
  EXPECT_EQ(scaling_gpu_counts(720720, 8), (std::vector<long long>{90088, 180184, 360360, 720720}));
}

}  // namespace
}  // namespace pplan
