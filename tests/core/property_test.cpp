// Properties over random valid scenarios (issue #7, "The engine"). Every case is drawn from a
// seeded std::mt19937, so a failure names a reproducible case; each property prints how many
// cases it checked. The properties hold for any calibration of the time model, so they assert
// relations and hand formulas, never numbers the code printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/scenario_files.h"
#include "pplan/io/api.h"
#include "pplan/model/estimate.h"
#include "pplan/io/json_io.h"
#include "pplan/framework/rules.h"
#include "pplan/launch/layout.h"
#include "pplan/report/design_report.h"
#include "pplan/report/explain.h"
#include "pplan/search/search.h"

namespace pplan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

/// Draws scenarios the parser accepts: a custom dense or MoE model or a preset, a preset GPU,
/// a GPU count of 2^k or 3·2^k, and a global batch that several dp values divide.
class ScenarioGenerator {
 public:
  explicit ScenarioGenerator(unsigned seed) : rng_(seed) {}

  template <typename T>
  T pick(const std::vector<T>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng_)];
  }
  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin() { return between(0, 1) == 1; }

  json model() {
    json m;
    const int heads = pick<int>({8, 12, 16, 24, 32, 40, 64});
    const int head_dim = pick<int>({64, 128});
    m["layers"] = pick<int>({2, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96});
    m["hidden"] = heads * head_dim;
    m["heads"] = heads;
    std::vector<int> kv;
    for (int k = 1; k <= heads; ++k) if (heads % k == 0) kv.push_back(k);
    m["kv_heads"] = pick(kv);
    const bool swiglu = coin();
    m["activation"] = swiglu ? "swiglu" : "gelu";
    m["ffn_hidden"] = swiglu ? (heads * head_dim * 8 / 3 + 127) / 128 * 128 : 4 * heads * head_dim;
    m["vocab"] = pick<int>({32000, 50257, 128256});
    if (between(0, 3) == 0) {
      const int experts = pick<int>({8, 16, 64});
      m["moe"] = {{"experts", experts},
                  {"top_k", pick<int>({1, 2})},
                  {"shared_experts", between(0, 1)},
                  {"expert_ffn_hidden", pick<int>({512, 1024, 2048})},
                  {"dense_layers", between(0, 1)}};
    }
    return m;
  }

  /// A scenario with `gpus` GPUs (0 = draw one); no parallel block.
  json scenario(int gpus = 0) {
    json s;
    s["schema_version"] = 1;
    s["model"] = between(0, 4) == 0
                     ? json(pick<std::string>({"gpt3-175b", "llama3-8b", "llama3-70b", "deepseek-v3"}))
                     : model();
    if (gpus == 0) gpus = (1 << between(0, 8)) * pick<int>({1, 1, 3});
    s["cluster"] = {{"gpu", pick<std::string>({"a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200"})},
                    {"gpus", gpus},
                    {"gpus_per_node", pick<int>({4, 8, 8})}};
    s["training"] = {{"seq_len", pick<int>({1024, 2048, 4096, 8192})},
                     {"global_batch", pick<int>({64, 256, 512, 1536, 3072})},
                     {"precision", between(0, 3) == 0 ? "fp8" : "bf16"}};
    return s;
  }

  std::mt19937& engine() { return rng_; }

 private:
  std::mt19937 rng_;
};

Scenario parse(const json& doc) { return parse_scenario(doc, load_presets()); }

/// Every number in a document, with its JSON pointer, that is NaN or infinite.
void collect_non_finite(const ordered_json& value, const std::string& path, std::vector<std::string>& out) {
  if (value.is_number_float()) {
    if (!std::isfinite(value.get<double>())) out.push_back(path);
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) collect_non_finite(it.value(), path + "/" + it.key(), out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) collect_non_finite(value[i], path + "/" + std::to_string(i), out);
  }
}

