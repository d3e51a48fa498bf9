#include "pplan/search/search.h"

#include "pplan/framework/framework.h"
#include "pplan/framework/rules.h"
#include "pplan/model/architecture.h"
#include "pplan/model/compute.h"
#include "pplan/model/memory.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace pplan {

std::string capped_reason(const SearchResult& result, const SearchOptions& options) {
  const SearchStats& s = result.stats;
  if (!s.capped) return "";
  const std::string why = s.capped_by == "time"
                              ? "it ran out of its " + std::to_string(static_cast<int>(options.time_budget_s)) +
                                    " s time budget"
                              : "it scored its cap of " + std::to_string(options.max_configs) + " configurations";
  return "The search stopped early: " + why + " at tp " + std::to_string(s.capped_at_tp) + ", cp " +
         std::to_string(s.capped_at_cp) + ", pp " + std::to_string(s.capped_at_pp) +
         " (it visits the tp inside the NVLink domain in turn before the others, each coarse "
         "to fine over cp·pp), so these are the best plans of those it reached, not necessarily of "
         "the whole space. Pin tp, pp or cp to narrow it.";
}

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

/// Rank of a ZeRO stage in simplicity: the distributed optimizer (ZeRO-1) first, then plain
/// DP, then the sharded-gradient and sharded-weight stages.
int zero_rank(int zero) { return zero == 1 ? 0 : zero == 0 ? 1 : zero; }

auto simplicity_key(const Estimate& e) {
  const ParallelConfig& p = e.parallel;
  // Partial full recomputation of k layers sits between selective and full of every layer.
  const int recompute = p.recompute == Recompute::kFull ? (p.recompute_layers > 0 ? 2 : 3)
                        : p.recompute == Recompute::kSelective ? 1
                                                               : 0;
  return std::make_tuple(zero_rank(p.zero), p.cp, p.vpp, int(p.schedule), recompute, p.recompute_layers,
                         p.offload_layers, p.pp,
                         e.memory.total_bytes, p.tp, p.ep, int(expert_tp(p) != p.tp), p.micro_batch,
                         int(p.sequence_parallel));
}

/// Total order among plans of equal standing: faster first, then simpler.
bool faster(const Estimate& a, const Estimate& b) {
  if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
  return simplicity_key(a) < simplicity_key(b);
}

bool less_over_memory(const Estimate& a, const Estimate& b) {
  const double ra = a.memory.total_bytes / a.memory.capacity_bytes;
  const double rb = b.memory.total_bytes / b.memory.capacity_bytes;
  if (ra != rb) return ra < rb;
  return faster(a, b);
}

void keep_top(std::vector<Estimate>& kept, Estimate candidate, int top,
              bool (*less)(const Estimate&, const Estimate&)) {
  if (top <= 0) return;
  if (static_cast<int>(kept.size()) >= top && !less(candidate, kept.back())) return;
  auto at = std::upper_bound(kept.begin(), kept.end(), candidate, less);
  kept.insert(at, std::move(candidate));
  if (static_cast<int>(kept.size()) > top) kept.pop_back();
}

/// One layout family (tp, pp, cp, ep, etp, zero): its fastest plan and the simplest plans within the
/// tie tolerance of it (a few, in case the fastest improves and some drop out).
struct Family {
  double fastest_s = 0;
  std::vector<Estimate> tied;  ///< simplest first, each within tolerance of fastest_s
  long long variants = 0;      ///< configurations seen within the tolerance
};
constexpr std::size_t kTiedKept = 8;

using FamilyKey = std::array<int, 6>;

/// The families seen so far and the time the output's last family needs to beat.
class Families {
 public:
  Families(int top, double tolerance) : top_(top), tolerance_(tolerance) {}

  /// A configuration whose step cannot be shorter than this cannot enter the output.
  double threshold_s() const { return threshold_s_; }

  void add(Estimate e) {
    const ParallelConfig& p = e.parallel;
    const FamilyKey key{p.tp, p.pp, p.cp, p.ep, expert_tp(p), p.zero};
    auto it = families_.find(key);
    if (it == families_.end()) {
      Family f;
      f.fastest_s = e.step_time_s;
      f.variants = 1;
      f.tied.push_back(std::move(e));
      times_.insert(f.fastest_s);
      families_.emplace(key, std::move(f));
      update_threshold();
      return;
    }
    Family& f = it->second;
    if (e.step_time_s < f.fastest_s) {
      times_.erase(times_.find(f.fastest_s));
      f.fastest_s = e.step_time_s;
      times_.insert(f.fastest_s);
      update_threshold();
      const double limit = f.fastest_s * (1.0 + tolerance_);
      f.tied.erase(std::remove_if(f.tied.begin(), f.tied.end(),
                                  [limit](const Estimate& t) { return t.step_time_s > limit; }),
                   f.tied.end());
    }
    if (e.step_time_s > f.fastest_s * (1.0 + tolerance_)) return;
    ++f.variants;
    auto at = std::upper_bound(f.tied.begin(), f.tied.end(), e, simpler);
    f.tied.insert(at, std::move(e));
    if (f.tied.size() > kTiedKept) {
      // Keep the fastest one among those dropped from the tail: it anchors the family.
      auto fastest = std::min_element(f.tied.begin(), f.tied.end(), faster);
      if (fastest == f.tied.end() - 1) std::iter_swap(f.tied.end() - 2, f.tied.end() - 1);
      f.tied.pop_back();
    }
  }

  bool empty() const { return families_.empty(); }

  /// Recommended plan first (the simplest within tolerance of the fastest, over every
  /// family), then each other family's simplest tied plan, fastest first.
  void finish(SearchResult& result, int top) {
    std::vector<std::pair<Estimate, long long>> reps;
    std::optional<Estimate> fastest;
    for (auto& [key, f] : families_) {
      reps.emplace_back(f.tied.front(), f.variants);
      const Estimate& quickest = *std::min_element(f.tied.begin(), f.tied.end(), faster);
      if (!fastest || faster(quickest, *fastest)) fastest = quickest;
    }
    std::sort(reps.begin(), reps.end(), [](const auto& a, const auto& b) { return faster(a.first, b.first); });
    const double limit = fastest->step_time_s * (1.0 + tolerance_);
    std::size_t recommended = 0;
    for (std::size_t i = 1; i < reps.size() && reps[i].first.step_time_s <= limit; ++i) {
      if (simpler(reps[i].first, reps[recommended].first)) recommended = i;
    }
    std::rotate(reps.begin(), reps.begin() + static_cast<long>(recommended),
                reps.begin() + static_cast<long>(recommended) + 1);
    for (std::size_t i = 0; i < reps.size() && static_cast<int>(i) < top; ++i) {
      result.plans.push_back(std::move(reps[i].first));
    }
    result.recommended_variants = reps.empty() ? 0 : reps[0].second;
    if (!result.plans.empty() && faster(*fastest, result.plans[0])) result.fastest = fastest;
  }

 private:
  // Read per configuration, changed only when a family's fastest step does.
  void update_threshold() {
    if (static_cast<int>(times_.size()) < top_) return;
    auto nth = times_.begin();
    std::advance(nth, top_ - 1);
    threshold_s_ = *nth * (1.0 + tolerance_);
  }

