#pragma once
/// The rank layout of a plan: for every global rank its node, local GPU and parallel
/// coordinates, and the member lists of every process group Megatron-LM builds, in its
/// default order tp-cp-ep-dp-pp (shared/reference/launch.md §1.5). Strides come from
/// placement.h, so the layout and the communication model can never disagree.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/specs.h"

namespace pplan {

/// Worlds above this many ranks list only their first ranks and groups (with a note),
/// so a 100k-GPU layout stays a few hundred KB instead of hanging a browser tab. A fully
/// listed world costs ~340 bytes of JSON per rank: 4096 ranks ≈ 1.4 MB (65536 were 27 MB,
/// 38 s under the fuzzer's sanitizers).
inline constexpr int kMaxListedRanks = 4096;

/// The process groups of a plan. Dense grid (tp, cp, dp, pp) and expert grid
/// (expert-tp = tp, ep, expert-dp, pp), as Megatron's two RankGenerators build them.
enum class GroupKind {
  kTp,             ///< tensor parallel
  kCp,             ///< context parallel
  kDp,             ///< data parallel (batch split)
  kDpCp,           ///< gradient reduction: dp × cp (Megatron "dp-cp")
  kPp,             ///< pipeline
  kEp,             ///< expert parallel (expert grid)
  kExpertDp,       ///< expert data parallel: dp·cp/ep (expert grid)
  kModelParallel,  ///< tp × pp (Megatron "tp-pp")
  kEmbedding,      ///< first and last rank of every pipeline group (tied embedding / LM head)
};

/// Where one global rank sits and its coordinate on every axis.
struct RankCoordinates {
  int rank = 0;
  int node = 0;
  int local_gpu = 0;
  int tp = 0;
  int cp = 0;
  int ep = 0;
  int dp = 0;
  int pp = 0;
  int expert_dp = 0;
};

/// Ranks in the world: tp·cp·dp·pp.
long long world_size(const ParallelConfig& parallel);

/// Ranks of the expert data-parallel group: dp·cp/ep (Megatron: world/(expert-tp·ep·pp)).
int expert_dp_size(const ParallelConfig& parallel);

/**
 * Coordinates of global rank `rank` by mixed radix, first axis fastest:
 * rank = tp + t·(cp + c·(dp + d·pp)) on the dense grid and
 * rank = tp + t·(ep + e·(expert_dp + x·pp)) on the expert grid.
 * Example: tp 2, pp 4, dp 2 (world 16): rank 13 -> tp 1, dp 0, pp 3 on node 1 (8 GPUs/node).
 */
RankCoordinates rank_coordinates(const ParallelConfig& parallel, int gpus_per_node, int rank);

/**
 * Member lists of every group of `kind`, ordered as Megatron's
 * generate_masked_orthogonal_rank_groups returns them (launch.md §1.5).
 * Example: world 16, tp 2, pp 4, dp 2: kDp -> [0,2] [1,3] [4,6] [5,7] ...; kPp -> [0,4,8,12] ...
 * `max_groups` > 0 stops after that many groups, `max_members` > 0 lists only each group's
 * first members (huge worlds: one DP group of 2^19 ranks was 10 MB of JSON).
 */
std::vector<std::vector<int>> rank_groups(const ParallelConfig& parallel, GroupKind kind,
                                          int max_groups = 0, int max_members = 0);

/// Number of groups of `kind` in the world (world / group size).
long long group_count(const ParallelConfig& parallel, GroupKind kind);

/// Stable JSON key of a group kind ("tp", "dp_cp", "expert_dp", ...).
const char* group_kind_name(GroupKind kind);

/**
 * The `--format layout` document: order, sizes, rank formula, per-rank coordinates and the
 * member lists of every group. Worlds above kMaxListedRanks list their first ranks and groups
 * only and say so in "note".
 */
nlohmann::ordered_json layout_to_json(const ParallelConfig& parallel, int gpus_per_node);

}  // namespace pplan
