#include "pplan/calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "pplan/calibration.h"
#include "pplan/diagnostics.h"
#include "pplan/model/comm.h"
#include "pplan/model/kernels.h"
#include "pplan/search/search.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

namespace {

/// A constant the fit may move: a GpuSpec field, its bounds, and how the answer shows it.
struct Knob {
  double GpuSpec::*field;
  double lo, hi;
  const char* name;  ///< the GPU field of the scenario document
  double shown_per_value;  ///< value × this = what the answer shows (µs for seconds)
  std::string label, unit, source;
};

using Residuals = std::function<std::vector<double>(const GpuSpec&)>;

double sum_of_squares(const std::vector<double>& r) {
  double s = 0;
  for (double x : r) s += x * x;
  return s;
}

/// d r_i / d log(knob) at `gpu`, by a forward difference.
std::vector<std::vector<double>> jacobian(const GpuSpec& gpu, const std::vector<const Knob*>& knobs,
                                          const Residuals& residuals, const std::vector<double>& r0) {
  std::vector<std::vector<double>> columns;
  for (const Knob* k : knobs) {
    GpuSpec moved = gpu;
    const double h = 1e-5;
    moved.*(k->field) *= std::exp(h);
    const std::vector<double> r1 = residuals(moved);
    std::vector<double> column(r0.size());
    for (std::size_t i = 0; i < r0.size(); ++i) column[i] = (r1[i] - r0[i]) / h;
    columns.push_back(column);
  }
  return columns;
}

/// Solves the small symmetric system a·x = b (Gaussian elimination with partial pivoting).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r) if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    if (std::fabs(a[c][c]) < 1e-300) return std::vector<double>(n, 0.0);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (std::size_t c = n; c-- > 0;) {
    double s = b[c];
    for (std::size_t k = c + 1; k < n; ++k) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return x;
}

GpuSpec with_log_step(const GpuSpec& gpu, const std::vector<const Knob*>& knobs, const std::vector<double>& step) {
  GpuSpec moved = gpu;
  for (std::size_t j = 0; j < knobs.size(); ++j) {
    double& v = moved.*(knobs[j]->field);
    v = std::clamp(v * std::exp(std::clamp(step[j], -5.0, 5.0)), knobs[j]->lo, knobs[j]->hi);
  }
  return moved;
}