  int top_;
  double tolerance_;
  double threshold_s_ = std::numeric_limits<double>::infinity();
  std::map<FamilyKey, Family> families_;
  std::multiset<double> times_;  ///< each family's fastest step
};

/// tp candidates in the order the likely optimum comes first: those inside one NVLink domain
/// (largest first: the heaviest traffic stays on NVLink), then the rest from small to large.
std::vector<int> tp_order(std::vector<int> candidates, int domain_gpus) {
  auto inside = [domain_gpus](int tp) { return tp <= domain_gpus; };
  const auto inside_end = std::stable_partition(candidates.begin(), candidates.end(), inside);
  std::reverse(candidates.begin(), inside_end);
  return candidates;
}

/// One (tp, cp, pp) of the walk; dp follows.
struct Grid {
  int tp, cp, pp;
};

/**
 * The (tp, cp, pp) grids in the order a capped walk should visit them: the tp inside the
 * NVLink domain in turn, then the others in turn (tp_order), each taking its next grid coarse to fine over the range of model-parallel sizes cp·pp, so
 * a cap thins every tp's grids evenly rather than cutting whole tp values or the large cp·pp. An uncapped walk
 * visits the same grids, so its answer does not depend on the order (the pruning is exact).
 */
std::vector<Grid> walk_order(const ParallelConstraints& pin, long long gpus, int domain_gpus,
                             bool one_stage_first) {
  std::vector<std::vector<Grid>> per_tp;
  for (int tp : tp_order(pinned_or(pin.tp, divisors(gpus)), domain_gpus)) {
    std::vector<Grid> grids;
    for (int cp : pinned_or(pin.cp, divisors(gpus / tp))) {
      for (int pp : pinned_or(pin.pp, divisors(gpus / tp / cp))) grids.push_back({tp, cp, pp});
    }
    std::stable_sort(grids.begin(), grids.end(), [](const Grid& a, const Grid& b) {
      return std::make_pair(1LL * a.cp * a.pp, a.cp) < std::make_pair(1LL * b.cp * b.pp, b.cp);
    });
    // Coarse to fine over that range (bit-reversed index order: first, middle, quarters, ...):
    // a huge model's best grid sits at a large cp·pp, which a walk from the small end would
    // reach last.
    std::size_t span = 1;
    int bits = 0;
    while (span < grids.size()) {
      span <<= 1;
      ++bits;
    }
    std::vector<Grid> spread;
    spread.reserve(grids.size());
    for (std::size_t i = 0; i < span; ++i) {
      std::size_t reversed = 0;
      for (int b = 0; b < bits; ++b) reversed |= ((i >> b) & 1u) << (bits - 1 - b);
      if (reversed < grids.size()) spread.push_back(grids[reversed]);
    }
    // Where activations can be offloaded, the one-stage grids first: offloading can make them fit
    // where recomputation cannot, and they sit at the small end of cp·pp, which the spread
    // reaches late.
    if (one_stage_first) {
      std::stable_partition(spread.begin(), spread.end(), [](const Grid& g) { return g.pp == 1; });
    }
    per_tp.push_back(std::move(spread));
  }
  // Round robin over the tp inside the NVLink domain, then over the rest.
  std::vector<Grid> order;
  const auto inside_end = std::find_if(per_tp.begin(), per_tp.end(), [domain_gpus](const auto& g) {
    return !g.empty() && g.front().tp > domain_gpus;
  });
  for (auto [from, to] : {std::make_pair(per_tp.begin(), inside_end),
                          std::make_pair(inside_end, per_tp.end())}) {
    for (std::size_t round = 0;; ++round) {
      bool any = false;
      for (auto grids = from; grids != to; ++grids) {
        if (round < grids->size()) {
          order.push_back((*grids)[round]);
          any = true;
        }
      }
      if (!any) break;
    }
  }
  return order;
}

}  // namespace

bool simpler(const Estimate& a, const Estimate& b) { return simplicity_key(a) < simplicity_key(b); }

bool searches_expert_tp(const Scenario& scenario) {
  const bool moe = scenario.model.moe && scenario.model.moe->experts > 0;
  return moe && !scenario.parallel.etp && !scenario.parallel.tp;
}

namespace {

/// Layer times depend on (tp, cp, micro_batch, ep, etp, sp, the all-to-all's overlap) and the
/// recompute kind only. The bound reads each kind's whole MoE layer time per configuration (the
/// dense layer's, which does not depend on ep or etp, it reads from LayerFloor); evaluate() reads
/// the MoE layer's times themselves. Kept for every key timed: the floors leave a few thousand
/// (DeepSeek-V3 on 2,048 GPUs: under 3,000 keys, under 1 MB).
struct LayerTotals {
  std::array<double, 3> moe_s{};  ///< by Recompute
  LayerTimes moe;                 ///< before recomputation
};
using LayerKey = std::array<int, 7>;
/// Per (tp, cp, micro_batch, sp): the dense layer's totals by kind, exact, and a floor under the
/// MoE layer's for every expert layout and kind (compute.h layer_time_floor_s): a layout whose
/// bound loses even at the floor is pruned without timing it.
struct LayerFloor {
  std::array<double, 3> dense_s{};  ///< by Recompute
  double moe_s = 0;
};
/// The layers' activation parts at one expert TP and recompute kind (they read neither pp,
/// dp nor ep: every grid of one (tp, cp) shares them).
struct ActivationPartsEntry {
  int etp = 0;  ///< expert_tp
  Recompute recompute = Recompute::kNone;
  LayerActivationParts parts;
};
/// Per (tp, cp, micro_batch, sp): the dense layer's times, the floor and the activation parts,
/// each once the search asks for it (one map for all, and arrays, not vectors: each container
/// the engine instantiates costs the page ~1 KB).
struct MicroBatchLayers {
  LayerTimes dense;  ///< before recomputation
  bool dense_ready = false;
  LayerFloor floor;
  bool floor_ready = false;
  /// At most 2 expert TPs (the pinned or tp, and 1) × 3 recompute kinds.
  std::array<ActivationPartsEntry, 6> activations;
  int activation_count = 0;
};
/// Per (tp, cp, sp): the dense and MoE layers' work floors at one micro-batch. A search has a
/// few dozen such keys: kept in a vector (a hash map of its own costs the page's engine 2 KB).
struct WorkFloor {
  int tp = 0, cp = 0, sp = 0;
  double dense_s = 0;
  double moe_s = 0;
};
struct LayerKeyHash {
  std::size_t operator()(const LayerKey& k) const {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the values
    for (int v : k) h = (h ^ static_cast<std::uint32_t>(v)) * 1099511628211ULL;
    return static_cast<std::size_t>(h);
  }
};

/// What the search learns of one (expert layout, sp) at one micro-batch (layout_loses, score).
struct LayoutEntry {
  const LayerTotals* totals = nullptr;  ///< its MoE layer's times, once timed
  double layout_s = -1;                 ///< what the layout adds to the MoE floor; < 0: not yet
  double dispatch_s = -1;               ///< its dispatch floor (the same at every sp); < 0: not yet
  double moe_floor_s = -1;              ///< the MoE layer's floor, GPU and host joined; < 0: not yet
  bool with_tiles = false;              ///< layout_s holds the experts' tiles too
};

/// An expert layout: EP and expert TP (0 = tp), the latter by its index in GridSpace::etps.
struct ExpertLayout {
  int ep = 1;
  std::size_t etp_index = 0;
};

/// What one grid (tp, cp, pp, dp) offers the inner loops: its candidate lists, its split, and
/// the memory parts computed once for it.
/// A pipeline schedule and its chunks per rank.
struct PipelineOption {
  ScheduleKind schedule = ScheduleKind::kOneFOneB;
  int vpp = 1;
};

/// What a schedule changes in a rank's parameters: nothing, DualPipe's mirrored second stage,
/// or a V's head on rank 0 (memory.h rank_params).
enum ParamsClass { kPlainParams, kDualPipeParams, kVShapeParams, kParamsClasses };
ParamsClass params_class(ScheduleKind schedule) {
  return schedule == ScheduleKind::kDualPipe ? kDualPipeParams : is_v_shape(schedule) ? kVShapeParams : kPlainParams;
}

struct GridSpace {
  ParallelConfig base;
  StageSplit split;
  std::vector<ExpertLayout> expert_layouts;
  std::vector<int> etps, sps, micro_batches;
  std::vector<PipelineOption> pipelines;
  /// [params class][expert layout], for the classes `pipelines` uses: the first layout's at once
  /// (its stages' layer counts serve every layout's time bounds), the others' when a candidate
  /// of theirs is first scored (most layouts of a large MoE space are pruned on time first).
  std::array<std::vector<CandidateStageParams>, kParamsClasses> params_by_layout;
  std::array<std::vector<char>, kParamsClasses> params_ready;
  std::array<ScheduleKind, kParamsClasses> params_schedule{};
  long long inner_per_vpp = 0;  ///< configurations per (micro-batch, pipeline option)

