#pragma once
/// `pplan calibrate`: refit the constants a cluster's measurements identify, and nothing else.
///
/// nccl-tests tables fit what NCCL reaches of each link (GpuSpec::nvlink_efficiency,
/// nvlink_latency_s, network_efficiency, network_latency_s): each row's time is predicted by the
/// very functions that price the plan's collectives (model/comm.h), on the group the paste ran
/// (its ranks and hosts). Measured step times then fit the compute constants (the GEMM
/// efficiency of the scenario's precision, GpuSpec::attention_scale, GpuSpec::host_kernel_s),
/// as many as the steps identify: a constant is fitted only if the steps move with it by at
/// least kIdentifiedSensitivity in a way the constants before it cannot mimic (one step fits
/// one constant at most). The fit minimises the squared log error (relative error) by
/// Levenberg–Marquardt from the preset's values, accepting only steps that lower it, so it never
/// leaves the measurements worse explained than the preset did.

#include <string>
#include <vector>

#include "pplan/calibrate/measurements.h"
#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// nccl-tests rows below this size are shown but not fitted: pplan prices messages of a
/// megabyte and more (TP activations, pipeline sends, gradient buckets); below, NCCL switches
/// to its low-latency protocols, which the α–β model with its size ramp does not describe.
inline constexpr double kSmallestFittedMessageBytes = 1 << 20;
/// d(log time)/d(log constant) a constant must reach on some measurement to be fitted.
inline constexpr double kIdentifiedSensitivity = 0.02;

/// One measured step of the scenario's model on its cluster, with a layout.
struct MeasuredStep {
  ParallelConfig parallel;  ///< complete (resolved like evaluate does)
  double step_time_s = 0;
  std::string what;  ///< how it was given ("steps/0: 1.234 s", "steps/1: log, lines 3–40")
  std::string path;  ///< the request pointer, for errors
};

/// A measurement and what the model said of it before and after the fit.
struct MeasurementFit {
  std::string what;
  std::string unit;  ///< "us" | "s"
  double measured = 0, before = 0, after = 0;
  bool fitted = true;  ///< false: shown only (a row below kSmallestFittedMessageBytes)
};

/// One constant: its GPU field, value before and after, and why it moved or did not.
struct ConstantFit {
  std::string name;   ///< the GPU field it is written to ("nvlink_efficiency")
  std::string label;  ///< in words
  std::string unit;
  double before = 0, after = 0;
  bool fitted = false;
  std::string source;  ///< where `before` comes from, and what fitted `after`
};

struct CalibrationResult {
  GpuSpec gpu;  ///< the scenario's GPU with the fitted fields
  std::vector<ConstantFit> constants;
  std::vector<MeasurementFit> measurements;
  std::vector<std::string> notes;  ///< what the measurements could not identify, mismatches
  double rms_log_error_before = 0, rms_log_error_after = 0;  ///< over the fitted measurements
  bool has_plans = false;
  Estimate plan_before, plan_after;  ///< the search's recommendation before and after
  /// The earlier plan priced with the fitted constants (its step against plan_after's).
  Estimate previous_plan_after;
};

/**
 * Fits `scenario`'s GPU to `tables` and `steps`. Refuses (InputError) a measurement faster than
 * physics allows: a table row faster than its bytes at the datasheet link rates, a step faster
 * than its FLOPs at the GPUs' peak. `paths[i]` is table i's request pointer, for errors.
 */
CalibrationResult calibrate(const Scenario& scenario, const std::vector<NcclTestsTable>& tables,
                            const std::vector<std::string>& table_paths, const std::vector<MeasuredStep>& steps);

/// A table row's time (µs) as pplan prices it on `gpu`: the collective of model/comm.h over
/// the table's ranks and hosts.
double predicted_row_us(const NcclTestsTable& table, double size_bytes, const GpuSpec& gpu);

}  // namespace pplan
