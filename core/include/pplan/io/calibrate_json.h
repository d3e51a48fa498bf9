#pragma once
/// The calibrate command's request and answer (calibrate/fit.h does the fit).
///
/// Request fields beside the scenario: "nccl_tests": [TEXT, ...], each one nccl-tests run as
/// printed; "steps": [{"parallel": {...}, "step_time_s": X} | {"parallel": {...}, "log": TEXT}],
/// each a measured step of the scenario with `parallel` over its pins (fields left out are
/// filled in as evaluate fills them), timed in seconds or read from a training log.
/// Answer: {"gpu": the scenario's GPU with the fitted fields ({"preset": id, ...overrides} over a
/// preset), "constants": [{"name", "label", "before", "after", "unit", "fitted", "source"}],
/// "measurements": [{"what", "measured", "before", "after", "unit", "fitted"}],
/// "rms_log_error": {"before", "after"}, "notes": [...], "plan_before", "plan_after" (the
/// search's recommendation, estimate objects, or null when nothing fits), "plan_changed",
/// "previous_plan_step_time_s" (the earlier plan priced with the fitted constants) and
/// "wins_by" (how much faster the new plan is than it, a fraction)}.

#include <nlohmann/json.hpp>

#include "pplan/io/json_io.h"

namespace pplan {

nlohmann::ordered_json calibrate_response(const nlohmann::json& scenario_document, const Scenario& scenario,
                                          const nlohmann::json& nccl_tests, const nlohmann::json& steps,
                                          const PresetCatalog& presets);

}  // namespace pplan
