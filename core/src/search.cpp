#include "pplan/search.h"

#include <algorithm>
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
  auto reject = [&stats](const std::string& code, long long count) {
    stats.rejected_by_reason[code] += count;
    stats.configs_evaluated += count;
  };

  const std::vector<Recompute> recomputes =
      pin.recompute ? std::vector<Recompute>{*pin.recompute}
                    : std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  const std::vector<int> zeros = pinned_or(pin.zero, {0, 1, 2, 3});

  for (int tp : pinned_or(pin.tp, divisors(gpus))) {
    for (int cp : pinned_or(pin.cp, divisors(gpus / tp))) {
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
        base.last_stage_layers = pin.last_stage_layers.value_or(0);
        const StageSplit split = split_layers(model.layers, pp, base.first_stage_layers,
                                              base.last_stage_layers);
        // Structural rejections that hold for every micro-batch, vpp, ep, sp, recompute, zero.
        std::vector<Diagnostic> structural = check_structure(scenario, base, split);
        const Diagnostic* blocking = nullptr;
        for (const Diagnostic& d : structural) {
          if (d.severity == Severity::kError && d.code != "plan.batch_not_divisible") {
            blocking = &d;
            break;
          }
        }
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
          reject(blocking->code, inner_per_mb_vpp * static_cast<long long>(micro_batches.size() * vpps.size()));
          continue;
        }
        if (ep_rejected_total > 0) reject("plan.ep_not_divisible", ep_rejected_total);
        for (int mb : micro_batches) {
          for (int vpp : vpps) {
            for (int ep : eps) {
              for (int sp : sps) {
                for (Recompute rc : recomputes) {
                  for (int zero : zeros) {
                    if (stats.configs_evaluated >= options.max_configs) {
                      stats.capped = true;
                      break;
                    }
                    ParallelConfig p = base;
                    p.micro_batch = mb;
                    p.vpp = vpp;
                    p.ep = ep;
                    p.sequence_parallel = sp != 0;
                    p.recompute = rc;
                    p.zero = zero;
                    Estimate e = evaluate(scenario, p);
                    if (!e.feasible) {
                      const Diagnostic* first = nullptr;
                      for (const Diagnostic& d : e.diagnostics) {
                        if (d.severity == Severity::kError) { first = &d; break; }
                      }
                      reject(first ? first->code : "plan.infeasible", 1);
                      if (first && first->code == "plan.out_of_memory") {
                        keep_top(result.nearest_infeasible, std::move(e), 3, less_over_memory);
                      }
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
        }
      }
    }
  }
  return result;
}

}  // namespace pplan
