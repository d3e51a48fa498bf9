// The pipeline schedule against hand-derived figures (Narayanan et al. 2021 §2.2): with a
// forward of 1 and a backward of 2 per full stage, 1F1B takes (m + p − 1)·(1 + 2) and idles
// (p − 1)/(m + p − 1) of it; interleaving with v chunks makes the bubble (p − 1)/(v·m) of 3m.
#include "pplan/model/pipeline_schedule.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "pplan/io/api.h"

namespace pplan {
namespace {

TEST(PipelineSchedule, OneFOneBMakespanIsMPlusPMinusOneRounds) {
  // p = 4, m = 8: (8 + 3)·3 = 33 units; idle 3/11 of the step; bubble 3/8 of the ideal 24.
  const PipelineSchedule s = pipeline_schedule(4, 1, 8);
  ASSERT_TRUE(s.drawn) << s.reason;
  EXPECT_EQ(s.total_passes, 64);
  EXPECT_EQ(s.passes.size(), 64u);
  EXPECT_TRUE(s.complete);
  EXPECT_DOUBLE_EQ(s.makespan_units, 33.0);
  EXPECT_DOUBLE_EQ(s.ideal_units, 24.0);
  EXPECT_NEAR(s.idle_share, 3.0 / 11.0, 1e-12);
  EXPECT_NEAR(s.bubble_over_ideal, 3.0 / 8.0, 1e-12);
}

TEST(PipelineSchedule, OneFOneBFiguresAcrossSizes) {
  for (int p : {2, 3, 8}) {
    for (int m : {1, 5, 16}) {
      const PipelineSchedule s = pipeline_schedule(p, 1, m);
      ASSERT_TRUE(s.drawn);
      EXPECT_DOUBLE_EQ(s.makespan_units, 3.0 * (m + p - 1)) << "p " << p << " m " << m;
      EXPECT_NEAR(s.idle_share, (p - 1.0) / (m + p - 1.0), 1e-12);
    }
  }
}

TEST(PipelineSchedule, NoPipelineHasNoBubble) {
  const PipelineSchedule s = pipeline_schedule(1, 1, 3);
  ASSERT_TRUE(s.drawn);
  EXPECT_DOUBLE_EQ(s.makespan_units, 9.0);
  EXPECT_DOUBLE_EQ(s.idle_share, 0.0);
}

TEST(PipelineSchedule, InterleavedBubbleIsPMinusOneOverVM) {
  // p = 4, v = 2, m = 8: bubble 3/16 of 24 = 4.5 units, makespan 28.5.
  const PipelineSchedule s = pipeline_schedule(4, 2, 8);
  ASSERT_TRUE(s.drawn) << s.reason;
  EXPECT_EQ(s.total_passes, 128);
  EXPECT_NEAR(s.makespan_units, 28.5, 1e-9);
  EXPECT_NEAR(s.bubble_over_ideal, 3.0 / 16.0, 1e-12);
  // The share of the step: (p − 1)/(v·m + p − 1) = 3/19.
  EXPECT_NEAR(s.idle_share, 3.0 / 19.0, 1e-12);
  // p = 8, v = 4, m = 16: 7/64 of 48.
  const PipelineSchedule t = pipeline_schedule(8, 4, 16);
  ASSERT_TRUE(t.drawn);
  EXPECT_NEAR(t.bubble_over_ideal, 7.0 / 64.0, 1e-12);
}

TEST(PipelineSchedule, MegatronOrderWarmUpThenOneForwardOneBackward) {
  const PipelineSchedule s = pipeline_schedule(4, 1, 8);
  std::map<int, std::vector<ScheduledPass>> by_stage;
  for (const ScheduledPass& pass : s.passes) by_stage[pass.stage].push_back(pass);
  // Stage 0: 3 warm-up forwards, then F3 B0 F4 B1 ...
  const std::vector<ScheduledPass>& first = by_stage[0];
  ASSERT_EQ(first.size(), 16u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(first[i].forward);
    EXPECT_EQ(first[i].microbatch, i);
  }
  EXPECT_FALSE(first[4].forward);
  EXPECT_EQ(first[4].microbatch, 0);
  EXPECT_TRUE(first[5].forward);
  EXPECT_EQ(first[5].microbatch, 4);
  // The last stage: F0 at 3 (after three stages of forward), B0 right after it at 4.
  const std::vector<ScheduledPass>& last = by_stage[3];
  EXPECT_TRUE(last[0].forward);
  EXPECT_DOUBLE_EQ(last[0].start_units, 3.0);
  EXPECT_FALSE(last[1].forward);
  EXPECT_DOUBLE_EQ(last[1].start_units, 4.0);
  EXPECT_DOUBLE_EQ(last[1].end_units, 6.0);
  // Stage 0's first backward waits for the gradient to come back: 4 + 2·4 = 12... minus the
  // last stage's own: B0 ends on stage 3 at 6, stage 2 at 8, stage 1 at 10, stage 0 at 12.
  EXPECT_DOUBLE_EQ(first[4].end_units, 12.0);
}

TEST(PipelineSchedule, EveryPassRunsOnceAfterWhatItNeeds) {
  for (auto [p, v, m] : {std::tuple{4, 2, 6}, std::tuple{3, 3, 7}, std::tuple{8, 2, 16}}) {
    const PipelineSchedule s = pipeline_schedule(p, v, m);
    ASSERT_TRUE(s.drawn) << s.reason;
    ASSERT_EQ(static_cast<long long>(s.passes.size()), 2LL * p * v * m);
    std::map<std::tuple<bool, int, int, int>, ScheduledPass> at;
    for (const ScheduledPass& pass : s.passes) {
      EXPECT_TRUE(at.emplace(std::tuple{pass.forward, pass.stage, pass.chunk, pass.microbatch}, pass).second);
      EXPECT_NEAR(pass.end_units - pass.start_units, (pass.forward ? 1.0 : 2.0) / v, 1e-12);
    }
    for (const auto& [key, pass] : at) {
      const auto [forward, stage, chunk, mb] = key;
      if (forward && stage > 0) {
        EXPECT_GE(pass.start_units, at.at({true, stage - 1, chunk, mb}).end_units - 1e-12);
      }
      if (!forward) EXPECT_GE(pass.start_units, at.at({true, stage, chunk, mb}).end_units - 1e-12);
    }
    // No stage runs two passes at once.
    std::map<int, double> busy_until;
    for (const ScheduledPass& pass : s.passes) {
      EXPECT_GE(pass.start_units, busy_until[pass.stage] - 1e-12);
      busy_until[pass.stage] = pass.end_units;
    }
  }
}

TEST(PipelineSchedule, LargeSchedulesShowTheirStartOnly) {
  const PipelineSchedule s = pipeline_schedule(4, 1, 8, 10);
  ASSERT_TRUE(s.drawn);
  EXPECT_FALSE(s.complete);
  EXPECT_LE(s.passes.size(), 10u);
  EXPECT_GT(s.passes.size(), 0u);
  EXPECT_LT(s.shown_until_units, s.makespan_units);
  for (const ScheduledPass& pass : s.passes) EXPECT_LT(pass.start_units, s.shown_until_units);
  EXPECT_DOUBLE_EQ(s.makespan_units, 33.0);  // the figures are the whole schedule's
}

TEST(PipelineSchedule, TooLargeOrInvalidIsSaidNotDrawn) {
  const PipelineSchedule huge = pipeline_schedule(64, 1, 20000);  // 2.56 M passes
  EXPECT_FALSE(huge.drawn);
  EXPECT_NE(huge.reason.find("too large to draw"), std::string::npos);
  EXPECT_TRUE(huge.passes.empty());
  const PipelineSchedule overflow = pipeline_schedule(1 << 30, 1 << 30, 1LL << 40);
  EXPECT_FALSE(overflow.drawn);
  EXPECT_FALSE(pipeline_schedule(0, 1, 4).drawn);
  EXPECT_FALSE(pipeline_schedule(2, 1, 0).drawn);
}

TEST(PipelineSchedule, TheEngineAnswersForTheScenariosPlan) {
  // The worked example: GPT-3 175B, TP 8 · PP 8 · DP 16, m = 1536/16 = 96, 1F1B:
  // makespan 3·(96 + 7) = 309, idle 7/103 of the step, bubble 7/96 of the ideal 288.
  const std::string request = R"({"command": "schedule", "scenario": {
    "model": "gpt3-175b", "cluster": {"gpu": "a100-80gb", "gpus": 1024, "gpus_per_node": 8},
    "training": {"seq_len": 2048, "global_batch": 1536},
    "parallel": {"tp": 8, "pp": 8, "dp": 16, "cp": 1, "ep": 1, "vpp": 1, "micro_batch": 1,
                 "sequence_parallel": true, "recompute": "selective", "zero": 0}}})";
  const nlohmann::json answer = nlohmann::json::parse(handle_request(request));
  ASSERT_TRUE(answer.at("ok").get<bool>()) << answer.dump();
  const nlohmann::json& s = answer.at("schedule");
  EXPECT_TRUE(s.at("drawn").get<bool>());
  EXPECT_EQ(s.at("pp").get<int>(), 8);
  EXPECT_DOUBLE_EQ(s.at("makespan_units").get<double>(), 309.0);
  EXPECT_NEAR(s.at("idle_share").get<double>(), 7.0 / 103.0, 1e-5);
  EXPECT_NEAR(s.at("bubble_over_ideal").get<double>(), 7.0 / 96.0, 1e-5);
  const nlohmann::json& ops = s.at("ops");
  EXPECT_EQ(ops.at("count").get<int>(), 2 * 8 * 96);
  EXPECT_EQ(ops.at("kind").get<std::string>().size(), 2u * 8 * 96);
  EXPECT_EQ(ops.at("stage").size(), 2u * 8 * 96);
  // In time order: stage 0's first forward [0, 1), the last pass stage 0's last backward, ending
  // at the makespan (v = 1: one tick per forward).
  EXPECT_EQ(ops.at("kind").get<std::string>().front(), 'F');
  EXPECT_EQ(ops.at("start_ticks").at(0).get<long long>(), 0);
  EXPECT_EQ(ops.at("end_ticks").at(0).get<long long>(), 1);
  EXPECT_EQ(ops.at("kind").get<std::string>().back(), 'B');
  EXPECT_EQ(ops.at("stage").back().get<int>(), 0);
  EXPECT_EQ(ops.at("end_ticks").back().get<long long>(), 309);
  EXPECT_FALSE(answer.contains("chosen_by_search"));  // every field pinned
  // Left open, the search fills the plan and says so.
  const nlohmann::json open = nlohmann::json::parse(handle_request(R"({"command": "schedule", "scenario": {
    "model": "gpt3-175b", "cluster": {"gpu": "a100-80gb", "gpus": 1024, "gpus_per_node": 8},
    "training": {"seq_len": 2048, "global_batch": 1536}, "parallel": {"tp": 8, "pp": 8}}})"));
  ASSERT_TRUE(open.at("ok").get<bool>()) << open.dump();
  EXPECT_FALSE(open.at("chosen_by_search").empty());
}

}  // namespace
}  // namespace pplan