  /// The grid's base configuration at expert layout `l`.
  ParallelConfig with_layout(const ExpertLayout& l) const {
    ParallelConfig p = base;
    p.ep = l.ep;
    p.etp = etps[l.etp_index];
    return p;
  }
};

/// One pass of the search against `capacity_bytes` per GPU: the grids in walk order, each
/// grid's candidates scored (memory first, then the framework's rules, then a step-time bound,
/// then the estimate), the kept plans grouped into families.
class SearchPass {
 public:
  SearchPass(const Scenario& scenario, const SearchOptions& options, double capacity_bytes)
      : scenario_(scenario),
        options_(options),
        pin_(scenario.parallel),
        capacity_(capacity_bytes),
        families_(options.top, options.tie_tolerance),
        started_(std::chrono::steady_clock::now()),
        recomputes_(pin_.recompute ? std::vector<Recompute>{*pin_.recompute}
                                   : std::vector<Recompute>{Recompute::kFull, Recompute::kSelective,
                                                            Recompute::kNone}),
        zeros_(pinned_or(pin_.zero, {0, 1, 2, 3})),
        moe_layer_(first_moe_layer(scenario.model)) {}

  SearchResult run() {
    ParallelConfig one_stage;
    one_stage.pp = 1;
    const bool offload = may_offload_activations(one_stage);
    for (const Grid& grid : walk_order(pin_, scenario_.cluster.gpus, scenario_.cluster.nvlink_domain_gpus, offload)) {
      if (stats().capped) break;
      // Read the clock per grid as well: a space of mostly rejected configurations scores few,
      // so the check among scored ones alone could let its walk run far past the budget.
      if (over_time()) {
        stop("time", grid.tp, grid.cp, grid.pp);
        break;
      }
      search_grid(grid);
    }
    if (stats().configs_evaluated == 0) {
      // Pinned values no candidate list holds (a tp that does not divide the GPUs, a vpp that
      // does not divide the stages): evaluate the pinned plan itself so its reason shows.
      Estimate pinned = evaluate(scenario_, resolve_defaults(scenario_));
      reject(pinned.rejection_code ? pinned.rejection_code : "plan.infeasible", 1);
      if (!pinned.feasible) result_.nearest_infeasible.push_back(std::move(pinned));
    }
    for (const auto& kv : rejected_) stats().rejected_by_reason[std::string(kv.first)] += kv.second;
    if (!families_.empty()) families_.finish(result_, options_.top);
    return std::move(result_);
  }

 private:
  /// What the recompute loop does after one candidate.
  /// kTryOffload: this kind does not fit, nor do the heavier ones before "none", but "none" may
  /// with its activations offloaded: go straight to it.
  enum class Next { kCandidate, kLessRecompute, kTryOffload, kStop };

  SearchStats& stats() { return result_.stats; }

  bool over_time() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() >
           options_.time_budget_s;
  }

  void stop(const char* why, int tp, int cp, int pp) {
    stats().capped = true;
    stats().capped_by = why;
    stats().capped_at_tp = tp;
    stats().capped_at_cp = cp;
    stats().capped_at_pp = pp;
  }

  // Rejection codes are string literals, a dozen at most: found by address (the same code from
  // two files may have two addresses; the strings are merged at the end).
  void reject(const char* code, long long count) {
    auto it = std::find_if(rejected_.begin(), rejected_.end(), [code](const auto& r) { return r.first == code; });
    if (it == rejected_.end()) {
      rejected_.emplace_back(code, count);
    } else {
      it->second += count;
    }
    stats().configs_evaluated += count;
  }

  /// The schedule's micro-batch rule at micro-batch `mb` (specs.h, as evaluate checks it).
  const char* microbatch_problem(const ParallelConfig& base, int mb, const PipelineOption& option) const {
    const long long m = scenario_.training.global_batch / (1LL * base.dp * mb);
    return schedule_microbatch_problem(option.schedule, base.pp, m);
  }

  /// The (schedule, vpp) pairs to try: the pinned schedule, or the framework's own schedules
  /// (framework/rules.h framework_runs_schedule) at each vpp they run.
  std::vector<PipelineOption> pipeline_options(int pp, const std::vector<int>& vpps) const {
    std::vector<PipelineOption> out;
    const LaunchFramework framework = launch_framework_of(scenario_.training.framework);
    for (ScheduleKind schedule : kScheduleKinds) {
      if (pin_.schedule && schedule != *pin_.schedule) continue;
      // A pinned schedule is tried as it is; a searched one where it can run.
      if (!pin_.schedule && pp > 1 && schedule == ScheduleKind::kDualPipe && pp % 2 != 0) continue;
      if (!pin_.schedule && pp <= 1 && schedule != ScheduleKind::kOneFOneB) continue;
      for (int vpp : vpps) {
        if (pin_.schedule ? schedule_vpp_ok(schedule, vpp) || pin_.vpp
                          : schedule_vpp_ok(schedule, vpp) && (pp <= 1 || framework_runs_schedule(framework, schedule, vpp))) {
          out.push_back({schedule, vpp});
        }
      }
    }
    return out;
  }

