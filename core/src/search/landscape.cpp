#include "pplan/search/landscape.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "pplan/framework/rules.h"
#include "pplan/model/estimate.h"
#include "pplan/model/pipeline.h"

namespace pplan {

namespace {

/// The pinned value alone, else every candidate (evaluate() judges a pin the grid cannot take).
std::vector<int> pin_or_candidates(const std::optional<int>& pin, std::vector<int> candidates) {
  if (!pin) return candidates;
  return {*pin};
}

auto config_key(const ParallelConfig& p) {
  return std::make_tuple(p.tp, p.pp, p.dp, p.cp, p.ep, p.vpp, p.micro_batch,
                         int(p.sequence_parallel), int(p.recompute), p.zero, p.first_stage_layers,
                         p.last_stage_layers);
}

/// Fastest first, then leanest, then the configuration itself: a total order.
bool faster(const LandscapePoint& a, const LandscapePoint& b) {
  if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
  if (a.memory_bytes != b.memory_bytes) return a.memory_bytes < b.memory_bytes;
  return config_key(a.parallel) < config_key(b.parallel);
}

LandscapePoint point_of(const Estimate& e, int rank) {
  LandscapePoint p;
  p.parallel = e.parallel;
  p.step_time_s = e.step_time_s;
  p.memory_bytes = e.memory.total_bytes;
  p.mfu = e.mfu;
  p.bubble_fraction = e.bubble_fraction;
  p.rank = rank;
  return p;
}

/// `count` indices spread evenly over [0, size), first and last included.
std::vector<std::size_t> spread(std::size_t size, std::size_t count) {
  std::vector<std::size_t> out;
  if (size == 0 || count == 0) return out;
  if (count >= size) {
    for (std::size_t i = 0; i < size; ++i) out.push_back(i);
    return out;
  }
  if (count == 1) return {0};
  for (std::size_t i = 0; i < count; ++i) out.push_back(i * (size - 1) / (count - 1));
  return out;
}

/// One (tp, cp, pp) grid of the sampling rule and the values it samples of the other fields.
struct SampleGrid {
  ParallelConfig base;  ///< tp, cp, pp, dp and the pinned stage split
  std::vector<int> micro_batches, vpps, eps;
  long long count = 0;  ///< configurations: the product of every sampled field's values
};

/// The `count` smallest divisors of n, ascending (the micro-batch sizes a grid samples).
std::vector<int> smallest_divisors(long long n, int count) {
  std::vector<int> small;
  std::vector<int> large;  // n / d for the small d, descending
  for (long long d = 1; d * d <= n && static_cast<int>(small.size()) < count; ++d) {
    if (n % d == 0) {
      small.push_back(static_cast<int>(d));
      if (d * d != n) large.push_back(static_cast<int>(n / d));
    }
  }
  for (auto it = large.rbegin(); it != large.rend() && static_cast<int>(small.size()) < count;
       ++it) {
    if (*it > small.back()) small.push_back(*it);
  }
  return small;
}

/// The grids of the landscape's sampling rule (landscape.h), without their configurations,
/// which are decoded only for the indices the stride picks (the space may be millions).
std::vector<SampleGrid> sample_grids(const Scenario& scenario, std::size_t field_values) {
  std::vector<SampleGrid> grids;
  const ParallelConstraints& pin = scenario.parallel;
  const ModelSpec& model = scenario.model;
  const long long gpus = scenario.cluster.gpus;
  const int global_batch = scenario.training.global_batch;
  const bool is_moe = model.moe && model.moe->experts > 0;
  std::map<int, std::vector<int>> micro_batches_of_dp;  // dp repeats across grids
  for (int tp : pin_or_candidates(pin.tp, divisors(gpus))) {
    if (tp < 1 || gpus % tp != 0) continue;
    for (int cp : pin_or_candidates(pin.cp, divisors(gpus / tp))) {
      if (cp < 1 || (gpus / tp) % cp != 0) continue;
      for (int pp : pin_or_candidates(pin.pp, divisors(gpus / tp / cp))) {
        if (pp < 1 || (gpus / tp / cp) % pp != 0) continue;
        SampleGrid g;
        ParallelConfig& base = g.base;
        base.tp = tp;
        base.cp = cp;
        base.pp = pp;
        base.dp = static_cast<int>(gpus / tp / cp / pp);
        if (pin.dp && *pin.dp != base.dp) continue;
        if (global_batch % base.dp != 0) continue;
        base.first_stage_layers = pin.first_stage_layers.value_or(0);
        base.last_stage_layers = pin.last_stage_layers.value_or(0);
        base.recompute_modules = pin.recompute_modules.value_or(0);
        base.sequence_parallel = tp > 1 && pin.sequence_parallel.value_or(true);
        // Expert TP follows TP unless the experts cannot split that way (the search tries both).
        base.etp = pin.etp.value_or(0);
        if (is_moe && searches_expert_tp(scenario) && !expert_width_splits(*model.moe, tp)) base.etp = 1;
        const StageSplit split =
            split_layers(model.layers, pp, base.first_stage_layers, base.last_stage_layers);
        if (first_structural_error(scenario, base, split)) continue;

        auto cached = micro_batches_of_dp.find(base.dp);
        if (cached == micro_batches_of_dp.end()) {
          cached = micro_batches_of_dp
                       .emplace(base.dp,
                                smallest_divisors(global_batch / base.dp, kLandscapeMicroBatches))
                       .first;
        }
        g.micro_batches = pin_or_candidates(pin.micro_batch, cached->second);
        g.vpps = {1};
        if (pp > 1 && split.valid) {
          const std::vector<int> units =
              divisors(std::max(split.units_per_stage, split.max_layers()));
          for (auto v = units.rbegin(); v != units.rend(); ++v) {
            if (*v > 1 && vpp_divides(split, *v)) {
              g.vpps.push_back(*v);
              break;
            }
          }
        }
        g.vpps = pin_or_candidates(pin.vpp, g.vpps);
        g.eps = {1};
        if (is_moe) {
          ParallelConfig with_ep = base;
          for (int ep : divisors(model.moe->experts)) {
            with_ep.ep = ep;
            if (expert_grid_tiles(with_ep)) g.eps = {ep};
          }
        }
        g.eps = pin_or_candidates(pin.ep, g.eps);
        g.count = static_cast<long long>(g.micro_batches.size() * g.vpps.size() * g.eps.size() *
                                         field_values);
        grids.push_back(std::move(g));
      }
    }
  }
  return grids;
}

}  // namespace

std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& time_memory) {
  std::vector<std::size_t> order(time_memory.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return time_memory[a] < time_memory[b]; });
  // Sweep by step time: a point is on the front when it is leaner than everything faster.
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    if (front.empty() || time_memory[i].second < time_memory[front.back()].second) {
      front.push_back(i);
    }
  }
  return front;
}

