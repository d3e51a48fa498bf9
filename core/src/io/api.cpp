#include "pplan/io/api.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <new>
#include <optional>

#include "pplan/framework/framework.h"
#include "pplan/framework/rules.h"
#include "pplan/report/design_report.h"
#include "pplan/model/estimate.h"
#include "pplan/model/pipeline_schedule.h"
#include "pplan/report/explain.h"
#include "pplan/io/calibrate_json.h"
#include "pplan/io/hf_config.h"
#include "pplan/io/json_io.h"
#include "pplan/io/landscape_json.h"
#include "pplan/io/launch_json.h"
#include "pplan/io/report_json.h"
#include "pplan/launch/launch.h"
#include "pplan/launch/layout.h"
#include "pplan/search/landscape.h"
#include "pplan/search/search.h"
#include "pplan/text.h"
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

ordered_json search_stats_json(const SearchResult& result, const SearchOptions& options) {
  const SearchStats& stats = result.stats;
  ordered_json reasons = ordered_json::object();
  for (const auto& kv : stats.rejected_by_reason) reasons[kv.first] = kv.second;
  ordered_json j;
  j["configs_evaluated"] = stats.configs_evaluated;
  j["configs_scored"] = stats.configs_scored;
  j["feasible"] = stats.feasible;
  j["configs_pruned"] = stats.configs_pruned;
  j["rejected_by_reason"] = reasons;
  j["capped"] = stats.capped;
  if (stats.capped) j["capped_reason"] = capped_reason(result, options);
  j["within_headroom"] = result.within_headroom;
  j["tie_tolerance"] = options.tie_tolerance;
  if (result.fastest) j["fastest"] = parallel_to_json(result.fastest->parallel);
  return j;
}

