#pragma once
/// The rank layout of a plan: for every global rank its node, local GPU and parallel
/// coordinates, and the member lists of every process group Megatron-LM builds, in its
/// default order tp-cp-ep-dp-pp (Megatron-LM d98e8a64 megatron/core/parallel_state.py, RankGenerator). Strides come from
/// placement.h, so the layout and the communication model can never disagree.

#include <optional>
#include <string>
#include <vector>

#include "pplan/model/placement.h"
#include "pplan/specs.h"

namespace pplan {

/// Worlds above this many ranks list only their first ranks and groups (with a note),
/// so a 100k-GPU layout stays a few hundred KB instead of hanging a browser tab. A fully
/// listed world costs ~340 bytes of JSON per rank: 1024 ranks ≈ 350 KB (4096 were 1.4 MB and
/// over 10 s under the fuzzer's sanitizers on a loaded core; 65536 were 27 MB).
inline constexpr int kMaxListedRanks = 1024;

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
  int node = 0;           ///< host: a SLURM node (a GB200 compute tray)
  int local_gpu = 0;      ///< GPU index on its host
  int nvlink_domain = 0;  ///< NVLink domain (an NVL72 rack; the node itself on DGX systems)
  int tp = 0;
  int cp = 0;
  int ep = 0;
  int dp = 0;
  int pp = 0;
  int expert_dp = 0;
};


/// Ranks of the expert data-parallel group: dp·cp/ep (Megatron: world/(expert-tp·ep·pp)).
int expert_dp_size(const ParallelConfig& parallel);

/**
 * Coordinates of global rank `rank` by mixed radix, first axis fastest:
 * rank = tp + t·(cp + c·(dp + d·pp)) on the dense grid and
 * rank = tp + t·(ep + e·(expert_dp + x·pp)) on the expert grid.
 * Example: tp 2, pp 4, dp 2 (world 16): rank 13 -> tp 1, dp 0, pp 3 on node 1 (8 GPUs/node).
 * Hosts hold gpus_per_node consecutive ranks and NVLink domains nvlink_domain_gpus of them
 * (0: one domain per host): on GB200 NVL72 rank 73 is on node 18, domain 1.
 */
RankCoordinates rank_coordinates(const ParallelConfig& parallel, int gpus_per_node, int rank,
                                 int nvlink_domain_gpus = 0);

/**
 * Member lists of every group of `kind`, ordered as Megatron's
 * generate_masked_orthogonal_rank_groups returns them (Megatron-LM d98e8a64 parallel_state.py RankGenerator).
 * Example: world 16, tp 2, pp 4, dp 2: kDp -> [0,2] [1,3] [4,6] [5,7] ...; kPp -> [0,4,8,12] ...
 * `max_groups` > 0 stops after that many groups, `max_members` > 0 lists only each group's
 * first members (huge worlds: one DP group of 2^19 ranks was 10 MB of JSON).
 */
std::vector<std::vector<int>> rank_groups(const ParallelConfig& parallel, GroupKind kind,
                                          int max_groups = 0, int max_members = 0);

/// Global rank of dense-grid coordinates (tp, cp, dp, pp of `at`; the other fields are
/// ignored): the inverse of rank_coordinates, from the same strides.
long long rank_of(const ParallelConfig& parallel, const RankCoordinates& at);

/// Number of groups of `kind` in the world (world / group size).
long long group_count(const ParallelConfig& parallel, GroupKind kind);

/// Stable JSON key of a group kind ("tp", "dp_cp", "expert_dp", ...).
const char* group_kind_name(GroupKind kind);

/// One parallel axis placed on hosts and on NVLink domains (placement.h), and the link its
/// first group's collectives use: "none" (one rank), "nvlink" or "network".
struct AxisPlacement {
  const char* axis = "";
  GroupPlacement by_host;
  GroupPlacement by_domain;
  const char* link = "none";
};

/// The member lists of every group of one kind (maybe only the first ones, see RankLayout),
/// how many groups there are, and the link each listed group's members share.
struct GroupListing {
  GroupKind kind = GroupKind::kTp;
  std::vector<std::vector<int>> members;
  long long count = 0;
  std::vector<const char*> links;
};

