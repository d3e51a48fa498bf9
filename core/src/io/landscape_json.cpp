#include "pplan/io/landscape_json.h"

#include "pplan/io/json_io.h"
#include "pplan/units.h"

namespace pplan {

using nlohmann::ordered_json;

namespace {

/// The figures a chart needs of one plan (the full estimate is the plan command's).
ordered_json plan_figures(const Estimate& e, const Scenario& scenario) {
  ordered_json j;
  j["parallel"] = parallel_to_json(e.parallel);
  j["step_time_s"] = e.step_time_s;
  j["mfu"] = e.mfu;
  j["memory_gb"] = e.memory.total_bytes / units::kBytesPerGB;
  j["bubble_fraction"] = e.bubble_fraction;
  j["tokens_per_s"] = e.tokens_per_s;
  if (scenario.training.token_budget > 0) j["days_to_train"] = e.days_to_train;
  return j;
}

ordered_json count_and_plan(long long gpus, const std::optional<Estimate>& plan,
                            const Scenario& scenario) {
  if (!plan) return nullptr;
  return {{"gpus", gpus}, {"plan", plan_figures(*plan, scenario)}};
}

}  // namespace

ordered_json landscape_to_json(const Landscape& landscape) {
  ordered_json points = ordered_json::array();
  for (const LandscapePoint& p : landscape.points) {
    ordered_json j;
    j["parallel"] = parallel_to_json(p.parallel);
    j["memory_gb"] = p.memory_bytes / units::kBytesPerGB;
    j["step_time_s"] = p.step_time_s;
    j["mfu"] = p.mfu;
    j["bubble_fraction"] = p.bubble_fraction;
    j["pareto"] = p.pareto;
    j["rank"] = p.rank >= 0 ? ordered_json(p.rank) : ordered_json(nullptr);
    points.push_back(std::move(j));
  }
  ordered_json j;
  j["points"] = std::move(points);
  j["candidates"] = landscape.candidates;
  j["evaluated"] = landscape.evaluated;
  j["feasible"] = landscape.feasible;
  j["pareto_points"] = landscape.pareto_points;
  j["max_points"] = kLandscapeMaxPoints;
  j["max_evaluations"] = kLandscapeMaxEvaluations;
  j["capacity_gb"] = landscape.capacity_bytes / units::kBytesPerGB;
  return j;
}

ordered_json scaling_to_json(const std::vector<ScalingPoint>& sweep, const Scenario& scenario) {
  ordered_json counts = ordered_json::array();
  ordered_json points = ordered_json::array();
  for (const ScalingPoint& p : sweep) {
    counts.push_back(p.gpus);
    ordered_json j;
    j["gpus"] = p.gpus;
    j["plan"] = p.plan ? plan_figures(*p.plan, scenario) : ordered_json(nullptr);
    j["reason"] = p.plan ? ordered_json(nullptr) : ordered_json(p.reason);
    j["rejected"] = p.rejected;
    points.push_back(std::move(j));
  }
  ordered_json j;
  j["gpu_counts"] = std::move(counts);
  j["points"] = std::move(points);
  j["token_budget"] = scenario.training.token_budget > 0
                          ? ordered_json(scenario.training.token_budget)
                          : ordered_json(nullptr);
  return j;
}

ordered_json nearest_gpus_to_json(const NearestGpuCounts& nearest, const Scenario& scenario) {
  ordered_json j;
  j["below"] = count_and_plan(nearest.below_gpus, nearest.below, scenario);
  j["above"] = count_and_plan(nearest.above_gpus, nearest.above, scenario);
  j["searched"] = nearest.searched;
  j["max_searches"] = kNearestMaxSearches;
  return j;
}

}  // namespace pplan
