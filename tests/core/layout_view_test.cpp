// The replica view behind the layout picture (layout.h replica_view, api "layout_view").
// Expectations are derived by hand from Megatron's rank formula
// rank = tp + t·(cp + c·(dp + d·pp)) (Megatron-LM d98e8a64 megatron/core/parallel_state.py, RankGenerator), not printed by the code.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/io/launch_json.h"
#include "pplan/io/api.h"
#include "pplan/launch/layout.h"
#include "../support/parallel_grid.h"

namespace {

using pplan::testing::grid;

std::vector<long long> row_nodes(const pplan::ReplicaView& v) {
  std::vector<long long> nodes;
  for (const auto& r : v.rows) nodes.push_back(r.collapsed_nodes > 0 ? -r.collapsed_nodes : r.node);
  return nodes;
}

std::string link(const pplan::ReplicaView& v, const std::string& axis) {
  for (const auto& l : v.links) {
    if (axis == l.axis) return l.link();
  }
  return "missing";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ReplicaView, RankOfInvertsRankCoordinates) {
  for (const pplan::ParallelConfig& p :
       {grid(2, 1, 1, 2, 4), grid(2, 2, 1, 2, 2), grid(8, 1, 1, 16, 8), grid(1, 4, 2, 3, 5)}) {
    for (int r = 0; r < pplan::world_ranks(p); ++r) {
      EXPECT_EQ(pplan::rank_of(p, pplan::rank_coordinates(p, 8, r)), r);
    }
  }
}

TEST(ReplicaView, Gpt3Tp8Pp8Dp16OneStagePerNode) {
  // rank = t + 8·(d + 16·s): replica 0's stage s is ranks 128·s .. 128·s+7 = node 16·s.
  const pplan::ReplicaView v = pplan::replica_view(grid(8, 1, 1, 16, 8), 8);
  EXPECT_EQ(v.world_size, 1024);
  EXPECT_EQ(v.nodes, 128);
  EXPECT_EQ(v.gpus_per_replica, 64);
  EXPECT_EQ(v.replicas, 16);
  EXPECT_EQ(v.replica_nodes, 8);
  EXPECT_FALSE(v.shared_nodes);
  EXPECT_EQ(row_nodes(v), (std::vector<long long>{0, 16, 32, 48, 64, 80, 96, 112}));
  for (int s = 0; s < 8; ++s) {
    const pplan::ReplicaViewRow& row = v.rows[s];
    EXPECT_EQ(row.stages, std::vector<int>{s});
    EXPECT_EQ(row.cp_ranks, std::vector<int>{0});
    ASSERT_EQ(row.gpus.size(), 8u);
    for (int i = 0; i < 8; ++i) {
      ASSERT_TRUE(row.gpus[i].has_value());
      EXPECT_EQ(row.gpus[i]->rank, 128 * s + i);
      EXPECT_EQ(row.gpus[i]->tp, i);
      EXPECT_EQ(row.gpus[i]->dp, 0);
      EXPECT_EQ(row.gpus[i]->pp, s);
    }
  }
  EXPECT_EQ(link(v, "tp"), "nvlink");
  EXPECT_EQ(link(v, "cp"), "none");
  EXPECT_EQ(link(v, "ep"), "none");
  EXPECT_EQ(link(v, "dp"), "network");
  EXPECT_EQ(link(v, "dp_cp"), "network");
  EXPECT_EQ(link(v, "pp"), "network");
}

TEST(ReplicaView, LaunchMdWorld16Tp2Pp4Dp2) {
  // Megatron-LM d98e8a64 parallel_state.py RankGenerator: rank = t + 2·(d + 2·s). Replica 0 (d = 0) = {0,1,4,5,8,9,12,13}: stages
  // 0-1 on node 0, 2-3 on node 1; the other replica's ranks share both nodes.
  const pplan::ReplicaView v = pplan::replica_view(grid(2, 1, 1, 2, 4), 8);
  EXPECT_EQ(row_nodes(v), (std::vector<long long>{0, 1}));
  EXPECT_EQ(v.replica_nodes, 2);
  EXPECT_EQ(v.replicas, 2);
  EXPECT_TRUE(v.shared_nodes);
  std::set<int> replica0;
  std::set<int> others;
  for (const auto& row : v.rows) {
    for (const auto& g : row.gpus) (g->dp == 0 ? replica0 : others).insert(g->rank);
  }
  EXPECT_EQ(replica0, (std::set<int>{0, 1, 4, 5, 8, 9, 12, 13}));
  EXPECT_EQ(others, (std::set<int>{2, 3, 6, 7, 10, 11, 14, 15}));
  EXPECT_EQ(v.rows[0].stages, (std::vector<int>{0, 1}));
  EXPECT_EQ(v.rows[1].stages, (std::vector<int>{2, 3}));
  EXPECT_EQ(link(v, "tp"), "nvlink");
  EXPECT_EQ(link(v, "dp"), "nvlink");       // ranks 0 and 2: one node
  EXPECT_EQ(link(v, "pp"), "network");      // 0, 4, 8, 12: nodes 0 and 1
}

TEST(ReplicaView, Llama3Tp8Pp16Dp128CollapsesTheMiddle) {
  // 16384 GPUs (Llama 3 405B, 8K): stage s of replica 0 starts at 8·128·s = node 128·s;
  // 16 nodes > 10 rows: the first 5, one row for the middle 7, the last 4.
  const pplan::ReplicaView v = pplan::replica_view(grid(8, 1, 1, 128, 16), 8);
  EXPECT_EQ(v.replica_nodes, 16);
  EXPECT_EQ(v.replicas, 128);
  ASSERT_EQ(v.rows.size(), static_cast<std::size_t>(pplan::kLayoutViewMaxRows));
  EXPECT_EQ(row_nodes(v),
            (std::vector<long long>{0, 128, 256, 384, 512, -7, 1536, 1664, 1792, 1920}));
  EXPECT_EQ(v.rows[9].stages, std::vector<int>{15});
}

TEST(ReplicaView, Llama3LongContextCp16) {
  // tp 8, cp 16, pp 16, dp 8: node of (c, s) = (8·c + 1024·s) / 8 = c + 128·s, so replica 0
  // holds 256 nodes; the last four are stage 15's CP ranks 12-15 on nodes 1932-1935.
  const pplan::ReplicaView v = pplan::replica_view(grid(8, 16, 1, 8, 16), 8);
  EXPECT_EQ(v.replica_nodes, 256);
  EXPECT_EQ(row_nodes(v), (std::vector<long long>{0, 1, 2, 3, 4, -247, 1932, 1933, 1934, 1935}));
  EXPECT_EQ(v.rows[2].cp_ranks, std::vector<int>{2});
  EXPECT_EQ(v.rows[9].cp_ranks, std::vector<int>{15});
  EXPECT_EQ(v.rows[9].stages, std::vector<int>{15});
  EXPECT_EQ(link(v, "cp"), "network");  // stride 8 = one rank per node
}

TEST(ReplicaView, MillionGpusStayBounded) {
  // 2^20 GPUs, tp 1, dp 1, pp 2^20: every rank is replica 0 (131072 nodes).
  const auto start = std::chrono::steady_clock::now();
  const pplan::ParallelConfig p = grid(1, 1, 1, 1, 1 << 20);
  const pplan::ReplicaView v = pplan::replica_view(p, 8);
  EXPECT_EQ(v.replica_nodes, (1 << 20) / 8);
  EXPECT_EQ(v.rows.size(), 10u);
  EXPECT_EQ(v.rows[5].collapsed_nodes, (1 << 20) / 8 - 9);
  EXPECT_LT(pplan::replica_view_to_json(v, p).dump().size(), 20000u);
  // tp 8, pp 128, dp 1024: replica 0 is 128 nodes, 1024 apart.
  const pplan::ReplicaView w = pplan::replica_view(grid(8, 1, 1, 1024, 128), 8);
  EXPECT_EQ(w.replica_nodes, 128);
  EXPECT_EQ(w.rows[1].node, 1024);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(ReplicaView, PartialLastNodeAndWideNodes) {
  // World 12 on 8-GPU nodes: node 1 holds ranks 8-11 and four empty slots.
  const pplan::ReplicaView v = pplan::replica_view(grid(4, 1, 1, 1, 3), 8);
  EXPECT_EQ(v.nodes, 2);
  ASSERT_EQ(v.rows.size(), 2u);
  ASSERT_EQ(v.rows[1].gpus.size(), 8u);
  EXPECT_TRUE(v.rows[1].gpus[3].has_value());
  EXPECT_FALSE(v.rows[1].gpus[4].has_value());
  // 128-GPU nodes list 72 GPUs and count the rest.
  const pplan::ReplicaView wide = pplan::replica_view(grid(8, 1, 1, 16, 1), 128);
  EXPECT_EQ(wide.rows[0].gpus.size(), 72u);
  EXPECT_EQ(wide.rows[0].more_gpus, 56);
  EXPECT_EQ(wide.rows[0].gpus[71]->dp, 8);  // rank 71 = t 7 + 8·d 8
}

TEST(ReplicaView, TpWiderThanANodeCrossesTheNetwork) {
  const pplan::ReplicaView v = pplan::replica_view(grid(16, 1, 1, 4, 1), 8);
  EXPECT_EQ(link(v, "tp"), "network");
  EXPECT_EQ(row_nodes(v), (std::vector<long long>{0, 1}));
}

TEST(ReplicaView, ExpertCoordinatesOnlyWithExperts) {
  // tp 1, ep 4, dp 4, pp 2: ep = rank mod 4 (stride tp = 1), four ranks on one node.
  const pplan::ParallelConfig p = grid(1, 1, 4, 4, 2);
  const pplan::ReplicaView v = pplan::replica_view(p, 8);
  EXPECT_EQ(link(v, "ep"), "nvlink");
  const nlohmann::ordered_json j = pplan::replica_view_to_json(v, p);
  EXPECT_EQ(j["rows"][0]["gpus"][6]["ep"], 2);
  EXPECT_FALSE(pplan::replica_view_to_json(pplan::replica_view(grid(2, 1, 1, 2, 4), 8), grid(2, 1, 1, 2, 4))
                   ["rows"][0]["gpus"][0]
                       .contains("ep"));
}

TEST(ReplicaView, ApiAnswersForTheChosenPlan) {
  nlohmann::json scenario =
      nlohmann::json::parse(read_text(std::string(PPLAN_SOURCE_DIR) + "/examples/gpt3-175b-1024-a100.json"));
  scenario["parallel"] = {{"tp", 8}, {"pp", 8}};
  const nlohmann::json request = {{"command", "layout_view"}, {"scenario", scenario}};
  const nlohmann::json r = nlohmann::json::parse(pplan::handle_request(request.dump()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["parallel"]["dp"], 16);
  EXPECT_EQ(r["view"]["replicas"], 16);
  EXPECT_EQ(r["view"]["rows"].size(), 8u);
  EXPECT_EQ(r["view"]["rows"][1]["node"], 16);
  EXPECT_EQ(r["view"]["links"]["pp"]["link"], "network");

  // Open fields are filled by the search: cp = 4 completes tp 8 · pp 8 · dp 4 on 1024 GPUs
  // (with Transformer Engine's attention: Megatron's unfused one refuses CP).
  scenario["training"]["flash_attention"] = true;
  scenario["parallel"] = {{"tp", 8}, {"pp", 8}, {"dp", 4}};
  const nlohmann::json filled = nlohmann::json::parse(
      pplan::handle_request(nlohmann::json{{"command", "layout_view"}, {"scenario", scenario}}.dump()));
  ASSERT_TRUE(filled["ok"].get<bool>()) << filled.dump();
  EXPECT_EQ(filled["view"]["sizes"]["cp"], 4);

  // A pinned grid that is not the cluster: no layout, and the reason.
  scenario["parallel"] = {{"tp", 8}, {"pp", 8}, {"dp", 4}, {"cp", 1}};
  const nlohmann::json bad = nlohmann::json::parse(
      pplan::handle_request(nlohmann::json{{"command", "layout_view"}, {"scenario", scenario}}.dump()));
  ASSERT_TRUE(bad["ok"].get<bool>()) << bad.dump();
  EXPECT_TRUE(bad["view"].is_null());
  EXPECT_EQ(bad["problems"][0]["code"], "launch.world_size_mismatch");
}

}  // namespace
