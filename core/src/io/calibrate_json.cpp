#include "pplan/io/calibrate_json.h"

#include "pplan/calibrate/fit.h"
#include "pplan/calibrate/measurements.h"
#include "pplan/diagnostics.h"
#include "pplan/model/estimate.h"
#include "pplan/text.h"

namespace pplan {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr std::size_t kMaxMeasurements = 64;

/// One entry of "steps": the layout over the scenario's pins, and its time or log.
MeasuredStep parse_step(const json& entry, std::size_t index, const json& scenario_document, const Scenario& scenario,
                        const PresetCatalog& presets) {
  const std::string path = "/steps/" + std::to_string(index);
  if (!entry.is_object()) throw InputError("schema.wrong_type", path, path + " must be an object");
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (it.key() != "parallel" && it.key() != "step_time_s" && it.key() != "log") {
      const std::optional<std::string> near = closest_match(it.key(), {"parallel", "step_time_s", "log"});
      throw InputError("schema.unknown_field", path + "/" + printable(it.key(), 40),
                       "unknown field " + path + "/" + printable(it.key(), 40) +
                           (near ? " (did you mean \"" + *near + "\"?)" : ""));
    }
  }
  if (entry.contains("step_time_s") == entry.contains("log")) {
    throw InputError("schema.missing_field", path + "/step_time_s",
                     path + " needs one of step_time_s (seconds) or log (a training log's text)");
  }
  // The layout: the step's fields over the scenario's pins, read as the scenario's own.
  json document = scenario_document;
  json parallel = document.contains("parallel") && document["parallel"].is_object() ? document["parallel"] : json::object();
  if (entry.contains("parallel")) {
    if (!entry["parallel"].is_object()) {
      throw InputError("schema.wrong_type", path + "/parallel", path + "/parallel must be an object");
    }
    for (auto it = entry["parallel"].begin(); it != entry["parallel"].end(); ++it) parallel[it.key()] = it.value();
  }
  document["parallel"] = parallel;
  Scenario measured;
  try {
    measured = parse_scenario(document, presets);
  } catch (const InputError& e) {
    const bool in_parallel = e.path().rfind("/parallel", 0) == 0;
    throw InputError(e.code(), in_parallel ? path + e.path() : e.path(), e.what());
  }
  MeasuredStep step;
  step.parallel = resolve_defaults(measured);
  step.path = path;
  const Estimate e = evaluate(measured, step.parallel);
  if (e.rejection_code && std::string(e.rejection_code) != "plan.out_of_memory") {
    std::string why;
    for (const Diagnostic& d : e.diagnostics) {
      if (d.severity == Severity::kError) why += (why.empty() ? "" : "; ") + d.message;
    }
    throw InputError("input.inconsistent", path + "/parallel",
                     path + "/parallel is not a layout of this scenario: " + why);
  }
  const ParallelConfig& p = step.parallel;
  const std::string layout = "tp " + std::to_string(p.tp) + " · pp " + std::to_string(p.pp) + " · dp " +
                             std::to_string(p.dp) + (p.cp > 1 ? " · cp " + std::to_string(p.cp) : "") +
                             (p.ep > 1 ? " · ep " + std::to_string(p.ep) : "") +
                             (p.vpp > 1 ? " · vpp " + std::to_string(p.vpp) : "") + ", micro-batch " +
                             std::to_string(p.micro_batch);
  if (entry.contains("step_time_s")) {
    const json& v = entry["step_time_s"];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e7) {
      throw InputError("input.out_of_range", path + "/step_time_s",
                       path + "/step_time_s must be a number of seconds above 0 (at most 1e7)");
    }
    step.step_time_s = v.get<double>();
    step.what = "step of " + layout + " (" + path + ")";
  } else {
    if (!entry["log"].is_string()) throw InputError("schema.wrong_type", path + "/log", path + "/log must be text");
    const double sequences = scenario.training.global_batch;
    const LoggedSteps logged = step_time_from_log(entry["log"].get<std::string>(), sequences * scenario.training.seq_len,
                                                  sequences, scenario.cluster.gpus, path + "/log");
    step.step_time_s = logged.step_time_s;
    step.what = "step of " + layout + " (" + path + ": " + logged.source + ", median of " +
                std::to_string(logged.iterations >= 3 ? logged.iterations - 1 : logged.iterations) +
                " iterations, lines " + std::to_string(logged.first_line) + "–" + std::to_string(logged.last_line) + ")";
  }
  return step;
}