/// Levenberg–Marquardt in the knobs' logarithms; only steps that lower the cost are taken.
GpuSpec least_squares(GpuSpec gpu, const std::vector<const Knob*>& knobs, const Residuals& residuals) {
  if (knobs.empty()) return gpu;
  std::vector<double> r = residuals(gpu);
  double cost = sum_of_squares(r);
  double lambda = 1e-3;
  for (int iteration = 0; iteration < 200 && cost > 1e-24; ++iteration) {
    const auto columns = jacobian(gpu, knobs, residuals, r);
    const std::size_t n = knobs.size();
    std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0.0));
    std::vector<double> jtr(n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        for (std::size_t i = 0; i < r.size(); ++i) jtj[a][b] += columns[a][i] * columns[b][i];
      }
      for (std::size_t i = 0; i < r.size(); ++i) jtr[a] -= columns[a][i] * r[i];
    }
    bool improved = false;
    for (int attempt = 0; attempt < 12 && !improved; ++attempt) {
      auto damped = jtj;
      for (std::size_t a = 0; a < n; ++a) damped[a][a] += lambda * std::max(jtj[a][a], 1e-12);
      const GpuSpec candidate = with_log_step(gpu, knobs, solve(damped, jtr));
      const std::vector<double> rc = residuals(candidate);
      const double c = sum_of_squares(rc);
      if (std::isfinite(c) && c < cost) {
        const bool converged = cost - c <= 1e-12 * cost;
        gpu = candidate;
        r = rc;
        cost = c;
        lambda = std::max(lambda / 10, 1e-9);
        improved = true;
        if (converged) return gpu;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  return gpu;
}

/// The knobs (in order of preference) the residuals identify: each moves some measurement by
/// kIdentifiedSensitivity, independently of those before it, and no more knobs than
/// measurements. `notes` says why any other stays.
std::vector<const Knob*> identified(const GpuSpec& gpu, const std::vector<const Knob*>& candidates,
                                    const Residuals& residuals, const std::string& measured_by,
                                    std::vector<std::string>& notes) {
  const std::vector<double> r0 = residuals(gpu);
  const auto columns = jacobian(gpu, candidates, residuals, r0);
  std::vector<std::vector<double>> basis;
  std::vector<const Knob*> chosen;
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    const std::vector<double>& v = columns[j];
    double largest = 0, norm = 0;
    for (double x : v) {
      largest = std::max(largest, std::fabs(x));
      norm += x * x;
    }
    norm = std::sqrt(norm);
    if (largest < kIdentifiedSensitivity) {
      notes.push_back(candidates[j]->label + ": not fitted; " + measured_by + " move by less than " +
                      format_significant(100 * kIdentifiedSensitivity, 2) + "% when it doubles");
      continue;
    }
    std::vector<double> w = v;
    for (const auto& e : basis) {
      double dot = 0;
      for (std::size_t i = 0; i < w.size(); ++i) dot += w[i] * e[i];
      for (std::size_t i = 0; i < w.size(); ++i) w[i] -= dot * e[i];
    }
    double rest = 0;
    for (double x : w) rest += x * x;
    rest = std::sqrt(rest);
    if (rest < 0.1 * norm) {
      notes.push_back(candidates[j]->label + ": not fitted; " + measured_by +
                      " move with it as with the constants fitted before it (give measurements that "
                      "tell them apart)");
      continue;
    }
    if (chosen.size() >= r0.size()) {
      notes.push_back(candidates[j]->label + ": not fitted; " + std::to_string(r0.size()) + " " + measured_by +
                      " fit at most " + std::to_string(r0.size()) + " constant" + (r0.size() == 1 ? "" : "s") +
                      " (give more layouts)");
      continue;
    }
    for (double& x : w) x /= rest;
    basis.push_back(w);
    chosen.push_back(candidates[j]);
  }
  return chosen;
}

std::string gbps(double bytes_per_s) { return format_significant(bytes_per_s / units::kBytesPerSecPerGBps, 4) + " GB/s"; }

/// The least time physics allows a row: its bytes at the datasheet link rates. Each rank must
/// send (n−1)/n of its buffer (any algorithm, in-switch reduction included) over its NVLink and
/// NIC, and each host (n−k)/n… at least (N−1)/N of it over its k NICs.
double fastest_row_s(const NcclTestsTable& t, double size_bytes, const GpuSpec& gpu) {
  const int n = t.ranks, k = t.ranks_per_node, nodes = t.nodes;
  if (t.collective == NcclCollective::kSendRecv) {
    return size_bytes / (nodes > 1 ? gpu.network_bytes_per_s : gpu.nvlink_bytes_per_s);
  }
  const double egress = (k > 1 ? gpu.nvlink_bytes_per_s : 0.0) + (nodes > 1 ? gpu.network_bytes_per_s : 0.0);
  double bound = double(n - 1) / n * size_bytes / egress;
  if (nodes > 1) bound = std::max(bound, double(nodes - 1) / nodes * size_bytes / (k * gpu.network_bytes_per_s));
  return bound;
}

std::string table_name(const NcclTestsTable& t) {
  return std::string(nccl_program_name(t.collective)) + ", " + std::to_string(t.ranks) + " GPUs on " +
         std::to_string(t.nodes) + (t.nodes == 1 ? " host" : " hosts");
}

std::string size_name(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return format_significant(bytes, 4) + " " + units[u];
}

}  // namespace

