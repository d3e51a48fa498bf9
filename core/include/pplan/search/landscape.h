#pragma once
/// Pictures of the whole search (issue 16), from the engine's own numbers: a bounded sample of
/// evaluated configurations with the Pareto front of step time against memory per GPU; a
/// scaling sweep over GPU counts; the nearest GPU counts that admit a plan. Built only on the
/// public evaluate() and search(), so the figures are the ones the planner reports.
/// Deterministic: the same scenario gives the same output, natively and in wasm.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pplan/search/search.h"
#include "pplan/specs.h"

namespace pplan {

/// Points a landscape returns at most (the search's plans and the front are always among them).
inline constexpr int kLandscapeMaxPoints = 240;
/// Configurations the sample evaluates at most; beyond it the candidates are taken by stride.
inline constexpr long long kLandscapeMaxEvaluations = 60'000;
/// Smallest micro-batch sizes sampled per (tp, cp, pp) grid (the search's plans add their own).
inline constexpr int kLandscapeMicroBatches = 3;

/// One evaluated configuration: the figures the scatter plot draws.
struct LandscapePoint {
  ParallelConfig parallel;
  double step_time_s = 0;
  double memory_bytes = 0;  ///< fullest stage
  double mfu = 0;
  double bubble_fraction = 0;
  bool pareto =
      false;      ///< no other feasible point is at least as fast and as lean, and better in one
  int rank = -1;  ///< index in the search's ranked plans (0 = the recommended plan), else -1
};

/// A bounded, deterministic sample of the feasible configurations of a scenario.
struct Landscape {
  std::vector<LandscapePoint>
      points;                ///< feasible only, fastest first; at most kLandscapeMaxPoints
  long long candidates = 0;  ///< configurations the sampling rule names (before the stride)
  long long evaluated = 0;   ///< configurations evaluated (at most kLandscapeMaxEvaluations)
  long long feasible = 0;    ///< of them, feasible (plus the search's plans not in the sample)
  int pareto_points = 0;  ///< size of the whole front (all of it is in `points` unless it is larger
                          ///< than half the limit)
  double capacity_bytes = 0;  ///< the GPU's memory (physical HBM), for the plot's limit line
};

/**
 * Indices of the Pareto-optimal pairs of (step time, memory): those no other pair dominates
 * (no worse in both, better in one). Equal pairs: the first one only. Ascending step time.
 * Example: {(1, 9), (2, 5), (3, 7), (4, 1), (2, 5)} -> {0, 1, 3}.
 */
std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& time_memory);

/**
 * The landscape of `scenario`'s space under its pins. The sample: every (tp, cp, pp) grid whose
 * structure is valid (dp = gpus / (tp·cp·pp)); in each, the kLandscapeMicroBatches smallest
 * micro-batch sizes, vpp 1 and the largest interleave the stages allow, sequence parallelism on
 * when tp > 1, the largest expert parallelism the grid allows (MoE), every recompute mode and
 * ZeRO stage; pinned fields take their pinned value only. Each is evaluated with evaluate()
 * and kept when feasible; `ranked` (the search's plans, best first) are added and marked.
 * Thinning to kLandscapeMaxPoints keeps the ranked plans and the front, then spreads the rest
 * evenly over step time.
 */
Landscape landscape(const Scenario& scenario, const std::vector<Estimate>& ranked);

/// GPU counts a scaling sweep visits at most.
inline constexpr int kScalingMaxCounts = 7;
/// The largest cluster a sweep or a suggestion visits (the scenario parser's limit, json_io.cpp).
inline constexpr long long kSweepMaxGpus = 1LL << 20;

/**
 * The sweep's GPU counts for a cluster of `gpus`: gpus · 2^k for k = −3 … 3, below `gpus`
 * rounded to the nearest multiple of `gpus_per_node` (at least one node), within
 * [1, kSweepMaxGpus], without repeats, ascending. Example: 1024, 8 -> 128, 256, …, 8192.
 */
std::vector<long long> scaling_gpu_counts(long long gpus, int gpus_per_node);

/// One GPU count of the sweep: the search's best plan there, or why there is none.
struct ScalingPoint {
  long long gpus = 0;
  std::optional<Estimate> plan;  ///< the search's best (search() with the scenario's pins, dp free)
  std::string reason;            ///< no plan: the most frequent rejection code
  long long rejected = 0;        ///< configurations rejected for `reason`
};

/// search() at every count of scaling_gpu_counts, with the scenario's pins except dp (dp
/// follows the GPU count) and everything else unchanged (global batch included).
std::vector<ScalingPoint> scaling_sweep(const Scenario& scenario);

/// Searches a suggestion runs at most.
inline constexpr int kNearestMaxSearches = 48;
/// Configurations those searches consider at most in all (ten searches at the search's cap of
/// 4,000,000): a huge space stops the suggestion early instead of running 48 capped searches.
inline constexpr long long kNearestMaxConfigs = 40'000'000;

/// The closest GPU counts below and above the scenario's that admit a plan.
struct NearestGpuCounts {
  std::optional<Estimate> below;  ///< best plan at the closest smaller count that has one
  std::optional<Estimate> above;
  long long below_gpus = 0;
  long long above_gpus = 0;
  int searched = 0;  ///< counts tried
};

/**
 * Tries multiples of gpus_per_node (of 1 below one node) nearer first, alternating below and
 * above (a tie goes below), with the scenario's pins except dp, until both sides have a plan
 * or kNearestMaxSearches counts (or kNearestMaxConfigs configurations) were tried. Example: GPT-3 175B, tp 8 and pp 8 pinned, 257
 * GPUs -> 256 below (dp 4), 384 above (dp 6; 320 would need dp 5, which does not divide 1536).
 */
NearestGpuCounts nearest_gpu_counts(const Scenario& scenario);

}  // namespace pplan