std::string describe(const json& scenario, const ParallelConfig& p) {
  return scenario.dump() + " with tp " + std::to_string(p.tp) + " pp " + std::to_string(p.pp) +
         " dp " + std::to_string(p.dp) + " cp " + std::to_string(p.cp) + " ep " + std::to_string(p.ep) +
         " etp " + std::to_string(expert_tp(p)) + " vpp " + std::to_string(p.vpp) + " mb " + std::to_string(p.micro_batch) + " sp " +
         std::to_string(p.sequence_parallel) + " recompute " + recompute_name(p.recompute) + " zero " +
         std::to_string(p.zero) + (p.offload_layers > 0 ? " offload " + std::to_string(p.offload_layers) : "");
}

/// A random complete config on top of (tp, pp, dp, cp); the rest drawn independently.
ParallelConfig random_config(ScenarioGenerator& g, const Scenario& s, int tp, int pp, int dp, int cp) {
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  std::vector<int> eps{1};
  if (s.model.moe && s.model.moe->experts > 0) {
    for (int e = 2; e <= s.model.moe->experts; e *= 2) {
      if (s.model.moe->experts % e == 0 && (dp * cp) % e == 0) eps.push_back(e);
    }
  }
  p.ep = g.pick(eps);
  p.micro_batch = g.pick<int>({1, 1, 2, 4});
  p.sequence_parallel = tp > 1 && g.coin();
  p.recompute = g.pick<Recompute>({Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  p.zero = g.between(0, 3);
  return p;
}

double total_memory_bytes(const Scenario& base, const ParallelConfig& p) {
  Scenario s = base;
  s.cluster.gpus = p.tp * p.pp * p.dp * p.cp;  // other things equal: dp is held, GPUs follow
  return evaluate(s, p).memory.total_bytes;
}

// 1 ---------------------------------------------------------------------------------------
// Memory per GPU (peak stage, everything counted) never grows when one degree grows and
// everything else is equal, stated precisely:
//  - tp doubles with dp, pp, cp, ep, micro-batch, sp, recompute and zero fixed (so the GPU
//    count doubles and the micro-batch count m = B/(dp·b) is unchanged);
//  - pp doubles likewise, with vpp = 1 and both splits even (L divisible by 2·pp): with
//    interleaving, stage 0 holds (1 + (p−1)/(p·v))·L layers of activations, which grows with p
//    (Korthikanti et al. 2022 §4.2.3), and uneven splits put ceil(L/p) layers on stages that
//    also keep p−1 micro-batches in flight, so neither is monotone in the real system either;
//  - ZeRO 0 → 1 → 2 never grows; 2 → 3 is compared only when every shard group has at least
//    4 ranks and the peak stage at least 4 layers, since ZeRO-3 keeps two gathered layers
//    (the prefetch buffer) that on 2 ranks or 2 layers outweigh what sharding saves.
TEST(Properties, MemoryPerGpuNeverGrowsWithTpPpOrZero) {
  ScenarioGenerator g(20261130);
  int tp_cases = 0, pp_cases = 0, zero_cases = 0;
  const double slack = 1.0 + 1e-12;
  for (int i = 0; i < 1500; ++i) {
    const json doc = g.scenario(1);
    const Scenario s = parse(doc);
    const int tp = g.pick<int>({1, 2, 4});
    const int pp = g.pick<int>({1, 2, 4});
    const int dp = g.pick<int>({1, 2, 4, 8, 16});
    const int cp = g.pick<int>({1, 1, 2});
    const ParallelConfig p = random_config(g, s, tp, pp, dp, cp);
    const double base = total_memory_bytes(s, p);

    ParallelConfig more_tp = p;
    more_tp.tp *= 2;
    // sp stays as it was (evaluate turns it off at tp = 1, so it is off on both sides then).
    EXPECT_LE(total_memory_bytes(s, more_tp), base * slack) << "tp " << tp << "→" << more_tp.tp << ": "
                                                            << describe(doc, p);
    ++tp_cases;

    if (p.vpp == 1 && s.model.layers % (2 * pp) == 0) {
      ParallelConfig more_pp = p;
      more_pp.pp *= 2;
      EXPECT_LE(total_memory_bytes(s, more_pp), base * slack)
          << "pp " << pp << "→" << more_pp.pp << ": " << describe(doc, p);
      ++pp_cases;
    }

    ParallelConfig z = p;
    double previous = 0;
    const int layers_on_peak = s.model.layers / pp;  // even or not, a lower bound is enough below
    const bool moe = s.model.moe && s.model.moe->experts > 0;
    const int expert_shards = moe ? dp * cp / p.ep : dp * cp;
    for (int zero = 0; zero <= 3; ++zero) {
      z.zero = zero;
      const double bytes = total_memory_bytes(s, z);
      const bool compare = zero > 0 && (zero < 3 || (dp * cp >= 4 && expert_shards >= 4 && layers_on_peak >= 4));
      if (compare) {
        EXPECT_LE(bytes, previous * slack) << "zero " << zero - 1 << "→" << zero << ": " << describe(doc, z);
        ++zero_cases;
      }
      previous = bytes;
    }
  }
  std::printf("[ property ] memory: %d tp doublings, %d pp doublings, %d ZeRO steps\n", tp_cases,
              pp_cases, zero_cases);
  EXPECT_GT(pp_cases, 300);
}

// 2–4 -------------------------------------------------------------------------------------
// Every plan the search returns: tp·pp·dp·cp = GPUs; the bubble ratio is (p−1)/(v·m) with
// m = global_batch/(dp·micro_batch) (Narayanan et al. 2021 §2.2: bubble over ideal time), and
// the bubble fraction of the step is that over one plus it, (p−1)/(v·m + p−1), always < 1; a feasible plan's MFU and
// HFU lie in (0, 1) and HFU ≥ MFU (recomputation only adds hardware FLOPs).
TEST(Properties, SearchPlansUseEveryGpuMatchTheBubbleFormulaAndHaveMfuInUnitInterval) {
  ScenarioGenerator g(7);
  int scenarios = 0, plans = 0;
  for (int i = 0; i < 300; ++i) {
    const json doc = g.scenario();
    const Scenario s = parse(doc);
    SearchOptions options;
    options.top = 10;
    const SearchResult result = search(s, options);
    ++scenarios;
    for (const Estimate& e : result.plans) {
      const ParallelConfig& p = e.parallel;
      ++plans;
      EXPECT_EQ(1LL * p.tp * p.pp * p.dp * p.cp, s.cluster.gpus) << describe(doc, p);
      const double m = double(s.training.global_batch) / (double(p.dp) * p.micro_batch);
      EXPECT_DOUBLE_EQ(e.microbatches, m) << describe(doc, p);
      const double ratio = p.pp > 1 ? (p.pp - 1.0) / (p.vpp * m) : 0.0;
      EXPECT_NEAR(e.bubble_ratio, ratio, 1e-12 * std::max(1.0, ratio)) << describe(doc, p);
      const double fraction = p.pp > 1 ? (p.pp - 1.0) / (p.vpp * m + p.pp - 1.0) : 0.0;
      EXPECT_NEAR(e.bubble_fraction, fraction, 1e-12) << describe(doc, p);
      EXPECT_LT(e.bubble_fraction, 1.0) << describe(doc, p);
      EXPECT_TRUE(e.feasible);
      EXPECT_GT(e.mfu, 0.0) << describe(doc, p);
      EXPECT_LT(e.mfu, 1.0) << describe(doc, p);
      EXPECT_GT(e.hfu, 0.0) << describe(doc, p);
      EXPECT_LT(e.hfu, 1.0) << describe(doc, p);
      EXPECT_GE(e.hfu, e.mfu * (1 - 1e-12)) << describe(doc, p);
    }
  }
  std::printf("[ property ] search: %d scenarios, %d plans checked for tp·pp·dp·cp, bubble, MFU\n",
              scenarios, plans);
  EXPECT_GT(plans, 1000);
}

// 5 ---------------------------------------------------------------------------------------
// No output number is NaN or infinite: every estimate, feasible or not (random complete
// configs, including ones whose degrees do not multiply to the GPU count), serialises to
// finite numbers, and the whole evaluate response is ok.
TEST(Properties, NoOutputNumberIsNanOrInfinite) {
  ScenarioGenerator g(42);
  int estimates = 0;
  for (int i = 0; i < 1500; ++i) {
    json doc = g.scenario();
    const Scenario s = parse(doc);
    const ParallelConfig p = random_config(g, s, g.pick<int>({1, 2, 4, 8, 16}), g.pick<int>({1, 2, 3, 4, 8}),
                                           g.pick<int>({1, 2, 8, 64}), g.pick<int>({1, 2, 4}));
    const ordered_json out = estimate_to_json(evaluate(s, p), s);
    std::vector<std::string> bad;
    collect_non_finite(out, "", bad);
    EXPECT_TRUE(bad.empty()) << "non-finite at " << (bad.empty() ? "" : bad.front()) << ": " << describe(doc, p);
    ++estimates;
    if (i % 10 == 0) {  // the same through the entry point, JSON in and out
      doc["parallel"] = json::parse(parallel_to_json(p).dump());
      const json response = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", doc}}).dump()));
      EXPECT_TRUE(response.value("ok", false)) << response.dump().substr(0, 400);
    }
  }
  std::printf("[ property ] finite: %d estimates walked\n", estimates);
}

/// A plan response without the one field that measures the machine, not the answer.
std::string without_elapsed(const std::string& response) {
  json j = json::parse(response);
  j.erase("timing");
  return j.dump();
}

// 6 ---------------------------------------------------------------------------------------
// The same request answers with the same bytes (plan ignores the top-level timing).
TEST(Properties, PlanOutputIsDeterministic) {
  ScenarioGenerator g(2026);
  int requests = 0;
  for (int i = 0; i < 40; ++i) {
    const json request = {{"command", i % 4 == 0 ? "evaluate" : "plan"}, {"top", 5}, {"scenario", g.scenario()}};
    const std::string text = request.dump();
    const std::string first = handle_request(text);
    const std::string second = handle_request(text);
    if (request["command"] == "evaluate") {
      EXPECT_EQ(first, second);
    } else {
      EXPECT_EQ(without_elapsed(first), without_elapsed(second)) << text;
    }
    ++requests;
  }
  std::printf("[ property ] deterministic: %d requests answered twice\n", requests);
}


// Possible figures ---------------------------------------------------------------------------
// Every feasible estimate of random complete configs: 0 < MFU ≤ HFU < 1, achieved TFLOP/s per
// GPU at most the peak of the precision, 0 ≤ bubble fraction < 1. A grid that does not tile the
// cluster is untimed: no step time, MFU or days in evaluate, in the plan response, in the
// report's Markdown or in the explanation.
TEST(Properties, EveryFigureIsPossibleAndAnUntimedGridShowsNoTime) {
  ScenarioGenerator g(1212);
  int feasible = 0, untimed = 0;
  for (int i = 0; i < 3000; ++i) {
    json doc = g.scenario();
    doc["training"]["token_budget"] = 1e12;
    const Scenario s = parse(doc);
    const ParallelConfig p = random_config(g, s, g.pick<int>({1, 2, 4, 8}), g.pick<int>({1, 2, 4, 8}),
                                           g.pick<int>({1, 2, 8, 32}), g.pick<int>({1, 1, 2}));
    const Estimate e = evaluate(s, p);
    const bool tiles = 1LL * p.tp * p.pp * p.dp * p.cp == s.cluster.gpus;
    EXPECT_EQ(e.timed, tiles) << describe(doc, p);
    EXPECT_GE(e.bubble_fraction, 0.0) << describe(doc, p);
    EXPECT_LT(e.bubble_fraction, 1.0) << describe(doc, p);
    if (e.feasible && e.timed) {
      ++feasible;
      // FP8 on a GPU without FP8 tensor cores is priced at the bf16 peak (the launch refuses it).
      const double peak = s.training.precision == Precision::kFp8 && s.cluster.gpu.fp8_flops_per_s > 0
                              ? s.cluster.gpu.fp8_flops_per_s
                              : s.cluster.gpu.bf16_flops_per_s;
      EXPECT_GT(e.mfu, 0.0) << describe(doc, p);
      EXPECT_LE(e.mfu, e.hfu * (1 + 1e-12)) << describe(doc, p);
      EXPECT_LT(e.hfu, 1.0) << describe(doc, p);
      EXPECT_LE(e.tflops_per_gpu * 1e12, peak * (1 + 1e-12)) << describe(doc, p);
      EXPECT_GT(e.days_to_train, 0.0) << describe(doc, p);
    }
    if (tiles || untimed >= 60) continue;
    ++untimed;
    const ordered_json j = estimate_to_json(e, s);
    for (const char* key : {"step_time_s", "mfu", "hfu", "tflops_per_gpu", "days_to_train"}) {
      EXPECT_TRUE(!j.contains(key) || j[key].is_null()) << key << ": " << describe(doc, p);
    }
    // The plan command on the pinned grid, its report and its explanation.
    doc["parallel"] = json::parse(parallel_to_json(p).dump());
    const json plan = json::parse(handle_request(json({{"command", "plan"}, {"top", 1}, {"scenario", doc}}).dump()));
    ASSERT_TRUE(plan.value("ok", false)) << plan.dump().substr(0, 300);
    for (const json& shown : plan["plans"]) {
      if (1LL * shown["parallel"]["tp"].get<int>() * shown["parallel"]["pp"].get<int>() *
              shown["parallel"]["dp"].get<int>() * shown["parallel"]["cp"].get<int>() ==
          s.cluster.gpus) {
        continue;
      }
      EXPECT_TRUE(shown["step_time_s"].is_null()) << shown.dump().substr(0, 300);
    }
    SearchResult one;
    one.plans.push_back(e);
    const Explanation x = explain(s, one);
    const std::string markdown = report_markdown(design_report(s, e, x));
    // The report's figure rows (its formula list may still name them) and the answer.
    for (const char* row : {"| step time |", "| MFU |", "| days to train", "| wall-clock days"}) {
      EXPECT_EQ(markdown.find(row), std::string::npos) << row << ": " << describe(doc, p);
    }
    std::string steps = x.thirty_second_answer;
    for (const ExplanationStep& step : x.steps) steps += "\n" + step.text;
    EXPECT_EQ(steps.find(" per step, MFU"), std::string::npos) << steps;
    EXPECT_EQ(steps.find("% MFU"), std::string::npos) << steps;
  }
  std::printf("[ property ] possible figures: %d feasible estimates, %d untimed grids\n", feasible, untimed);
  EXPECT_GT(feasible, 100);
  EXPECT_GE(untimed, 30);
}

// Explanations agree with their numbers -----------------------------------------------------
// For the search's answer on random scenarios: "p = q does not fit" only when no returned plan
// of the same tp, cp and ep has q stages; no "does not fit by the hand count" for a plan that
// fits; no "unpin" when nothing is pinned; no tensor-parallel text at t = 1; no context-parallel
// text unless cp > 1; the report's replica placement names the nodes the layout gives replica 0.
TEST(Properties, ExplanationStatementsAgreeWithTheNumbers) {
  ScenarioGenerator g(4);
  int explained = 0, smaller_pp_claims = 0;
  for (int i = 0; i < 150; ++i) {
    const json doc = g.scenario();
    const Scenario s = parse(doc);
    const SearchResult r = search(s, SearchOptions{});
    if (r.plans.empty()) continue;
    ++explained;
    const Explanation x = explain(s, r);
    const Estimate& best = r.plans.front();
    const ParallelConfig& p = best.parallel;
    std::string all = x.thirty_second_answer;
    for (const ExplanationStep& step : x.steps) all += "\n" + step.title + ": " + step.text;
    for (const Alternative& a : x.alternatives) all += "\n" + a.label + ": " + a.verdict;
    const std::string where = describe(doc, p) + "\n" + all;
    if (x.facts.smaller_pp > 0 && !x.facts.smaller_pp_fits) {
      ++smaller_pp_claims;
      for (const Estimate& other : r.plans) {
        EXPECT_FALSE(other.parallel.pp == x.facts.smaller_pp && other.parallel.tp == p.tp &&
                     other.parallel.cp == p.cp && other.parallel.ep == p.ep)
            << "claims p = " << x.facts.smaller_pp << " does not fit: " << where;
      }
    }
    EXPECT_EQ(all.find("hand count"), std::string::npos) << where;
    EXPECT_EQ(all.find("npin"), std::string::npos) << where;  // nothing is pinned here
    if (p.tp == 1) {
      EXPECT_EQ(all.find("TP collectives"), std::string::npos) << where;
      EXPECT_EQ(all.find("Tensor parallel"), std::string::npos) << where;
      EXPECT_EQ(all.find("Put TP"), std::string::npos) << where;
      EXPECT_EQ(all.find("its collectives stay on NVLink"), std::string::npos) << where;
    }
    if (p.cp == 1) {
      EXPECT_EQ(all.find("CP ="), std::string::npos) << where;
      EXPECT_EQ(all.find("long sequence"), std::string::npos) << where;
      EXPECT_EQ(all.find("Context"), std::string::npos) << where;
    }
    // Replica 0 (dp 0) per the layout's rank order: the nodes it occupies.
    std::vector<int> nodes;
    for (long long rank = 0; rank < s.cluster.gpus; ++rank) {
      const RankCoordinates c = rank_coordinates(p, s.cluster.gpus_per_node, static_cast<int>(rank));
      if (c.dp == 0 && std::find(nodes.begin(), nodes.end(), c.node) == nodes.end()) nodes.push_back(c.node);
    }
    const std::string markdown = report_markdown(design_report(s, best, x));
    const std::string placement = std::to_string(nodes.size()) + (nodes.size() == 1 ? " node of " : " nodes of ");
    EXPECT_NE(markdown.find(placement), std::string::npos) << placement << ": " << describe(doc, p);
  }
  std::printf("[ property ] explanations: %d scenarios, %d 'smaller p does not fit' claims checked\n",
              explained, smaller_pp_claims);
  EXPECT_GT(explained, 100);
}

// Huge inputs --------------------------------------------------------------------------------
// 10^6 GPUs and 10^4 layers answer in bounded time; when the space is larger than
// SearchOptions::max_configs, the search says so (capped) instead of running on.
double plan_seconds(const std::string& scenario, json& response) {
  const auto start = std::chrono::steady_clock::now();
  response = json::parse(handle_request(R"({"command":"plan","top":3,"scenario":)" + scenario + "}"));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(HugeInputs, MillionGpusAnswerInBoundedTime) {
  json response;
  const double seconds = plan_seconds(
      R"({"model":"llama3-405b","cluster":{"gpu":"h100-sxm","gpus":1048576,"gpus_per_node":8},
          "training":{"seq_len":8192,"global_batch":16777216}})",
      response);
  std::printf("[ huge ] 2^20 GPUs, llama3-405b: %.2f s, %s configs, capped %s\n", seconds,
              response["search"]["configs_evaluated"].dump().c_str(), response["search"]["capped"].dump().c_str());
  ASSERT_TRUE(response["ok"].get<bool>()) << response.dump().substr(0, 400);
  EXPECT_FALSE(response["plans"].empty());
  EXPECT_LT(seconds, 20.0);
}

TEST(HugeInputs, TenThousandLayersAnswerInBoundedTime) {
  json response;
  const double seconds = plan_seconds(
      R"({"model":{"layers":10000,"hidden":4096,"heads":32,"ffn_hidden":16384,"vocab":50304,
          "activation":"gelu"},"cluster":{"gpu":"h100-sxm","gpus":4096,"gpus_per_node":8},
          "training":{"seq_len":2048,"global_batch":4096}})",
      response);
  std::printf("[ huge ] 10^4 layers on 4096 GPUs: %.2f s, %s configs, capped %s\n", seconds,
              response["search"]["configs_evaluated"].dump().c_str(), response["search"]["capped"].dump().c_str());
  ASSERT_TRUE(response["ok"].get<bool>()) << response.dump().substr(0, 400);
  EXPECT_LT(seconds, 20.0);
}

