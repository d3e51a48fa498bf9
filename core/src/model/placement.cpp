#include "pplan/model/placement.h"

#include <algorithm>
#include <numeric>

namespace pplan {

namespace {
/// Group sizes and strides beyond any real cluster (2^20 GPUs) arise only from pinned degrees
/// that do not multiply to the GPU count (reported as plan.gpu_count_mismatch); they are
/// saturated here so the products stay in range (found by fuzzing: 65536 · 1048576 overflowed).
constexpr long long kMaxRanks = 1LL << 30;
int saturate(long long v) { return static_cast<int>(std::clamp(v, 1LL, kMaxRanks)); }
/// A job no larger than one domain has every group inside it.
bool world_fits_one_domain(long long world, long long domain) { return world > 0 && world <= domain; }
/// Whether a job can take only some hosts of each domain so that groups of `span` ranks tile
/// what it takes (SLURM's --segment: 16 of an NVL72 rack's 18 trays for 64-rank groups).
bool tiles_by_skipping_hosts(long long span, long long domain, int host_gpus) {
  if (host_gpus <= 0 || host_gpus >= domain || span >= domain) return false;
  return std::lcm(span, static_cast<long long>(host_gpus)) <= domain;
}
}  // namespace

GroupPlacement place_ranks(long long stride, long long size, int domain_gpus, int host_gpus, long long world) {
  GroupPlacement g;
  g.stride = saturate(stride);
  g.size = saturate(size);
  const long long domain = std::max(1, domain_gpus);
  const long long span = static_cast<long long>(g.stride) * g.size;  // ranks covered
  if (g.stride >= domain) {
    g.ranks_per_node = 1;
  } else {
    g.ranks_per_node = static_cast<int>(std::max<long long>(1, std::min<long long>(g.size, domain / g.stride)));
  }
  g.nodes = static_cast<int>(std::max<long long>(1, std::min<long long>(g.size, (span + domain - 1) / domain)));
  g.nodes = std::max(g.nodes, (g.size + g.ranks_per_node - 1) / g.ranks_per_node);
  if (g.stride >= domain || g.size <= 1 || world_fits_one_domain(world, domain)) return g;
  if (domain % span == 0 || span % domain == 0 || tiles_by_skipping_hosts(span, domain, host_gpus)) return g;
  // Group m's ranks start at b + m·span (b < stride, the faster axes' index): its offset in
  // its domain is (m·span) mod domain, + b; the offsets repeat after domain / gcd(span, domain)
  // groups. Ranks stride < domain apart skip no domain, so a group starting at offset o spans
  // (o + (size − 1)·stride) / domain + 1 domains, and its first holds (domain − 1 − o) / stride
  // + 1 of its ranks. The group whose thinnest domain holds the fewest ranks sets the pace: its
  // few members there carry the group's traffic over their NICs (comm.h).
  const long long period = domain / std::gcd(span, domain);
  const long long groups = world > 0 ? std::max(1LL, world / span) : period;
  const long long per_domain = std::max(1LL, domain / g.stride);
  for (long long m = 0; m < std::min(groups, period); ++m) {
    const long long offset = std::min(m * (span % domain) % domain + g.stride - 1, domain - 1);
    const long long domains = std::min<long long>(g.size, (offset + (g.size - 1LL) * g.stride) / domain + 1);
    if (domains <= 1) continue;
    const long long first = std::min<long long>(g.size, (domain - 1 - offset) / g.stride + 1);
    const long long last = std::max(1LL, g.size - first - (domains - 2) * per_domain);
    const int thinnest = static_cast<int>(std::min({first, last, per_domain}));
    if (thinnest < g.ranks_per_node || (thinnest == g.ranks_per_node && domains > g.nodes)) {
      g.ranks_per_node = thinnest;
      g.nodes = saturate(domains);
    }
  }
  return g;
}

GroupPlacement place_group(const ParallelConfig& parallel, int gpus_per_node, Axis axis, int host_gpus) {
  const long long world = world_ranks(parallel);
  auto place = [&](long long stride, long long size) { return place_ranks(stride, size, gpus_per_node, host_gpus, world); };
  switch (axis) {
    case Axis::kTp: return place(1, parallel.tp);
    case Axis::kCp: return place(parallel.tp, parallel.cp);
    // Expert grid (Megatron-Core's expert RankGenerator, order tp-ep-dp): EP follows expert-TP.
    case Axis::kEtp: return place(1, expert_tp(parallel));
    case Axis::kEp: return place(expert_tp(parallel), parallel.ep);
    case Axis::kDp: return place(1LL * parallel.tp * parallel.cp, parallel.dp);
    case Axis::kPp: return place(1LL * parallel.tp * parallel.cp * parallel.dp, parallel.pp);
  }
  return place(1, 1);
}

GroupPlacement place_group(const ParallelConfig& parallel, const ClusterSpec& cluster, Axis axis) {
  return place_group(parallel, cluster.nvlink_domain_gpus, axis, cluster.gpus_per_node);
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

GroupPlacement place_dp_cp_group(const ParallelConfig& parallel, int gpus_per_node, int host_gpus) {
  return place_ranks(parallel.tp, 1LL * parallel.cp * parallel.dp, gpus_per_node, host_gpus, world_ranks(parallel));
}

GroupPlacement place_dp_cp_group(const ParallelConfig& parallel, const ClusterSpec& cluster) {
  return place_dp_cp_group(parallel, cluster.nvlink_domain_gpus, cluster.gpus_per_node);
}

GroupPlacement place_expert_dp_group(const ParallelConfig& parallel, int gpus_per_node, int host_gpus) {
  return place_ranks(1LL * expert_tp(parallel) * parallel.ep, expert_dp(parallel), gpus_per_node, host_gpus,
                     world_ranks(parallel));
}

GroupPlacement place_expert_dp_group(const ParallelConfig& parallel, const ClusterSpec& cluster) {
  return place_expert_dp_group(parallel, cluster.nvlink_domain_gpus, cluster.gpus_per_node);
}

long long world_ranks(const ParallelConfig& parallel) {
  return 1LL * parallel.tp * parallel.cp * parallel.dp * parallel.pp;
}

}  // namespace pplan
