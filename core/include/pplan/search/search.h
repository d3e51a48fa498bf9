#pragma once
/// The search: every valid combination of tp, pp, vpp, dp, cp, ep, micro_batch,
/// sequence_parallel, recompute and zero for a scenario, best first.

#include <map>
#include <string>
#include <vector>

#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// How much to return and how far to look.
struct SearchOptions {
  int top = 10;                          ///< plans returned, best first
  long long max_configs = 4'000'000;     ///< hard cap on configurations considered
};

/// What the search looked at.
struct SearchStats {
  long long configs_evaluated = 0;  ///< complete configurations considered
  long long feasible = 0;
  std::map<std::string, long long> rejected_by_reason;  ///< diagnostic code -> count
  bool capped = false;  ///< max_configs reached: the space was not fully covered
};

/// The ranked plans and the statistics of the search.
struct SearchResult {
  std::vector<Estimate> plans;  ///< feasible plans, fastest step first
  SearchStats stats;
  /// When nothing is feasible: the closest infeasible plans (least over memory), to explain why.
  std::vector<Estimate> nearest_infeasible;
};

/**
 * Exhaustive search over the scenario's free parallel fields (pinned ones stay fixed).
 * Structural checks run first and reject whole subtrees (counted per configuration they
 * cover); memory runs before the time model; layer times are cached per (tp, cp, ep,
 * micro_batch, sequence_parallel, recompute), since dp, pp, vpp and zero do not change them.
 * Ranking: shortest step time; ties go to less memory, then to the smaller (tp, pp, cp, vpp).
 */
SearchResult search(const Scenario& scenario, const SearchOptions& options);

/// Positive divisors of n in increasing order.
std::vector<int> divisors(long long n);

}  // namespace pplan