/**
 * The `--format layout` document as values: order tp-cp-ep-dp-pp, sizes, rank formulas, hosts
 * and NVLink domains, per-rank coordinates (node = host, nvlink_domain), the member lists of
 * every group and each group's link: "nvlink" when its members share an NVLink domain (even
 * across hosts), "network" when they do not, "none" for a single rank. `placement` gives each
 * axis's link as pplan prices it (the placement of its first group, placement.h). Worlds above
 * kMaxListedRanks list their first ranks and groups only and say so in `note`.
 * nvlink_domain_gpus 0 = one domain per host. io/launch_json.h writes it as JSON.
 */
struct RankLayout {
  ParallelConfig parallel;
  long long world_size = 0;
  int gpus_per_node = 1;
  long long nodes = 0;
  int nvlink_domain_gpus = 1;
  long long nvlink_domains = 0;
  int expert_dp = 1;
  std::string dense_formula;   ///< "rank = tp + t*(cp + c*(dp + d*pp))"
  std::string expert_formula;  ///< the expert grid's
  std::vector<AxisPlacement> placement;  ///< tp, cp, ep, dp, pp
  bool truncated = false;
  std::string note;  ///< what a truncated listing leaves out
  std::vector<RankCoordinates> ranks;
  std::vector<GroupListing> groups;  ///< tp, cp, dp, dp_cp, pp, ep, expert_dp, tp_pp, embedding
};

RankLayout rank_layout(const ParallelConfig& parallel, int gpus_per_node, int nvlink_domain_gpus = 0);

/// The layout picture shows at most this many node rows: a longer replica keeps its first
/// and last nodes and collapses the middle into one row (1024+ GPUs stay readable).
inline constexpr int kLayoutViewMaxRows = 10;

/// Rows list at most this many GPUs of a node (an NVL72 rack is one NVLink domain of 72).
inline constexpr int kLayoutViewMaxGpusPerRow = 72;

/// One node row of the replica view, or (collapsed_nodes > 0) the collapsed middle.
struct ReplicaViewRow {
  long long node = 0;
  long long collapsed_nodes = 0;  ///< > 0: this row stands for that many replica-0 nodes
  /// The node's GPUs by local index (every rank on it, replica 0 or not); nullopt past the
  /// end of the world (a partly filled last node).
  std::vector<std::optional<RankCoordinates>> gpus;
  int more_gpus = 0;              ///< GPUs of the node beyond kLayoutViewMaxGpusPerRow
  std::vector<int> stages;        ///< pipeline stages of replica 0 on this node, ascending
  std::vector<int> cp_ranks;      ///< CP ranks of replica 0 on this node, ascending
};

/// Which fabric a group's collectives use (placement.h: a group on one node stays on NVLink).
struct ViewLink {
  const char* axis = "";
  GroupPlacement placement;
  const char* link() const;  ///< "none" (size 1), "nvlink" or "network"
};

/**
 * What the layout picture draws: replica 0 (DP rank 0, every PP stage and CP rank) node by
 * node, the identical replicas collapsed into a count, and which groups stay on NVLink.
 * Nodes are found block by block (one TP group of replica 0 at a time, in rank order), so
 * the work is O(pp·cp + replica nodes) and the output at most max_rows rows.
 */
struct ReplicaView {
  long long world_size = 0;
  int gpus_per_node = 1;
  long long nodes = 0;             ///< ceil(world / gpus_per_node)
  long long gpus_per_replica = 0;  ///< tp·cp·pp
  long long replicas = 0;          ///< dp: identical copies of replica 0
  long long replica_nodes = 0;     ///< nodes holding a rank of replica 0
  bool shared_nodes = false;       ///< replica-0 nodes also hold other replicas' ranks
  std::vector<ViewLink> links;     ///< tp, cp, ep, dp, dp_cp (gradient reduction), pp
  std::vector<ReplicaViewRow> rows;
};

/// The replica view of `parallel` on nodes of `gpus_per_node`; max_rows is at least 3.
/// Example: tp 8, pp 8, dp 16, 8 GPUs per node: 8 rows (nodes 0, 16, ..., 112, one stage
/// each), 16 replicas, TP on NVLink, DP and PP over the network.
ReplicaView replica_view(const ParallelConfig& parallel, int gpus_per_node,
                         int max_rows = kLayoutViewMaxRows);

}  // namespace pplan
