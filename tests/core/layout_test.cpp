// Rank layout: Megatron's tp-cp-ep-dp-pp order. The worked examples are the ones
// Megatron-LM d98e8a64 megatron/core/parallel_state.py, RankGenerator lists, computed there by running Megatron-LM's own
// generate_masked_orthogonal_rank_groups / RankGenerator; they must come out exactly.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "pplan/io/launch_json.h"
#include "pplan/launch/layout.h"
#include "../support/parallel_grid.h"

namespace {

using Groups = std::vector<std::vector<int>>;

using pplan::testing::grid;

TEST(RankLayout, MegatronDocstringExampleTp2Pp4Dp2) {
  const pplan::ParallelConfig p = grid(2, 1, 1, 2, 4);
  EXPECT_EQ(pplan::world_ranks(p), 16);
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kTp),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kDp),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kPp),
            (Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kModelParallel),
            (Groups{{0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kEmbedding),
            (Groups{{0, 12}, {1, 13}, {2, 14}, {3, 15}}));
  // rank = tp + 2·dp + 4·pp; with 8 GPUs per node node 0 holds PP stages 0-1.
  for (int r = 0; r < 16; ++r) {
    const pplan::RankCoordinates c = pplan::rank_coordinates(p, 8, r);
    EXPECT_EQ(c.tp + 2 * c.dp + 4 * c.pp, r);
    EXPECT_EQ(c.node, r / 8);
    EXPECT_EQ(c.local_gpu, r % 8);
    EXPECT_EQ(c.node, c.pp / 2) << "rank " << r;
  }
}

TEST(RankLayout, SecondExampleTp2Cp2Pp2Dp2) {
  const pplan::ParallelConfig p = grid(2, 2, 1, 2, 2);
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kTp),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kCp),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kDp),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kDpCp),
            (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kPp),
            (Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
}

TEST(RankLayout, ExpertGridEtp1Ep4Pp2) {
  // World 16, expert-TP 1, EP 4, PP 2 -> expert-DP 2 (dense grid: tp 1, dp 8).
  const pplan::ParallelConfig p = grid(1, 1, 4, 8, 2);
  EXPECT_EQ(pplan::expert_dp_size(p), 2);
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kEp),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kExpertDp),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kPp),
            (Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
}

TEST(RankLayout, VirtualPipelineDoesNotChangeGroups) {
  pplan::ParallelConfig p = grid(2, 1, 1, 2, 4);
  const Groups pp = pplan::rank_groups(p, pplan::GroupKind::kPp);
  p.vpp = 2;
  EXPECT_EQ(pplan::rank_groups(p, pplan::GroupKind::kPp), pp);
}

TEST(RankLayout, EveryGroupKindPartitionsTheWorld) {
  std::mt19937 rng(20260530);
  const std::vector<int> sizes = {1, 2, 4, 8};
  const std::vector<pplan::GroupKind> kinds = {
      pplan::GroupKind::kTp, pplan::GroupKind::kCp,        pplan::GroupKind::kDp,
      pplan::GroupKind::kDpCp, pplan::GroupKind::kPp,      pplan::GroupKind::kEp,
      pplan::GroupKind::kExpertDp, pplan::GroupKind::kModelParallel};
  for (int trial = 0; trial < 300; ++trial) {
    auto pick = [&] { return sizes[rng() % sizes.size()]; };
    pplan::ParallelConfig p = grid(pick(), pick(), 1, pick(), pick());
    // ep must divide dp·cp (Megatron: the expert grid tiles the world).
    const int dense_dp = p.dp * p.cp;
    do p.ep = pick(); while (dense_dp % p.ep != 0);
    const int world = static_cast<int>(pplan::world_ranks(p));
    for (pplan::GroupKind kind : kinds) {
      const Groups groups = pplan::rank_groups(p, kind);
      EXPECT_EQ(static_cast<long long>(groups.size()), pplan::group_count(p, kind));
      std::set<int> seen;
      for (const auto& g : groups) {
        for (int r : g) EXPECT_TRUE(seen.insert(r).second) << "rank " << r << " twice";
      }
      EXPECT_EQ(static_cast<int>(seen.size()), world) << pplan::group_kind_name(kind);
    }
    // Members of a TP group share every coordinate but tp; of a DP group every one but dp.
    for (const auto& g : pplan::rank_groups(p, pplan::GroupKind::kDp)) {
      const auto first = pplan::rank_coordinates(p, 8, g.front());
      for (std::size_t i = 0; i < g.size(); ++i) {
        const auto c = pplan::rank_coordinates(p, 8, g[i]);
        EXPECT_EQ(c.tp, first.tp);
        EXPECT_EQ(c.cp, first.cp);
        EXPECT_EQ(c.pp, first.pp);
        EXPECT_EQ(c.dp, static_cast<int>(i));
      }
    }
    // Dense formula: rank = tp + t·(cp + c·(dp + d·pp)).
    for (int r = 0; r < world; r += 7) {
      const auto c = pplan::rank_coordinates(p, 8, r);
      EXPECT_EQ(c.tp + p.tp * (c.cp + p.cp * (c.dp + p.dp * c.pp)), r);
      EXPECT_EQ(c.tp + p.tp * (c.ep + p.ep * (c.expert_dp + pplan::expert_dp_size(p) * c.pp)), r);
    }
  }
}

TEST(RankLayout, JsonListsEveryRankAndGroup) {
  const nlohmann::ordered_json j = pplan::layout_to_json(grid(2, 1, 1, 2, 4), 8);
  EXPECT_EQ(j["order"], "tp-cp-ep-dp-pp");
  EXPECT_EQ(j["world_size"], 16);
  EXPECT_EQ(j["nodes"], 2);
  EXPECT_EQ(j["truncated"], false);
  ASSERT_EQ(j["ranks"].size(), 16u);
  EXPECT_EQ(j["ranks"][13]["node"], 1);
  EXPECT_EQ(j["ranks"][13]["local_gpu"], 5);
  EXPECT_EQ(j["ranks"][13]["tp"], 1);
  EXPECT_EQ(j["ranks"][13]["dp"], 0);
  EXPECT_EQ(j["ranks"][13]["pp"], 3);
  EXPECT_EQ(j["groups"]["dp"][2], (std::vector<int>{4, 6}));
  EXPECT_EQ(j["groups"]["pp"][0], (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(j["group_counts"]["tp"], 8);
}

TEST(RankLayout, HugeWorldIsCappedWithANote) {
  // 8 · 16 · 1024 = 131072 ranks > kMaxListedRanks.
  const nlohmann::ordered_json j = pplan::layout_to_json(grid(8, 1, 1, 1024, 16), 8);
  EXPECT_EQ(j["world_size"], 131072);
  EXPECT_EQ(j["truncated"], true);
  EXPECT_TRUE(j.contains("note"));
  EXPECT_EQ(j["ranks"].size(), 64u);
  EXPECT_EQ(j["groups"]["dp"].size(), 16u);
  EXPECT_EQ(j["group_counts"]["dp"], 128);
  EXPECT_EQ(j["groups"]["dp"][0][1], 8);  // stride tp
}

}  // namespace
