#include "accuracy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "pplan/io/json_io.h"
#include "pplan/model/estimate.h"
#include "pplan/search/search.h"
#include "pplan/units.h"

namespace pplan::validation {

using nlohmann::json;

const Figure& CaseRun::primary_figure() const {
  for (const Figure& f : figures) {
    if (f.metric == primary) return f;
  }
  return figures.front();
}

namespace {

std::optional<double> predicted_figure(const std::string& metric, const Estimate& e, int gpus) {
  if (metric == "tokens_per_sec_per_gpu") return e.tokens_per_s / gpus;
  if (metric == "iteration_time_s") return e.step_time_s;
  if (metric == "mfu") return e.mfu;
  if (metric == "hfu") return e.hfu;
  if (metric == "tflops_per_gpu") return e.tflops_per_gpu;
  if (metric == "hw_tflops_per_gpu") {
    if (e.mfu <= 0) return std::nullopt;
    return e.tflops_per_gpu * e.hfu / e.mfu;
  }
  if (metric == "mem_per_gpu_gib") return e.memory.total_bytes / units::kBytesPerGiB;
  return std::nullopt;
}

std::string tags_of(const json& scenario) {
  const json& gpu = scenario.at("cluster").at("gpu");
  std::string name = gpu.is_string() ? gpu.get<std::string>() : gpu.value("id", gpu.value("name", "custom"));
  const json& model = scenario.at("model");
  const bool moe = model.is_object() && model.contains("moe") && !model.at("moe").is_null();
  const json& training = scenario.at("training");
  const std::string precision = training.value("fp8_recipe", "") == "nvfp4" ? "nvfp4" : training.value("precision", "bf16");
  return name + " " + precision + (moe ? " moe" : " dense");
}

ErrorStats error_stats(const std::vector<std::pair<double, std::optional<double>>>& pairs) {
  ErrorStats s;
  s.cases = static_cast<int>(pairs.size());
  std::vector<double> signed_errors, absolute, published, predicted;
  for (const auto& [w, g] : pairs) {
    if (!g) continue;
    const double e = *g / w - 1.0;
    signed_errors.push_back(e);
    absolute.push_back(std::fabs(e));
    published.push_back(w);
    predicted.push_back(*g);
  }
  s.predicted = static_cast<int>(absolute.size());
  if (absolute.empty()) return s;
  s.median = median_of(absolute);
  s.mean = std::accumulate(absolute.begin(), absolute.end(), 0.0) / double(absolute.size());
  s.bias = median_of(signed_errors);
  auto share = [&](double bar) {
    return double(std::count_if(absolute.begin(), absolute.end(), [bar](double a) { return a <= bar + 1e-12; })) /
           double(s.cases);
  };
  s.within5 = share(0.05);
  s.within10 = share(0.10);
  s.within15 = share(0.15);
  s.within20 = share(0.20);
  s.within25 = share(0.25);
  s.spearman = published.size() >= 3 ? spearman(predicted, published) : std::nan("");
  return s;
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& xs) {
    std::vector<std::size_t> order(xs.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return xs[i] < xs[j]; });
    std::vector<double> r(xs.size());
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j + 1 < order.size() && xs[order[j + 1]] == xs[order[i]]) ++j;
      for (std::size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2.0;
      i = j + 1;
    }
    return r;
  };
  if (a.size() < 3 || a.size() != b.size()) return std::nan("");
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(ra.size());
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(rb.size());
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : std::nan("");
}