  /// The grid's candidate lists, or nullopt when the whole grid is rejected (counted).
  std::optional<GridSpace> grid_space(const Grid& grid) {
    const ModelSpec& model = scenario_.model;
    const int global_batch = scenario_.training.global_batch;
    const bool is_moe = model.moe && model.moe->experts > 0;
    GridSpace g;
    const int tp = grid.tp, cp = grid.cp, pp = grid.pp;
    const int dp = static_cast<int>(scenario_.cluster.gpus / tp / cp / pp);
    if (pin_.dp && *pin_.dp != dp) return std::nullopt;
    g.base.tp = tp;
    g.base.cp = cp;
    g.base.pp = pp;
    g.base.dp = dp;
    g.base.first_stage_layers = pin_.first_stage_layers.value_or(0);
    g.base.recompute_layers = pin_.recompute_layers.value_or(0);
    g.base.recompute_modules = pin_.recompute_modules.value_or(0);
    g.base.last_stage_layers = pin_.last_stage_layers.value_or(0);
    g.base.offload_layers = pin_.offload_layers.value_or(0);
    // The inner space size, to count a rejected subtree per configuration it covers.
    // EP must divide the experts, etp the expert width, and etp·ep a stage's tp·cp·dp GPUs
    // (the expert grid folds over them); candidates that break the grid rules are counted as
    // rejected, not evaluated.
    const std::vector<int> eps =
        pinned_or(pin_.ep, is_moe ? divisors(std::max(1, model.moe->experts)) : std::vector<int>{1});
    g.etps = {pin_.etp.value_or(0)};
    // With tp free, expert TP 1 is searched beside tp; with tp pinned, expert TP is tp, or 1
    // where only 1 runs (default_expert_tp).
    const bool fold_freely = searches_expert_tp(scenario_) && tp > 1;
    const bool fold_where_needed = is_moe && tp > 1 && !pin_.etp && !fold_freely;
    if (fold_freely || fold_where_needed) g.etps.push_back(1);
    for (int ep : eps) {
      if (fold_where_needed) {
        ParallelConfig p = g.base;
        p.ep = ep;
        g.expert_layouts.push_back({ep, default_expert_tp(p, model.moe) == 1 ? std::size_t{1} : std::size_t{0}});
        continue;
      }
      for (std::size_t e = 0; e < g.etps.size(); ++e) g.expert_layouts.push_back({ep, e});
    }
    const auto layout_misfit = std::stable_partition(
        g.expert_layouts.begin(), g.expert_layouts.end(), [&](const ExpertLayout& l) {
          const ParallelConfig p = g.with_layout(l);
          return expert_grid_tiles(p) && (!is_moe || expert_width_splits(*model.moe, expert_tp(p)));
        });
    const long long ep_rejected = static_cast<long long>(g.expert_layouts.end() - layout_misfit);
    g.sps = pin_.sequence_parallel ? std::vector<int>{int(*pin_.sequence_parallel && tp > 1)}
                                   : (tp > 1 ? std::vector<int>{0, 1} : std::vector<int>{0});
    const long long inner_per_mb_vpp =
        static_cast<long long>(g.expert_layouts.size() * g.sps.size() * recomputes_.size() * zeros_.size());
    g.expert_layouts.erase(layout_misfit, g.expert_layouts.end());

    // The split at the pinned vpp and schedule, as evaluate() cuts it: a vpp that no even split
    // divides is cut by Megatron's pipeline layout.
    ParallelConfig pinned_pipeline = g.base;
    pinned_pipeline.vpp = pin_.vpp.value_or(1);
    pinned_pipeline.schedule = pin_.schedule.value_or(ScheduleKind::kOneFOneB);
    g.split = plan_split(model, pinned_pipeline);
    // Structural rejections that hold for every micro-batch, vpp, ep, sp, recompute, zero
    // (batch divisibility at micro-batch 1 is global_batch % dp, counted just below).
    const char* blocking = first_structural_error(scenario_, g.base, g.split);
    if (global_batch % dp != 0) {
      reject("plan.batch_not_divisible", inner_per_mb_vpp);
      return std::nullopt;
    }
    g.micro_batches = pinned_or(pin_.micro_batch, divisors(global_batch / dp));
    std::vector<int> vpps = {1};
    if (g.split.chunk_layers > 0) {
      vpps.push_back(g.split.layout_vpp);
    } else if (pp > 1 && g.split.valid) {
      const StageSplit& split = g.split;
      const int unit = split.units_per_stage > 0
                           ? split.units_per_stage
                           : std::max(1, std::min({split.first_layers, split.last_layers,
                                                   split.middle_layers > 0 ? split.middle_layers
                                                                           : split.first_layers}));
      for (int v : divisors(unit)) {
        if (v > 1 && vpp_divides(split, v)) vpps.push_back(v);
      }
    }
    g.pipelines = pipeline_options(pp, pinned_or(pin_.vpp, vpps));
    const long long ep_rejected_total =
        ep_rejected * static_cast<long long>(g.sps.size() * recomputes_.size() * zeros_.size() *
                                             g.micro_batches.size() * g.pipelines.size());
    if (blocking) {
      reject(blocking, inner_per_mb_vpp * static_cast<long long>(g.micro_batches.size() * g.pipelines.size()));
      return std::nullopt;
    }
    if (ep_rejected_total > 0) reject("plan.ep_not_divisible", ep_rejected_total);
    // Memory parts computed once: stage parameters per expert layout (activations per
    // micro-batch follow).
    for (const PipelineOption& option : g.pipelines) {
      const ParamsClass cls = params_class(option.schedule);
      if (!g.params_by_layout[cls].empty() || g.expert_layouts.empty()) continue;
      g.params_by_layout[cls].resize(g.expert_layouts.size());
      g.params_ready[cls].assign(g.expert_layouts.size(), 0);
      g.params_schedule[cls] = option.schedule;
      layout_params(g, cls, 0);
    }
    g.inner_per_vpp =
        static_cast<long long>(g.expert_layouts.size() * g.sps.size() * recomputes_.size() * zeros_.size());
    return g;
  }

  /// The stage parameters of expert layout `li` under schedules of class `cls`, computed once.
  const CandidateStageParams& layout_params(GridSpace& g, ParamsClass cls, std::size_t li) const {
    if (!g.params_ready[cls][li]) {
      ParallelConfig p = g.with_layout(g.expert_layouts[li]);
      p.schedule = g.params_schedule[cls];
      g.params_by_layout[cls][li] = candidate_stage_params(scenario_, p, g.split);
      g.params_ready[cls][li] = 1;
    }
    return g.params_by_layout[cls][li];
  }

