#include "pplan/model/placement.h"

#include <algorithm>

namespace pplan {

namespace {
/// Group sizes and strides beyond any real cluster (2^20 GPUs) arise only from pinned degrees
/// that do not multiply to the GPU count (reported as plan.gpu_count_mismatch); they are
/// saturated here so the products stay in range (found by fuzzing: 65536 · 1048576 overflowed).
constexpr long long kMaxRanks = 1LL << 30;
int saturate(long long v) { return static_cast<int>(std::clamp(v, 1LL, kMaxRanks)); }
}  // namespace

GroupPlacement place_ranks(long long stride, long long size, int gpus_per_node) {
  GroupPlacement g;
  g.stride = saturate(stride);
  g.size = saturate(size);
  gpus_per_node = std::max(1, gpus_per_node);
  const long long span = static_cast<long long>(g.stride) * g.size;  // ranks covered
  if (g.stride >= gpus_per_node) {
    g.ranks_per_node = 1;
  } else {
    g.ranks_per_node = std::max(1, std::min(g.size, gpus_per_node / g.stride));
  }
  g.nodes = static_cast<int>(
      std::max<long long>(1, std::min<long long>(g.size, (span + gpus_per_node - 1) / gpus_per_node)));
  g.nodes = std::max(g.nodes, (g.size + g.ranks_per_node - 1) / g.ranks_per_node);
  return g;
}

GroupPlacement place_group(const ParallelConfig& parallel, int gpus_per_node, Axis axis) {
  switch (axis) {
    case Axis::kTp: return place_ranks(1, parallel.tp, gpus_per_node);
    case Axis::kCp: return place_ranks(parallel.tp, parallel.cp, gpus_per_node);
    // Expert grid (Megatron-Core's expert RankGenerator, order tp-ep-dp): EP follows expert-TP.
    case Axis::kEtp: return place_ranks(1, expert_tp(parallel), gpus_per_node);
    case Axis::kEp: return place_ranks(expert_tp(parallel), parallel.ep, gpus_per_node);
    case Axis::kDp: return place_ranks(1LL * parallel.tp * parallel.cp, parallel.dp, gpus_per_node);
    case Axis::kPp:
      return place_ranks(1LL * parallel.tp * parallel.cp * parallel.dp, parallel.pp, gpus_per_node);
  }
  return place_ranks(1, 1, gpus_per_node);
}

long long replica_hosts(const ParallelConfig& parallel, int group_gpus) {
  const long long g = std::max(1, group_gpus);
  const long long width = 1LL * parallel.tp * parallel.cp;
  const long long stride = width * std::max(1, parallel.dp);
  long long hosts = 0, last = -1;
  for (long long stage = 0; stage < parallel.pp; ++stage) {
    const long long first = stage * stride / g;
    const long long end = (stage * stride + width - 1) / g;
    hosts += end - std::max(first, last + 1) + 1;
    last = end;
  }
  return hosts;
}

GroupPlacement place_dp_cp_group(const ParallelConfig& parallel, int gpus_per_node) {
  return place_ranks(parallel.tp, 1LL * parallel.cp * parallel.dp, gpus_per_node);
}

GroupPlacement place_expert_dp_group(const ParallelConfig& parallel, int gpus_per_node) {
  return place_ranks(1LL * expert_tp(parallel) * parallel.ep, expert_dp(parallel), gpus_per_node);
}

long long world_ranks(const ParallelConfig& parallel) {
  return 1LL * parallel.tp * parallel.cp * parallel.dp * parallel.pp;
}

}  // namespace pplan
