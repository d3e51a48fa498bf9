#pragma once
/// "Why this plan": the method's six steps with the scenario's numbers, the obvious
/// alternatives and why they lose, and a 30-second answer to read aloud.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/search/search.h"
#include "pplan/specs.h"

namespace pplan {

/// One step of the method (README "The method").
struct ExplanationStep {
  int number = 0;
  std::string title;
  std::string text;
};

/// An alternative to the chosen plan and why it loses.
struct Alternative {
  std::string label;   ///< e.g. "pp = 4"
  std::string verdict; ///< e.g. "does not fit: 87.5 GB > 80 GB"
  bool feasible = false;
  double step_time_s = 0;
};

/// The whole explanation of a search's winner.
struct Explanation {
  bool has_plan = false;
  std::vector<ExplanationStep> steps;
  std::vector<Alternative> alternatives;
  std::string thirty_second_answer;
};

/// Explains the winner of `result` for `scenario` (or why nothing fits).
Explanation explain(const Scenario& scenario, const SearchResult& result);

/// JSON of an explanation.
nlohmann::ordered_json explanation_to_json(const Explanation& explanation);

}  // namespace pplan
