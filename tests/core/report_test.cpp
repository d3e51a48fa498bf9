// The design report: each new formula checked by hand, the report's links, and golden
// Markdown for the example scenarios (UPDATE_GOLDEN=1 regenerates tests/golden/report/).
#include <gtest/gtest.h>

#include "../support/golden.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/scenario_files.h"
#include "pplan/io/api.h"
#include "pplan/report/design_report.h"
#include "pplan/model/estimate.h"
#include "pplan/model/memory.h"

namespace pplan {
namespace {

using testing::read_text;
using testing::source_path;

TEST(ReportFormulas, FailureRateFromLlama3) {
  // 419 interruptions / (54 days · 24 h · 16,384 GPUs) = 419 / 21,233,664.
  EXPECT_DOUBLE_EQ(llama3_failures_per_gpu_hour(), 419.0 / 21233664.0);
  EXPECT_NEAR(llama3_failures_per_gpu_hour(), 1.9733e-5, 1e-9);
}

TEST(ReportFormulas, JobMtbfScalesInverselyWithGpus) {
  // At Llama 3's own scale the job fails every 54·24/419 = 3.093 h.
  EXPECT_NEAR(job_mtbf_s(llama3_failures_per_gpu_hour(), 16384), 54.0 * 24 * 3600 / 419, 1e-6);
  EXPECT_NEAR(job_mtbf_s(llama3_failures_per_gpu_hour(), 2048), 8.0 * 54 * 24 * 3600 / 419, 1e-6);
  EXPECT_DOUBLE_EQ(job_mtbf_s(1e-4, 1000), 36000.0);  // 0.1 failures per hour
}

TEST(ReportFormulas, YoungDalyInterval) {
  // sqrt(2 · 60 s · 3 h) = sqrt(1,296,000) = 1138.42 s.
  EXPECT_NEAR(young_daly_interval_s(60.0, 10800.0), 1138.4199, 1e-3);
  EXPECT_DOUBLE_EQ(young_daly_interval_s(50.0, 100.0), 100.0);
}

TEST(ReportFormulas, DalyHigherOrderInterval) {
  // 1138.42 · (1 + sqrt(60/21600)/3 + (60/21600)/9) − 60 = 1098.77 s; δ ≥ 2M gives M.
  EXPECT_NEAR(daly_interval_s(60.0, 10800.0), 1098.7713, 1e-3);
  EXPECT_DOUBLE_EQ(daly_interval_s(300.0, 100.0), 100.0);
}

TEST(ReportFormulas, GoodputFirstOrderDaly) {
  // τ 1138.42, δ 60, R 660, M 10800: 1138.42/1198.42 · (1 − (660 + 599.21)/10800) = 0.83920.
  const double tau = young_daly_interval_s(60.0, 10800.0);
  const double want = tau / (tau + 60.0) * (1.0 - (660.0 + (tau + 60.0) / 2.0) / 10800.0);
  EXPECT_DOUBLE_EQ(goodput_fraction(tau, 60.0, 660.0, 10800.0), want);
  EXPECT_NEAR(want, 0.83920, 1e-4);
  // No failures, free checkpoints: all time is useful.
  EXPECT_DOUBLE_EQ(goodput_fraction(1000.0, 0.0, 0.0, 1e300), 1.0);
}

TEST(ReportFormulas, CheckpointSizeIsWeightsPlusAdam) {
  EXPECT_DOUBLE_EQ(checkpoint_bytes(175e9), 2.45e12);  // 14 bytes/param
  EXPECT_DOUBLE_EQ(kCheckpointBytesPerParam, 2.0 + 12.0);
  EXPECT_DOUBLE_EQ(checkpoint_bytes(175e9, 6.0), 1.4e12);  // bf16 Adam state: 2 + 6 bytes/param
}

TEST(ReportFormulas, DefaultStorageIsLlama3sPerGpuShare) {
  EXPECT_DOUBLE_EQ(default_storage_bytes_per_s(16384), 2e12);
  EXPECT_DOUBLE_EQ(default_storage_bytes_per_s(2048), 250e9);
}

TEST(ReportTraffic, TpAndDpBytesOfTheWorkedExample) {
  // GPT-3 175B, t 8, p 8, N 16, selective recompute, no ZeRO (the method's worked example (examples/gpt3-175b-1024-a100.json)).
  // TP [3]: m 96 · 12 layers · 4 collectives · 2·7/8 · (2048·12288·2) bytes, all on NVLink.
  // DP [7]: 8 bytes/param · (n−1)/n over 16 ranks one per node, all over the NIC.
  const Scenario s = testing::load_scenario("examples/gpt3-175b-1024-a100.json");
  const Estimate e = evaluate(s, resolve_defaults(s));
  const double message = 2048.0 * 12288 * 2;
  for (const AxisTraffic& t : communication_per_step(s, e)) {
    if (t.axis == "TP") {
      EXPECT_DOUBLE_EQ(t.nvlink_bytes, 96.0 * 12 * 4 * 2 * 7 / 8 * message);
      EXPECT_DOUBLE_EQ(t.network_bytes, 0.0);
    }
    if (t.axis == "DP") {
      // Every stage holds 12 layers; the report shows the first of the busiest, stage 0.
      const StageParams params = stage_params_per_gpu(s, e.parallel, e.split, 0);
      EXPECT_DOUBLE_EQ(t.network_bytes, 8.0 * params.total() * 15 / 16);
      EXPECT_DOUBLE_EQ(t.nvlink_bytes, 0.0);
    }
  }
}

nlohmann::json report_of(const std::string& example, const std::string& extra = "") {
  nlohmann::json scenario = nlohmann::json::parse(read_text(source_path(example)));
  if (!extra.empty()) scenario.merge_patch(nlohmann::json::parse(extra));
  const nlohmann::json request = {{"command", "report"}, {"scenario", scenario}};
  return nlohmann::json::parse(handle_request(request.dump()));
}

const nlohmann::json& figure(const nlohmann::json& report, const std::string& key) {
  for (const auto& section : report["report"]["sections"]) {
    for (const auto& f : section["figures"]) {
      if (f["key"] == key) return f;
    }
  }
  static const nlohmann::json missing;
  ADD_FAILURE() << "no figure " << key;
  return missing;
}

TEST(Report, EveryLinkHasItsFormulaAnchor) {
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const std::string md = r["markdown"].get<std::string>();
  std::set<std::string> anchors, links;
  const std::regex anchor(R"re(<a id="f-(\d+)"></a>)re"), link(R"re(\]\(#f-(\d+)\))re");
  for (std::sregex_iterator it(md.begin(), md.end(), anchor), end; it != end; ++it) anchors.insert((*it)[1]);
  for (std::sregex_iterator it(md.begin(), md.end(), link), end; it != end; ++it) links.insert((*it)[1]);
  EXPECT_FALSE(links.empty());
  for (const std::string& l : links) EXPECT_TRUE(anchors.count(l)) << "dangling link to formula " << l;
  for (const auto& section : r["report"]["sections"]) {
    for (const auto& f : section["figures"]) {
      EXPECT_LE(f["formula"].get<int>(), static_cast<int>(r["report"]["formulas"].size()));
    }
  }
}

TEST(Report, ReliabilityFiguresFollowTheirFormulas) {
  // DeepSeek-V3 on 2048 GPUs: checkpoint 8·Ψ (bf16 weights 2 + BF16 AdamW moments beside the
  // master weights' 16 missing bits, 6: the example's optimizer_state_dtype, as DeepSeek ran it),
  // δ = size / 250 GB/s, M = 3600/(λ·2048), τ = sqrt(2δM), R = 600 + δ, goodput per Daly.
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json");
  ASSERT_TRUE(r["ok"].get<bool>());
  const double params = figure(r, "params_total")["value"].get<double>();
  const double ckpt_gb = 8.0 * params / 1e9;
  EXPECT_NEAR(figure(r, "checkpoint_gb")["value"].get<double>() / ckpt_gb, 1.0, 1e-5);
  const double delta = ckpt_gb / 250.0;
  EXPECT_NEAR(figure(r, "checkpoint_write_s")["value"].get<double>() / delta, 1.0, 1e-5);
  const double mtbf_s = 3600.0 / (419.0 / 21233664.0 * 2048);
  EXPECT_NEAR(figure(r, "mtbf_h")["value"].get<double>() / (mtbf_s / 3600), 1.0, 1e-5);
  const double tau = std::sqrt(2 * delta * mtbf_s);
  EXPECT_NEAR(figure(r, "checkpoint_interval_min")["value"].get<double>() / (tau / 60), 1.0, 1e-5);
  const double goodput = tau / (tau + delta) * (1 - (600 + delta + (tau + delta) / 2) / mtbf_s);
  EXPECT_NEAR(figure(r, "goodput")["value"].get<double>() / goodput, 1.0, 1e-5);
}

TEST(Report, Llama3GoodputAgreesWithItsPublishedEffectiveTrainingTime) {
  // Llama Team 2024 §3.3.4: despite 419 interruptions in 54 days, "higher than 90% effective
  // training time". With the report's defaults (Llama 3's failure rate and storage, 600 s
  // restart) on Llama 3's own 16,384 GPUs the goodput must land there too.
  const nlohmann::json r = report_of("examples/llama3-405b-128k-16384-h100.json");
  ASSERT_TRUE(r["ok"].get<bool>());
  const double goodput = figure(r, "goodput")["value"].get<double>();
  EXPECT_GT(goodput, 0.90);
  EXPECT_LT(goodput, 1.0);
  EXPECT_NEAR(figure(r, "mtbf_h")["value"].get<double>(), 54.0 * 24 / 419, 1e-4);
}

TEST(Report, TrillionParameterDaysToTrainMatchMegatronsEstimate) {
  // Narayanan et al. 2021 §5.1: GPT 1T on 3072 A100s, 450B tokens, about 84 days (from
  // 8·T·P/(n·X) at the measured 163 TFLOP/s). pplan's days = budget / tokens per day.
  const nlohmann::json r = report_of("examples/megatron-1t-3072-a100.json");
  ASSERT_TRUE(r["ok"].get<bool>());
  const double days = figure(r, "days_to_train")["value"].get<double>();
  std::printf("[ GPT 1T ] %.1f days for 450B tokens (published estimate: 84)\n", days);
  EXPECT_NEAR(days / 84.0, 1.0, 0.15);
  EXPECT_NEAR(figure(r, "checkpoint_gb")["value"].get<double>() / (14.0 * figure(r, "params_total")["value"].get<double>() / 1e9),
              1.0, 1e-5);
}

TEST(Report, ScenarioOverridesStorageAndFailureRate) {
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json",
                                     R"({"report":{"storage_gbytes_per_s":1000,"failures_per_gpu_hour":1e-4}})");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(figure(r, "storage_gbytes_per_s")["value"].get<double>(), 1000.0);
  EXPECT_NEAR(figure(r, "mtbf_h")["value"].get<double>() * (1e-4 * 2048), 1.0, 1e-5);  // 6 digits
  EXPECT_EQ(figure(r, "mtbf_h")["formula"].get<int>(), 16);
}

TEST(Report, ScenarioSetsTheRestartTime) {
  // R = report.restart_s + the checkpoint read back at the storage bandwidth.
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json", R"({"report":{"restart_s":0}})");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NEAR(figure(r, "restart_s")["value"].get<double>() / figure(r, "checkpoint_write_s")["value"].get<double>(),
              1.0, 1e-5);
  const nlohmann::json bad = report_of("examples/deepseek-v3-2048-h800.json", R"({"report":{"restart_s":-1}})");
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["path"], "/report/restart_s");
}

