#pragma once
/// JSON of the search pictures (search/landscape.h); shapes documented in io/api.h.

#include <nlohmann/json.hpp>

#include "pplan/search/landscape.h"

namespace pplan {

/// {"points": [{parallel, memory_gb, step_time_s, mfu, bubble_fraction, pareto, rank}], ...}.
nlohmann::ordered_json landscape_to_json(const Landscape& landscape);

/// {"gpu_counts": [...], "points": [{gpus, plan: {...}|null, reason, rejected}]}.
nlohmann::ordered_json scaling_to_json(const std::vector<ScalingPoint>& sweep,
                                       const Scenario& scenario);

/// {"below": {gpus, plan}|null, "above": {gpus, plan}|null, "searched": n, "max_searches": n}.
nlohmann::ordered_json nearest_gpus_to_json(const NearestGpuCounts& nearest,
                                            const Scenario& scenario);

}  // namespace pplan