/// The parallel fields a scenario leaves open, by their input names.
std::vector<std::string> open_fields(const Scenario& scenario) {
  const ParallelConstraints& c = scenario.parallel;
  std::vector<std::string> open;
  auto check = [&open](bool pinned, const char* name) {
    if (!pinned) open.push_back(name);
  };
  check(c.tp.has_value(), "tp");
  check(c.pp.has_value(), "pp");
  check(c.dp.has_value(), "dp");
  check(c.cp.has_value(), "cp");
  check(c.ep.has_value(), "ep");
  // Expert TP follows a pinned TP (Megatron's default); it is searched with TP.
  check(!searches_expert_tp(scenario), "etp");
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
  chosen.open = open_fields(scenario);
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

/// evaluate prices one complete configuration; what the scenario's parallel block leaves out
/// comes from resolve_defaults, and the answer lists it (issue #14: never a silent tp 1, pp 1).
std::optional<Diagnostic> defaults_filled(const Scenario& scenario, const ParallelConfig& p) {
  const ParallelConstraints& c = scenario.parallel;
  std::string filled;
  auto add = [&](bool given, const std::string& text) {
    if (!given) filled += (filled.empty() ? "" : ", ") + text;
  };
  add(c.tp.has_value(), "tp " + std::to_string(p.tp));
  add(c.pp.has_value(), "pp " + std::to_string(p.pp));
  add(c.cp.has_value(), "cp " + std::to_string(p.cp));
  add(c.dp.has_value(), "dp " + std::to_string(p.dp) + " (gpus / (tp·pp·cp))");
  add(c.ep.has_value(), "ep " + std::to_string(p.ep));
  add(c.etp.has_value() || p.etp != 1, "etp 1 (expert TP " + std::to_string(p.tp) + " cannot fold ep " +
                                           std::to_string(p.ep) + " over tp·cp·dp)");
  add(c.vpp.has_value(), "vpp " + std::to_string(p.vpp));
  add(c.micro_batch.has_value(), "micro_batch " + std::to_string(p.micro_batch));
  add(c.sequence_parallel.has_value(),
      std::string("sequence_parallel ") + (p.sequence_parallel ? "true (tp > 1)" : "false (tp = 1)"));
  add(c.recompute.has_value(), std::string("recompute ") + recompute_name(p.recompute));
  add(c.zero.has_value(), "zero " + std::to_string(p.zero));
  if (filled.empty()) return std::nullopt;
  return Diagnostic{"plan.defaults_filled", Severity::kInfo,
                    "evaluate priced one complete configuration; the scenario's parallel block "
                    "leaves out " + filled + ", filled in by default. Pin them in \"parallel\", or "
                    "run plan to search them."};
}

/// The timeline picture of a plan: its pipeline schedule. The passes go in columns (one array
/// per field, `kind` a string of F and B), their times as whole ticks of 1/v forward: an
/// object per pass made the answer ten times slower to build than the estimate itself.
ordered_json schedule_json(const Estimate& plan) {
  const double m = plan.microbatches;
  const bool whole = m >= 1 && std::floor(m) == m;
  const int v = plan.parallel.vpp;
  const ScheduleKind kind_of_schedule = plan.parallel.schedule;
  const bool simulated = is_one_f_one_b(kind_of_schedule);
  const PipelineSchedule s = whole && simulated ? pipeline_schedule(plan.parallel.pp, v, static_cast<long long>(m))
                                                : PipelineSchedule{};
  ordered_json j;
  j["drawn"] = s.drawn;
  if (!whole) {
    j["reason"] = "micro-batches per step (" + format_significant(m) + ") is not a whole number: no schedule";
  } else if (!simulated) {
    j["reason"] = std::string("the timeline draws 1F1B and interleaved 1F1B; the ") + schedule_name(kind_of_schedule) +
                  " schedule is priced by its bubble formula: " + format_fixed(plan.bubble_fraction * 100, 1) +
                  "% of the step idles";
  } else if (!s.drawn) {
    j["reason"] = s.reason;
  }
  if (plan.parallel.pp > 1) j["schedule"] = schedule_name(kind_of_schedule);
  j["pp"] = plan.parallel.pp;
  j["vpp"] = v;
  j["microbatches"] = m;
  if (!s.drawn) return j;
  j["total_passes"] = s.total_passes;
  j["makespan_units"] = s.makespan_units;
  j["ideal_units"] = s.ideal_units;
  j["idle_share"] = s.idle_share;
  j["bubble_over_ideal"] = s.bubble_over_ideal;
  j["complete"] = s.complete;
  j["shown_until_units"] = s.shown_until_units;
  j["units_per_tick"] = 1.0 / v;
  std::vector<int> stage, microbatch, chunk;
  std::vector<long long> start, end;
  std::string kind;
  for (const ScheduledPass& pass : s.passes) {
    stage.push_back(pass.stage);
    kind += pass.forward ? 'F' : 'B';
    microbatch.push_back(pass.microbatch);
    chunk.push_back(pass.chunk);
    start.push_back(std::llround(pass.start_units * v));
    end.push_back(std::llround(pass.end_units * v));
  }
  j["ops"] = {{"count", s.passes.size()}, {"stage", stage},       {"kind", kind},
              {"microbatch", microbatch},  {"chunk", chunk},        {"start_ticks", start},
              {"end_ticks", end}};
  return j;
}

ordered_json respond(const std::string& command, const json& document,
                     const RequestOptions& options) {
  if (command == "version") {
    return envelope();
  }
  const PresetCatalog& presets = preset_catalog();
  if (command == "presets") {
#ifdef PPLAN_FIRST_PLAN_ENGINE
    // Its presets carry no "source" (wasm/CMakeLists.txt): ~4 KB gzip of the first plan.
    if (options.sources) {
      throw InputError("request.not_in_this_engine", "/sources",
                       "presets with their sources are answered by the full engine (pplan.wasm); the "
                       "first-plan engine answers \"sources\": false");
    }
#endif
    ordered_json j = envelope();
    ordered_json models = ordered_json::object();
    for (const auto& kv : presets.models) {
      models[kv.first] = model_to_json(kv.second);
      if (!options.sources) models[kv.first].erase("source");
    }
    ordered_json gpus = ordered_json::object();
    for (const auto& kv : presets.gpus) {
      gpus[kv.first] = gpu_to_json(kv.second);
      if (!options.sources) gpus[kv.first].erase("source");
    }
    j["models"] = models;
    j["gpus"] = gpus;
    return j;
  }
#ifndef PPLAN_FIRST_PLAN_ENGINE
  if (command == "import_model") {
    const ImportedModel imported = import_hf_config(document, "/config", options.name);
    ordered_json j = envelope();
    j["model"] = model_to_json(imported.model);
    j["mapped_from"] = imported.mapped_from;
    j["notes"] = imported.notes;
    return j;
  }
#endif
  const std::vector<std::string> commands = {"evaluate", "plan",    "launch",  "explain",
                                             "report",   "layout_view", "landscape",
                                             "scaling",  "schedule", "calibrate", "import_model",
                                             "presets",  "version"};
  if (std::find(commands.begin(), commands.end(), command) == commands.end()) {
    const std::optional<std::string> near = closest_match(command, commands);
    throw InputError("request.unknown_command", "/command",
                     "unknown command \"" + printable(command, 40) + "\"" +
                         (near ? " (did you mean \"" + *near + "\"?)" : "") +
                         " (commands: evaluate, plan, launch, explain, report, layout_view, "
                         "landscape, scaling, schedule, calibrate, import_model, presets, version)");
  }
#ifdef PPLAN_FIRST_PLAN_ENGINE
  // The page's first-plan engine (wasm/README.md) leaves out what it loads on demand.
  if (command == "launch" || command == "report" || command == "import_model" || command == "calibrate") {
    throw InputError("request.not_in_this_engine", "/command",
                     "\"" + command + "\" is answered by the full engine (pplan.wasm), not by "
                     "the first-plan engine (pplan-plan.wasm)");
  }
#endif
  const Scenario scenario = parse_scenario(document, presets);
  ordered_json j = envelope();
  if (command == "evaluate") {
    const ParallelConfig parallel = resolve_defaults(scenario);
    Estimate e = evaluate(scenario, parallel);
    if (auto filled = defaults_filled(scenario, parallel)) e.diagnostics.push_back(*filled);
    // What training.framework cannot run is still priced here (the configuration was asked
    // for), but said: the search never returns it, and launch refuses the same codes. Only for
    // a plan with no error of its own, whose errors already say why it cannot run.
    if (e.feasible) {
      const Framework framework = scenario.training.framework;
      for (const LaunchProblem& problem : framework_problems(launch_framework_of(framework), scenario, parallel)) {
        e.diagnostics.push_back({"plan.framework_refuses", Severity::kWarning,
                                 std::string(framework_name(framework)) + " cannot run this configuration as priced (" +
                                     problem.code + "): " + problem.message});
      }
    }
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
    j["search"] = search_stats_json(result, search_options);
    if (result.plans.empty()) {
      ordered_json nearest = ordered_json::array();
      for (const Estimate& e : result.nearest_infeasible) nearest.push_back(estimate_to_json(e, scenario));
      j["nearest_infeasible"] = nearest;
      if (options.nearest_gpus) {
        j["nearest_gpus"] = nearest_gpus_to_json(nearest_gpu_counts(scenario), scenario);
      }
    }
    j["explanation"] = explanation_to_json(explain(scenario, result));
    // The one figure that differs between runs, last and apart from the answer (issue #14).
    if (options.timing) j["timing"] = {{"elapsed_ms", elapsed_ms}};
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
#ifndef PPLAN_FIRST_PLAN_ENGINE
  if (command == "calibrate") {
    append(j, calibrate_response(document, scenario, options.nccl_tests, options.steps, presets));
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
#endif
  if (command == "schedule") {
    // The pipeline timeline of the plan a launch would configure.
    const ChosenPlan chosen = chosen_plan(scenario);
    say_chosen(j, chosen);
    j["parallel"] = parallel_to_json(chosen.plan.parallel);
    j["schedule"] = schedule_json(chosen.plan);
    return j;
  }
  if (command == "layout_view") {
    // What the layout picture draws, for the plan a launch would configure. A pinned grid
    // that is not the cluster's GPU count has no layout (launch.world_size_mismatch says why).
    const ChosenPlan chosen = chosen_plan(scenario);
    const Estimate& plan = chosen.plan;
    say_chosen(j, chosen);
    const long long world = world_ranks(plan.parallel);
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
#ifndef PPLAN_FIRST_PLAN_ENGINE
  // launch
  const ChosenPlan chosen = chosen_plan(scenario);
  append(j, launch_response(scenario, chosen.plan, options.format));
  say_chosen(j, chosen);
  j["plan"] = estimate_to_json(chosen.plan, scenario);
#endif
  return j;
}

/// Pointer of the first number in `j` that is not finite, if any.
std::optional<std::string> first_non_finite(const ordered_json& j, const std::string& path) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return path.empty() ? "/" : path;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (auto found = first_non_finite(it.value(), path + "/" + it.key())) return found;
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (auto found = first_non_finite(j[i], path + "/" + std::to_string(i))) return found;
    }
  }
  return std::nullopt;
}

/// A well-formed scenario of ordinary figures (Mixtral 8x7B on 256 H100s): the value each
/// input is reset to when blame_input looks for the one that makes a figure non-finite.
json reference_scenario(const PresetCatalog& presets) {
  json reference;
  reference["model"] = json::parse(model_to_json(presets.models.at("mixtral-8x7b")).dump());
  reference["model"]["nominal_params"] = 46.7e9;
  reference["cluster"] = {{"gpu", json::parse(gpu_to_json(presets.gpus.at("h100-sxm")).dump())},
                          {"gpus", 256},
                          {"gpus_per_node", 8}};
  reference["training"] = {{"seq_len", 4096}, {"global_batch", 1024}, {"token_budget", 1e12}};
  reference["parallel"] = {{"tp", 8},  {"pp", 4},          {"dp", 8}, {"cp", 1},
                           {"ep", 8},  {"vpp", 1},         {"micro_batch", 1},
                           {"zero", 1}, {"first_stage_layers", 8}, {"last_stage_layers", 8}};
  reference["report"] = {{"storage_gbytes_per_s", 31.25}, {"failures_per_gpu_hour", 1.97e-5},
                         {"restart_s", 600}};
  return reference;
}

/// Runs a command and refuses an answer with a non-finite figure, naming the input behind it.
ordered_json respond_finite(const std::string& command, const json& document,
                            const RequestOptions& options) {
  ordered_json j = respond(command, document, options);
  const std::optional<std::string> figure = first_non_finite(j, "");
  if (!figure) return j;
  const auto finite = [&](const json& changed) {
    try {
      return !first_non_finite(respond(command, changed, options), "");
    } catch (const InputError&) {
      return false;  // the change broke the scenario; it tells nothing about the figure
    }
  };
  const std::string culprit = blame_input(document, reference_scenario(preset_catalog()), finite);
  const std::string value = culprit == "/" ? "" : " = " + document.at(json::json_pointer(culprit)).dump();
  throw InputError("input.out_of_range", culprit,
                   (culprit == "/" ? std::string("the scenario") : culprit + value) +
                       " makes " + *figure + " leave the range of a double; bring it closer to a "
                       "real system's figure");
}

std::string finish(ordered_json response) {
  round_numbers(response);
  // Messages quote the input, which may hold invalid UTF-8 (or a quote cut mid-character):
  // replace such bytes with U+FFFD instead of throwing (found by fuzzing).
  return dump_document(response);
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
    } catch (const json::exception& e) {
      return finish(error_envelope("schema.wrong_type", "/", e.what()));
    } catch (const std::bad_alloc&) {
      return finish(error_envelope("resource.out_of_memory", "/",
                                   "out of memory while answering this request"));
    } catch (const std::exception& e) {
      return finish(error_envelope("internal", "/", std::string("internal error: ") + e.what()));
    } catch (...) {
      return finish(error_envelope("internal", "/", "internal error"));
    }
  } catch (...) {
    return R"({"ok": false, "error": {"code": "internal", "path": "/", "message": "internal error"}})";
  }
}

