#pragma once
/// The reports in words as JSON: the explanation (plan, explain) and the design report
/// (report). The report layer builds value types; this is where they become JSON.

#include <nlohmann/json.hpp>

#include "pplan/report/design_report.h"
#include "pplan/report/explain.h"

namespace pplan {

/// {"has_plan", "steps": [{step, title, text}], "alternatives": [{label, verdict, feasible,
/// step_time_s}], "thirty_second_answer"}.
nlohmann::ordered_json explanation_to_json(const Explanation& explanation);

/// The report as data: title, summary, sections (with their figures), communication per axis
/// (GB by link, exposed seconds), formulas and assumptions, for the page and the JSON output.
nlohmann::ordered_json report_to_json(const DesignReport& report);

}  // namespace pplan