// The largest space the parser admits near its limits: a highly composite GPU count
// (720720 = 2^4·3^2·5·7·11·13, 240 divisors), 55440 experts (120 divisors), 5040 layers and a
// batch with 768 divisors. The search must stop at max_configs and say so.
TEST(HugeInputs, SearchSpaceBeyondTheCapIsCappedAndSaysSo) {
  json response;
  const double seconds = plan_seconds(
      R"({"model":{"layers":5040,"hidden":5040,"heads":5040,"ffn_hidden":20160,"vocab":32000,
          "activation":"swiglu","moe":{"experts":55440,"top_k":2,"expert_ffn_hidden":512}},
          "cluster":{"gpu":"h100-sxm","gpus":720720,"gpus_per_node":8},
          "training":{"seq_len":2048,"global_batch":73513440}})",
      response);
  std::printf("[ huge ] 720720 GPUs, 55440 experts, 5040 layers: %.2f s, %s configs, capped %s\n", seconds,
              response["search"]["configs_evaluated"].dump().c_str(), response["search"]["capped"].dump().c_str());
  ASSERT_TRUE(response["ok"].get<bool>()) << response.dump().substr(0, 400);
  EXPECT_TRUE(response["search"]["capped"].get<bool>());
  // Whichever bound stops it first (the configuration cap, or the wall-time budget on a loaded
  // machine), the answer says which.
  const std::string reason = response["search"].value("capped_reason", "");
  EXPECT_TRUE(reason.find("4000000 configurations") != std::string::npos ||
              reason.find("time budget") != std::string::npos)
      << response["search"].dump();
  EXPECT_LT(seconds, 20.0);
}

