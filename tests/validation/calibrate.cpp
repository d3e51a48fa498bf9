#include "calibrate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace pplan::validation {

const std::vector<FittedConstant>& fitted_constants() {
  static const std::vector<FittedConstant> kConstants = {
      {"gemm_in_step", [](Calibration& c) { return &c.hopper.gemm_in_step; }, 0.4, 1.2},
      // One attention factor for every architecture: their kernel curves are measured; only
      // Hopper and Blackwell runs use flash attention in the public data.
      {"attention_in_step", [](Calibration& c) { return &c.hopper.attention_in_step; }, 0.3, 1.5},
      {"host_kernel_s", [](Calibration& c) { return &c.host_kernel_s; }, 1e-6, 2e-4},
      {"host_collective_s", [](Calibration& c) { return &c.host_collective_s; }, 1e-6, 1e-3},
      {"overlap_slowdown", [](Calibration& c) { return &c.overlap_slowdown; }, 0.0, 1.0},
  };
  return kConstants;
}

namespace {

/// The shared attention factor lives in the Hopper block; Ampere and Blackwell follow it.
void tie_shared(Calibration& c) {
  c.ampere.attention_in_step = c.hopper.attention_in_step;
  c.blackwell.attention_in_step = c.hopper.attention_in_step;
  c.ampere.gemm_in_step = c.hopper.gemm_in_step;
  c.blackwell.gemm_in_step = c.hopper.gemm_in_step;
}

std::vector<double> to_vector(Calibration c) {
  std::vector<double> x;
  for (const FittedConstant& f : fitted_constants()) x.push_back(*f.get(c));
  return x;
}

Calibration from_vector(Calibration c, const std::vector<double>& x) {
  const auto& constants = fitted_constants();
  for (std::size_t i = 0; i < constants.size(); ++i) {
    *constants[i].get(c) = std::clamp(x[i], constants[i].lo, constants[i].hi);
  }
  tie_shared(c);
  return c;
}

/// Nelder–Mead in a scaled space (each constant relative to its start), fixed iterations.
std::vector<double> nelder_mead(const std::vector<double>& start,
                                const std::function<double(const std::vector<double>&)>& f, int iterations) {
  const std::size_t n = start.size();
  auto point = [&](const std::vector<double>& u) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = start[i] * (1.0 + u[i]);
    return x;
  };
  std::vector<std::vector<double>> simplex(n + 1, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) simplex[i + 1][i] = 0.15;
  std::vector<double> value(n + 1);
  for (std::size_t i = 0; i <= n; ++i) value[i] = f(point(simplex[i]));
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::size_t> order(n + 1);
    for (std::size_t i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    const std::size_t worst = order[n], second = order[n - 1], best = order[0];
    std::vector<double> centroid(n, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
      for (std::size_t i = 0; i < n; ++i) centroid[i] += simplex[order[k]][i] / double(n);
    }
    auto along = [&](double t) {
      std::vector<double> u(n);
      for (std::size_t i = 0; i < n; ++i) u[i] = centroid[i] + t * (simplex[worst][i] - centroid[i]);
      return u;
    };
    const std::vector<double> reflected = along(-1.0);
    const double fr = f(point(reflected));
    if (fr < value[best]) {
      const std::vector<double> expanded = along(-2.0);
      const double fe = f(point(expanded));
      if (fe < fr) {
        simplex[worst] = expanded;
        value[worst] = fe;
      } else {
        simplex[worst] = reflected;
        value[worst] = fr;
      }
    } else if (fr < value[second]) {
      simplex[worst] = reflected;
      value[worst] = fr;
    } else {
      const std::vector<double> contracted = along(fr < value[worst] ? -0.5 : 0.5);
      const double fc = f(point(contracted));
      if (fc < std::min(fr, value[worst])) {
        simplex[worst] = contracted;
        value[worst] = fc;
      } else {
        for (std::size_t k = 1; k <= n; ++k) {
          std::vector<double>& s = simplex[order[k]];
          for (std::size_t i = 0; i < n; ++i) s[i] = simplex[best][i] + 0.5 * (s[i] - simplex[best][i]);
          value[order[k]] = f(point(s));
        }
      }
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    if (value[i] < value[best]) best = i;
  }
  return point(simplex[best]);
}

std::vector<PublishedCase> without_group(const std::vector<PublishedCase>& cases, const std::string& group) {
  std::vector<PublishedCase> kept;
  for (const PublishedCase& c : cases) {
    if (c.group != group) kept.push_back(c);
  }
  return kept;
}

}  // namespace