/**
 * Every request field is used by its command or refused: a "top" on evaluate, a "format" on
 * plan or a "scenario" on version would otherwise be accepted and do nothing. The lists are
 * the commands respond() reads each option in (and the CLI's options offer it to).
 */
void refuse_options_the_command_ignores(const json& request, const std::string& command) {
  struct Use {
    const char* field;
    std::vector<std::string> commands;
  };
  const std::vector<std::string> scenario_commands = {
      "evaluate", "plan", "launch", "explain", "report", "layout_view", "landscape", "scaling",
      "schedule", "calibrate"};
  const std::vector<Use> uses = {
      {"scenario", scenario_commands},
      {"config", {"import_model"}},
      {"top", {"plan", "explain", "landscape"}},
      {"nearest_gpus", {"plan", "explain"}},
      {"timing", {"plan", "explain"}},
      {"format", {"launch"}},
      {"name", {"import_model"}},
      {"sources", {"presets"}},
      {"nccl_tests", {"calibrate"}},
      {"steps", {"calibrate"}},
  };
  const bool known = std::find(scenario_commands.begin(), scenario_commands.end(), command) !=
                         scenario_commands.end() ||
                     command == "import_model" || command == "presets" || command == "version";
  if (!known) return;  // respond() names the unknown command
  for (const Use& use : uses) {
    if (!request.contains(use.field)) continue;
    if (std::find(use.commands.begin(), use.commands.end(), command) != use.commands.end()) continue;
    std::string which;
    for (const std::string& c : use.commands) which += (which.empty() ? "" : ", ") + c;
    throw InputError("request.bad_option", std::string("/") + use.field,
                     std::string("/") + use.field + " is not an option of " + command +
                         " (only " + which + " take" + (use.commands.size() == 1 ? "s" : "") +
                         " it): it would be ignored");
  }
}

}  // namespace