TEST(HugeInputs, CapIsHonouredExactlyForASmallBudget) {
  const Scenario s = parse(json::parse(
      R"({"model":"llama3-70b","cluster":{"gpu":"h100-sxm","gpus":4096,"gpus_per_node":8},
          "training":{"seq_len":8192,"global_batch":4096}})"));
  SearchOptions options;
  options.max_configs = 1000;
  const SearchResult capped = search(s, options);
  EXPECT_TRUE(capped.stats.capped);
  options.max_configs = 4'000'000;
  const SearchResult full = search(s, options);
  EXPECT_FALSE(full.stats.capped);
  EXPECT_GT(full.stats.configs_evaluated, 1000);
}

// 11 --------------------------------------------------------------------------------------
// The search is exact over its space: its fastest plan is the fastest of an enumeration that
// evaluates every configuration one by one (every tp, cp, pp dividing the GPUs; micro-batch
// dividing B/dp; vpp dividing the even stage; ep dividing the experts, etp (tp or 1) the
// expert width, and etp·ep dividing tp·cp·dp; sp;
// recompute none, selective, or full on k = 1..all layers per chunk; ZeRO 0–3), keeping what
// fits the usable memory and what the framework runs. Pruning, bounds and the memory parts the
// search caches may skip work, never a faster plan.
TEST(Properties, SearchFindsTheFastestPlanOfABruteForceEnumeration) {
  ScenarioGenerator g(20261201);
  int checked = 0, with_experts = 0;
  long long enumerated = 0;
  for (int attempt = 0; attempt < 1000 && checked < 40; ++attempt) {
    json doc = g.scenario(g.pick<int>({2, 4, 8, 16}));
    if (!doc["model"].is_object()) continue;
    doc["model"]["layers"] = g.pick<int>({4, 8, 12, 16});
    doc["training"]["global_batch"] = g.pick<int>({16, 32, 64});
    doc["training"]["seq_len"] = g.pick<int>({1024, 2048});
    const Scenario s = parse(doc);
    const long long gpus = s.cluster.gpus;
    const bool moe = s.model.moe && s.model.moe->experts > 0;
    std::vector<Estimate> fits_usable, fits_physical;
    const double usable = s.cluster.gpu.memory_bytes * (1.0 - s.training.memory_headroom);
    EvaluateOptions fast;
    fast.detailed = false;
    auto consider = [&](const ParallelConfig& p) {
      ++enumerated;
      if (first_framework_problem(s, p)) return;
      Estimate e = evaluate(s, p, fast);
      if (!e.feasible) return;
      (e.memory.total_bytes <= usable ? fits_usable : fits_physical).push_back(std::move(e));
    };
    for (int tp : divisors(gpus)) {
      for (int cp : divisors(gpus / tp)) {
        for (int pp : divisors(gpus / tp / cp)) {
          const int dp = static_cast<int>(gpus / tp / cp / pp);
          if (s.model.layers % pp != 0 || s.training.global_batch % dp != 0) continue;
          for (int mb : divisors(s.training.global_batch / dp)) {
            for (int vpp : divisors(s.model.layers / pp)) {
              if (vpp > 1 && pp == 1) continue;
              std::vector<std::pair<int, int>> expert_layouts;  // (ep, etp)
              for (int ep : moe ? divisors(s.model.moe->experts) : std::vector<int>{1}) {
                for (int etp : moe && tp > 1 ? std::vector<int>{tp, 1} : std::vector<int>{tp}) {
                  if ((1LL * tp * dp * cp) % (1LL * etp * ep) != 0) continue;
                  if (moe && s.model.moe->expert_ffn_hidden % etp != 0) continue;
                  expert_layouts.emplace_back(ep, etp);
                }
              }
              for (const auto& [ep, etp] : expert_layouts) {
                for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
                  for (int zero = 0; zero <= 3; ++zero) {
                    ParallelConfig p;
                    p.tp = tp, p.cp = cp, p.pp = pp, p.dp = dp, p.micro_batch = mb, p.vpp = vpp, p.ep = ep;
                    p.etp = etp == tp ? 0 : etp;
                    p.sequence_parallel = sp != 0;
                    p.zero = zero;
                    for (Recompute r : {Recompute::kNone, Recompute::kSelective}) {
                      p.recompute = r;
                      consider(p);
                    }
                    // One stage without recomputation may offload its first layers' activations
                    // (the scenarios run on Megatron-Core and on presets with a host link).
                    if (pp == 1) {
                      p.recompute = Recompute::kNone;
                      for (int k = 1; k < s.model.layers; ++k) {
                        p.offload_layers = k;
                        consider(p);
                      }
                      p.offload_layers = 0;
                    }
                    p.recompute = Recompute::kFull;
                    const int chunk = s.model.layers / pp / vpp;
                    for (int k = 0; k < chunk; ++k) {  // 0: every layer
                      p.recompute_layers = k;
                      consider(p);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    const std::vector<Estimate>& pool = fits_usable.empty() ? fits_physical : fits_usable;
    const SearchResult r = search(s, SearchOptions{});
    ASSERT_EQ(pool.empty(), r.plans.empty()) << doc.dump();
    if (pool.empty()) continue;
    const Estimate& best = *std::min_element(pool.begin(), pool.end(), [](const Estimate& a, const Estimate& b) {
      return a.step_time_s < b.step_time_s;
    });
    const Estimate& found = r.fastest ? *r.fastest : r.plans.front();
    EXPECT_NEAR(found.step_time_s, best.step_time_s, 1e-9 * best.step_time_s)
        << doc.dump() << "\n  search: " << describe(doc, found.parallel) << "\n  enumeration: " << describe(doc, best.parallel);
    ++checked;
    if (moe) ++with_experts;
  }
  std::printf("checked %d scenarios (%d with experts), %lld configurations enumerated\n", checked, with_experts,
              enumerated);
  EXPECT_GE(checked, 40);
  EXPECT_GE(with_experts, 5);
}

}  // namespace
}  // namespace pplan
