#pragma once
/// Collective communication costs: per-link bandwidth and latency, ring algorithms,
/// hierarchical when a group spans nodes.

#include "pplan/model/placement.h"
#include "pplan/specs.h"

namespace pplan {

// What NCCL reaches of each link (bandwidth share and per-step latency) is a GPU field with a
// measured default (specs.h GpuSpec::nvlink_efficiency ...): `pplan calibrate` refits it.

/// Message size at which a collective reaches half its large-message bandwidth: the share
/// is bytes/(bytes + 8 MB), 11.6% at 1 MiB and 89% at 64 MiB. nccl-tests on 8xA100 measure
/// 7.7% and 73% (busbw 18 GB/s at 1 MiB, 172 at 64 MiB, 235 at 16 GiB; ml-engineering
/// network/README.md), a slower ramp; 16 MB would follow it closer but fits the published
/// step times worse than 8 MB (tried against tests/validation), so 8 MB stays, stated here.
inline constexpr double kHalfBandwidthBytes = 8e6;

/**
 * The message each parallel dimension moves for one micro-batch, per GPU, in bytes. The one
 * place these sizes are written: the step-time model, the design report and the nccl-tests
 * commands all read them from here.
 *   tokens = seq_len/cp · micro_batch (per GPU, before TP);
 *   TP: one all-reduce (or all-gather + reduce-scatter with SP) of tokens·h·2 bytes, 2 per layer
 *       per pass (Narayanan et al. 2021 §3.2; Korthikanti et al. 2022 §4.2.2);
 *   CP: one ring step passes the chunk's K and V: tokens·(k_width + v_width)/t·2 bytes
 *       (kv_heads·d each for MHA/GQA; heads·(d_nope + d_rope) and heads·d_v for MLA);
 *   EP: one all-to-all dispatch (or combine): tokens·top_k·h·2/t bytes;
 *   PP: one activation (or its gradient) per TP rank: tokens·h·2/t bytes (Narayanan et al. 2021
 *       §4.1 scatter/gather).
 * Example: GPT-3, b 1, s 2048, t 8: TP 50.3 MB, PP 6.3 MB.
 */
struct MessageSizes {
  double tokens = 0;
  double tp_bytes = 0;
  double cp_kv_bytes = 0;
  double ep_bytes = 0;
  double pp_bytes = 0;
};

/// Message sizes of `parallel` for `scenario` (the EP size is 0 for dense models).
MessageSizes message_sizes(const Scenario& scenario, const ParallelConfig& parallel);
/// Its ep_bytes alone (the search asks it for every expert layout it bounds).
double expert_dispatch_bytes(const Scenario& scenario, const ParallelConfig& parallel);

/// Exposed cost of `comm_s` of communication that may overlap `window_s` of compute: what
/// exceeds the window, plus `slowdown` of the overlapped part (NCCL runs its channels on SMs
/// and streams through HBM beside the kernels it hides behind; Calibration::overlap_slowdown).
double exposed_after_overlap_s(double comm_s, double window_s, double slowdown);

/// The achievable bandwidth and per-step latency of one class of link.
struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
};

/// NVLink inside a node, as NCCL achieves it.
Link nvlink(const GpuSpec& gpu);
/// The scale-out network (one NIC per GPU, rail-optimised), as NCCL achieves it.
Link network(const GpuSpec& gpu);

/**
 * Ring all-reduce of `bytes` per rank over a placed group: 2(n−1)/n · bytes / bandwidth
 * (nccl-tests busbw factor, nccl-tests doc/PERFORMANCE.md). A group spanning nodes runs hierarchically:
 * reduce-scatter inside the node over NVLink, all-reduce of 1/k of the data across nodes
 * on each rank's own NIC, all-gather inside the node. Latency: 2·log2(n) steps (NCCL tree).
 * Example: 1 GB over 16 ranks, one per node, 46 GB/s: the bandwidth term 2·15/16·1e9/46e9 is
 * 40.76 ms; with the size ramp ((1e9 + 8e6)/46e9) and 2·4 latency steps of 10 µs, 41.17 ms.
 */
double all_reduce_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu);

/// Reduce-scatter (or all-gather) of `bytes` total per rank: half an all-reduce's traffic.
double reduce_scatter_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu);

/// All-to-all of `bytes` per rank: the off-node share over the NIC, the rest over NVLink.
double all_to_all_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu);

/**
 * Nodes other than its own that one token's top-k copies reach, expected, when the EP group
 * spans `ep_nodes` nodes with the experts spread evenly over them and routing balanced. A token
 * can reach R = min(ep_nodes, top_k) nodes, or, with group-limited routing, the nodes of its
 * group_top_k groups (groups laid over the nodes in order: group_top_k · ep_nodes / groups of
 * them, at least group_top_k when groups ≤ nodes). Its k copies land on D = R·(1 − (1 − 1/R)^k)
 * distinct nodes, its own among them with probability D / ep_nodes. DeepSeek-V3 on 8 nodes
 * (8 groups, top-4): R = 4, D = 3.60, 3.15 remote, against 7 remote copies of 8 unlimited.
 */
double remote_nodes_per_token(const MoeSpec& moe, int ep_nodes);

/**
 * A deduplicating dispatch (DeepEP, Megatron's flex dispatcher): each of `tokens_bytes` worth of
 * tokens crosses the network once per remote node it is routed to, then its `copies` fan out
 * over NVLink inside the node. Network and NVLink run at once; the slower sets the time.
 */
double deduplicated_all_to_all_s(double tokens_bytes, double copies, double remote_nodes,
                                 const GroupPlacement& group, const GpuSpec& gpu);

/// Point-to-point send of `bytes` to a neighbour, over the network when `cross_node`.
double send_recv_s(double bytes, bool cross_node, const GpuSpec& gpu);

}  // namespace pplan
