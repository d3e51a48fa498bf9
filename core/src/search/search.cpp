#include "pplan/search/search.h"

#include "pplan/model/memory.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <map>
#include <tuple>

namespace pplan {

std::vector<int> divisors(long long n) {
  std::vector<int> small, large;
  for (long long d = 1; d * d <= n; ++d) {
    if (n % d == 0) {
      small.push_back(static_cast<int>(d));
      if (d * d != n) large.push_back(static_cast<int>(n / d));
    }
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

namespace {

std::vector<int> pinned_or(const std::optional<int>& pin, std::vector<int> candidates) {
  if (!pin) return candidates;
  return std::find(candidates.begin(), candidates.end(), *pin) != candidates.end()
             ? std::vector<int>{*pin}
             : std::vector<int>{};
}

/// Total order for ranking: faster first, then less memory, then simpler layouts.
bool better(const Estimate& a, const Estimate& b) {
  if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
  if (a.memory.total_bytes != b.memory.total_bytes) return a.memory.total_bytes < b.memory.total_bytes;
  const ParallelConfig& x = a.parallel;
  const ParallelConfig& y = b.parallel;
  return std::make_tuple(x.tp, x.pp, x.cp, x.ep, x.vpp, x.zero, int(x.recompute), x.micro_batch,
                         int(x.sequence_parallel)) <
         std::make_tuple(y.tp, y.pp, y.cp, y.ep, y.vpp, y.zero, int(y.recompute), y.micro_batch,
                         int(y.sequence_parallel));
}

void keep_top(std::vector<Estimate>& kept, Estimate candidate, int top,
              bool (*less)(const Estimate&, const Estimate&)) {
  if (top <= 0) return;
  if (static_cast<int>(kept.size()) >= top && !less(candidate, kept.back())) return;
  auto at = std::upper_bound(kept.begin(), kept.end(), candidate, less);
  kept.insert(at, std::move(candidate));
  if (static_cast<int>(kept.size()) > top) kept.pop_back();
}

bool less_over_memory(const Estimate& a, const Estimate& b) {
  const double ra = a.memory.total_bytes / a.memory.capacity_bytes;
  const double rb = b.memory.total_bytes / b.memory.capacity_bytes;
  if (ra != rb) return ra < rb;
  return better(a, b);
}

}  // namespace

SearchResult search(const Scenario& scenario, const SearchOptions& options) {
  SearchResult result;
  SearchStats& stats = result.stats;
  const ModelSpec& model = scenario.model;
  const ParallelConstraints& pin = scenario.parallel;
  const long long gpus = scenario.cluster.gpus;
  const int global_batch = scenario.training.global_batch;
  const bool is_moe = model.moe && model.moe->experts > 0;
  // Codes are string literals: count them by view, without allocating per rejection.
  std::map<std::string_view, long long> rejected;
  auto reject = [&stats, &rejected](std::string_view code, long long count) {
    rejected[code] += count;
    stats.configs_evaluated += count;
  };

  const std::vector<Recompute> recomputes =
      pin.recompute ? std::vector<Recompute>{*pin.recompute}
                    : std::vector<Recompute>{Recompute::kFull, Recompute::kSelective, Recompute::kNone};
  const std::vector<int> zeros = pinned_or(pin.zero, {0, 1, 2, 3});

  for (int tp : pinned_or(pin.tp, divisors(gpus))) {
    for (int cp : pinned_or(pin.cp, divisors(gpus / tp))) {
      // Layer times depend on (tp, cp) and (micro_batch, ep, sp, recompute) only.
      std::map<std::array<int, 4>, LayerTimesPair> layer_cache;
      for (int pp : pinned_or(pin.pp, divisors(gpus / tp / cp))) {
        if (stats.capped) break;
        const int dp = static_cast<int>(gpus / tp / cp / pp);
        if (pin.dp && *pin.dp != dp) continue;
        // The inner space size, to count a rejected subtree per configuration it covers.
        // EP must divide both the experts and dp·cp (the expert grid is carved out of DP×CP);
        // candidates that break the second rule are counted as rejected, not evaluated.
        std::vector<int> eps =
            pinned_or(pin.ep, is_moe ? divisors(std::max(1, model.moe->experts)) : std::vector<int>{1});
        const long long dp_cp = 1LL * dp * cp;
        const auto ep_misfit =
            std::stable_partition(eps.begin(), eps.end(), [dp_cp](int ep) { return dp_cp % ep == 0; });
        const long long ep_rejected = static_cast<long long>(eps.end() - ep_misfit);
        const std::vector<int> sps = pin.sequence_parallel
                                         ? std::vector<int>{int(*pin.sequence_parallel && tp > 1)}
                                         : (tp > 1 ? std::vector<int>{0, 1} : std::vector<int>{0});
        const long long inner_per_mb_vpp =
            static_cast<long long>(eps.size() * sps.size() * recomputes.size() * zeros.size());
        eps.erase(ep_misfit, eps.end());

        ParallelConfig base;
        base.tp = tp;
        base.cp = cp;
        base.pp = pp;
        base.dp = dp;
        base.first_stage_layers = pin.first_stage_layers.value_or(0);
        base.recompute_layers = pin.recompute_layers.value_or(0);
        base.last_stage_layers = pin.last_stage_layers.value_or(0);
        const StageSplit split = split_layers(model.layers, pp, base.first_stage_layers,
                                              base.last_stage_layers);
        // Structural rejections that hold for every micro-batch, vpp, ep, sp, recompute, zero
        // (batch divisibility at micro-batch 1 is global_batch % dp, counted just below).
        const char* blocking = first_structural_error(scenario, base, split);
        if (global_batch % dp != 0) {
          reject("plan.batch_not_divisible", inner_per_mb_vpp);
          continue;
        }
        const std::vector<int> micro_batches = pinned_or(pin.micro_batch, divisors(global_batch / dp));
        std::vector<int> vpps{1};
        if (pp > 1 && split.valid) {
          const int unit = split.units_per_stage > 0
                               ? split.units_per_stage
                               : std::max(1, std::min({split.first_layers, split.last_layers,
                                                       split.middle_layers > 0 ? split.middle_layers
                                                                               : split.first_layers}));
          for (int v : divisors(unit)) {
            if (v > 1 && vpp_divides(split, v)) vpps.push_back(v);
          }
        }
        vpps = pinned_or(pin.vpp, vpps);
        const long long ep_rejected_total =
            ep_rejected * static_cast<long long>(sps.size() * recomputes.size() * zeros.size() *
                                                 micro_batches.size() * vpps.size());
        if (blocking) {
          reject(blocking, inner_per_mb_vpp * static_cast<long long>(micro_batches.size() * vpps.size()));
          continue;
        }
        if (ep_rejected_total > 0) reject("plan.ep_not_divisible", ep_rejected_total);
        const double capacity = scenario.cluster.gpu.memory_bytes;
        const long long inner_per_vpp =
            static_cast<long long>(eps.size() * sps.size() * recomputes.size() * zeros.size());
        // Interleaving needs m >= pp and m % pp == 0 (Megatron's schedule check).
        auto vpp_schedule_ok = [&](int mb, int vpp) {
          const long long m = global_batch / (1LL * dp * mb);
          return vpp <= 1 || (m >= pp && m % pp == 0);
        };
        for (std::size_t mb_index = 0; mb_index < micro_batches.size() && !stats.capped; ++mb_index) {
          const int mb = micro_batches[mb_index];
          bool any_fit = false;
          bool all_checked = true;
          for (int vpp : vpps) {
            if (!vpp_schedule_ok(mb, vpp)) {
              reject("plan.vpp_microbatches", inner_per_vpp);
              all_checked = false;
              continue;
            }
            for (int ep : eps) {
              for (int sp : sps) {
                for (int zero : zeros) {
                  // Recompute candidates run from least to most memory (full, selective, none):
                  // once one does not fit, the rest cannot either.
                  for (std::size_t r = 0; r < recomputes.size(); ++r) {
                    if (stats.configs_evaluated >= options.max_configs) {
                      stats.capped = true;
                      break;
                    }
                    ParallelConfig p = base;
                    p.micro_batch = mb;
                    p.vpp = vpp;
                    p.ep = ep;
                    p.sequence_parallel = sp != 0;
                    p.recompute = recomputes[r];
                    p.zero = zero;
                    StageMemory peak = peak_stage_memory(scenario, p, split);
                    if (p.recompute == Recompute::kFull && !pin.recompute && !pin.recompute_layers &&
                        peak.total_bytes() <= capacity) {
                      // Recompute only as many layers per chunk as memory needs (Megatron's
                      // block method): memory falls with every recomputed layer, so the
                      // fewest that fit are found by bisection. A pinned "full" means every
                      // layer, as Megatron's uniform method does.
                      const int chunk = (split.max_layers() + vpp - 1) / vpp;
                      int lo = 1, hi = chunk;
                      while (lo < hi) {
                        const int mid = lo + (hi - lo) / 2;
                        p.recompute_layers = mid;
                        if (peak_stage_memory(scenario, p, split).total_bytes() <= capacity) {
                          hi = mid;
                        } else {
                          lo = mid + 1;
                        }
                      }
                      p.recompute_layers = lo >= chunk ? 0 : lo;
                      if (p.recompute_layers > 0) peak = peak_stage_memory(scenario, p, split);
                    }
                    const double memory = peak.total_bytes();
                    if (memory > capacity) {
                      reject("plan.out_of_memory", static_cast<long long>(recomputes.size() - r));
                      const double ratio = memory / capacity;
                      if (result.nearest_infeasible.size() < 3 ||
                          ratio < result.nearest_infeasible.back().memory.total_bytes /
                                      result.nearest_infeasible.back().memory.capacity_bytes) {
                        EvaluateOptions fast;
                        fast.detailed = false;
                        keep_top(result.nearest_infeasible, evaluate(scenario, p, fast), 3,
                                 less_over_memory);
                      }
                      break;
                    }
                    any_fit = true;
                    const std::array<int, 4> key{mb, ep, sp, int(p.recompute)};
                    auto cached = layer_cache.find(key);
                    if (cached == layer_cache.end()) {
                      cached = layer_cache.emplace(key, layer_times_for(scenario, p)).first;
                    }
                    // Bound: every micro-batch and the bubble pass through the fullest stage,
                    // so (m + (p−1)/v) · its layers · the cheaper layer time cannot be beaten.
                    // A plan whose bound already loses to the kept ones cannot win.
                    if (static_cast<int>(result.plans.size()) >= options.top) {
                      const LayerTimesPair& lt = cached->second;
                      const double m = double(global_batch) / (double(dp) * mb);
                      const double bound = (m + (pp - 1.0) / vpp) * split.max_layers() *
                                           std::min(lt.dense.total_s(), lt.moe.total_s());
                      if (bound > result.plans.back().step_time_s) {
                        if (const char* code = first_structural_error(scenario, p, split)) {
                          reject(code, 1);
                        } else {
                          ++stats.configs_evaluated;
                          ++stats.feasible;
                        }
                        continue;
                      }
                    }
                    EvaluateOptions fast;
                    fast.detailed = false;
                    fast.layer_times = &cached->second;
                    fast.peak_memory = &peak;
                    Estimate e = evaluate(scenario, p, fast);
                    if (!e.feasible) {
                      reject(e.rejection_code, 1);
                      continue;
                    }
                    ++stats.configs_evaluated;
                    ++stats.feasible;
                    keep_top(result.plans, std::move(e), options.top, better);
                  }
                }
              }
            }
          }
          if (!any_fit && all_checked) {
            // Memory grows with the micro-batch: nothing larger fits either.
            for (std::size_t later = mb_index + 1; later < micro_batches.size(); ++later) {
              for (int vpp : vpps) {
                reject(vpp_schedule_ok(micro_batches[later], vpp) ? "plan.out_of_memory"
                                                                   : "plan.vpp_microbatches",
                       inner_per_vpp);
              }
            }
            break;
          }
        }
      }
    }
  }
  if (stats.configs_evaluated == 0) {
    // Pinned values no candidate list holds (a tp that does not divide the GPUs, a vpp that
    // does not divide the stages): evaluate the pinned plan itself so its reason shows.
    Estimate pinned = evaluate(scenario, resolve_defaults(scenario));
    reject(pinned.rejection_code ? pinned.rejection_code : "plan.infeasible", 1);
    if (!pinned.feasible) result.nearest_infeasible.push_back(std::move(pinned));
  }
  for (const auto& kv : rejected) stats.rejected_by_reason[std::string(kv.first)] += kv.second;
  // The search ranked on numbers alone; give the returned plans their messages and figures.
  for (Estimate& e : result.plans) e = evaluate(scenario, e.parallel);
  for (Estimate& e : result.nearest_infeasible) e = evaluate(scenario, e.parallel);
  return result;
}

}  // namespace pplan