std::string handle_request(std::string_view request_json) noexcept {
  return guarded([&] {
    const json request = parse_document(request_json, "/scenario");
    if (!request.is_object()) {
      throw InputError("schema.not_an_object", "/", "the request must be a JSON object");
    }
    RequestOptions options;
    std::string command;
    json document = json::object();
    const std::vector<std::string> keys = {"command", "scenario",     "top",        "format", "timing", "config",
                                           "name",    "nearest_gpus", "nccl_tests", "steps",  "sources"};
    for (auto it = request.begin(); it != request.end(); ++it) {
      const std::string& key = it.key();
      if (key == "command") {
        if (!it->is_string()) throw InputError("schema.wrong_type", "/command", "/command must be a string");
        command = it->get<std::string>();
      } else if (key == "scenario" || key == "config") {
        document = *it;
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
      } else if (key == "timing") {
        if (!it->is_boolean()) throw InputError("schema.wrong_type", "/timing", "/timing must be true or false");
        options.timing = it->get<bool>();
      } else if (key == "sources") {
        if (!it->is_boolean()) throw InputError("schema.wrong_type", "/sources", "/sources must be true or false");
        options.sources = it->get<bool>();
      } else if (key == "nccl_tests") {
        options.nccl_tests = *it;
      } else if (key == "steps") {
        options.steps = *it;
      } else if (key == "name") {
        if (!it->is_string() || utf8_length(it->get<std::string>()) > 200) {
          throw InputError("schema.wrong_type", "/name", "/name must be a string of at most 200 characters");
        }
        options.name = it->get<std::string>();
      } else {
        const std::optional<std::string> near = closest_match(key, keys);
        throw InputError("schema.unknown_field", "/" + printable(key, 40),
                         "unknown request field /" + printable(key, 40) +
                             (near ? " (did you mean \"" + *near + "\"?)" : ""));
      }
    }
    if (command.empty()) throw InputError("schema.missing_field", "/command", "missing /command");
    refuse_options_the_command_ignores(request, command);
    return respond_finite(command, document, options);
  });
}

std::string handle_command(std::string_view command, std::string_view document_json,
                           const RequestOptions& options) noexcept {
  return guarded([&] {
    const json document = document_json.empty() ? json::object() : parse_document(document_json);
    return respond_finite(std::string(command), document, options);
  });
}

const char* engine_version() noexcept { return kEngineVersion; }

}  // namespace pplan
