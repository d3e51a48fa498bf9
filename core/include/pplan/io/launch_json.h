#pragma once
/// Launch configurations and rank layouts as JSON: the launch response, the --format layout
/// document and the layout picture's replica view. launch/ builds the values; this writes them.

#include <string>

#include <nlohmann/json.hpp>

#include "pplan/launch/launch.h"
#include "pplan/launch/layout.h"
#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// The `--format layout` document (RankLayout with snake_case keys): order, world_size,
/// gpus_per_node, nodes, nvlink_domain_gpus, nvlink_domains, sizes, rank_formula, placement,
/// truncated (+ note), ranks, group_counts, groups, group_links.
nlohmann::ordered_json rank_layout_to_json(const RankLayout& layout);

/// rank_layout() of the plan as that document.
nlohmann::ordered_json layout_to_json(const ParallelConfig& parallel, int gpus_per_node,
                                      int nvlink_domain_gpus = 0);

/// The `layout_view` response body ("view"): ReplicaView with snake_case keys.
nlohmann::ordered_json replica_view_to_json(const ReplicaView& view, const ParallelConfig& parallel);

/// A LaunchResult as the launch response body: {"format", "warnings"?, "text": "",
/// "problems": [{code, message}]} for a refused plan; {"format", "warnings"?, "layout"} for
/// --format layout; {"format", "warnings"?, "text"} otherwise.
nlohmann::ordered_json launch_result_to_json(const LaunchResult& result);

/// launch_configuration() as that response (throws InputError for an unknown format).
nlohmann::ordered_json launch_response(const Scenario& scenario, const Estimate& plan,
                                       const std::string& format);

}  // namespace pplan
