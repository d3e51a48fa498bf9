#pragma once
/// The search: every valid combination of tp, pp, vpp, dp, cp, ep, micro_batch,
/// sequence_parallel, recompute and zero for a scenario; the recommended plan and the best plan
/// of each other layout family.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// How much to return and how far to look.
struct SearchOptions {
  int top = 10;                       ///< plans returned: the recommended one, then other families
  long long max_configs = 4'000'000;  ///< cap on configurations whose memory or time is computed
  double time_budget_s = 3.0;         ///< wall-time budget (the page must never freeze; explain adds at most 1 s)
  /// Plans within this share of the fastest step count as tied; the simpler one wins
  /// (simplicity_key). 1%: below what the model can tell apart.
  double tie_tolerance = 0.01;
};

/// What the search looked at.
struct SearchStats {
  long long configs_evaluated = 0;  ///< complete configurations considered (whole subtrees count)
  long long configs_scored = 0;     ///< of them, those whose memory or time was computed
  long long feasible = 0;           ///< of the scored, those that fit and pass every rule
  /// Of configs_evaluated, those ruled out whole by a step-time floor before their memory was
  /// checked: a (tp, cp, pp, micro-batch, schedule) whose fastest conceivable step already loses
  /// to the kept plans (exact: none of them could have been returned).
  long long configs_pruned = 0;
  std::map<std::string, long long> rejected_by_reason;  ///< diagnostic code -> count
  bool capped = false;  ///< stopped early: the space was not fully covered
  std::string capped_by;  ///< "configurations" | "time"
  /// Where the walk was when it stopped: the tp, cp and pp it had reached.
  int capped_at_tp = 0, capped_at_cp = 0, capped_at_pp = 0;
};

/// The ranked plans and the statistics of the search.
struct SearchResult {
  /// plans[0] is the recommended plan: the simplest of those within tie_tolerance of the
  /// fastest. The others are the best plan of each other layout family (tp, pp, cp, ep, zero),
  /// fastest first.
  std::vector<Estimate> plans;
  /// Configurations of the recommended plan's family within the tolerance (its variants).
  long long recommended_variants = 0;
  /// The fastest plan found, when a simpler one was recommended instead.
  std::optional<Estimate> fastest;
  SearchStats stats;
  /// When nothing is feasible: the closest infeasible plans (least over memory), to explain why.
  std::vector<Estimate> nearest_infeasible;
  /// False when no plan fits within the usable share of memory (training.memory_headroom) and
  /// the plans shown fit only the physical memory.
  bool within_headroom = true;
};

/**
 * Ordering of "simpler" among tied plans (issue: ties go to the simpler plan): ZeRO-1 before
 * plain DP before ZeRO-2 before ZeRO-3 (the distributed optimizer costs nothing and saves
 * memory), no CP, fewer virtual stages, less recomputation, fewer pipeline stages, less memory.
 * Lower is simpler.
 */
bool simpler(const Estimate& a, const Estimate& b);

/**
 * Exhaustive search over the scenario's free parallel fields (pinned ones stay fixed).
 * Structural checks run first and reject whole subtrees (counted per configuration they
 * cover); memory runs before the time model; layer times are cached per (tp, cp, ep,
 * micro_batch, sequence_parallel, recompute), since dp, pp, vpp and zero do not change them.
 * Plans must fit the usable share of memory (1 − training.memory_headroom); when none does, the
 * search reruns against the physical memory and says so. Pruning is exact: a configuration
 * whose step-time lower bound cannot enter the output is counted, not evaluated.
 */
SearchResult search(const Scenario& scenario, const SearchOptions& options);

/// Why a capped search's answer may not be the best of the whole space, and what to pin: one
/// sentence for the plan JSON, the explanation, the report and the page.
std::string capped_reason(const SearchResult& result, const SearchOptions& options);

/// Whether the search chooses the expert TP: an MoE model with neither etp nor tp pinned (a
/// pinned tp keeps expert TP = tp, Megatron's default). It tries etp = tp and etp = 1 (all
/// ranks of the attention TP group become expert-parallel ranks: parallel folding).
bool searches_expert_tp(const Scenario& scenario);

/// Positive divisors of n in increasing order.
std::vector<int> divisors(long long n);

}  // namespace pplan
