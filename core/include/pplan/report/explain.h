#pragma once
/// "Why this plan": the method's steps with the scenario's numbers, the alternatives and what
/// they cost, and a 30-second answer to read aloud. Every sentence is made from figures the
/// engine computed for this scenario (the search's plans, and searches with one field pinned
/// differently); a step that does not apply is left out.

#include <optional>
#include <string>
#include <vector>

#include "pplan/search/search.h"
#include "pplan/specs.h"

namespace pplan {

/// One step of the method (examples/gpt3-175b-1024-a100.json).
struct ExplanationStep {
  int number = 0;
  std::string title;
  std::string text;
};

/// An alternative to the recommended plan and what it costs.
struct Alternative {
  std::string label;   ///< e.g. "TP 8 · PP 8, distributed optimizer"
  std::string verdict; ///< e.g. "fits (54.0 GB) but is 3.1% slower: 13.2 s per step against 12.8 s"
  bool feasible = false;
  double step_time_s = 0;
};

/// The figures the sentences are made of, kept so that tests can check every claim.
struct ExplanationFacts {
  /// Pipeline: the next smaller stage count than the plan's (0 = none) and the best plan with
  /// it, everything else searched as the plan was.
  int smaller_pp = 0;
  bool smaller_pp_fits = false;
  double smaller_pp_slower = 0;      ///< its step time over the plan's, − 1
  double smaller_pp_memory_bytes = 0;
  /// Context parallelism: the best plan with cp = 1 under the same pins (when cp > 1).
  bool cp1_fits = false;
  double cp1_slower = 0;
  double cp1_memory_bytes = 0;
  /// A simpler plan was preferred over one faster by at most the tie tolerance.
  bool simpler_preferred = false;
  double fastest_faster = 0;  ///< how much faster the fastest plan is, as a share
};

/// The whole explanation of a search's winner.
struct Explanation {
  bool has_plan = false;
  std::vector<ExplanationStep> steps;
  std::vector<Alternative> alternatives;
  std::string thirty_second_answer;
  ExplanationFacts facts;
};

/// Explains the winner of `result` for `scenario` (or why nothing fits).
Explanation explain(const Scenario& scenario, const SearchResult& result);

}  // namespace pplan