  void search_grid(const Grid& grid) {
    std::optional<GridSpace> space = grid_space(grid);
    if (!space) return;
    GridSpace& g = *space;
    const std::size_t kinds = recomputes_.size();
    // Activations per (etp, sp, recompute): the MoE dispatch keeps etp/tp of its copies.
    const auto slot = [&](std::size_t etp_index, std::size_t si, std::size_t r) {
      return (etp_index * g.sps.size() + si) * kinds + r;
    };
    // Per (etp, sp, recompute) slot: the layers' activation parts at the micro-batch, and the
    // candidate stages' activation bytes at the pipeline option, each computed when a layout that
    // survives its time bounds first needs them (ready flags: 0 no, 1 parts, 2 both).
    std::vector<LayerActivationParts> activations(g.etps.size() * g.sps.size() * kinds);
    std::vector<CandidateActivations> stage_activations(activations.size());
    std::vector<char> slot_ready(activations.size());
    std::vector<LayoutEntry> entries;
    std::vector<const LayerFloor*> floors;
    for (std::size_t mb_index = 0; mb_index < g.micro_batches.size() && !stats().capped; ++mb_index) {
      const int mb = g.micro_batches[mb_index];
      std::fill(slot_ready.begin(), slot_ready.end(), 0);
      bool any_fit = false;
      bool all_checked = true;
      // Each (layout, sp)'s floors and layer times, looked up once per micro-batch when first
      // needed (they do not depend on vpp, ZeRO or the recompute kind). Times differ where the
      // schedule hides the all-to-all (DualPipe): two sets of entries.
      entries.assign(2 * g.expert_layouts.size() * g.sps.size(), LayoutEntry{});
      floors.assign(g.sps.size(), nullptr);  // per sp at this micro-batch
      for (const PipelineOption& option : g.pipelines) {
        const int vpp = option.vpp;
        if (const char* problem = microbatch_problem(g.base, mb, option)) {
          reject(problem, g.inner_per_vpp);
          all_checked = false;
          continue;
        }
        const ParamsClass cls = params_class(option.schedule);
        const std::vector<CandidateStageParams>& params_by_layout = g.params_by_layout[cls];
        if (!params_by_layout.empty() && block_loses(g, mb, option, params_by_layout.front(), floors)) {
          stats().configs_pruned += g.inner_per_vpp;
          stats().configs_evaluated += g.inner_per_vpp;
          all_checked = false;
          continue;
        }
        ParallelConfig scheduled = g.base;
        scheduled.schedule = option.schedule;
        const bool overlapped = overlaps_f_and_b(scenario_.training, scheduled);
        for (char& ready : slot_ready) ready = std::min<char>(ready, 1);  // a new option's bytes
        // Activation bytes per candidate stage, per (etp, sp, recompute): the candidate stages
        // and their layers come from the split alone, so one computation serves every ep and ZeRO.
        const auto ready_slot = [&](std::size_t e, std::size_t si, std::size_t r) {
          const std::size_t i = slot(e, si, r);
          if (slot_ready[i] == 2) return i;
          ParallelConfig shape = g.base;
          shape.etp = g.etps[e];
          shape.micro_batch = mb;
          shape.sequence_parallel = g.sps[si] != 0;
          shape.recompute = recomputes_[r];
          if (slot_ready[i] == 0) activations[i] = activation_parts(shape);
          shape.vpp = vpp;
          shape.schedule = option.schedule;
          stage_activations[i] = candidate_activation_bytes(scenario_, shape, params_by_layout.front(), activations[i]);
          slot_ready[i] = 2;
          return i;
        };
        for (std::size_t li = 0; li < g.expert_layouts.size(); ++li) {
          const ExpertLayout& layout = g.expert_layouts[li];
          for (std::size_t si = 0; si < g.sps.size(); ++si) {
            const std::size_t entry = ((overlapped ? g.expert_layouts.size() : 0) + li) * g.sps.size() + si;
            if (layout_loses(g, mb, option, layout, params_by_layout.front(), si, floors, entries[entry],
                             entries[entry - si])) {
              const long long pruned = static_cast<long long>(zeros_.size() * kinds);
              stats().configs_pruned += pruned;
              stats().configs_evaluated += pruned;
              all_checked = false;
              continue;
            }
            for (int zero : zeros_) {
              // Recompute candidates run from least to most memory (full, selective, none):
              // once one does not fit, the rest cannot either, but for no recomputation with
              // offloaded activations.
              for (std::size_t r = 0; r < kinds; ++r) {
                ParallelConfig p = g.with_layout(layout);
                p.micro_batch = mb;
                p.vpp = vpp;
                p.schedule = option.schedule;
                p.sequence_parallel = g.sps[si] != 0;
                p.recompute = recomputes_[r];
                p.zero = zero;
                const std::size_t i = ready_slot(layout.etp_index, si, r);
                const Next next = score(g, p, layout_params(g, cls, li), activations[i], stage_activations[i],
                                        kinds - r, any_fit,
                                        entries[entry].totals, floors[si], std::max(0.0, entries[entry].moe_floor_s));
                if (next == Next::kTryOffload) {
                  r = kinds - 2;  // the loop's ++r lands on "none", the last kind
                  continue;
                }
                if (next != Next::kCandidate) break;
              }
            }
          }
        }
      }
      if (!any_fit && all_checked) {
        // Memory grows with the micro-batch: nothing larger fits either.
        for (std::size_t later = mb_index + 1; later < g.micro_batches.size(); ++later) {
          for (const PipelineOption& option : g.pipelines) {
            const char* problem = microbatch_problem(g.base, g.micro_batches[later], option);
            reject(problem ? problem : "plan.out_of_memory", g.inner_per_vpp);
          }
        }
        break;
      }
    }
  }

