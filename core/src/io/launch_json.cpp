#include "pplan/io/launch_json.h"

#include <optional>
#include <vector>

namespace pplan {

using nlohmann::ordered_json;

ordered_json rank_layout_to_json(const RankLayout& l) {
  const ParallelConfig& p = l.parallel;
  ordered_json j;
  j["order"] = "tp-cp-ep-dp-pp";
  j["world_size"] = l.world_size;
  j["gpus_per_node"] = l.gpus_per_node;
  j["nodes"] = l.nodes;
  j["nvlink_domain_gpus"] = l.nvlink_domain_gpus;
  j["nvlink_domains"] = l.nvlink_domains;
  j["sizes"] = {{"tp", p.tp},         {"cp", p.cp},
                {"ep", p.ep},         {"dp", p.dp},
                {"pp", p.pp},         {"expert_tp", p.tp},
                {"expert_dp", l.expert_dp}};
  j["rank_formula"] = {{"dense", l.dense_formula}, {"expert", l.expert_formula}};
  ordered_json placement = ordered_json::object();
  for (const AxisPlacement& a : l.placement) {
    placement[a.axis] = {{"size", a.by_host.size},
                         {"stride", a.by_host.stride},
                         {"ranks_per_node", a.by_host.ranks_per_node},
                         {"nodes", a.by_host.nodes},
                         {"nvlink_domains", a.by_domain.nodes},
                         {"link", a.link}};
  }
  j["placement"] = placement;
  j["truncated"] = l.truncated;
  if (l.truncated) j["note"] = l.note;
  ordered_json ranks = ordered_json::array();
  for (const RankCoordinates& c : l.ranks) {
    ranks.push_back({{"rank", c.rank},
                     {"node", c.node},
                     {"local_gpu", c.local_gpu},
                     {"nvlink_domain", c.nvlink_domain},
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
  ordered_json links = ordered_json::object();
  for (const GroupListing& g : l.groups) {
    groups[group_kind_name(g.kind)] = g.members;
    counts[group_kind_name(g.kind)] = g.count;
    links[group_kind_name(g.kind)] = g.links;
  }
  j["group_counts"] = counts;
  j["groups"] = groups;
  j["group_links"] = links;
  return j;
}

ordered_json layout_to_json(const ParallelConfig& parallel, int gpus_per_node, int nvlink_domain_gpus) {
  return rank_layout_to_json(rank_layout(parallel, gpus_per_node, nvlink_domain_gpus));
}

ordered_json replica_view_to_json(const ReplicaView& v, const ParallelConfig& p) {
  ordered_json j;
  j["order"] = "tp-cp-ep-dp-pp";
  j["world_size"] = v.world_size;
  j["gpus_per_node"] = v.gpus_per_node;
  j["nodes"] = v.nodes;
  j["sizes"] = {{"tp", p.tp}, {"cp", p.cp}, {"ep", p.ep}, {"dp", p.dp}, {"pp", p.pp}};
  j["gpus_per_replica"] = v.gpus_per_replica;
  j["replicas"] = v.replicas;
  j["replica_nodes"] = v.replica_nodes;
  j["shared_nodes"] = v.shared_nodes;
  ordered_json links = ordered_json::object();
  for (const ViewLink& l : v.links) {
    links[l.axis] = {{"size", l.placement.size},
                     {"link", l.link()},
                     {"nodes", l.placement.nodes},
                     {"ranks_per_node", l.placement.ranks_per_node}};
  }
  j["links"] = links;
  ordered_json rows = ordered_json::array();
  for (const ReplicaViewRow& r : v.rows) {
    if (r.collapsed_nodes > 0) {
      rows.push_back({{"collapsed_nodes", r.collapsed_nodes}});
      continue;
    }
    ordered_json gpus = ordered_json::array();
    for (const std::optional<RankCoordinates>& c : r.gpus) {
      if (!c) {
        gpus.push_back(nullptr);
        continue;
      }
      ordered_json g = {{"rank", c->rank}, {"tp", c->tp}, {"cp", c->cp}, {"dp", c->dp}, {"pp", c->pp}};
      if (p.ep > 1) g["ep"] = c->ep;  // the expert grid's coordinate, only where experts exist
      gpus.push_back(g);
    }
    rows.push_back({{"node", r.node},
                    {"stages", r.stages},
                    {"cp_ranks", r.cp_ranks},
                    {"gpus", gpus},
                    {"more_gpus", r.more_gpus}});
  }
  j["rows"] = rows;
  return j;
}

ordered_json launch_result_to_json(const LaunchResult& r) {
  ordered_json j;
  j["format"] = r.format;
  if (!r.warnings.empty()) {
    ordered_json warnings = ordered_json::array();
    for (const Diagnostic& d : r.warnings) warnings.push_back({{"code", d.code}, {"message", d.message}});
    j["warnings"] = warnings;
  }
  if (!r.problems.empty()) {
    ordered_json list = ordered_json::array();
    for (const LaunchProblem& p : r.problems)
      list.push_back({{"code", p.code}, {"message", p.message}, {"source", p.source}});
    j["text"] = "";
    j["problems"] = list;
    return j;
  }
  if (r.layout) {
    j["layout"] = rank_layout_to_json(*r.layout);
    return j;
  }
  j["text"] = r.text;
  return j;
}

ordered_json launch_response(const Scenario& scenario, const Estimate& plan, const std::string& format) {
  return launch_result_to_json(launch_configuration(scenario, plan, format));
}

}  // namespace pplan
