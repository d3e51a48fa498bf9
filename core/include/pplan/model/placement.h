#pragma once
/// Where parallel groups land on nodes, by Megatron's rank order tp-cp-ep-dp-pp
/// (tp fastest-varying; Megatron-LM d98e8a64 megatron/core/parallel_state.py, RankGenerator).

#include "pplan/specs.h"

namespace pplan {

/// The parallel dimensions, in Megatron's default order from fastest- to slowest-varying.
enum class Axis { kTp, kCp, kEp, kDp, kPp, kEtp };

/// How a group of ranks of one axis sits on the machine.
struct GroupPlacement {
  int size = 1;            ///< ranks in the group
  int stride = 1;          ///< global-rank distance between neighbours in the group
  int ranks_per_node = 1;  ///< group members sharing one node (NVLink domain)
  int nodes = 1;           ///< nodes the group spans
  bool crosses_nodes() const { return nodes > 1; }
};

/// Placement of a group of `size` ranks spaced `stride` apart in global rank order, on domains
/// of `domain_gpus` (a host, or an NVLink domain of several hosts). Both are saturated to
/// [1, 2^30] (only inconsistent pinned configs come near). Groups tile the domains when they
/// can: when the group's span (stride · size) divides the domain or is a multiple of it, or
/// when the job can skip whole hosts of `host_gpus` in each domain to make them tile (64-rank
/// groups in 72-GPU NVL72 racks of 4-GPU trays: the job takes 16 trays a rack, which is how
/// NVIDIA's published GB200/GB300 runs behave: DeepSeek-V3 with EP 64 on 256 GB200s runs at
/// NVLink speed). Otherwise some group straddles a domain boundary and sets the pace: this is
/// the worst of the job's `world` ranks' groups (TP 3 on 8-GPU hosts: ranks 6, 7, 8 span two
/// hosts). `host_gpus` 0: the domain is one host; `world` 0: as many groups as it takes.
GroupPlacement place_ranks(long long stride, long long size, int domain_gpus, int host_gpus = 0,
                           long long world = 0);

/// tp·cp·dp·pp: the ranks of the job.
long long world_ranks(const ParallelConfig& parallel);

/**
 * Hosts of `group_gpus` GPUs that model replica 0 (data-parallel index 0) occupies in Megatron's
 * rank order: each pipeline stage holds tp·cp adjacent ranks, stages tp·cp·dp ranks apart.
 * Example: tp 2, pp 4, dp 2 on 8-GPU hosts: ranks 0,1,4,5,8,9,12,13, i.e. hosts 0 and 1 (2).
 */
long long replica_hosts(const ParallelConfig& parallel, int group_gpus);

/// The gradient-reduction group: DP × CP ranks (Megatron's dp-cp group), stride tp.
GroupPlacement place_dp_cp_group(const ParallelConfig& parallel, int gpus_per_node, int host_gpus = 0);
/// The same on the cluster's NVLink domains (hosts of cluster.gpus_per_node skippable).
GroupPlacement place_dp_cp_group(const ParallelConfig& parallel, const ClusterSpec& cluster);

/// The expert-data-parallel group: dp·cp/ep copies of each expert, stride tp·ep (Megatron's
/// expert grid is carved out of DP×CP).
GroupPlacement place_expert_dp_group(const ParallelConfig& parallel, int gpus_per_node, int host_gpus = 0);
GroupPlacement place_expert_dp_group(const ParallelConfig& parallel, const ClusterSpec& cluster);

/**
 * Placement of one group of `axis`. Global rank r = tp + t·(cp + c·(dp + d·pp)) (the dense
 * grid; the expert grid replaces cp·dp by ep·expert-dp with expert-TP = tp), so the group's
 * stride is the product of the sizes of the faster axes.
 * Example: tp 8, pp 8, dp 16, 8 GPUs per node: a TP group is one node; a DP group spans 16
 * nodes with one rank on each; a PP group spans 8 nodes.
 */
GroupPlacement place_group(const ParallelConfig& parallel, int gpus_per_node, Axis axis, int host_gpus = 0);
/// The same on the cluster's NVLink domains (where TP, CP and EP traffic stays on NVLink),
/// whose hosts of cluster.gpus_per_node a job may skip to align its groups.
GroupPlacement place_group(const ParallelConfig& parallel, const ClusterSpec& cluster, Axis axis);

}  // namespace pplan