double predicted_row_us(const NcclTestsTable& table, double size_bytes, const GpuSpec& gpu) {
  GroupPlacement group;
  group.size = table.ranks;
  group.stride = 1;
  group.ranks_per_node = table.ranks_per_node;
  group.nodes = table.nodes;
  double s = 0;
  switch (table.collective) {
    case NcclCollective::kAllReduce: s = all_reduce_s(size_bytes, group, gpu); break;
    case NcclCollective::kAllGather:
    case NcclCollective::kReduceScatter: s = reduce_scatter_s(size_bytes, group, gpu); break;
    case NcclCollective::kAllToAll: s = all_to_all_s(size_bytes, group, gpu); break;
    case NcclCollective::kSendRecv: s = send_recv_s(size_bytes, table.nodes > 1, gpu); break;
  }
  return s * 1e6;
}

CalibrationResult calibrate(const Scenario& scenario, const std::vector<NcclTestsTable>& tables,
                            const std::vector<std::string>& table_paths, const std::vector<MeasuredStep>& steps) {
  CalibrationResult out;
  const GpuSpec preset = scenario.cluster.gpu;
  GpuSpec gpu = preset;
  const ArchitectureCalibration& arch = architecture_calibration(scenario.calibration, gpu.architecture.c_str());
  const bool fp8 = scenario.training.precision == Precision::kFp8 && gpu.fp8_flops_per_s > 0;
  // The fitted fields start where the model stands: an unset GPU field reads the calibration's.
  if (gpu.mamf_fraction_bf16 <= 0) gpu.mamf_fraction_bf16 = arch.mamf_fraction_bf16;
  if (gpu.mamf_fraction_fp8 <= 0) gpu.mamf_fraction_fp8 = arch.mamf_fraction_fp8;
  if (gpu.host_kernel_s <= 0) gpu.host_kernel_s = scenario.calibration.host_kernel_s;
  const GpuSpec start = gpu;

  const std::string nvlink_rate = gbps(gpu.nvlink_bytes_per_s), network_rate = gbps(gpu.network_bytes_per_s);
  const Knob comm_knobs[] = {
      {&GpuSpec::nvlink_efficiency, 1e-3, 2.0, "nvlink_efficiency", 1,
       "NVLink: share of the " + nvlink_rate + " line rate NCCL reaches", "share",
       "measured default: ~370 of 450 GB/s on H100 (NVIDIA/nccl-tests#212)"},
      {&GpuSpec::network_efficiency, 1e-3, 2.0, "network_efficiency", 1,
       "network: share of the " + network_rate + " per GPU NCCL reaches", "share",
       "measured default: 46–48 of 50 GB/s per NDR NIC (NVIDIA/nccl-tests#290)"},
      {&GpuSpec::nvlink_latency_s, 1e-6, 1e-3, "nvlink_latency_us", 1e6, "NVLink latency per algorithm step", "us",
       "stated assumption: NCCL's small-message latency in a node, 5–10 µs"},
      {&GpuSpec::network_latency_s, 1e-6, 1e-3, "network_latency_us", 1e6, "network latency per algorithm step", "us",
       "stated assumption: NCCL's small-message latency across InfiniBand, 10–20 µs"},
  };
  const Knob compute_knobs[] = {
      {fp8 ? &GpuSpec::mamf_fraction_fp8 : &GpuSpec::mamf_fraction_bf16, 0.01, 1.0,
       fp8 ? "mamf_fraction_fp8" : "mamf_fraction_bf16", 1,
       std::string("GEMM efficiency: share of the ") + (fp8 ? "FP8" : "BF16") + " peak large matmuls reach", "share",
       "measured: maximum achievable matmul FLOP/s (model/kernels.h)"},
      {&GpuSpec::attention_scale, 0.01, 10.0, "attention_scale", 1, "attention throughput against pplan's model",
       "x", "1 = pplan's flash-attention model (kernel papers, core/include/pplan/model/kernels.h)"},
      {&GpuSpec::host_kernel_s, 1e-8, 1e-3, "host_kernel_us", 1e6, "host time to issue one kernel", "us",
       "fitted over the public runs (vTrain's single-node steps)"},
  };

  // --- nccl-tests: each row's time, priced by the collective of model/comm.h ---
  struct Row {
    const NcclTestsTable* table;
    const NcclTestsRow* row;
  };
  std::vector<Row> fitted_rows;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const NcclTestsTable& table = tables[t];
    for (const NcclTestsRow& row : table.rows) {
      if (row.size_bytes <= 0 || row.time_us <= 0) continue;
      const double least_s = fastest_row_s(table, row.size_bytes, preset);
      if (row.time_us * 1e-6 < least_s / 1.01) {
        throw InputError(
            "calibrate.faster_than_physics", t < table_paths.size() ? table_paths[t] : "/nccl_tests",
            "line " + std::to_string(row.line) + ": " + size_name(row.size_bytes) + " in " +
                format_significant(row.time_us, 5) + " us is faster than " + std::to_string(table.ranks) + " " +
                preset.name + " GPUs can move it at their datasheet rates (NVLink " + nvlink_rate + ", network " +
                network_rate + " per GPU): at least " + format_significant(least_s * 1e6, 4) +
                " us. Is the scenario's GPU and cluster the one measured, and every \"#  Rank\" line pasted?");
      }
      if (row.size_bytes >= kSmallestFittedMessageBytes) fitted_rows.push_back({&table, &row});
    }
    if (table.rows_wrong > 0) {
      out.notes.push_back(table_name(table) + ": " + std::to_string(table.rows_wrong) +
                          " rows report wrong results (#wrong): NCCL or the fabric is faulty; fix that first");
    }
    if (!table.device.empty() && table.device.find(preset.name.substr(0, preset.name.find(' ', 7))) == std::string::npos) {
      out.notes.push_back(table_name(table) + " ran on " + printable(table.device, 80) + "; the scenario's GPU is " +
                          preset.name + ": the fit describes the measured cluster");
    }
  }
  const Residuals comm_residuals = [&](const GpuSpec& g) {
    std::vector<double> r;
    for (const Row& row : fitted_rows) {
      r.push_back(std::log(predicted_row_us(*row.table, row.row->size_bytes, g) / row.row->time_us));
    }
    return r;
  };
  std::vector<const Knob*> comm_candidates;
  if (!tables.empty()) {
    if (fitted_rows.empty()) {
      out.notes.push_back("no nccl-tests row of 1 MiB or more: the links are not fitted (rows below 1 MiB run "
                          "NCCL's low-latency protocols, which pplan does not price)");
    } else {
      for (const Knob& k : comm_knobs) comm_candidates.push_back(&k);
      gpu = least_squares(gpu, identified(gpu, comm_candidates, comm_residuals, "the nccl-tests rows", out.notes),
                          comm_residuals);
    }
  }

  // --- measured steps: the whole step, priced as evaluate prices it ---
  const auto scenario_with = [&](const GpuSpec& g) {
    Scenario s = scenario;
    s.cluster.gpu = g;
    return s;
  };
  std::vector<double> steps_before_s;  // the preset's step times, shown beside the fitted ones
  for (const MeasuredStep& step : steps) {
    const Estimate e = evaluate(scenario_with(start), step.parallel);
    steps_before_s.push_back(e.step_time_s);
    const double peak = peak_flops_per_s(preset, gemm_precision(scenario.training, preset));
    const double least_s = e.hardware_flops_per_step / (scenario.cluster.gpus * peak);
    if (step.step_time_s < least_s) {
      throw InputError("calibrate.faster_than_physics", step.path,
                       step.what + " is faster than its " + format_significant(e.hardware_flops_per_step, 4) +
                           " FLOPs at " + std::to_string(scenario.cluster.gpus) + " GPUs' peak of " +
                           format_significant(peak / units::kFlopsPerTflop, 5) + " TFLOP/s (" +
                           format_significant(least_s, 4) + " s): is the layout, batch or GPU count right?");
    }
  }
  const Residuals step_residuals = [&](const GpuSpec& g) {
    std::vector<double> r;
    const Scenario s = scenario_with(g);
    for (const MeasuredStep& step : steps) r.push_back(std::log(evaluate(s, step.parallel).step_time_s / step.step_time_s));
    return r;
  };
  std::vector<const Knob*> compute_candidates;
  if (!steps.empty()) {
    for (const Knob& k : compute_knobs) compute_candidates.push_back(&k);
    gpu = least_squares(gpu, identified(gpu, compute_candidates, step_residuals, "the measured steps", out.notes),
                        step_residuals);
  }

  // --- what moved, and the measurements before and after ---
  std::vector<const Knob*> reported = comm_candidates;
  reported.insert(reported.end(), compute_candidates.begin(), compute_candidates.end());
  for (const Knob* k : reported) {
    const double v = gpu.*(k->field);
    if (v != start.*(k->field) && (v <= k->lo * 1.0001 || v >= k->hi * 0.9999)) {
      out.notes.push_back(k->label + " stopped at its bound (" + format_significant(v * k->shown_per_value, 4) + " " +
                          k->unit + "): the measurements ask for more than pplan's model of them can give (it "
                          "adds up the phases of a collective that NCCL pipelines, and prices messages below "
                          "~8 MB on a bandwidth ramp, not NCCL's low-latency protocols)");
    }
  }
  for (const Knob* k : reported) {
    ConstantFit c;
    c.name = k->name;
    c.label = k->label;
    c.unit = k->unit;
    c.before = start.*(k->field) * k->shown_per_value;
    c.after = gpu.*(k->field) * k->shown_per_value;
    c.fitted = gpu.*(k->field) != start.*(k->field);
    c.source = k->source;
    out.constants.push_back(c);
  }
  double before_sq = 0, after_sq = 0;
  int fitted_count = 0;
  for (const NcclTestsTable& table : tables) {
    for (const NcclTestsRow& row : table.rows) {
      if (row.size_bytes <= 0 || row.time_us <= 0) continue;
      MeasurementFit m;
      m.what = table_name(table) + ", " + size_name(row.size_bytes) + " (line " + std::to_string(row.line) + ")";
      m.unit = "us";
      m.measured = row.time_us;
      m.before = predicted_row_us(table, row.size_bytes, start);
      m.after = predicted_row_us(table, row.size_bytes, gpu);
      m.fitted = row.size_bytes >= kSmallestFittedMessageBytes;
      out.measurements.push_back(m);
    }
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const MeasuredStep& step = steps[i];
    MeasurementFit m;
    m.what = step.what;
    m.unit = "s";
    m.measured = step.step_time_s;
    m.before = steps_before_s[i];
    m.after = evaluate(scenario_with(gpu), step.parallel).step_time_s;
    out.measurements.push_back(m);
  }
  for (const MeasurementFit& m : out.measurements) {
    if (!m.fitted) continue;
    before_sq += std::pow(std::log(m.before / m.measured), 2);
    after_sq += std::pow(std::log(m.after / m.measured), 2);
    ++fitted_count;
  }
  if (fitted_count > 0) {
    out.rms_log_error_before = std::sqrt(before_sq / fitted_count);
    out.rms_log_error_after = std::sqrt(after_sq / fitted_count);
  }

  // Only what moved is written back: unfitted fields keep the preset's own (unset) value.
  GpuSpec result = preset;
  for (const Knob* k : reported) {
    if (gpu.*(k->field) != start.*(k->field)) result.*(k->field) = gpu.*(k->field);
  }
  out.gpu = result;

  // --- the search's recommendation, before and after ---
  SearchOptions options;
  options.top = 1;
  const SearchResult before = search(scenario, options);
  const Scenario calibrated = scenario_with(result);
  const SearchResult after = search(calibrated, options);
  if (!before.plans.empty() && !after.plans.empty()) {
    out.has_plans = true;
    out.plan_before = before.plans.front();
    out.plan_after = after.plans.front();
    out.previous_plan_after = evaluate(calibrated, out.plan_before.parallel);
  }
  return out;
}

}  // namespace pplan
