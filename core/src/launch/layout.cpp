#include "pplan/launch/layout.h"

#include <algorithm>
#include <deque>
#include <set>
#include <string>
#include <utility>

#include "pplan/model/placement.h"

namespace pplan {

namespace {

/// Any positive count: strides do not depend on it (placement.h clamps to 1).
constexpr int kAnyGpusPerNode = 1;

GroupPlacement dim(const ParallelConfig& p, Axis axis) {
  return place_group(p, kAnyGpusPerNode, axis);
}

/// Expert data parallel: after expert-TP and EP on the expert grid.
GroupPlacement expert_dp_dim(const ParallelConfig& p) { return place_expert_dp_group(p, kAnyGpusPerNode); }

/// The axes a group kind spans, fastest first (Megatron enumerates members in that order).
std::vector<GroupPlacement> dims_of(const ParallelConfig& p, GroupKind kind) {
  switch (kind) {
    case GroupKind::kTp: return {dim(p, Axis::kTp)};
    case GroupKind::kCp: return {dim(p, Axis::kCp)};
    case GroupKind::kDp: return {dim(p, Axis::kDp)};
    case GroupKind::kDpCp: return {dim(p, Axis::kCp), dim(p, Axis::kDp)};
    case GroupKind::kPp:
    case GroupKind::kEmbedding: return {dim(p, Axis::kPp)};
    case GroupKind::kEp: return {dim(p, Axis::kEp)};
    case GroupKind::kExpertDp: return {expert_dp_dim(p)};
    case GroupKind::kModelParallel: return {dim(p, Axis::kTp), dim(p, Axis::kPp)};
  }
  return {};
}

int coordinate(int rank, const GroupPlacement& d) { return (rank / d.stride) % d.size; }

}  // namespace


int expert_dp_size(const ParallelConfig& p) { return static_cast<int>(expert_dp(p)); }

RankCoordinates rank_coordinates(const ParallelConfig& p, int gpus_per_node, int rank,
                                 int nvlink_domain_gpus) {
  RankCoordinates c;
  gpus_per_node = std::max(1, gpus_per_node);
  c.rank = rank;
  c.node = rank / gpus_per_node;
  c.local_gpu = rank % gpus_per_node;
  c.nvlink_domain = rank / std::max(gpus_per_node, nvlink_domain_gpus);
  c.tp = coordinate(rank, dim(p, Axis::kTp));
  c.cp = coordinate(rank, dim(p, Axis::kCp));
  c.dp = coordinate(rank, dim(p, Axis::kDp));
  c.pp = coordinate(rank, dim(p, Axis::kPp));
  c.ep = coordinate(rank, dim(p, Axis::kEp));
  c.expert_dp = coordinate(rank, expert_dp_dim(p));
  return c;
}

long long rank_of(const ParallelConfig& p, const RankCoordinates& at) {
  return 1LL * at.tp * dim(p, Axis::kTp).stride + 1LL * at.cp * dim(p, Axis::kCp).stride +
         1LL * at.dp * dim(p, Axis::kDp).stride + 1LL * at.pp * dim(p, Axis::kPp).stride;
}

long long group_count(const ParallelConfig& p, GroupKind kind) {
  long long members = 1;
  for (const GroupPlacement& d : dims_of(p, kind)) members *= d.size;
  return world_ranks(p) / std::max(1LL, members);
}

std::vector<std::vector<int>> rank_groups(const ParallelConfig& p, GroupKind kind,
                                          int max_groups, int max_members) {
  const std::vector<GroupPlacement> dims = dims_of(p, kind);
  const long long world = world_ranks(p);
  long long members = 1;
  for (const GroupPlacement& d : dims) members *= d.size;
  std::vector<std::vector<int>> groups;
  // Bases are the ranks whose coordinates on the group's own axes are all 0; in increasing
  // order they enumerate the other axes first-fastest, as Megatron's generator does.
  for (long long base = 0; base < world; ++base) {
    bool is_base = true;
    for (const GroupPlacement& d : dims) is_base = is_base && coordinate(int(base), d) == 0;
    if (!is_base) continue;
    auto member = [&](long long i) {
      long long rank = base;
      long long rest = i;
      for (const GroupPlacement& d : dims) {
        rank += (rest % d.size) * d.stride;
        rest /= d.size;
      }
      return static_cast<int>(rank);
    };
    std::vector<int> group;
    if (kind == GroupKind::kEmbedding) {
      group = members > 1 ? std::vector<int>{member(0), member(members - 1)} : std::vector<int>{member(0)};
    } else {
      const long long listed = max_members > 0 ? std::min<long long>(members, max_members) : members;
      group.reserve(static_cast<std::size_t>(listed));
      for (long long i = 0; i < listed; ++i) group.push_back(member(i));
    }
    groups.push_back(std::move(group));
    if (max_groups > 0 && static_cast<int>(groups.size()) >= max_groups) break;
  }
  return groups;
}

const char* group_kind_name(GroupKind kind) {
  switch (kind) {
    case GroupKind::kTp: return "tp";
    case GroupKind::kCp: return "cp";
    case GroupKind::kDp: return "dp";
    case GroupKind::kDpCp: return "dp_cp";
    case GroupKind::kPp: return "pp";
    case GroupKind::kEp: return "ep";
    case GroupKind::kExpertDp: return "expert_dp";
    case GroupKind::kModelParallel: return "model_parallel";
    case GroupKind::kEmbedding: return "embedding";
  }
  return "";
}

namespace {

/// "none", "nvlink" or "network" for a group priced with `g` (placement.h over domains).
const char* link_of(const GroupPlacement& g) {
  if (g.size <= 1) return "none";
  return g.crosses_nodes() ? "network" : "nvlink";
}

/// The link the members of the group starting at `base` actually share: members ascend, so
/// they share one NVLink domain iff the first and the last do (also for truncated listings).
const char* link_of(const ParallelConfig& p, GroupKind kind, long long base, int domain_gpus) {
  long long last = base;
  long long members = 1;
  for (const GroupPlacement& d : dims_of(p, kind)) {
    last += (d.size - 1LL) * d.stride;
    members *= d.size;
  }
  if (members <= 1) return "none";
  return base / domain_gpus == last / domain_gpus ? "nvlink" : "network";
}

}  // namespace

RankLayout rank_layout(const ParallelConfig& p, int gpus_per_node, int nvlink_domain_gpus) {
  RankLayout l;
  l.parallel = p;
  l.gpus_per_node = std::max(1, gpus_per_node);
  l.nvlink_domain_gpus = std::max(l.gpus_per_node, nvlink_domain_gpus);
  l.world_size = world_ranks(p);
  l.nodes = (l.world_size + l.gpus_per_node - 1) / l.gpus_per_node;
  l.nvlink_domains = (l.world_size + l.nvlink_domain_gpus - 1) / l.nvlink_domain_gpus;
  l.expert_dp = expert_dp_size(p);
  l.truncated = l.world_size > kMaxListedRanks;
  // Huge worlds: the first 8 nodes' ranks and the first 16 groups of each kind.
  const long long listed_ranks =
      l.truncated ? std::min<long long>(l.world_size, 8LL * l.gpus_per_node) : l.world_size;
  const int max_groups = l.truncated ? 16 : 0;
  const int max_members = l.truncated ? 64 : 0;
  const std::string t = std::to_string(p.tp);
  l.dense_formula = "rank = tp + " + t + "*(cp + " + std::to_string(p.cp) + "*(dp + " +
                    std::to_string(p.dp) + "*pp))";
  l.expert_formula = "rank = expert_tp + " + std::to_string(expert_tp(p)) + "*(ep + " + std::to_string(p.ep) +
                     "*(expert_dp + " + std::to_string(l.expert_dp) + "*pp))";
  for (Axis axis : {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp}) {
    static const char* const kNames[] = {"tp", "cp", "ep", "dp", "pp"};
    const GroupPlacement by_domain = place_group(p, l.nvlink_domain_gpus, axis, l.gpus_per_node);
    l.placement.push_back({kNames[static_cast<int>(axis)], place_group(p, l.gpus_per_node, axis),
                           by_domain, link_of(by_domain)});
  }
  if (l.truncated) {
    l.note = "world of " + std::to_string(l.world_size) + " ranks exceeds " +
             std::to_string(kMaxListedRanks) + ": \"ranks\" lists the first " +
             std::to_string(listed_ranks) + " ranks and each group kind its first " +
             std::to_string(max_groups) + " groups with their first " +
             std::to_string(max_members) + " members; every other rank follows rank_formula";
  }
  for (long long r = 0; r < listed_ranks; ++r) {
    l.ranks.push_back(rank_coordinates(p, l.gpus_per_node, static_cast<int>(r), l.nvlink_domain_gpus));
  }
  for (GroupKind kind : {GroupKind::kTp, GroupKind::kCp, GroupKind::kDp, GroupKind::kDpCp,
                         GroupKind::kPp, GroupKind::kEp, GroupKind::kExpertDp,
                         GroupKind::kModelParallel, GroupKind::kEmbedding}) {
    GroupListing listing;
    listing.kind = kind;
    listing.members = rank_groups(p, kind, max_groups, max_members);
    listing.count = group_count(p, kind);
    for (const std::vector<int>& g : listing.members)
      listing.links.push_back(link_of(p, kind, g.front(), l.nvlink_domain_gpus));
    l.groups.push_back(std::move(listing));
  }
  return l;
}

const char* ViewLink::link() const {
  if (placement.size <= 1) return "none";
  return placement.crosses_nodes() ? "network" : "nvlink";
}

namespace {

/// A node row of the view: its GPUs' coordinates and replica 0's stages and CP ranks on it.
ReplicaViewRow view_row(const ParallelConfig& p, int gpus_per_node, long long world, long long node) {
  ReplicaViewRow row;
  row.node = node;
  std::set<int> stages;
  std::set<int> cp_ranks;
  const int listed = std::min(gpus_per_node, kLayoutViewMaxGpusPerRow);
  for (int i = 0; i < gpus_per_node; ++i) {
    const long long rank = node * gpus_per_node + i;
    if (rank >= world) {
      if (i < listed) row.gpus.push_back(std::nullopt);
      continue;
    }
    const RankCoordinates c = rank_coordinates(p, gpus_per_node, static_cast<int>(rank));
    if (c.dp == 0) {
      stages.insert(c.pp);
      cp_ranks.insert(c.cp);
    }
    if (i < listed) row.gpus.push_back(c);
  }
  row.more_gpus = gpus_per_node - listed;
  row.stages.assign(stages.begin(), stages.end());
  row.cp_ranks.assign(cp_ranks.begin(), cp_ranks.end());
  return row;
}

}  // namespace

ReplicaView replica_view(const ParallelConfig& p, int gpus_per_node, int max_rows) {
  ReplicaView v;
  v.gpus_per_node = std::max(1, gpus_per_node);
  const int gpn = v.gpus_per_node;
  max_rows = std::max(3, max_rows);
  v.world_size = world_ranks(p);
  v.nodes = (v.world_size + gpn - 1) / gpn;
  v.gpus_per_replica = 1LL * p.tp * p.cp * p.pp;
  v.replicas = p.dp;
  v.links = {{"tp", place_group(p, gpn, Axis::kTp)}, {"cp", place_group(p, gpn, Axis::kCp)},
             {"ep", place_group(p, gpn, Axis::kEp)}, {"dp", place_group(p, gpn, Axis::kDp)},
             {"dp_cp", place_dp_cp_group(p, gpn)},  {"pp", place_group(p, gpn, Axis::kPp)}};

  // Replica 0's ranks come in TP blocks [rank_of(0, c, 0, s), + tp), ascending in (s, c), so
  // its nodes arrive in ascending order: keep the first max_rows and the last `tail`.
  const int head = max_rows / 2;  // ceil((max_rows - 1) / 2): the gap row takes one
  const int tail = max_rows - 1 - head;
  std::vector<long long> first;
  std::deque<long long> last;
  long long previous = -1;
  for (int s = 0; s < p.pp; ++s) {
    for (int c = 0; c < p.cp; ++c) {
      RankCoordinates at;
      at.cp = c;
      at.pp = s;
      const long long block = rank_of(p, at);
      const long long end_node = (block + p.tp - 1) / gpn;
      for (long long node = std::max(previous + 1, block / gpn); node <= end_node; ++node) {
        ++v.replica_nodes;
        if (static_cast<int>(first.size()) < max_rows) first.push_back(node);
        last.push_back(node);
        if (static_cast<int>(last.size()) > tail) last.pop_front();
        previous = node;
      }
    }
  }
  v.shared_nodes = v.replica_nodes * gpn > v.gpus_per_replica;
  if (v.replica_nodes <= max_rows) {
    for (long long node : first) v.rows.push_back(view_row(p, gpn, v.world_size, node));
  } else {
    for (int i = 0; i < head; ++i) v.rows.push_back(view_row(p, gpn, v.world_size, first[i]));
    ReplicaViewRow gap;
    gap.collapsed_nodes = v.replica_nodes - head - tail;
    v.rows.push_back(gap);
    for (long long node : last) v.rows.push_back(view_row(p, gpn, v.world_size, node));
  }
  return v;
}

}  // namespace pplan