double fit_objective(const std::vector<CaseRun>& published, const std::vector<MeasuredRun>& measured) {
  double published_sum = 0;
  int published_n = 0;
  for (const CaseRun& r : published) {
    const auto e = speed_error(r);
    // A case without a plan counts as a factor-of-two miss.
    published_sum += e ? std::fabs(std::log1p(*e)) : std::log(2.0);
    ++published_n;
  }
  double measured_sum = 0, measured_signed = 0;
  for (const MeasuredRun& r : measured) {
    const double e = std::log(r.predicted_s / r.measured_s);
    measured_sum += std::fabs(e);
    measured_signed += e;
  }
  const double p = published_n ? published_sum / published_n : 0.0;
  const double n = measured.empty() ? 1.0 : double(measured.size());
  // The measured runs also judge the bias: many small runs must not all lean one way.
  return p + 0.5 * measured_sum / n + 0.5 * std::fabs(measured_signed / n);
}

double calibration_objective(const std::vector<PublishedCase>& published,
                             const std::vector<MeasuredCase>& measured, const Calibration& calibration) {
  RunOptions options;
  options.calibration = &calibration;
  return fit_objective(run_published(published, options), run_measured(measured, options));
}

Calibration fit_calibration(const std::vector<PublishedCase>& all_published,
                            const std::vector<MeasuredCase>& measured, const Calibration& start,
                            const std::string& excluded_group, int rounds, int iterations) {
  const std::vector<PublishedCase> published = without_group(all_published, excluded_group);
  Calibration current = start;
  tie_shared(current);
  for (int round = 0; round < rounds; ++round) {
    RunOptions search_options;
    search_options.calibration = &current;
    std::map<std::string, ParallelConfig> plans;
    for (const CaseRun& r : run_published(published, search_options)) {
      if (r.has_plan) plans[r.id] = r.plan;
    }
    const Calibration base = current;
    auto objective = [&](const std::vector<double>& x) {
      const Calibration candidate = from_vector(base, x);
      RunOptions options;
      options.calibration = &candidate;
      options.fixed_plans = &plans;
      return fit_objective(run_published(published, options), run_measured(measured, options));
    };
    current = from_vector(base, nelder_mead(to_vector(base), objective, iterations));
  }
  return current;
}

Calibration fit_anchor(const Calibration& base) {
  Calibration anchor = base;
  for (const FittedConstant& f : fitted_constants()) {
    *f.get(anchor) = f.lo > 0 ? std::sqrt(f.lo * f.hi) : 0.5 * (f.lo + f.hi);
  }
  tie_shared(anchor);
  return anchor;
}

const std::vector<double>& fit_start_multiples() {
  static const std::vector<double> kMultiples = {0.5, 0.8, 1.0, 1.25, 2.0};
  return kMultiples;
}

Calibration fit_from_starts(const std::vector<PublishedCase>& published,
                            const std::vector<MeasuredCase>& measured, const Calibration& base,
                            std::vector<FitStart>* starts) {
  const Calibration anchor = fit_anchor(base);
  std::optional<FitStart> best;
  for (const double multiple : fit_start_multiples()) {
    std::vector<double> x = to_vector(anchor);
    for (double& v : x) v *= multiple;
    const Calibration fitted = fit_calibration(published, measured, from_vector(anchor, x), "", 3, 300);
    const FitStart outcome{multiple, calibration_objective(published, measured, fitted), fitted};
    if (starts) starts->push_back(outcome);
    if (!best || outcome.objective < best->objective) best = outcome;
  }
  // Polish: Nelder–Mead's simplex shrinks as it goes; a fresh one from the best point checks
  // that no nearby point is better.
  const Calibration polished = fit_calibration(published, measured, best->calibration, "", 2, 300);
  return calibration_objective(published, measured, polished) < best->objective ? polished
                                                                                 : best->calibration;
}

std::vector<MeasuredRun> measured_held_out(const std::vector<PublishedCase>& published,
                                           const std::vector<MeasuredCase>& measured,
                                           const Calibration& base, Calibration* fitted) {
  const Calibration without = fit_from_starts(published, {}, base);
  if (fitted) *fitted = without;
  RunOptions options;
  options.calibration = &without;
  return run_measured(measured, options);
}

std::vector<CaseRun> leave_one_source_out(const std::vector<PublishedCase>& published,
                                          const std::vector<MeasuredCase>& measured,
                                          const Calibration& start) {
  std::set<std::string> groups;
  for (const PublishedCase& c : published) groups.insert(c.group);
  std::map<std::string, CaseRun> by_id;
  for (const std::string& group : groups) {
    const Calibration fitted = fit_calibration(published, measured, start, group, 1);
    std::vector<PublishedCase> held_out;
    for (const PublishedCase& c : published) {
      if (c.group == group) held_out.push_back(c);
    }
    RunOptions options;
    options.calibration = &fitted;
    for (CaseRun& r : run_published(held_out, options)) by_id[r.id] = std::move(r);
  }
  std::vector<CaseRun> runs;
  for (const PublishedCase& c : published) runs.push_back(by_id.at(c.id));
  return runs;
}

}  // namespace pplan::validation
