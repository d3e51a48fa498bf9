#pragma once
// Scoring pplan against published and measured runs (tests/data/): the figures the README
// quotes, the bars the validation tests assert, and the objective the calibration fit
// minimises all come from here, so they cannot drift apart.
//
// Conventions follow the published-runs file's own `about`: every published figure of a case
// is compared with the same figure of pplan's best plan under the case's pins (`plan --top 1`):
//   tokens_per_sec_per_gpu  vs  tokens_per_s / gpus        iteration_time_s  vs  step_time_s
//   mfu, hfu, tflops_per_gpu  vs the same                  hw_tflops_per_gpu vs tflops·hfu/mfu
//   mem_per_gpu_gib  vs  memory total in GiB
// Relative error = predicted / published − 1. Each case is judged on its primary figure.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/specs.h"

namespace pplan::validation {

/// One published figure of a case and pplan's value of the same figure.
struct Figure {
  std::string metric;
  double published = 0;
  std::optional<double> predicted;  ///< none when pplan found no plan
};

/// One case run through pplan.
struct CaseRun {
  std::string id;
  std::string group;    ///< the source: one publication or benchmark release
  std::string primary;  ///< the metric the case is judged on
  std::string tags;     ///< "gpu precision dense|moe", for reading errors by kind
  // What a scaling series holds fixed (scaling_series): the model's name, the GPU's id, the
  // framework, the sequence length and the precision, "bf16", "fp8 <recipe>" or "fp8" where the
  // source does not say which scaling (also the rows by precision).
  std::string model, gpu, framework, precision;
  int seq_len = 0;
  long long gpus = 0;  ///< the cluster's GPUs (scale bands)
  std::vector<Figure> figures;
  bool has_plan = false;
  bool fits = false;
  double mfu = 0;                ///< pplan's MFU of the plan
  ParallelConfig plan;           ///< the plan pplan chose
  std::string why_no_plan;
  const Figure& primary_figure() const;
};

/// A published case, parsed once.
struct PublishedCase {
  std::string id, group, primary, tags, model, gpu, framework, precision;
  int seq_len = 0;
  long long gpus = 0;
  Scenario scenario;
  std::vector<Figure> figures;  ///< published values only
};

/// Which cases of a published-runs document: those the constants are fitted and judged on, or
/// the held-out ones (the document's `held_out.groups`: runs added after the fit, scored apart
/// and never fitted).
enum class CaseSet { kFitted, kHeldOut };

/// Parses the cases of a published-runs document in `set`.
std::vector<PublishedCase> prepare_published(const nlohmann::json& document, CaseSet set = CaseSet::kFitted);

/// How to run the cases.
struct RunOptions {
  /// The time model's constants to use instead of each scenario's own (the calibration fit's
  /// candidates).
  const Calibration* calibration = nullptr;
  /// Evaluate these plans (by case id) instead of searching: the fit's fast path.
  const std::map<std::string, ParallelConfig>* fixed_plans = nullptr;
};

/// Plans (or evaluates) every case.
std::vector<CaseRun> run_published(const std::vector<PublishedCase>& cases, const RunOptions& options = {});
/// prepare_published + run_published.
std::vector<CaseRun> run_published(const nlohmann::json& document, const RunOptions& options = {});

/// Error statistics of a set of (published, predicted) figures.
struct ErrorStats {
  int cases = 0;        ///< figures asked for
  int predicted = 0;    ///< figures pplan gave
  double median = 0;    ///< median |error|
  double mean = 0;      ///< mean |error|
  double bias = 0;      ///< median signed error (primary: + = pplan predicts a faster run)
  double within5 = 0;   ///< share of cases with |error| <= 5% (of all cases asked for)
  double within10 = 0;
  double within15 = 0;
  double within20 = 0;
  double within25 = 0;
  double spearman = 0;  ///< rank correlation of predicted with published
};

/// Everything the README and the tests say about the published runs.
struct PublishedScore {
  std::map<std::string, ErrorStats> per_metric;
  ErrorStats primary;
  double efficiency_spearman = 0;  ///< each published figure as an MFU, against pplan's MFU
  double constant_mfu = 0;         ///< best single MFU in hindsight ...
  double constant_mfu_median = 0;  ///< ... and the median error it leaves
  std::map<std::string, ErrorStats> per_group;  ///< primary figure by source
  int fits = 0;
  int cases = 0;
  int without_plan = 0;
};

PublishedScore score_published(const std::vector<CaseRun>& runs);

/// The median of `values` (NaN when empty).
double median_of(std::vector<double> values);

/// Relative error of a case's primary figure, signed so that + means pplan predicts a faster
/// run (for iteration times: published / predicted − 1). nullopt without a plan.
std::optional<double> speed_error(const CaseRun& run);

/// One source's runs of one model on one GPU in one framework at one precision and sequence
/// length, at two or more cluster sizes, judged on a per-GPU figure (tokens/s, MFU, HFU, TFLOP/s
/// per GPU): how much of that figure survives from the smallest size to the largest, published
/// and as pplan predicts it. The slope reads MFU where both ends publish it (a source may shrink
/// the model to fit its smallest size, which moves tokens/s but not MFU), else the primary
/// figure. issue #24: a flat prediction where the published figure falls is a scale effect missed.
struct ScalingSeries {
  std::string group, model, gpu, framework, precision;
  std::string metric;  ///< the figure the slope reads
  int seq_len = 0;
  long long smallest_gpus = 0, largest_gpus = 0;
  int runs = 0;  ///< distinct sizes in the series
  double published_slope = 0;              ///< figure at the largest size / at the smallest
  std::optional<double> predicted_slope;   ///< the same of pplan's figures; none without both plans
  /// predicted_slope / published_slope − 1: + = pplan keeps more of the figure than was published.
  std::optional<double> error() const;
};
/// Every scaling series in `runs`, in the order their first runs appear. Where a size appears
/// twice in a series (two layouts), its first run stands for it.
std::vector<ScalingSeries> scaling_series(const std::vector<CaseRun>& runs);

/// A run's scale band for the accuracy tables: "<= 256 GPUs", "257-2,048 GPUs" or "> 2,048 GPUs"
/// (issue #24's bands).
std::string scale_band(long long gpus);

/// The measured single-node runs (vTrain): pplan's step time against the measured one.
struct MeasuredCase {
  std::string id;
  Scenario scenario;  ///< complete `parallel`: evaluated as given
  double measured_s = 0;
};
std::vector<MeasuredCase> prepare_measured(const nlohmann::json& document);

struct MeasuredRun {
  std::string id;
  double measured_s = 0;
  double predicted_s = 0;
  bool fits = false;
};
std::vector<MeasuredRun> run_measured(const std::vector<MeasuredCase>& cases, const RunOptions& options = {});
std::vector<MeasuredRun> run_measured(const nlohmann::json& document, const RunOptions& options = {});

/// Mean |error|, signed mean error (+ = pplan slower), median |error|, share within 10%.
struct MeasuredScore {
  int cases = 0;
  double mean = 0;
  double bias = 0;
  double median = 0;
  double within10 = 0;
  int fits = 0;
};
MeasuredScore score_measured(const std::vector<MeasuredRun>& runs);

/// Rank correlation (Spearman, ties averaged).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace pplan::validation
