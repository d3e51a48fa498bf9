#include "pplan/layout.h"

#include <algorithm>
#include <string>

#include "pplan/placement.h"

namespace pplan {

using nlohmann::ordered_json;

namespace {

/// Any positive count: strides do not depend on it (placement.h clamps to 1).
constexpr int kAnyGpusPerNode = 1;

GroupPlacement dim(const ParallelConfig& p, Axis axis) {
  return place_group(p, kAnyGpusPerNode, axis);
}

/// Expert data parallel: after expert-TP (= tp) and EP on the expert grid.
GroupPlacement expert_dp_dim(const ParallelConfig& p) {
  return place_ranks(p.tp * p.ep, expert_dp_size(p), kAnyGpusPerNode);
}

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

long long world_size(const ParallelConfig& p) { return 1LL * p.tp * p.cp * p.dp * p.pp; }

int expert_dp_size(const ParallelConfig& p) {
  const long long dense_dp = 1LL * p.dp * p.cp;
  return static_cast<int>(std::max<long long>(1, dense_dp / std::max(1, p.ep)));
}

RankCoordinates rank_coordinates(const ParallelConfig& p, int gpus_per_node, int rank) {
  RankCoordinates c;
  gpus_per_node = std::max(1, gpus_per_node);
  c.rank = rank;
  c.node = rank / gpus_per_node;
  c.local_gpu = rank % gpus_per_node;
  c.tp = coordinate(rank, dim(p, Axis::kTp));
  c.cp = coordinate(rank, dim(p, Axis::kCp));
  c.dp = coordinate(rank, dim(p, Axis::kDp));
  c.pp = coordinate(rank, dim(p, Axis::kPp));
  c.ep = coordinate(rank, dim(p, Axis::kEp));
  c.expert_dp = coordinate(rank, expert_dp_dim(p));
  return c;
}

long long group_count(const ParallelConfig& p, GroupKind kind) {
  long long members = 1;
  for (const GroupPlacement& d : dims_of(p, kind)) members *= d.size;
  return world_size(p) / std::max(1LL, members);
}

std::vector<std::vector<int>> rank_groups(const ParallelConfig& p, GroupKind kind,
                                          int max_groups, int max_members) {
  const std::vector<GroupPlacement> dims = dims_of(p, kind);
  const long long world = world_size(p);
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

ordered_json layout_to_json(const ParallelConfig& p, int gpus_per_node) {
  gpus_per_node = std::max(1, gpus_per_node);
  const long long world = world_size(p);
  const bool truncated = world > kMaxListedRanks;
  // Huge worlds: the first 8 nodes' ranks and the first 16 groups of each kind.
  const long long listed_ranks = truncated ? std::min<long long>(world, 8LL * gpus_per_node) : world;
  const int max_groups = truncated ? 16 : 0;
  const int max_members = truncated ? 64 : 0;

  ordered_json j;
  j["order"] = "tp-cp-ep-dp-pp";
  j["world_size"] = world;
  j["gpus_per_node"] = gpus_per_node;
  j["nodes"] = (world + gpus_per_node - 1) / gpus_per_node;
  j["sizes"] = {{"tp", p.tp},         {"cp", p.cp},
                {"ep", p.ep},         {"dp", p.dp},
                {"pp", p.pp},         {"expert_tp", p.tp},
                {"expert_dp", expert_dp_size(p)}};
  const std::string t = std::to_string(p.tp);
  j["rank_formula"] = {
      {"dense", "rank = tp + " + t + "*(cp + " + std::to_string(p.cp) + "*(dp + " +
                    std::to_string(p.dp) + "*pp))"},
      {"expert", "rank = expert_tp + " + t + "*(ep + " + std::to_string(p.ep) + "*(expert_dp + " +
                     std::to_string(expert_dp_size(p)) + "*pp))"}};
  ordered_json placement = ordered_json::object();
  for (Axis axis : {Axis::kTp, Axis::kCp, Axis::kEp, Axis::kDp, Axis::kPp}) {
    static const char* const kNames[] = {"tp", "cp", "ep", "dp", "pp"};
    const GroupPlacement g = place_group(p, gpus_per_node, axis);
    placement[kNames[static_cast<int>(axis)]] = {{"size", g.size},
                                                 {"stride", g.stride},
                                                 {"ranks_per_node", g.ranks_per_node},
                                                 {"nodes", g.nodes}};
  }
  j["placement"] = placement;
  j["truncated"] = truncated;
  if (truncated) {
    j["note"] = "world of " + std::to_string(world) + " ranks exceeds " +
                std::to_string(kMaxListedRanks) + ": \"ranks\" lists the first " +
                std::to_string(listed_ranks) + " ranks and each group kind its first " +
                std::to_string(max_groups) + " groups with their first " +
                std::to_string(max_members) + " members; every other rank follows rank_formula";
  }
  ordered_json ranks = ordered_json::array();
  for (long long r = 0; r < listed_ranks; ++r) {
    const RankCoordinates c = rank_coordinates(p, gpus_per_node, static_cast<int>(r));
    ranks.push_back({{"rank", c.rank},
                     {"node", c.node},
                     {"local_gpu", c.local_gpu},
                     {"tp", c.tp},
                     {"cp", c.cp},
                     {"ep", c.ep},
                     {"dp", c.dp},
                     {"pp", c.pp},
                     {"expert_dp", c.expert_dp}});
  }
  j["ranks"] = ranks;
  ordered_json groups = ordered_json::object();
  ordered_json counts = ordered_json::object();
  for (GroupKind kind : {GroupKind::kTp, GroupKind::kCp, GroupKind::kDp, GroupKind::kDpCp,
                         GroupKind::kPp, GroupKind::kEp, GroupKind::kExpertDp,
                         GroupKind::kModelParallel, GroupKind::kEmbedding}) {
    groups[group_kind_name(kind)] = rank_groups(p, kind, max_groups, max_members);
    counts[group_kind_name(kind)] = group_count(p, kind);
  }
  j["group_counts"] = counts;
  j["groups"] = groups;
  return j;
}

}  // namespace pplan