Landscape landscape(const Scenario& scenario, const std::vector<Estimate>& ranked) {
  Landscape out;
  out.capacity_bytes = scenario.cluster.gpu.memory_bytes;
  const ParallelConstraints& pin = scenario.parallel;
  const std::vector<Recompute> recomputes =
      pin.recompute
          ? std::vector<Recompute>{*pin.recompute}
          : std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  const std::vector<int> zeros = pin_or_candidates(pin.zero, {0, 1, 2, 3});
  const std::vector<SampleGrid> grids = sample_grids(scenario, recomputes.size() * zeros.size());
  std::vector<long long> first_of_grid;  // index of each grid's first configuration
  for (const SampleGrid& g : grids) {
    first_of_grid.push_back(out.candidates);
    out.candidates += g.count;
  }
  const std::vector<std::size_t> picked =
      spread(static_cast<std::size_t>(out.candidates),
             static_cast<std::size_t>(std::min(out.candidates, kLandscapeMaxEvaluations)));

  // Layer times depend on (tp, cp, ep, expert TP, micro_batch, sp, recompute) only: compute each once.
  std::map<std::array<int, 7>, LayerTimesPair> layer_cache;
  std::map<decltype(config_key(ParallelConfig{})), int> rank_of;
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    rank_of.emplace(config_key(ranked[r].parallel), int(r));
  }

  std::vector<LandscapePoint> all;
  std::vector<bool> ranked_seen(ranked.size(), false);
  for (std::size_t index : picked) {
    // Decode the index: its grid, then mixed-radix over (micro-batch, vpp, ep, recompute, zero).
    const auto at = std::upper_bound(first_of_grid.begin(), first_of_grid.end(),
                                     static_cast<long long>(index)) -
                    1;
    const SampleGrid& g = grids[static_cast<std::size_t>(at - first_of_grid.begin())];
    long long rest = static_cast<long long>(index) - *at;
    ParallelConfig p = g.base;
    p.zero = zeros[static_cast<std::size_t>(rest % static_cast<long long>(zeros.size()))];
    rest /= static_cast<long long>(zeros.size());
    p.recompute =
        recomputes[static_cast<std::size_t>(rest % static_cast<long long>(recomputes.size()))];
    rest /= static_cast<long long>(recomputes.size());
    p.ep = g.eps[static_cast<std::size_t>(rest % static_cast<long long>(g.eps.size()))];
    if (!scenario.parallel.etp && p.etp == 0) p.etp = default_expert_tp(p, scenario.model.moe);
    rest /= static_cast<long long>(g.eps.size());
    p.vpp = g.vpps[static_cast<std::size_t>(rest % static_cast<long long>(g.vpps.size()))];
    rest /= static_cast<long long>(g.vpps.size());
    p.micro_batch = g.micro_batches[static_cast<std::size_t>(rest)];
    ++out.evaluated;
    const std::array<int, 7> key{
        p.tp, p.cp, p.ep, expert_tp(p), p.micro_batch, int(p.sequence_parallel), int(p.recompute)};
    auto cached = layer_cache.find(key);
    if (cached == layer_cache.end()) {
      cached = layer_cache.emplace(key, layer_times_for(scenario, p)).first;
    }
    EvaluateOptions fast;
    fast.detailed = false;
    fast.layer_times = &cached->second;
    const Estimate e = evaluate(scenario, p, fast);
    // What the framework cannot run is not a point, as it is not a plan (search.cpp).
    if (!e.feasible || first_framework_problem(scenario, p)) continue;
    const auto r = rank_of.find(config_key(p));
    const int rank = r == rank_of.end() ? -1 : r->second;
    if (rank >= 0) ranked_seen[rank] = true;
    all.push_back(point_of(e, rank));
  }
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    if (!ranked_seen[r] && ranked[r].feasible) all.push_back(point_of(ranked[r], int(r)));
  }
  out.feasible = static_cast<long long>(all.size());
  std::sort(all.begin(), all.end(), faster);

  std::vector<std::pair<double, double>> pairs;
  pairs.reserve(all.size());
  for (const LandscapePoint& p : all) pairs.emplace_back(p.step_time_s, p.memory_bytes);
  const std::vector<std::size_t> front = pareto_front(pairs);
  for (std::size_t i : front) all[i].pareto = true;
  out.pareto_points = static_cast<int>(front.size());

  // Keep the ranked plans, then the front (spread when it alone would fill the plot), then an
  // even spread of the rest over step time.
  std::vector<bool> keep(all.size(), false);
  std::size_t kept = 0;
  auto take = [&](std::size_t i) {
    if (!keep[i] && kept < static_cast<std::size_t>(kLandscapeMaxPoints)) {
      keep[i] = true;
      ++kept;
    }
  };
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].rank >= 0) take(i);
  }
  for (std::size_t f : spread(front.size(), kLandscapeMaxPoints / 2)) take(front[f]);
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!keep[i]) rest.push_back(i);
  }
  for (std::size_t r : spread(rest.size(), kLandscapeMaxPoints - kept)) take(rest[r]);
  // The kept points get the figures the plan command would report (MFU needs the detailed pass).
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!keep[i]) continue;
    const Estimate e = all[i].rank >= 0 ? ranked[all[i].rank] : evaluate(scenario, all[i].parallel);
    LandscapePoint p = point_of(e, all[i].rank);
    p.pareto = all[i].pareto;
    out.points.push_back(p);
  }
  return out;
}