  /// Recompute only as many layers per chunk as memory needs (Megatron's block method): memory
  /// falls with every recomputed layer, so the fewest that fit are found by bisection. A pinned
  /// "full" means every layer, as Megatron's uniform method does. Updates p and peak.
  void fewest_recomputed_layers(const GridSpace& g, const CandidateStageParams& stage_params,
                                const LayerActivationParts& layer_parts, ParallelConfig& p,
                                StageMemory& peak) const {
    const int chunk = (g.split.max_layers() + p.vpp - 1) / p.vpp;
    int lo = 1, hi = chunk;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      p.recompute_layers = mid;
      if (every_stage_fits(scenario_, p, stage_params, layer_parts, capacity_)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    p.recompute_layers = lo >= chunk ? 0 : lo;
    if (p.recompute_layers > 0) peak = peak_stage_memory(scenario_, p, stage_params, layer_parts);
  }

  /// Whether the search may offload p's activations (one stage, a framework that does, a GPU with
  /// a host link, the count not pinned).
  bool may_offload_activations(const ParallelConfig& p) const {
    return p.pp == 1 && !pin_.offload_layers && scenario_.cluster.gpu.host_link_bytes_per_s > 0 &&
           scenario_.cluster.gpu.host_memory_bytes > 0 && offloads_activations(scenario_.training);
  }

  /// Without recomputation on one stage, offload as few of the first layers' activations to host
  /// memory as make it fit (Megatron's --cpu-offloading-num-layers): memory falls by the same
  /// bytes with every offloaded layer (memory.cpp stage_activation_bytes), so one layer's saving
  /// gives the count, checked, then stepped up where rounding fell short. Leaves p and peak
  /// unchanged when even all but one do not fit.
  void fewest_offloaded_layers(const CandidateStageParams& stage_params, const LayerActivationParts& layer_parts,
                               ParallelConfig& p, StageMemory& peak) const {
    const int most = scenario_.model.layers - 1;  // transformer_config.py:1884
    if (most < 1) return;
    p.offload_layers = 1;
    const double saved_per_layer = peak.total_bytes() - peak_stage_memory(scenario_, p, stage_params, layer_parts).total_bytes();
    if (!(saved_per_layer > 0)) {
      p.offload_layers = 0;
      return;
    }
    const double needed = std::ceil((peak.total_bytes() - capacity_) / saved_per_layer);
    int k = static_cast<int>(std::clamp(needed, 1.0, double(most)));
    p.offload_layers = k;
    while (!every_stage_fits(scenario_, p, stage_params, layer_parts, capacity_)) {
      if (++k > most) {
        p.offload_layers = 0;
        return;
      }
      p.offload_layers = k;
    }
    // Rounding may also overshoot by one: the count below fits too when it does.
    if (k > 1) {
      p.offload_layers = k - 1;
      if (every_stage_fits(scenario_, p, stage_params, layer_parts, capacity_)) --k;
      p.offload_layers = k;
    }
    // The fewest that fit the GPU must also fit the host's share of DRAM (more only need more).
    if (offloaded_activation_bytes(scenario_, p) > usable_host_memory_bytes(scenario_)) {
      p.offload_layers = 0;
      return;
    }
    peak = peak_stage_memory(scenario_, p, stage_params, layer_parts);
  }

  /// Keeps the three plans nearest to fitting (by memory over capacity) to show when none fits.
  void remember_near_miss(const ParallelConfig& p, double memory) {
    const double ratio = memory / capacity_;
    std::vector<Estimate>& near = result_.nearest_infeasible;
    if (near.size() < 3 || ratio < near.back().memory.total_bytes / near.back().memory.capacity_bytes) {
      EvaluateOptions fast;
      fast.detailed = false;
      keep_top(near, evaluate(scenario_, p, fast), 3, less_over_memory);
    }
  }

  LayerKey layer_key(const ParallelConfig& p) const {
    return {p.tp, p.cp, p.micro_batch, p.ep, expert_tp(p), int(p.sequence_parallel),
            int(overlaps_f_and_b(scenario_.training, p))};
  }

  /// p's (tp, cp, mb, sp) entry, filled as asked (none of it depends on pp, dp or ep).
  MicroBatchLayers& micro_batch_layers(const ParallelConfig& p) {
    const LayerKey key{p.tp, p.cp, p.micro_batch, 0, 0, int(p.sequence_parallel), 0};
    auto found = micro_batch_layers_.find(key);
    if (found == micro_batch_layers_.end()) found = micro_batch_layers_.emplace(key, MicroBatchLayers{}).first;
    return found->second;
  }

  /// The dense layer's times before recomputation, timed once per (tp, cp, mb, sp).
  const LayerTimes& dense_times(const ParallelConfig& p) {
    MicroBatchLayers& layers = micro_batch_layers(p);
    if (!layers.dense_ready) {
      layers.dense = dense_layer_times(scenario_, p, &gemm_memo_);
      layers.dense_ready = true;
    }
    return layers.dense;
  }

  /// layer_activation_parts at p's (tp, cp, mb, sp, etp, recompute), computed once.
  const LayerActivationParts& activation_parts(const ParallelConfig& p) {
    MicroBatchLayers& layers = micro_batch_layers(p);
    const int etp = expert_tp(p);
    for (int i = 0; i < layers.activation_count; ++i) {
      const ActivationPartsEntry& entry = layers.activations[i];
      if (entry.etp == etp && entry.recompute == p.recompute) return entry.parts;
    }
    // More kinds than the array holds cannot arise (search_grid asks at most 2 × 3); were they
    // to, the parts are computed again rather than kept.
    if (layers.activation_count == int(layers.activations.size())) {
      scratch_parts_ = layer_activation_parts(scenario_, p);
      return scratch_parts_;
    }
    ActivationPartsEntry& entry = layers.activations[layers.activation_count++];
    entry = {etp, p.recompute, layer_activation_parts(scenario_, p)};
    return entry.parts;
  }

  /// p's layer times before recomputation.
  LayerTimesPair time_layers(const ParallelConfig& p) {
    return layer_times_for(scenario_, p, &gemm_memo_, &dense_times(p));
  }

  /// The floor of p's (tp, cp, mb, sp), computed once.
  const LayerFloor& cached_layer_floor(const ParallelConfig& p) {
    MicroBatchLayers& layers = micro_batch_layers(p);
    if (!layers.floor_ready) {
      layers.floor.dense_s = totals_by_kind(dense_times(p), p);
      layers.floor.moe_s = moe_layer_ >= 0 ? layer_time_floor_s(scenario_, p, moe_layer_, &gemm_memo_)
                                          : layers.floor.dense_s[int(Recompute::kNone)];
      layers.floor_ready = true;
    }
    return layers.floor;
  }

  /// The work floors of one micro-batch at p's (tp, cp, sp), computed once (compute.h
  /// layer_work_floor_s: under the floor of every micro-batch, scaled by it).
  WorkFloor cached_work_floor(const ParallelConfig& p) {
    const int sp = int(p.sequence_parallel);
    // The last one found per sp first: a grid's checks all read its own (tp, cp).
    const WorkFloor& last = last_work_floor_[sp];
    if (last.tp == p.tp && last.cp == p.cp) return last;
    for (const WorkFloor& unit : work_floors_) {
      if (unit.tp == p.tp && unit.cp == p.cp && unit.sp == sp) return last_work_floor_[sp] = unit;
    }
    ParallelConfig one = p;
    one.micro_batch = 1;
    WorkFloor unit{p.tp, p.cp, sp};
    unit.dense_s = layer_work_floor_s(scenario_, one, first_dense_layer(scenario_.model));
    unit.moe_s = moe_layer_ >= 0 ? layer_work_floor_s(scenario_, one, moe_layer_) : unit.dense_s;
    work_floors_.push_back(unit);
    return last_work_floor_[sp] = unit;
  }

  /// Whether p loses even with its layers at their work floors scaled to p's micro-batch (and
  /// `moe_extra_s` added to the MoE layer's): the check before p's (tp, cp, mb, sp) floor is
  /// timed, less a margin for the rounding of the scaling.
  bool work_floor_loses(const GridSpace& g, const ParallelConfig& p, const CandidateStageParams& stage_params,
                        double moe_extra_s, double threshold_s) {
    const WorkFloor unit = cached_work_floor(p);
    const double scale = p.micro_batch * (1.0 - 1e-9);
    return step_bound_s(g, p, stage_params, scale * unit.dense_s, scale * unit.moe_s + moe_extra_s) > threshold_s;
  }

  /// The bound of the step-time check in score(): every micro-batch and the bubble pass through
  /// the slowest stage, so (m + (p−1)/v) times any stage's per-micro-batch time (its dense and
  /// MoE layers at `dense_s` and `moe_s` each; the LM head left out) cannot be beaten.
  double step_bound_s(const GridSpace& g, const ParallelConfig& p, const CandidateStageParams& stage_params,
                      double dense_s, double moe_s) const {
    const double m = double(scenario_.training.global_batch) / (double(p.dp) * p.micro_batch);
    double stage_s = g.split.max_layers() * std::min(dense_s, moe_s);
    for (int i = 0; i < stage_params.stages.count; ++i) {
      const int moe_layers = stage_params.moe_layers[i];
      stage_s = std::max(stage_s, (stage_params.layers[i] - moe_layers) * dense_s + moe_layers * moe_s);
    }
    // A DualPipe rank's layers are two stages' (each micro-batch runs one); the zero-bubble and
    // DualPipe bubbles can be near zero, so only 1F1B's counts toward the bound.
    if (p.schedule == ScheduleKind::kDualPipe) stage_s *= 0.5;
    return (m + (is_one_f_one_b(p.schedule) ? (p.pp - 1.0) / p.vpp : 0.0)) * stage_s;
  }

  /// The recompute modules p's kind reruns (specs.h recompute_modules).
  unsigned modules_of(const ParallelConfig& p, Recompute kind) const {
    ParallelConfig with_kind = p;
    with_kind.recompute = kind;
    return recompute_modules(with_kind, scenario_.model.mla.has_value());
  }

  /// total_s() of `lt` under each recompute kind, bit for bit, its passes timed once.
  std::array<double, 3> totals_by_kind(const LayerTimes& lt, const ParallelConfig& p) const {
    const double forward_s = lt.forward_s(), backward_s = lt.backward_s();
    std::array<double, 3> totals{};
    for (Recompute kind : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      totals[int(kind)] = forward_s + backward_s + recomputed_s(lt, kind, modules_of(p, kind), forward_s);
    }
    return totals;
  }

  /// The bound's MoE layer totals of p's key, timed once per key.
  const LayerTotals& cached_layer_totals(const ParallelConfig& p) {
    const LayerKey key = layer_key(p);
    auto found = layer_totals_.find(key);
    if (found == layer_totals_.end()) {
      const LayerTimes moe = time_layers(p).moe;
      found = layer_totals_.emplace(key, LayerTotals{totals_by_kind(moe, p), moe}).first;
    }
    return found->second;
  }

  /// p's layer times with its recompute kind, for evaluate().
  LayerTimesPair evaluated_layer_times(const ParallelConfig& p, const LayerTotals*& entry) {
    if (!entry) entry = &cached_layer_totals(p);
    const unsigned modules = modules_of(p, p.recompute);
    return {with_recompute(dense_times(p), p.recompute, modules), with_recompute(entry->moe, p.recompute, modules)};
  }

  /// Whether every configuration of (grid, mb, option) loses to the kept plans even at its floor:
  /// the dense layers exact and the MoE layers at layer_time_floor_s(), without recomputation,
  /// at each sp. The layer counts of the stages come from the split alone (any layout's params).
  bool block_loses(const GridSpace& g, int mb, const PipelineOption& option, const CandidateStageParams& stage_params,
                   std::vector<const LayerFloor*>& floors) {
    const double threshold_s = families_.threshold_s();
    if (!(threshold_s < std::numeric_limits<double>::infinity())) return false;
    for (std::size_t si = 0; si < g.sps.size(); ++si) {
      ParallelConfig p = g.base;
      p.micro_batch = mb;
      p.vpp = option.vpp;
      p.schedule = option.schedule;
      p.sequence_parallel = g.sps[si] != 0;
      if (!floors[si]) {
        if (work_floor_loses(g, p, stage_params, 0.0, threshold_s)) continue;
        floors[si] = &cached_layer_floor(p);
      }
      const LayerFloor& floor = *floors[si];
      if (step_bound_s(g, p, stage_params, floor.dense_s[int(Recompute::kNone)], floor.moe_s) <= threshold_s) {
        return false;
      }
    }
    return true;
  }

  /// Whether every configuration of one expert layout and sp in (grid, mb, option) loses even at
  /// the block's floor plus what the layout adds at least (the dispatch no overlap hides,
  /// compute.h expert_dispatch_floor_s; then, where that is not enough to prune, the routed
  /// experts' tiles, expert_tiles_floor_s, timed only then), joined with the host's floor
  /// (layer_host_floor_s). Kept in `entry`: none depends on the vpp.
  bool layout_loses(const GridSpace& g, int mb, const PipelineOption& option, const ExpertLayout& layout,
                    const CandidateStageParams& stage_params, std::size_t si, std::vector<const LayerFloor*>& floors,
                    LayoutEntry& entry, const LayoutEntry& first_sp_entry) {
    const double threshold_s = families_.threshold_s();
    if (!(threshold_s < std::numeric_limits<double>::infinity()) || moe_layer_ < 0) return false;
    ParallelConfig p = g.with_layout(layout);
    p.micro_batch = mb;
    p.vpp = option.vpp;
    p.schedule = option.schedule;
    p.sequence_parallel = g.sps[si] != 0;
    if (entry.layout_s < 0) {
      entry.dispatch_s = first_sp_entry.dispatch_s >= 0 ? first_sp_entry.dispatch_s
                                                         : expert_dispatch_floor_s(scenario_, p, moe_layer_);
      entry.layout_s = entry.dispatch_s;
    }
    if (!floors[si]) {
      if (work_floor_loses(g, p, stage_params, entry.layout_s, threshold_s)) return true;
      floors[si] = &cached_layer_floor(p);
    }
    const LayerFloor& floor = *floors[si];
    const double dense_s = floor.dense_s[int(Recompute::kNone)], host_s = cached_host_floor(p);
    // The longer of the GPU's floor and the host's first: cheaper than joining them.
    const auto loses_at = [&](double moe_s) { return step_bound_s(g, p, stage_params, dense_s, moe_s) > threshold_s; };
    if (loses_at(std::max(floor.moe_s + entry.layout_s, host_s))) return true;
    if (!entry.with_tiles) {
      entry.with_tiles = true;
      entry.layout_s += cached_tiles_floor(p);
      if (loses_at(std::max(floor.moe_s + entry.layout_s, host_s))) return true;
    }
    // Each pass takes with_host_s(GPU, host); summed over the passes that is at least
    // with_host_s of the sums (Minkowski: it is a 3-norm), which grows with either.
    if (entry.moe_floor_s < 0) entry.moe_floor_s = with_host_s(floor.moe_s + entry.layout_s, host_s) * (1.0 - 1e-9);
    return loses_at(entry.moe_floor_s);
  }

  /// layer_host_floor_s at p's ep, computed once.
  double cached_host_floor(const ParallelConfig& p) {
    for (const auto& [ep, host_s] : host_floors_) {
      if (ep == p.ep) return host_s;
    }
    const double host_s = moe_layer_ >= 0 ? layer_host_floor_s(scenario_, p, moe_layer_) : 0.0;
    host_floors_.emplace_back(p.ep, host_s);
    return host_s;
  }

  /// expert_tiles_floor_s at p's (tp, cp, mb, ep, etp), computed once.
  double cached_tiles_floor(const ParallelConfig& p) {
    const LayerKey key{p.tp, p.cp, p.micro_batch, p.ep, expert_tp(p), 0, 0};
    auto found = tiles_floors_.find(key);
    if (found == tiles_floors_.end()) {
      found = tiles_floors_.emplace(key, expert_tiles_floor_s(scenario_, p, moe_layer_, &gemm_memo_)).first;
    }
    return found->second;
  }

  /// One candidate: memory, the framework's rules, the step-time bound, the estimate.
  /// `heavier_left`: this recompute kind and the ones after it, rejected together when it
  /// does not fit (they need more memory still). `moe_floor_s`: the MoE layer's floor at this
  /// layout (layout_loses; 0 when not computed).
  Next score(const GridSpace& g, ParallelConfig& p, const CandidateStageParams& stage_params,
             const LayerActivationParts& layer_parts, const CandidateActivations& stage_activations,
             std::size_t heavier_left, bool& any_fit, const LayerTotals*& entry,
             const LayerFloor*& floor, double moe_floor_s) {
    if (stats().configs_scored >= options_.max_configs) {
      stop("configurations", p.tp, p.cp, p.pp);
      return Next::kStop;
    }
    // The clock is read every 4096 scored configurations: cheap, and fine enough.
    if ((stats().configs_scored & 4095) == 4095 && over_time()) {
      stop("time", p.tp, p.cp, p.pp);
      return Next::kStop;
    }
    ++stats().configs_scored;
    StageMemory peak = peak_stage_memory(p, stage_params, stage_activations);
    if (p.recompute == Recompute::kFull && !pin_.recompute && !pin_.recompute_layers &&
        peak.total_bytes() <= capacity_) {
      fewest_recomputed_layers(g, stage_params, layer_parts, p, peak);
    }
    // Offloading frees activations only: where the model states alone overflow, it cannot help.
    const bool may_offload = may_offload_activations(p) && peak.total_bytes() - peak.activations_bytes <= capacity_;
    if (may_offload && p.recompute == Recompute::kNone && peak.total_bytes() > capacity_) {
      fewest_offloaded_layers(stage_params, layer_parts, p, peak);
    }
    const double memory = peak.total_bytes();
    if (memory > capacity_) {
      remember_near_miss(p, memory);
      // With offloading, no recomputation (the last kind) may still fit where recomputing did
      // not: the kinds up to it are out of memory, "none" is tried next.
      if (may_offload && p.recompute != Recompute::kNone && heavier_left > 1 &&
          recomputes_.back() == Recompute::kNone) {
        reject("plan.out_of_memory", static_cast<long long>(heavier_left) - 1);
        return Next::kTryOffload;
      }
      reject("plan.out_of_memory", static_cast<long long>(heavier_left));
      return Next::kLessRecompute;
    }
    any_fit = true;
    // What training.framework cannot run is not a plan (launch refuses the same code). A
    // partial recompute it cannot express falls back to every layer, which needs less memory.
    if (const char* code = first_framework_problem(scenario_, p, g.split)) {
      if (p.recompute_layers > 0 && !pin_.recompute_layers) {
        ParallelConfig every_layer = p;
        every_layer.recompute_layers = 0;
        if (!first_framework_problem(scenario_, every_layer, g.split)) {
          p = every_layer;
          peak = peak_stage_memory(scenario_, p, stage_params, layer_parts);
          code = nullptr;
        }
      }
      if (code) {
        reject(code, 1);
        return Next::kCandidate;
      }
    }
    // Bound: a plan whose bound already loses to the kept ones cannot win. Partial full
    // recomputation reruns only some layers: its stages are bounded without recomputation. The
    // work floor, then the floor (one per (tp, cp, mb, sp)) or the layout's MoE floor prune
    // first; only what survives them times its layout.
    const double threshold_s = families_.threshold_s();
    if (threshold_s < std::numeric_limits<double>::infinity()) {
      const bool partial = p.recompute == Recompute::kFull && p.recompute_layers > 0;
      const int kind = int(partial ? Recompute::kNone : p.recompute);
      bool pruned = !floor && work_floor_loses(g, p, stage_params, 0.0, threshold_s);
      if (!pruned) {
        if (!floor) floor = &cached_layer_floor(p);
        pruned = step_bound_s(g, p, stage_params, floor->dense_s[kind], std::max(floor->moe_s, moe_floor_s)) >
                 threshold_s;
      }
      if (!pruned) {
        if (!entry) entry = &cached_layer_totals(p);
        pruned = step_bound_s(g, p, stage_params, floor->dense_s[kind], entry->moe_s[kind]) > threshold_s;
      }
      if (pruned) {
        if (const char* code = first_structural_error(scenario_, p, g.split)) {
          reject(code, 1);
        } else {
          ++stats().configs_evaluated;
          ++stats().feasible;
        }
        return Next::kCandidate;
      }
    }
    EvaluateOptions fast;
    fast.detailed = false;
    const LayerTimesPair times = evaluated_layer_times(p, entry);
    fast.layer_times = &times;
    fast.peak_memory = &peak;
    Estimate e = evaluate(scenario_, p, fast);
    if (!e.feasible) {
      reject(e.rejection_code, 1);
      return Next::kCandidate;
    }
    ++stats().configs_evaluated;
    ++stats().feasible;
    families_.add(std::move(e));
    return Next::kCandidate;
  }

  const Scenario& scenario_;
  const SearchOptions& options_;
  const ParallelConstraints& pin_;
  const double capacity_;
  SearchResult result_;
  Families families_;
  const std::chrono::steady_clock::time_point started_;
  const std::vector<Recompute> recomputes_;
  const std::vector<int> zeros_;
  const int moe_layer_;  ///< the first MoE layer's index, -1 for a dense model
  std::vector<std::pair<const char*, long long>> rejected_;
  std::unordered_map<LayerKey, LayerTotals, LayerKeyHash> layer_totals_;
  std::unordered_map<LayerKey, MicroBatchLayers, LayerKeyHash> micro_batch_layers_;  ///< by (tp, cp, mb, sp)
  std::unordered_map<LayerKey, double, LayerKeyHash> tiles_floors_;  ///< by (tp, cp, mb, ep, etp)
  std::vector<std::pair<int, double>> host_floors_;                  ///< layer_host_floor_s by ep
  std::vector<WorkFloor> work_floors_;
  std::array<WorkFloor, 2> last_work_floor_{};  ///< by sp (tp 0: none yet)
  GemmMemo gemm_memo_;
  LayerActivationParts scratch_parts_;  ///< activation_parts() beyond its array (never in practice)
};

SearchResult search_within(const Scenario& scenario, const SearchOptions& options, double capacity_bytes) {
  return SearchPass(scenario, options, capacity_bytes).run();
}

}  // namespace

SearchResult search(const Scenario& scenario, const SearchOptions& options) {
  const double physical = scenario.cluster.gpu.memory_bytes;
  SearchResult result =
      search_within(scenario, options, physical * (1.0 - scenario.training.memory_headroom));
  if (result.plans.empty() && scenario.training.memory_headroom > 0) {
    // Nothing fits the usable share: show what fits the physical memory, flagged.
    SearchResult physical_result = search_within(scenario, options, physical);
    if (!physical_result.plans.empty()) {
      physical_result.within_headroom = false;
      result = std::move(physical_result);
    }
  }
  // The search ranked on numbers alone; give the returned plans their messages and figures.
  for (Estimate& e : result.plans) e = evaluate(scenario, e.parallel);
  if (result.fastest) result.fastest = evaluate(scenario, result.fastest->parallel);
  for (Estimate& e : result.nearest_infeasible) e = evaluate(scenario, e.parallel);
  return result;
}

}  // namespace pplan