TEST(Report, DaysToTrainIsTheBudgetOverTokensPerDay) {
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json");
  const double tokens_per_day = figure(r, "tokens_per_day")["value"].get<double>();
  EXPECT_NEAR(figure(r, "days_to_train")["value"].get<double>() / (14.8e12 / tokens_per_day), 1.0, 1e-5);
  const double step = figure(r, "step_time_s")["value"].get<double>();
  EXPECT_NEAR(tokens_per_day / (15360.0 * 4096 / step * 86400), 1.0, 1e-5);
}

TEST(Report, BadReportFieldIsAnInputError) {
  const nlohmann::json r = report_of("examples/deepseek-v3-2048-h800.json", R"({"report":{"storage_gbps":5}})");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["code"], "schema.unknown_field");
}

// Golden Markdown: the numbers move when the time model is recalibrated; regenerate with
// UPDATE_GOLDEN=1 and review the diff.
class ReportGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(ReportGolden, MatchesTheGoldenMarkdown) {
  const std::string example = GetParam();
  const nlohmann::json r = report_of("examples/" + example + ".json");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const std::string md = r["markdown"].get<std::string>();
  const std::string golden = source_path("tests/golden/report/" + example + ".md");
  if (testing::update_golden()) {
    std::ofstream(golden, std::ios::binary) << md;
    GTEST_SKIP() << "regenerated " << golden;
  }
  const std::string expected = read_text(golden);
  EXPECT_EQ(md, expected) << testing::golden_review(expected, md)
                          << "golden differs: UPDATE_GOLDEN=1 ctest -R ReportGolden, then review git diff";
}

INSTANTIATE_TEST_SUITE_P(Examples, ReportGolden,
                         ::testing::Values("deepseek-v3-2048-h800", "llama3-405b-128k-16384-h100",
                                           "mixtral-8x7b-256-h100", "gpt3-175b-1024-a100",
                                           "megatron-1t-3072-a100"));

}  // namespace
}  // namespace pplan