std::vector<PublishedCase> prepare_published(const json& document, CaseSet set) {
  const PresetCatalog presets = load_presets();
  std::vector<std::string> held_out_groups;
  if (document.contains("held_out")) {
    held_out_groups = document.at("held_out").at("groups").get<std::vector<std::string>>();
  }
  std::vector<PublishedCase> cases;
  for (const json& c : document.at("cases")) {
    PublishedCase pc;
    pc.id = c.at("id").get<std::string>();
    pc.group = c.at("group").get<std::string>();
    const bool held_out =
        std::find(held_out_groups.begin(), held_out_groups.end(), pc.group) != held_out_groups.end();
    if (held_out != (set == CaseSet::kHeldOut)) continue;
    pc.primary = c.at("published").at("primary").get<std::string>();
    pc.tags = tags_of(c.at("scenario"));
    pc.scenario = parse_scenario(c.at("scenario"), presets);
    const json& training = c.at("scenario").at("training");
    pc.precision = training.value("precision", "bf16");
    // "fp8" alone where the source does not say which scaling (pplan then prices delayed).
    if (pc.precision == "fp8" && training.contains("fp8_recipe")) {
      pc.precision += " " + training.at("fp8_recipe").get<std::string>();
    }
    pc.model = pc.scenario.model.name;
    pc.gpu = pc.scenario.cluster.gpu.id;
    pc.framework = training.value("framework", "");
    pc.seq_len = pc.scenario.training.seq_len;
    pc.gpus = pc.scenario.cluster.gpus;
    for (const json& f : c.at("published").at("figures")) {
      Figure figure;
      figure.metric = f.at("metric").get<std::string>();
      figure.published = f.at("value").get<double>();
      pc.figures.push_back(figure);
    }
    cases.push_back(std::move(pc));
  }
  return cases;
}

