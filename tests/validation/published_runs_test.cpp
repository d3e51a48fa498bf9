// Validation against the published and measured runs in tests/data/ (sources per case in the
// files; provenance in tests/data/README.md). The bars are issue #11's; each can fail:
//   published runs, primary figure: median error <= 5%, 90% of cases within 15%, efficiency
//   rank correlation >= 0.8, leave-one-source-out median <= 8%, every published layout fits
//   (within the planner's headroom unless its pins leave nothing there) with no more
//   recomputation than it needs;
//   Korthikanti et al. 2022 Table 5 iteration times: mean <= 3.5%, max <= 8% (Calculon: 3.65%
//   and 8.87% on the same runs); vTrain's measured single-node runs: mean below vTrain's own
//   simulator's 8.37%, signed bias within ±3%.
// The trends the publications show must hold too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "../support/scenario_files.h"
#include "calibrate.h"
#include "pplan/framework/rules.h"
#include "pplan/search/search.h"

namespace pplan::validation {
namespace {

class PublishedRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cases_ = new std::vector<PublishedCase>(prepare_published(
        nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/published-runs.json"))));
    runs_ = new std::vector<CaseRun>(run_published(*cases_));
    score_ = new PublishedScore(score_published(*runs_));
    for (const CaseRun& r : *runs_) by_id_[r.id] = &r;
  }
  static void TearDownTestSuite() {
    delete score_;
    delete runs_;
    delete cases_;
  }
  static double primary(const std::string& id) { return by_id_.at(id)->primary_figure().predicted.value_or(0); }
  static double published(const std::string& id) { return by_id_.at(id)->primary_figure().published; }
  static std::vector<PublishedCase>* cases_;
  static std::vector<CaseRun>* runs_;
  static PublishedScore* score_;
  static std::map<std::string, const CaseRun*> by_id_;
};
std::vector<PublishedCase>* PublishedRuns::cases_ = nullptr;
std::vector<CaseRun>* PublishedRuns::runs_ = nullptr;
PublishedScore* PublishedRuns::score_ = nullptr;
std::map<std::string, const CaseRun*> PublishedRuns::by_id_;

// Each published layout is planned, fits within the planner's own headroom
// (training.memory_headroom), and where the source leaves recomputation free the plan takes no
// more of it than it needs: each lighter level the framework can run either does not fit within
// the headroom or is no faster (the search prefers the simpler plan within its tie tolerance).
TEST_F(PublishedRuns, EveryPublishedLayoutIsJudgedToFit) {
  int recompute_free = 0, recompute_chosen = 0;
  for (const PublishedCase& pc : *cases_) {
    const CaseRun& r = *by_id_.at(pc.id);
    ASSERT_TRUE(r.has_plan) << r.id << ": " << r.why_no_plan;
    EXPECT_TRUE(r.fits) << r.id;
    const Scenario& s = pc.scenario;
    const double usable_bytes = s.cluster.gpu.memory_bytes * (1 - s.training.memory_headroom);
    const Estimate chosen = evaluate(s, r.plan);
    if (chosen.memory.total_bytes > usable_bytes) {
      // Only a run whose source fixed its recomputation, and whose pins leave no plan within
      // the headroom at all, may pass it (the search then ranks what fits the physical memory):
      // it ran, so it must fit that memory, and the plan must say it is tight. Llama 3 405B at
      // 8K with Meta's layout and no recomputation (Llama Team 2024 §3.3.2) is such a run.
      EXPECT_TRUE(s.parallel.recompute.has_value()) << r.id << ": recomputation was free";
      EXPECT_FALSE(search(s, SearchOptions{}).within_headroom)
          << r.id << ": a plan above the headroom although one within it exists";
      const bool warned = std::any_of(chosen.diagnostics.begin(), chosen.diagnostics.end(),
                                      [](const Diagnostic& d) { return d.code == "plan.low_headroom"; });
      EXPECT_TRUE(chosen.fits_in_memory && warned) << r.id;
      std::printf("%s: %.1f GB of %.1f, above the %.0f%% headroom, as the source ran it\n", r.id.c_str(),
                  chosen.memory.total_bytes / 1e9, s.cluster.gpu.memory_bytes / 1e9,
                  100 * (1 - s.training.memory_headroom));
    }
    if (s.parallel.recompute) continue;  // the source states it: pinned
    ++recompute_free;
    if (r.plan.recompute == Recompute::kNone) continue;
    ++recompute_chosen;
    const LaunchFramework framework = launch_framework_of(s.training.framework);
    for (Recompute lighter : {Recompute::kNone, Recompute::kSelective}) {
      if (lighter >= r.plan.recompute) break;
      ParallelConfig candidate = r.plan;
      candidate.recompute = lighter;
      candidate.recompute_layers = 0;
      if (first_framework_problem(framework, s, candidate) != nullptr) continue;
      const Estimate e = evaluate(s, candidate);
      EXPECT_TRUE(!e.feasible || e.memory.total_bytes > usable_bytes ||
                  e.step_time_s >= chosen.step_time_s * (1 - SearchOptions{}.tie_tolerance))
          << r.id << ": " << (lighter == Recompute::kNone ? "no" : "selective")
          << " recomputation fits and is faster (" << e.step_time_s << " s against "
          << chosen.step_time_s << " s)";
    }
  }
  std::printf("recomputation left free in %d cases; %d of their plans recompute, each because "
              "nothing lighter fits or is faster\n", recompute_free, recompute_chosen);
}

TEST_F(PublishedRuns, PrimaryMedianErrorAtMost5Percent) {
  std::printf("primary: median %.1f%%, within 15%% %.1f%% of %d cases\n", 100 * score_->primary.median,
              100 * score_->primary.within15, score_->cases);
  EXPECT_LE(score_->primary.median, 0.05);
}

// Issue #11's goal: 90% of cases within 15%. The misses are listed when this runs (DeepSeek-V3
// on Blackwell and H100, Blackwell FP8 current scaling, ZeRO-3 on 1,536 A100s, BLOOM).
TEST_F(PublishedRuns, AtLeast90PercentOfCasesWithin15Percent) {
  for (const CaseRun& r : *runs_) {
    const auto e = speed_error(r);
    if (!e || std::fabs(*e) > 0.15) std::printf("  beyond 15%%: %s %+.1f%%\n", r.id.c_str(), e ? 100 * *e : 0.0);
  }
  EXPECT_GE(score_->primary.within15, 0.90);
}

TEST_F(PublishedRuns, RanksEfficiencyAsPublished) {
  // Each published figure turned into an MFU with pplan's own FLOP count: model size does not
  // help to rank these.
  EXPECT_GE(score_->efficiency_spearman, 0.8);
}

TEST_F(PublishedRuns, LeaveOneSourceOutMedianAtMost8Percent) {
  const auto measured = prepare_measured(
      nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/vtrain-single-node.json")));
  const Calibration committed = cases_->front().scenario.calibration;
  const PublishedScore loso = score_published(leave_one_source_out(*cases_, measured, committed));
  std::printf("leave-one-source-out median %.1f%%\n", 100 * loso.primary.median);
  EXPECT_LE(loso.primary.median, 0.08);
}

TEST_F(PublishedRuns, KorthikantiTable5IterationTimes) {
  double sum = 0, worst = 0;
  int n = 0;
  for (const CaseRun& r : *runs_) {
    if (r.group != "Korthikanti2022_Table3_Table5") continue;
    const Figure& f = r.primary_figure();
    ASSERT_TRUE(f.predicted.has_value()) << r.id << ": no plan, so no iteration time";
    const double e = std::fabs(*f.predicted / f.published - 1);
    sum += e;
    worst = std::max(worst, e);
    ++n;
  }
  ASSERT_EQ(n, 8);
  EXPECT_LE(sum / n, 0.035);
  EXPECT_LE(worst, 0.08);
}

TEST_F(PublishedRuns, LargerMegatronModelsReachAHigherShareOfPeak) {
  // Narayanan et al. 2021 Table 1: 0.43-0.46 up to 145.6B, 0.50-0.52 from 310B on.
  const double small = (primary("narayanan21_t1_18.4B") + primary("narayanan21_t1_39.1B")) / 2;
  const double large = (primary("narayanan21_t1_529.6B") + primary("narayanan21_t1_1008.0B")) / 2;
  EXPECT_GT(large, small * 1.05);
}

TEST_F(PublishedRuns, SelectiveRecomputeBeatsFullByAboutThePublishedMargin) {
  // Korthikanti et al. 2022 Table 5: full/selective iteration time 1.29 (22B), 1.32 (175B),
  // 1.30 (530B), 1.32 (1T); the predicted ratio must land within 10% of it.
  for (const char* size : {"22B", "175B", "530B", "1T"}) {
    const std::string present = std::string("korthikanti22_") + size + "_present_work";
    const std::string full = std::string("korthikanti22_") + size + "_full_recompute";
    const double want = published(full) / published(present);
    const double got = primary(full) / primary(present);
    EXPECT_NEAR(got / want, 1.0, 0.10) << size;
  }
}

TEST_F(PublishedRuns, ZeroThreeStopsScalingWhereTheNetworkBinds) {
  // Narayanan et al. 2021 Table 2: DeepSpeed ZeRO-3 on 175B halves its per-GPU throughput
  // each time the GPU count doubles (144 -> 88 -> 44 TFLOP/s), PTD-P barely moves (153 -> 141).
  EXPECT_LT(primary("narayanan21_t2_zero3_174.6B_1536gpu"), 0.5 * primary("narayanan21_t2_zero3_174.6B_384gpu"));
  EXPECT_GT(primary("narayanan21_t2_ptdp_174.6B_1536gpu"), 0.85 * primary("narayanan21_t2_ptdp_174.6B_384gpu"));
}

// A scaling series by hand: one source's MFU of one model at 64, 128 and 512 GPUs, published
// 0.50 -> 0.40 (slope 0.80) while pplan keeps 0.50 -> 0.48 (slope 0.96): +20% too flat. A run at
// another sequence length, another precision or a step-time figure is not part of it, and a
// size seen twice keeps its first run.
TEST(ScalingSeries, SlopeIsTheLargestSizesFigureOverTheSmallests) {
  const auto run = [](long long gpus, double published, double predicted, int seq_len = 4096,
                      const std::string& precision = "bf16", const std::string& metric = "mfu") {
    CaseRun r;
    r.group = "Source";
    r.model = "M";
    r.gpu = "h100-sxm";
    r.precision = precision;
    r.seq_len = seq_len;
    r.gpus = gpus;
    r.primary = metric;
    r.figures.push_back({metric, published, predicted});
    return r;
  };
  const std::vector<CaseRun> runs = {run(128, 0.45, 0.49), run(64, 0.50, 0.50), run(512, 0.40, 0.48),
                                     run(64, 0.10, 0.10),  // the smallest size again: its first run stands
                                     run(1024, 0.30, 0.30, 8192), run(1024, 0.30, 0.30, 4096, "fp8"),
                                     run(2048, 9.0, 9.0, 4096, "bf16", "iteration_time_s")};
  const std::vector<ScalingSeries> series = scaling_series(runs);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].smallest_gpus, 64);
  EXPECT_EQ(series[0].largest_gpus, 512);
  EXPECT_EQ(series[0].runs, 3);
  EXPECT_NEAR(series[0].published_slope, 0.80, 1e-12);
  EXPECT_NEAR(*series[0].predicted_slope, 0.96, 1e-12);
  EXPECT_NEAR(*series[0].error(), 0.20, 1e-12);
  EXPECT_EQ(scale_band(256), "<= 256 GPUs");
  EXPECT_EQ(scale_band(257), "257-2,048 GPUs");
  EXPECT_EQ(scale_band(2049), "> 2,048 GPUs");
}

TEST(MeasuredRuns, VtrainSingleNodeMeanAndBias) {
  const MeasuredScore m = score_measured(run_measured(
      nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/vtrain-single-node.json"))));
  std::printf("vTrain: mean %.1f%%, bias %+.1f%% over %d runs\n", 100 * m.mean, 100 * m.bias, m.cases);
  EXPECT_EQ(m.cases, 1440);
  // The bar is vTrain's own simulator on the same runs (Bang et al. 2024: 8.37%). It was 8%
  // while the constants came from a local refit of their previous values; the fit from fixed
  // starts (issue #30) lands at 8.02% here, and the bar is not tuned to it.
  EXPECT_LT(m.mean, 0.0837);
  EXPECT_LE(std::fabs(m.bias), 0.03);
}

// Runs scored apart from the fit: each planned with its published layout, which fits the GPU
// (the runs ran); their error is printed, not held to a bar.
void expect_planned_and_fitting(const std::vector<PublishedCase>& cases, const char* label) {
  const std::vector<CaseRun> runs = run_published(cases);
  for (const CaseRun& r : runs) {
    EXPECT_TRUE(r.has_plan) << r.id << ": " << r.why_no_plan;
    EXPECT_TRUE(r.fits) << r.id;
  }
  const PublishedScore s = score_published(runs);
  std::printf("%s: %d runs, median %.1f%%, within 15%% %.1f%%, bias %+.1f%%\n", label, s.cases,
              100 * s.primary.median, 100 * s.primary.within15, 100 * s.primary.bias);
}

// The held-out runs (the data's held_out.groups: added after the fit, never fitted) are scored
// apart; their error is what issues #22 and #24 work on. Each must still be planned with its
// published layout, and that layout must fit the GPU: the runs ran.
TEST(PublishedRunsHeldOut, EveryHeldOutLayoutIsPlannedAndFits) {
  const auto document =
      nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/published-runs.json"));
  const std::vector<PublishedCase> held_out = prepare_published(document, CaseSet::kHeldOut);
  const std::vector<PublishedCase> fitted = prepare_published(document);
  EXPECT_EQ(held_out.size() + fitted.size(), document.at("cases").size());
  ASSERT_EQ(held_out.size(), 57u);  // Megatron-Bridge 26.02 and 26.02.01
  expect_planned_and_fitting(held_out, "held out");
}

// Newer releases' runs (published-runs-newer.json: Megatron-Bridge 26.04 to 26.08, published
// after the fit) are never fitted and sit outside the goal set; like the held-out runs, each
// must be planned with its published layout, and that layout must fit: the runs ran.
TEST(PublishedRunsNewer, EveryNewerLayoutIsPlannedAndFits) {
  const auto document = nlohmann::json::parse(
      pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/published-runs-newer.json"));
  ASSERT_FALSE(document.contains("held_out"));  // all of it comes back as CaseSet::kFitted
  const std::vector<PublishedCase> newer = prepare_published(document);
  // 154 table rows of 26.04 to 26.08, less 2 in published-runs.json, 15 NVFP4 rows of Nemotron 3
  // Super and 36 of models no 26.02 case describes; plus 7 NVFP4 rows of 26.02 and 26.02.01.
  ASSERT_EQ(newer.size(), 108u);
  expect_planned_and_fitting(newer, "newer releases");
}

TEST(Calibration, TheCommittedConstantsAreWhatTheFitFinds) {
  // What is fitted is reproducible: the fit (pplan_calibrate fit), from its fixed starts and
  // never from the committed values, finds every committed constant to within 0.1% (the file
  // keeps 4 significant digits, at most 0.05% off). A model or data change that moves the fit
  // fails here until `pplan_calibrate fit --write` is run and its diff reviewed.
  const auto published = prepare_published(
      nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/published-runs.json")));
  const auto measured = prepare_measured(
      nlohmann::json::parse(pplan::testing::read_text(std::string(PPLAN_DATA_DIR) + "/vtrain-single-node.json")));
  Calibration committed = published.front().scenario.calibration;
  std::vector<FitStart> starts;
  Calibration refit = fit_from_starts(published, measured, committed, &starts);
  for (const FitStart& start : starts) {
    std::printf("start %.2f x anchor: objective %.6f\n", start.multiple, start.objective);
  }
  for (const FittedConstant& f : fitted_constants()) {
    const double want = *f.get(refit), have = *f.get(committed);
    std::printf("%-20s committed %.6g, fit %.6g (%+.3f%%)\n", f.name, have, want, 100 * (have / want - 1));
    EXPECT_NEAR(have / want, 1.0, 0.001) << f.name << ": run pplan_calibrate fit --write and review";
  }
  // Several starts agree on the best objective: the fit is not one lucky descent.
  int agreeing = 0;
  const double best = calibration_objective(published, measured, refit);
  for (const FitStart& start : starts) agreeing += start.objective <= best * 1.001;
  EXPECT_GE(agreeing, 2);
}

}  // namespace
}  // namespace pplan::validation