std::vector<long long> scaling_gpu_counts(long long gpus, int gpus_per_node) {
  std::vector<long long> counts;
  const long long node = std::max(1, gpus_per_node);
  for (int k = -3; k <= 3; ++k) {
    long long n = gpus;
    if (k < 0) {
      const double scaled = static_cast<double>(gpus) / static_cast<double>(1LL << -k);
      n = std::max(node,
                   static_cast<long long>(std::llround(scaled / static_cast<double>(node))) * node);
      if (n >= gpus) continue;
    } else if (k > 0) {
      if (gpus > kSweepMaxGpus >> k) continue;
      n = gpus << k;
    }
    if (n < 1 || n > kSweepMaxGpus) continue;
    if (std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

namespace {

/// The scenario on `gpus` GPUs, dp free (it follows the count).
Scenario on_gpus(const Scenario& scenario, long long gpus) {
  Scenario s = scenario;
  s.cluster.gpus = static_cast<int>(gpus);
  s.parallel.dp.reset();
  return s;
}

std::optional<Estimate> best_plan(const Scenario& scenario, SearchStats* stats = nullptr) {
  SearchOptions options;
  options.top = 1;
  SearchResult result = search(scenario, options);
  if (stats) *stats = result.stats;
  if (result.plans.empty()) return std::nullopt;
  return std::move(result.plans.front());
}

}  // namespace

std::vector<ScalingPoint> scaling_sweep(const Scenario& scenario) {
  std::vector<ScalingPoint> out;
  for (long long gpus : scaling_gpu_counts(scenario.cluster.gpus, scenario.cluster.gpus_per_node)) {
    ScalingPoint point;
    point.gpus = gpus;
    SearchStats stats;
    point.plan = best_plan(on_gpus(scenario, gpus), &stats);
    if (!point.plan) {
      // The most frequent reason; ties go to the first code in order (the map is sorted).
      for (const auto& kv : stats.rejected_by_reason) {
        if (kv.second > point.rejected) {
          point.reason = kv.first;
          point.rejected = kv.second;
        }
      }
      if (point.reason.empty()) point.reason = "plan.infeasible";
    }
    out.push_back(std::move(point));
  }
  return out;
}

NearestGpuCounts nearest_gpu_counts(const Scenario& scenario) {
  NearestGpuCounts out;
  const long long gpus = scenario.cluster.gpus;
  const long long step =
      gpus >= scenario.cluster.gpus_per_node ? std::max(1, scenario.cluster.gpus_per_node) : 1;
  long long below = (gpus - 1) / step * step;  // largest multiple below
  long long above = (gpus / step + 1) * step;  // smallest multiple above
  long long configs = 0;
  while (out.searched < kNearestMaxSearches && configs < kNearestMaxConfigs) {
    const bool below_open = !out.below && below >= 1;
    const bool above_open = !out.above && above <= kSweepMaxGpus;
    if (!below_open && !above_open) break;
    const bool go_below = below_open && (!above_open || gpus - below <= above - gpus);
    const long long n = go_below ? below : above;
    ++out.searched;
    SearchStats stats;
    std::optional<Estimate> plan = best_plan(on_gpus(scenario, n), &stats);
    configs += stats.configs_evaluated;
    if (go_below) {
      if (plan) {
        out.below = std::move(plan);
        out.below_gpus = n;
      }
      below -= step;
    } else {
      if (plan) {
        out.above = std::move(plan);
        out.above_gpus = n;
      }
      above += step;
    }
  }
  return out;
}

}  // namespace pplan
