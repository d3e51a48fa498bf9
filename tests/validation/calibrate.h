#pragma once
// The calibration fit: the few constants of the time model marked "fitted" in
// core/presets/calibration/calibration.json, fitted over the public runs in tests/data/, and
// the leave-one-source-out error: fit without a source, predict it. Deterministic (Nelder–Mead
// from the committed constants, a fixed number of rounds), so the committed values can be
// checked by rerunning it.
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
/// searched again and the fit repeated (`rounds` times).
Calibration fit_calibration(const std::vector<PublishedCase>& published,
                            const std::vector<MeasuredCase>& measured, const Calibration& start,
                            const std::string& excluded_group = "", int rounds = 2);

/// Every published case predicted by the fit that did not see its source.
std::vector<CaseRun> leave_one_source_out(const std::vector<PublishedCase>& published,
                                          const std::vector<MeasuredCase>& measured,
                                          const Calibration& start);

}  // namespace pplan::validation