std::vector<CaseRun> run_published(const std::vector<PublishedCase>& cases, const RunOptions& options) {
  std::vector<CaseRun> runs;
  for (const PublishedCase& pc : cases) {
    CaseRun run;
    run.id = pc.id;
    run.group = pc.group;
    run.primary = pc.primary;
    run.tags = pc.tags;
    run.model = pc.model;
    run.gpu = pc.gpu;
    run.framework = pc.framework;
    run.seq_len = pc.seq_len;
    run.precision = pc.precision;
    run.gpus = pc.gpus;
    Scenario scenario = pc.scenario;
    if (options.calibration) scenario.calibration = *options.calibration;
    std::optional<Estimate> plan;
    const auto fixed = options.fixed_plans ? options.fixed_plans->find(run.id)
                                           : std::map<std::string, ParallelConfig>::const_iterator{};
    if (options.fixed_plans && fixed != options.fixed_plans->end()) {
      plan = evaluate(scenario, fixed->second);
    } else {
      SearchOptions search_options;
      search_options.top = 1;
      // The page's wall-time budget would make the figures depend on the machine's load.
      search_options.time_budget_s = 1e9;
      SearchResult result = search(scenario, search_options);
      if (!result.plans.empty()) plan = std::move(result.plans.front());
    }
    run.has_plan = plan.has_value();
    if (!plan) run.why_no_plan = "no configuration fits";
    run.figures = pc.figures;
    if (plan) {
      for (Figure& f : run.figures) f.predicted = predicted_figure(f.metric, *plan, scenario.cluster.gpus);
      run.fits = plan->feasible;
      run.mfu = plan->mfu;
      run.plan = plan->parallel;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

std::vector<CaseRun> run_published(const json& document, const RunOptions& options) {
  return run_published(prepare_published(document), options);
}

std::optional<double> speed_error(const CaseRun& run) {
  const Figure& f = run.primary_figure();
  if (!f.predicted || *f.predicted <= 0) return std::nullopt;
  if (f.metric == "iteration_time_s") return f.published / *f.predicted - 1.0;
  return *f.predicted / f.published - 1.0;
}

std::optional<double> ScalingSeries::error() const {
  if (!predicted_slope || !(published_slope > 0)) return std::nullopt;
  return *predicted_slope / published_slope - 1.0;
}

std::vector<ScalingSeries> scaling_series(const std::vector<CaseRun>& runs) {
  // Per-GPU figures only: a step time grows with the batch a larger cluster runs.
  const auto per_gpu = [](const std::string& metric) {
    return metric == "tokens_per_sec_per_gpu" || metric == "mfu" || metric == "hfu" ||
           metric == "tflops_per_gpu" || metric == "hw_tflops_per_gpu";
  };
  struct Members {
    ScalingSeries series;
    std::map<long long, const CaseRun*> by_size;  // first run at each size
  };
  std::vector<Members> all;
  for (const CaseRun& r : runs) {
    if (!per_gpu(r.primary) || r.gpus <= 0) continue;
    auto it = std::find_if(all.begin(), all.end(), [&](const Members& m) {
      const ScalingSeries& s = m.series;
      return s.group == r.group && s.model == r.model && s.gpu == r.gpu && s.framework == r.framework &&
             s.precision == r.precision && s.seq_len == r.seq_len && s.metric == r.primary;
    });
    if (it == all.end()) {
      Members m;
      m.series.group = r.group;
      m.series.model = r.model;
      m.series.gpu = r.gpu;
      m.series.framework = r.framework;
      m.series.precision = r.precision;
      m.series.seq_len = r.seq_len;
      m.series.metric = r.primary;
      all.push_back(m);
      it = all.end() - 1;
    }
    it->by_size.emplace(r.gpus, &r);
  }
  std::vector<ScalingSeries> out;
  for (Members& m : all) {
    if (m.by_size.size() < 2) continue;
    const CaseRun& smallest = *m.by_size.begin()->second;
    const CaseRun& largest = *m.by_size.rbegin()->second;
    ScalingSeries s = m.series;
    s.smallest_gpus = smallest.gpus;
    s.largest_gpus = largest.gpus;
    s.runs = static_cast<int>(m.by_size.size());
    const auto mfu_of = [](const CaseRun& r) -> const Figure* {
      for (const Figure& f : r.figures) {
        if (f.metric == "mfu") return &f;
      }
      return nullptr;
    };
    const bool by_mfu = mfu_of(smallest) && mfu_of(largest);
    const Figure& a = by_mfu ? *mfu_of(smallest) : smallest.primary_figure();
    const Figure& b = by_mfu ? *mfu_of(largest) : largest.primary_figure();
    if (by_mfu) s.metric = "mfu";
    s.published_slope = b.published / a.published;
    if (a.predicted && b.predicted && *a.predicted > 0) s.predicted_slope = *b.predicted / *a.predicted;
    out.push_back(s);
  }
  return out;
}

std::string scale_band(long long gpus) {
  if (gpus <= 256) return "<= 256 GPUs";
  if (gpus <= 2048) return "257-2,048 GPUs";
  return "> 2,048 GPUs";
}

PublishedScore score_published(const std::vector<CaseRun>& runs) {
  PublishedScore s;
  s.cases = static_cast<int>(runs.size());
  std::map<std::string, std::vector<std::pair<double, std::optional<double>>>> by_metric, by_primary,
      by_group;
  std::vector<std::pair<double, std::optional<double>>> primary;
  std::vector<double> speed;
  for (const CaseRun& r : runs) {
    for (const Figure& f : r.figures) by_metric[f.metric].push_back({f.published, f.predicted});
    const Figure& p = r.primary_figure();
    primary.push_back({p.published, p.predicted});
    by_primary[p.metric].push_back({p.published, p.predicted});
    by_group[r.group].push_back({p.published, p.predicted});
    if (auto e = speed_error(r)) speed.push_back(*e);
    s.fits += r.fits ? 1 : 0;
    s.without_plan += r.has_plan ? 0 : 1;
  }
  for (const auto& [metric, pairs] : by_metric) s.per_metric[metric] = error_stats(pairs);
  for (const auto& [group, pairs] : by_group) s.per_group[group] = error_stats(pairs);
  s.primary = error_stats(primary);
  s.primary.bias = median_of(speed);
  // Spearman across different units means nothing: rank within each primary metric, weight
  // by the number of cases (metrics with at least 3 predicted cases).
  double num = 0, den = 0;
  for (const auto& [metric, pairs] : by_primary) {
    const ErrorStats e = error_stats(pairs);
    if (!std::isnan(e.spearman)) {
      num += e.spearman * e.predicted;
      den += e.predicted;
    }
  }
  s.primary.spearman = den > 0 ? num / den : std::nan("");
  // Efficiency: each published figure as an MFU with pplan's own FLOP count and peak, which
  // model size does not help to rank.
  std::vector<double> published_mfu, predicted_mfu;
  std::vector<std::pair<std::string, double>> as_mfu;
  for (const CaseRun& r : runs) {
    const Figure& p = r.primary_figure();
    if (!p.predicted || *p.predicted <= 0 || r.mfu <= 0 || p.metric == "mem_per_gpu_gib") continue;
    const double e = p.metric == "iteration_time_s" ? r.mfu * *p.predicted / p.published
                                                    : r.mfu * p.published / *p.predicted;
    published_mfu.push_back(e);
    predicted_mfu.push_back(r.mfu);
    as_mfu.push_back({p.metric, e});
  }
  s.efficiency_spearman = spearman(predicted_mfu, published_mfu);
  // The stronger baseline: one MFU for every case, best in hindsight.
  double best = 0, best_median = 1e9;
  for (int i = 0; i < 900; ++i) {
    const double c = 0.05 + 0.001 * i;
    std::vector<double> errors;
    for (const auto& [metric, e] : as_mfu) {
      errors.push_back(metric == "iteration_time_s" ? std::fabs(e / c - 1) : std::fabs(c / e - 1));
    }
    const double m = median_of(errors);
    if (m < best_median) {
      best_median = m;
      best = c;
    }
  }
  s.constant_mfu = best;
  s.constant_mfu_median = best_median;
  return s;
}

std::vector<MeasuredCase> prepare_measured(const json& document) {
  const PresetCatalog presets = load_presets();
  std::vector<MeasuredCase> cases;
  for (const json& c : document.at("cases")) {
    MeasuredCase mc;
    mc.id = c.at("id").get<std::string>();
    mc.scenario = parse_scenario(c.at("scenario"), presets);
    mc.measured_s = c.at("measured_step_time_s").get<double>();
    cases.push_back(std::move(mc));
  }
  return cases;
}

std::vector<MeasuredRun> run_measured(const std::vector<MeasuredCase>& cases, const RunOptions& options) {
  std::vector<MeasuredRun> runs;
  for (const MeasuredCase& mc : cases) {
    Scenario scenario = mc.scenario;
    if (options.calibration) scenario.calibration = *options.calibration;
    const Estimate e = evaluate(scenario, resolve_defaults(scenario));
    MeasuredRun r;
    r.id = mc.id;
    r.measured_s = mc.measured_s;
    r.predicted_s = e.step_time_s;
    r.fits = e.feasible;
    runs.push_back(r);
  }
  return runs;
}

std::vector<MeasuredRun> run_measured(const json& document, const RunOptions& options) {
  return run_measured(prepare_measured(document), options);
}

MeasuredScore score_measured(const std::vector<MeasuredRun>& runs) {
  MeasuredScore s;
  s.cases = static_cast<int>(runs.size());
  std::vector<double> absolute;
  double signed_sum = 0;
  for (const MeasuredRun& r : runs) {
    const double e = r.predicted_s / r.measured_s - 1.0;
    absolute.push_back(std::fabs(e));
    signed_sum += e;
    s.fits += r.fits ? 1 : 0;
  }
  if (runs.empty()) return s;
  s.mean = std::accumulate(absolute.begin(), absolute.end(), 0.0) / double(absolute.size());
  s.bias = signed_sum / double(runs.size());
  s.median = median_of(absolute);
  s.within10 = double(std::count_if(absolute.begin(), absolute.end(), [](double a) { return a <= 0.10; })) /
               double(runs.size());
  return s;
}

}  // namespace pplan::validation
