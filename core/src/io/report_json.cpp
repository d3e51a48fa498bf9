#include "pplan/io/report_json.h"

#include "pplan/units.h"

namespace pplan {

nlohmann::ordered_json explanation_to_json(const Explanation& x) {
  nlohmann::ordered_json j;
  j["has_plan"] = x.has_plan;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const ExplanationStep& s : x.steps) {
    steps.push_back({{"step", s.number}, {"title", s.title}, {"text", s.text}});
  }
  j["steps"] = steps;
  nlohmann::ordered_json alternatives = nlohmann::ordered_json::array();
  for (const Alternative& a : x.alternatives) {
    alternatives.push_back({{"label", a.label}, {"verdict", a.verdict}, {"feasible", a.feasible},
                            {"step_time_s", a.step_time_s}});
  }
  j["alternatives"] = alternatives;
  j["thirty_second_answer"] = x.thirty_second_answer;
  return j;
}

nlohmann::ordered_json report_to_json(const DesignReport& r) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["title"] = r.title;
  j["summary"] = r.summary;
  ordered_json sections = ordered_json::array();
  for (const ReportSection& s : r.sections) {
    ordered_json figures = ordered_json::array();
    for (const ReportFigure& f : s.figures) {
      ordered_json x;
      x["key"] = f.key;
      x["label"] = f.label;
      x["value"] = f.value;
      x["unit"] = f.unit;
      x["formula"] = f.formula;
      if (!f.note.empty()) x["note"] = f.note;
      figures.push_back(x);
    }
    sections.push_back({{"id", s.id}, {"title", s.title}, {"text", s.text}, {"figures", figures}});
  }
  j["sections"] = sections;
  ordered_json traffic = ordered_json::array();
  for (const AxisTraffic& t : r.traffic) {
    traffic.push_back({{"axis", t.axis},
                       {"nvlink_gb", t.nvlink_bytes / units::kBytesPerGB},
                       {"network_gb", t.network_bytes / units::kBytesPerGB},
                       {"exposed_s", t.exposed_s},
                       {"formula", t.formula}});
  }
  j["communication"] = traffic;
  ordered_json formula_list = ordered_json::array();
  for (const ReportFormula& f : r.formulas) {
    formula_list.push_back({{"number", f.number}, {"name", f.name}, {"expression", f.expression},
                            {"source", f.source}});
  }
  j["formulas"] = formula_list;
  j["assumptions"] = r.assumptions;
  return j;
}

}  // namespace pplan
