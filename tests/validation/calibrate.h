#pragma once
// The calibration fit: the few constants of the time model marked "fitted" in
// core/presets/calibration/calibration.json, fitted over the public runs in tests/data/, and
// the leave-one-source-out error: fit without a source, predict it. Deterministic and
// independent of the committed values (Nelder–Mead from fixed starts around a fixed anchor, the
// best kept), so the committed values can be checked by rerunning it: ctest fails when a model
// or data change leaves them stale.
#include <string>
#include <vector>

#include "accuracy.h"

namespace pplan::validation {

/// One fitted constant: a name (as in calibration.json), where it lives, and its bounds.
struct FittedConstant {
  const char* name;
  double* (*get)(Calibration&);
  double lo, hi;
};

/// The constants the fit moves, in a fixed order.
const std::vector<FittedConstant>& fitted_constants();

/// The fit's objective: mean |log(pplan / published)| of the primary figures (each case once),
/// plus half the same over the measured runs and half their mean signed log error (bias).
double fit_objective(const std::vector<CaseRun>& published, const std::vector<MeasuredRun>& measured);

/// The objective of `calibration` with the plans searched under it.
double calibration_objective(const std::vector<PublishedCase>& published,
                             const std::vector<MeasuredCase>& measured, const Calibration& calibration);

/// Fits from `start` over the published cases not in `excluded_group` ("" = none) and every
/// measured run. Plans are searched, the constants fitted with those plans fixed, the plans
/// searched again and the fit repeated (`rounds` times, `iterations` Nelder–Mead steps each).
Calibration fit_calibration(const std::vector<PublishedCase>& published,
                            const std::vector<MeasuredCase>& measured, const Calibration& start,
                            const std::string& excluded_group = "", int rounds = 2,
                            int iterations = 150);

/// Where the fit starts: a fixed point inside every constant's bounds (the geometric mean of
/// its bounds; the arithmetic mean for a bound at 0), not the committed values, so the answer
/// is a function of the model and the data alone.
Calibration fit_anchor(const Calibration& base);

/// The starts of fit_from_starts, as multiples of the anchor.
const std::vector<double>& fit_start_multiples();

/// One start's outcome, for the printout.
struct FitStart {
  double multiple = 1;
  double objective = 0;
  Calibration calibration;
};

/// fit_calibration from each of fit_start_multiples() × fit_anchor(base) (clamped to the
/// bounds), the one with the lowest objective kept and refitted once more from where it ended.
/// `starts`, when given, receives every start's outcome.
Calibration fit_from_starts(const std::vector<PublishedCase>& published,
                            const std::vector<MeasuredCase>& measured, const Calibration& base,
                            std::vector<FitStart>* starts = nullptr);

/// The measured runs predicted by the fit that did not see them (multi-start, published runs
/// only): vTrain held out as a source of its own.
std::vector<MeasuredRun> measured_held_out(const std::vector<PublishedCase>& published,
                                           const std::vector<MeasuredCase>& measured,
                                           const Calibration& base, Calibration* fitted = nullptr);

/// Every published case predicted by the fit that did not see its source.
std::vector<CaseRun> leave_one_source_out(const std::vector<PublishedCase>& published,
                                          const std::vector<MeasuredCase>& measured,
                                          const Calibration& start);

}  // namespace pplan::validation
