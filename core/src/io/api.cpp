#include "pplan/io/api.h"

#include <chrono>
#include <exception>

#include "pplan/report/design_report.h"
#include "pplan/model/estimate.h"
#include "pplan/report/explain.h"
#include "pplan/io/json_io.h"
#include "pplan/io/landscape_json.h"
#include "pplan/launch/launch.h"
#include "pplan/launch/layout.h"
#include "pplan/search/landscape.h"
#include "pplan/search/search.h"
#include "pplan_version.h"

namespace pplan {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ordered_json envelope() {
  ordered_json j;
  j["ok"] = true;
  j["schema_version"] = kSchemaVersion;
  j["engine_version"] = kEngineVersion;
  return j;
}

ordered_json error_envelope(const std::string& code, const std::string& path,
                            const std::string& message) {
  ordered_json j;
  j["ok"] = false;
  j["schema_version"] = kSchemaVersion;
  j["error"] = {{"code", code}, {"path", path}, {"message", message}};
  return j;
}

void append(ordered_json& into, const ordered_json& from) {
  for (auto it = from.begin(); it != from.end(); ++it) into[it.key()] = it.value();
}

ordered_json search_stats_json(const SearchResult& result, const SearchOptions& options,
                               double elapsed_ms) {
  const SearchStats& stats = result.stats;
  ordered_json reasons = ordered_json::object();
  for (const auto& kv : stats.rejected_by_reason) reasons[kv.first] = kv.second;
  ordered_json j;
  j["configs_evaluated"] = stats.configs_evaluated;
  j["configs_scored"] = stats.configs_scored;
  j["feasible"] = stats.feasible;
  j["rejected_by_reason"] = reasons;
  j["capped"] = stats.capped;
  if (stats.capped) j["capped_reason"] = capped_reason(result, options);
  j["within_headroom"] = result.within_headroom;
  j["tie_tolerance"] = options.tie_tolerance;
  if (result.fastest) j["fastest"] = parallel_to_json(result.fastest->parallel);
  j["elapsed_ms"] = elapsed_ms;
  return j;
}

/// The parallel fields a scenario leaves open, by their input names.
std::vector<std::string> open_fields(const ParallelConstraints& c) {
  std::vector<std::string> open;
  auto check = [&open](bool pinned, const char* name) {
    if (!pinned) open.push_back(name);
  };
  check(c.tp.has_value(), "tp");
  check(c.pp.has_value(), "pp");
  check(c.dp.has_value(), "dp");
  check(c.cp.has_value(), "cp");
  check(c.ep.has_value(), "ep");
  check(c.vpp.has_value(), "vpp");
  check(c.micro_batch.has_value(), "micro_batch");
  check(c.sequence_parallel.has_value(), "sequence_parallel");
  check(c.recompute.has_value(), "recompute");
  check(c.zero.has_value(), "zero");
  return open;
}

/// The plan a launch, report or layout describes: the pinned one when every field is given,
/// else the search's best under the pins (the fields it chose are `open`); when nothing fits,
/// the pinned plan with the engine's defaults, so that its reasons show.
struct ChosenPlan {
  Estimate plan;
  std::vector<std::string> open;
  bool searched = false;
};

ChosenPlan chosen_plan(const Scenario& scenario) {
  ChosenPlan chosen;
  chosen.open = open_fields(scenario.parallel);
  if (!chosen.open.empty()) {
    SearchOptions options;
    options.top = 1;
    SearchResult result = search(scenario, options);
    if (!result.plans.empty()) {
      chosen.plan = std::move(result.plans.front());
      chosen.searched = true;
      return chosen;
    }
  }
  chosen.plan = evaluate(scenario, resolve_defaults(scenario));
  return chosen;
}

/// {"chosen_by_search": [fields]} when the search filled open fields.
void say_chosen(ordered_json& j, const ChosenPlan& chosen) {
  if (!chosen.searched) return;
  ordered_json fields = ordered_json::array();
  for (const std::string& f : chosen.open) fields.push_back(f);
  j["chosen_by_search"] = fields;
}

ordered_json respond(const std::string& command, const json& scenario_doc,
                     const RequestOptions& options) {
  if (command == "version") {
    return envelope();
  }
  const PresetCatalog presets = load_presets();
  if (command == "presets") {
    ordered_json j = envelope();
    ordered_json models = ordered_json::object();
    for (const auto& kv : presets.models) models[kv.first] = model_to_json(kv.second);
    ordered_json gpus = ordered_json::object();
    for (const auto& kv : presets.gpus) gpus[kv.first] = gpu_to_json(kv.second);
    j["models"] = models;
    j["gpus"] = gpus;
    return j;
  }
  if (command != "evaluate" && command != "plan" && command != "launch" && command != "explain" &&
      command != "report" && command != "layout_view" && command != "landscape" &&
      command != "scaling") {
    throw InputError("request.unknown_command", "/command",
                     "unknown command \"" + command.substr(0, 40) +
                         "\" (commands: evaluate, plan, launch, explain, report, layout_view, "
                         "landscape, scaling, presets, version)");
  }
  const Scenario scenario = parse_scenario(scenario_doc, presets);
  ordered_json j = envelope();
  if (command == "evaluate") {
    const Estimate e = evaluate(scenario, resolve_defaults(scenario));
    append(j, estimate_to_json(e, scenario));
    return j;
  }
  if (command == "plan" || command == "explain") {
    const auto start = std::chrono::steady_clock::now();
    SearchOptions search_options;
    search_options.top = options.top;
    const SearchResult result = search(scenario, search_options);
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ordered_json plans = ordered_json::array();
    for (const Estimate& e : result.plans) plans.push_back(estimate_to_json(e, scenario));
    j["plans"] = plans;
    j["search"] = search_stats_json(result, search_options, elapsed_ms);
    if (result.plans.empty()) {
      ordered_json nearest = ordered_json::array();
      for (const Estimate& e : result.nearest_infeasible) nearest.push_back(estimate_to_json(e, scenario));
      j["nearest_infeasible"] = nearest;
      if (options.nearest_gpus) {
        j["nearest_gpus"] = nearest_gpus_to_json(nearest_gpu_counts(scenario), scenario);
      }
    }
    j["explanation"] = explanation_to_json(explain(scenario, result));
    return j;
  }
  if (command == "landscape") {
    SearchOptions search_options;
    search_options.top = options.top;
    j["landscape"] = landscape_to_json(landscape(scenario, search(scenario, search_options).plans));
    return j;
  }
  if (command == "scaling") {
    j["scaling"] = scaling_to_json(scaling_sweep(scenario), scenario);
    return j;
  }
  if (command == "report") {
    // The design report of the search's winner under the scenario's pins (the pinned plan
    // itself when every field is given); when nothing fits, of the closest infeasible plan.
    SearchOptions search_options;
    search_options.top = 1;
    const SearchResult result = search(scenario, search_options);
    const Estimate plan = !result.plans.empty()               ? result.plans.front()
                          : !result.nearest_infeasible.empty() ? result.nearest_infeasible.front()
                                                               : evaluate(scenario, resolve_defaults(scenario));
    const DesignReport report = design_report(scenario, plan, explain(scenario, result));
    j["markdown"] = report_markdown(report);
    j["report"] = report_to_json(report);
    j["plan"] = estimate_to_json(plan, scenario);
    return j;
  }
  if (command == "layout_view") {
    // What the layout picture draws, for the plan a launch would configure. A pinned grid
    // that is not the cluster's GPU count has no layout (launch.world_size_mismatch says why).
    const ChosenPlan chosen = chosen_plan(scenario);
    const Estimate& plan = chosen.plan;
    say_chosen(j, chosen);
    const long long world = world_size(plan.parallel);
    if (world == scenario.cluster.gpus) {
      j["view"] = replica_view_to_json(replica_view(plan.parallel, scenario.cluster.gpus_per_node),
                                       plan.parallel);
    } else {
      j["view"] = nullptr;
      j["problems"] = ordered_json::array(
          {{{"code", "launch.world_size_mismatch"},
            {"message", "tp*pp*dp*cp = " + std::to_string(world) + " ranks, but the cluster has " +
                            std::to_string(scenario.cluster.gpus) + " GPUs: no rank layout"}}});
    }
    j["parallel"] = parallel_to_json(plan.parallel);
    return j;
  }
  // launch
  const ChosenPlan chosen = chosen_plan(scenario);
  append(j, launch_response(scenario, chosen.plan, options.format));
  say_chosen(j, chosen);
  j["plan"] = estimate_to_json(chosen.plan, scenario);
  return j;
}

std::string finish(ordered_json response) {
  round_numbers(response);
  // Messages quote the input, which may hold invalid UTF-8 (or a quote cut mid-character):
  // replace such bytes with U+FFFD instead of throwing (found by fuzzing).
  return response.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

template <typename Body>
std::string guarded(Body body) noexcept {
  try {
    try {
      return finish(body());
    } catch (const InputError& e) {
      return finish(error_envelope(e.code(), e.path(), e.what()));
    } catch (const json::parse_error& e) {
      return finish(error_envelope("schema.parse_error", "/",
                                   std::string("not valid JSON (truncated or malformed): ") + e.what()));
    } catch (const json::out_of_range& e) {
      // 406: a number literal beyond a double (1e400) while parsing; it is too large, not a
      // wrong type. The parser gives no position, so the path is the document.
      return finish(error_envelope(e.id == 406 ? "input.out_of_range" : "schema.wrong_type", "/",
                                   std::string(e.id == 406 ? "a number is too large: " : "") + e.what()));
    } catch (const json::exception& e) {
      return finish(error_envelope("schema.wrong_type", "/", e.what()));
    } catch (const std::exception& e) {
      return finish(error_envelope("internal", "/", std::string("internal error: ") + e.what()));
    } catch (...) {
      return finish(error_envelope("internal", "/", "internal error"));
    }
  } catch (...) {
    return R"({"ok": false, "error": {"code": "internal", "path": "/", "message": "internal error"}})";
  }
}

}  // namespace

std::string handle_request(std::string_view request_json) noexcept {
  return guarded([&] {
    const json request = json::parse(request_json.begin(), request_json.end());
    if (!request.is_object()) {
      throw InputError("schema.not_an_object", "/", "the request must be a JSON object");
    }
    RequestOptions options;
    std::string command;
    json scenario = json::object();
    for (auto it = request.begin(); it != request.end(); ++it) {
      const std::string& key = it.key();
      if (key == "command") {
        if (!it->is_string()) throw InputError("schema.wrong_type", "/command", "/command must be a string");
        command = it->get<std::string>();
      } else if (key == "scenario") {
        scenario = *it;
      } else if (key == "top") {
        if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > 1000) {
          throw InputError("request.bad_option", "/top", "/top must be an integer from 1 to 1000");
        }
        options.top = it->get<int>();
      } else if (key == "nearest_gpus") {
        if (!it->is_boolean()) {
          throw InputError("schema.wrong_type", "/nearest_gpus",
                           "/nearest_gpus must be true or false");
        }
        options.nearest_gpus = it->get<bool>();
      } else if (key == "format") {
        if (!it->is_string()) throw InputError("schema.wrong_type", "/format", "/format must be a string");
        options.format = it->get<std::string>();
      } else {
        throw InputError("schema.unknown_field", "/" + key.substr(0, 40),
                         "unknown request field /" + key.substr(0, 40));
      }
    }
    if (command.empty()) throw InputError("schema.missing_field", "/command", "missing /command");
    return respond(command, scenario, options);
  });
}

std::string handle_command(std::string_view command, std::string_view scenario_json,
                           const RequestOptions& options) noexcept {
  return guarded([&] {
    const json scenario = scenario_json.empty() ? json::object()
                                                : json::parse(scenario_json.begin(), scenario_json.end());
    return respond(std::string(command), scenario, options);
  });
}

const char* engine_version() noexcept { return kEngineVersion; }

}  // namespace pplan