/// The scenario's GPU as the document gave it (a preset id, a preset with overrides, or a
/// custom object) with the fitted fields set.
json calibrated_gpu(const json& scenario_document, const CalibrationResult& r) {
  json gpu = json::object();
  const json* given = nullptr;
  if (scenario_document.contains("cluster") && scenario_document["cluster"].contains("gpu")) {
    given = &scenario_document["cluster"]["gpu"];
  }
  if (given && given->is_string()) gpu["preset"] = *given;
  else if (given && given->is_object()) gpu = *given;
  for (const ConstantFit& c : r.constants) {
    if (!c.fitted) continue;
    gpu[c.name] = c.after;
    if (c.name == "attention_scale") gpu.erase("attention_efficiency");  // one of the two
  }
  return gpu;
}

}  // namespace

ordered_json calibrate_response(const json& scenario_document, const Scenario& scenario, const json& nccl_tests,
                                const json& steps, const PresetCatalog& presets) {
  std::vector<NcclTestsTable> tables;
  std::vector<std::string> table_paths;
  if (!nccl_tests.is_null()) {
    if (!nccl_tests.is_array() || nccl_tests.size() > kMaxMeasurements) {
      throw InputError("schema.wrong_type", "/nccl_tests",
                       "/nccl_tests must be an array of at most 64 texts, each one nccl-tests run as printed");
    }
    for (std::size_t i = 0; i < nccl_tests.size(); ++i) {
      const std::string path = "/nccl_tests/" + std::to_string(i);
      if (!nccl_tests[i].is_string()) throw InputError("schema.wrong_type", path, path + " must be text");
      tables.push_back(parse_nccl_tests(nccl_tests[i].get<std::string>(), path));
      table_paths.push_back(path);
    }
  }
  std::vector<MeasuredStep> measured;
  if (!steps.is_null()) {
    if (!steps.is_array() || steps.size() > kMaxMeasurements) {
      throw InputError("schema.wrong_type", "/steps", "/steps must be an array of at most 64 measured steps");
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
      measured.push_back(parse_step(steps[i], i, scenario_document, scenario, presets));
    }
  }
  if (tables.empty() && measured.empty()) {
    throw InputError("schema.missing_field", "/nccl_tests",
                     "calibrate needs measurements: nccl_tests (nccl-tests output as printed) or steps "
                     "(measured step times or training logs)");
  }
  const CalibrationResult r = calibrate(scenario, tables, table_paths, measured);

  ordered_json j;
  j["gpu"] = calibrated_gpu(scenario_document, r);
  ordered_json constants = ordered_json::array();
  for (const ConstantFit& c : r.constants) {
    constants.push_back({{"name", c.name}, {"label", c.label}, {"before", c.before}, {"after", c.after},
                         {"unit", c.unit}, {"fitted", c.fitted}, {"source", c.source}});
  }
  j["constants"] = constants;
  ordered_json measurements = ordered_json::array();
  for (const MeasurementFit& m : r.measurements) {
    measurements.push_back({{"what", m.what}, {"measured", m.measured}, {"before", m.before}, {"after", m.after},
                            {"unit", m.unit}, {"fitted", m.fitted}});
  }
  j["measurements"] = measurements;
  j["rms_log_error"] = {{"before", r.rms_log_error_before}, {"after", r.rms_log_error_after}};
  j["notes"] = r.notes;
  Scenario calibrated = scenario;
  calibrated.cluster.gpu = r.gpu;
  if (r.has_plans) {
    j["plan_before"] = estimate_to_json(r.plan_before, scenario);
    j["plan_after"] = estimate_to_json(r.plan_after, calibrated);
    const bool changed = parallel_to_json(r.plan_before.parallel) != parallel_to_json(r.plan_after.parallel);
    j["plan_changed"] = changed;
    j["previous_plan_step_time_s"] = r.previous_plan_after.step_time_s;
    j["wins_by"] = r.plan_after.step_time_s > 0 ? r.previous_plan_after.step_time_s / r.plan_after.step_time_s - 1 : 0.0;
  } else {
    j["plan_before"] = nullptr;
    j["plan_after"] = nullptr;
    j["plan_changed"] = false;
    j["previous_plan_step_time_s"] = nullptr;
    j["wins_by"] = nullptr;
  }
  return j;
}

}  // namespace pplan
