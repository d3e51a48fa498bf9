#include <chrono>
#include "pplan/report/explain.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/estimate.h"
#include "pplan/model/placement.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

namespace {

/// A figure as the JSON answer carries it (kOutputSignificantDigits), so the words and a table
/// printed from the JSON round alike ("10.61 s" in both, not 10.60 in one).
double shown(double value) { return round_significant(value, kOutputSignificantDigits); }

std::string gb(double bytes) {
  const double v = shown(bytes / units::kBytesPerGB);
  return format_fixed(v, v < 100 ? 2 : 1) + " GB";
}

std::string big_bytes(double bytes) {
  if (bytes >= 1e12) return format_fixed(bytes / 1e12, 2) + " TB";
  return gb(bytes);
}

std::string params_text(double params) {
  if (params >= 1e12) return format_fixed(params / 1e12, 2) + "T";
  if (params >= 1e9) return format_fixed(params / 1e9, params >= 1e11 ? 0 : 1) + "B";
  return format_fixed(params / 1e6, 0) + "M";
}

std::string pct(double fraction) { return format_fixed(shown(fraction) * 100.0, 1) + "%"; }

std::string seconds(double s) {
  s = shown(s);
  return s < 1 ? format_fixed(s * 1000.0, 0) + " ms" : format_fixed(s, 2) + " s";
}

std::string num(long long v) { return std::to_string(v); }

std::string recompute_text(const ParallelConfig& p) {
  switch (p.recompute) {
    case Recompute::kNone:
      return p.offload_layers > 0 ? "no recomputation, the first " + num(p.offload_layers) + " layer" +
                                        (p.offload_layers > 1 ? "s'" : "'s") + " activations offloaded to host memory"
                                  : "no recomputation";
    case Recompute::kSelective: return "selective recomputation (the attention core)";
    case Recompute::kFull:
      return p.recompute_layers > 0 ? "full recomputation of " + num(p.recompute_layers) + " layer" +
                                          (p.recompute_layers > 1 ? "s" : "") + " per model chunk"
                                    : "full recomputation";
  }
  return "";
}

std::string zero_text(int zero) {
  switch (zero) {
    case 0: return "plain data parallelism";
    case 1: return "the distributed optimizer (ZeRO-1)";
    case 2: return "ZeRO-2 (optimizer and gradients sharded)";
    default: return "ZeRO-3 / FSDP (weights sharded too)";
  }
}

std::string layout_text(const ParallelConfig& p) {
  std::string s = "TP " + num(p.tp) + " · PP " + num(p.pp);
  if (p.cp > 1) s += " · CP " + num(p.cp);
  if (p.ep > 1) s += " · EP " + num(p.ep);
  return s + " · DP " + num(p.dp) + ", " + (p.zero == 1 ? "distributed optimizer" : "ZeRO-" + num(p.zero));
}

/// The fields of `other` that differ from `plan`, e.g. "vpp 12, micro-batch 4, ZeRO-2".
std::string differences(const ParallelConfig& other, const ParallelConfig& plan) {
  std::string out;
  auto add = [&out](bool differs, const std::string& text) {
    if (differs) out += (out.empty() ? "" : ", ") + text;
  };
  add(other.tp != plan.tp, "tp " + num(other.tp));
  add(other.pp != plan.pp, "pp " + num(other.pp));
  add(other.cp != plan.cp, "cp " + num(other.cp));
  add(other.ep != plan.ep, "ep " + num(other.ep));
  add(other.vpp != plan.vpp, num(other.vpp) + " virtual stages");
  add(other.schedule != plan.schedule, std::string(schedule_name(other.schedule)) + " schedule");
  add(other.micro_batch != plan.micro_batch, "micro-batch " + num(other.micro_batch));
  add(other.sequence_parallel != plan.sequence_parallel, other.sequence_parallel ? "sequence parallel" : "no sequence parallel");
  add(other.recompute != plan.recompute || other.recompute_layers != plan.recompute_layers ||
          other.offload_layers != plan.offload_layers,
      recompute_text(other));
  add(other.zero != plan.zero, other.zero == 1 ? "distributed optimizer" : "ZeRO-" + num(other.zero));
  return out.empty() ? "the same layout" : out;
}

/// ", X s of Y hidden behind ...": how much of the all-to-all an overlapping schedule hides
/// (the plan priced again without the overlap), or nothing.
std::string hidden_all_to_all(const Scenario& scenario, const Estimate& plan) {
  const ParallelConfig& p = plan.parallel;
  const bool schedule_hides = overlaps_f_and_b(scenario.training, p);
  if (p.ep <= 1 || (!schedule_hides && !scenario.training.overlap_moe_expert_parallel_comm)) return "";
  Scenario exposed = scenario;
  exposed.training.overlap_moe_expert_parallel_comm = false;
  ParallelConfig unhidden = p;
  if (schedule_hides) unhidden.schedule = ScheduleKind::kOneFOneB;  // same passes, no pairing
  const double all_s = evaluate(exposed, unhidden).time.ep_comm_s;
  if (all_s <= plan.time.ep_comm_s) return "";
  return " exposed, of " + seconds(all_s) + " in all: the rest hides behind " +
         (schedule_hides ? std::string("the paired micro-batch's pass (") + schedule_name(p.schedule) + ")"
                         : std::string("the other micro-batch's pass (Megatron's combined 1F1B)")) +
         ", at the cost of the SMs and memory bandwidth the transfers take from it";
}

std::string first_error(const Estimate& e) {
  for (const Diagnostic& d : e.diagnostics) {
    if (d.severity == Severity::kError) return d.message;
  }
  return "";
}

/// Wall time all of one explanation's sub-searches share: each is a narrower question than the
/// main search, and together they must not double a request's time on a huge space.
constexpr double kSubSearchBudgetS = 1.0;

/// The best plan of a search under the scenario's pins changed by `pin`, if any fits, within
/// what is left of the explanation's budget (`spent_s` accumulates the sub-searches' time).
std::optional<Estimate> best_under(const Scenario& scenario, const std::function<void(ParallelConstraints&)>& pin,
                                   double& spent_s) {
  Scenario s = scenario;
  pin(s.parallel);
  SearchOptions options;
  options.top = 1;
  options.time_budget_s = std::max(0.05, kSubSearchBudgetS - spent_s);
  const auto started = std::chrono::steady_clock::now();
  SearchResult r = search(s, options);
  spent_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (r.plans.empty()) return std::nullopt;
  return std::move(r.plans.front());
}

/// "fits (X GB) but is Y% slower: A per step against B" or "is as fast".
std::string cost_text(const Estimate& e, const Estimate& best) {
  const double slower = e.step_time_s / best.step_time_s - 1.0;
  if (slower <= 0.0005) return "is as fast (" + seconds(e.step_time_s) + " per step)";
  return "fits (" + gb(e.memory.total_bytes) + ") but is " + pct(slower) + " slower: " + seconds(e.step_time_s) +
         " per step against " + seconds(best.step_time_s) + ", MFU " + pct(e.mfu);
}

Alternative alternative(const std::string& label, const std::optional<Estimate>& e, const Estimate& best,
                        const std::string& when_none) {
  Alternative a;
  a.label = label;
  a.feasible = e.has_value();
  a.step_time_s = e ? e->step_time_s : 0.0;
  a.verdict = e ? cost_text(*e, best) : when_none;
  return a;
}

/// The largest divisor of n below `below`, or 0.
int next_smaller_divisor(long long n, int below) {
  for (int d = below - 1; d >= 1; --d) {
    if (n % d == 0) return d;
  }
  return 0;
}

}  // namespace

Explanation explain(const Scenario& scenario, const SearchResult& result) {
  Explanation x;
  const ModelSpec& model = scenario.model;
  const ClusterSpec& cluster = scenario.cluster;
  const double capacity = cluster.gpu.marketed_memory_bytes;
  // The method's figures (estimate.cpp method_figures) depend on the scenario only, not on
  // the plan: take them from whichever estimate the search returned.
  const MethodFigures method =
      !result.plans.empty()                ? result.plans.front().method
      : !result.nearest_infeasible.empty() ? result.nearest_infeasible.front().method
                                           : evaluate(scenario, resolve_defaults(scenario)).method;
  const double params = method.params;
  const double states = method.model_states_bytes;
  const long long min_gpus = method.min_gpus_per_replica;
  double sub_search_s = 0;  // the sub-searches' shared budget, see best_under
  SearchOptions defaults;
  const std::string capped = capped_reason(result, defaults);

  x.steps.push_back({1, "Budget the memory",
                     concat({params_text(params), " parameters × 16 bytes (bf16 weights and gradients, fp32 Adam) = ",
                             big_bytes(states), " of model states; at ", gb(capacity),
                             " per GPU one replica needs at least ", min_gpus,
                             " GPUs before activations and before any sharding."})});
  if (result.plans.empty()) {
    x.has_plan = false;
    std::string why = "No configuration fits.";
    if (!result.nearest_infeasible.empty()) {
      const Estimate& n = result.nearest_infeasible.front();
      const std::string layout = concat({"tp ", n.parallel.tp, " · pp ", n.parallel.pp, " · dp ", n.parallel.dp});
      if (n.fits_in_memory || n.rejection_code != std::string("plan.out_of_memory")) {
        why += concat({" The pinned plan (", layout, ") is not valid: ", first_error(n), "."});
      } else {
        why += concat({" The closest, ", layout, ", needs ", gb(n.memory.total_bytes), " of ",
                       gb(n.memory.capacity_bytes), ": add GPUs, use a larger-memory GPU, or shorten the sequence."});
      }
    }
    if (!capped.empty()) why += " " + capped;
    x.thirty_second_answer = why;
    return x;
  }
  x.has_plan = true;
  const Estimate& best = result.plans.front();
  const ParallelConfig& p = best.parallel;
  const ParallelConstraints& pins = scenario.parallel;
  const int domain = cluster.nvlink_domain_gpus;
  auto as_planned = [&](ParallelConstraints& c) {
    c.tp = p.tp;
    c.cp = p.cp;
    c.ep = p.ep;
  };

  // 2. Tensor parallelism: only what is true of t.
  const GroupPlacement tp_group = place_group(p, cluster, Axis::kTp);
  std::string tp_text;
  if (p.tp == 1) {
    tp_text = "t = 1: no tensor parallelism; every GPU holds whole layers" +
              std::string(pins.tp ? " (pinned)." : ", the fastest choice the search found.");
  } else {
    tp_text = concat({"t = ", p.tp,
                      !tp_group.crosses_nodes() ? " inside one NVLink domain of "
                      : p.tp > domain          ? ", wider than one NVLink domain of "
                                               : ", straddling NVLink domains of ",
                      domain,
                      tp_group.crosses_nodes() ? " GPUs: its collectives cross the network"
                                               : " GPUs: its collectives stay on NVLink",
                      ", ", seconds(best.time.tp_comm_s), " of them exposed per step",
                      scenario.training.tp_comm_overlap && p.sequence_parallel ? " (the rest overlapped with the GEMMs)."
                                                                               : "."});
  }
  x.steps.push_back({2, p.tp == 1 ? "No tensor parallelism" : "Tensor parallelism", tp_text});

  // 3. Pipeline: compared with the next smaller stage count, searched, not hand-counted.
  std::string pp_text =
      concat({"p = ", p.pp, p.pp > 1 ? " stages (" : " stage (", best.split.first_layers,
              best.split.uneven ? concat({"/", best.split.middle_layers, "/", best.split.last_layers}) : std::string(),
              " layers each): ", gb(best.memory.total_bytes), " of ", gb(best.memory.capacity_bytes),
              " on the fullest stage (weights ", gb(best.memory.weights_bytes), ", gradients ",
              gb(best.memory.gradients_bytes), ", optimizer ", gb(best.memory.optimizer_bytes), ", activations ",
              gb(best.memory.activations_bytes), ", reserved ", gb(best.memory.reserved_bytes), ")."});
  std::string pp_title = "Pipeline across nodes";
  const long long model_parallel_room = cluster.gpus / (1LL * p.tp * p.cp);
  if (!pins.pp) {
    x.facts.smaller_pp = next_smaller_divisor(model_parallel_room, p.pp);
  }
  if (x.facts.smaller_pp > 0) {
    const int q = x.facts.smaller_pp;
    const std::optional<Estimate> fewer = best_under(scenario, [&](ParallelConstraints& c) {
      as_planned(c);
      c.pp = q;
      c.dp.reset();
    }, sub_search_s);
    x.facts.smaller_pp_fits = fewer.has_value();
    if (fewer) {
      x.facts.smaller_pp_slower = fewer->step_time_s / best.step_time_s - 1.0;
      x.facts.smaller_pp_memory_bytes = fewer->memory.total_bytes;
      pp_text += concat({" p = ", q, " also fits (", gb(fewer->memory.total_bytes), ") but ",
                         x.facts.smaller_pp_slower > 0.0005 ? concat({"is ", pct(x.facts.smaller_pp_slower), " slower"})
                                                            : "is no faster, and the search kept the simpler plan",
                         ", so p = ", p.pp, "."});
      pp_title = "Pipeline across nodes: the fastest p";
    } else {
      pp_text += concat({" p = ", q, " does not fit at t = ", p.tp, p.cp > 1 ? concat({", c = ", p.cp}) : std::string(),
                         " within the usable memory with any micro-batch, recomputation or ZeRO stage, so p = ", p.pp,
                         " is the smallest that does there."});
      pp_title = "Pipeline across nodes: the smallest p that fits";
    }
  } else if (p.pp == 1) {
    pp_text = concat({"p = 1: the model fits without a pipeline (", gb(best.memory.total_bytes), " of ",
                      gb(best.memory.capacity_bytes), " per GPU)."});
    pp_title = "No pipeline";
  }
  if (p.pp > 1 && is_one_f_one_b(p.schedule)) {
    pp_text += concat({" m = ", format_fixed(best.microbatches, 0), " micro-batches",
                       p.vpp > 1 ? concat({", ", p.vpp, " virtual stages per GPU"}) : std::string(), ": the bubble is ",
                       pct(best.bubble_fraction), " of the step ((p−1)/", p.vpp > 1 ? "(v·m)" : "m", " = ",
                       pct(best.bubble_ratio), " of the compute)."});
  } else if (p.pp > 1) {
    // The zero-bubble and DualPipe bubbles come from the pass times (pipeline.h pipeline_bubble_s).
    const char* formula = p.schedule == ScheduleKind::kZbH1    ? "(p−1)(F+B−2W)/v"
                          : p.schedule == ScheduleKind::kZbV   ? "(p−1)(F+B−3W)/2"
                          : p.schedule == ScheduleKind::kDualPipe ? "(p/2−1)(F&B+B−3W)"
                                                                  : "(p−1)(F&B+B−3W)/2";
    pp_text += concat({" m = ", format_fixed(best.microbatches, 0), " micro-batches under the ", schedule_name(p.schedule),
                       " schedule",
                       overlaps_f_and_b(scenario.training, p)
                           ? ", each forward paired with another micro-batch's backward so their all-to-alls and sends hide"
                           : "",
                       ": the bubble ", formula, " is ", pct(best.bubble_fraction), " of the step (",
                       pct(best.bubble_ratio), " of the compute)",
                       p.schedule == ScheduleKind::kDualPipe ? "; each GPU holds a second copy of the mirrored stage's parameters"
                                                             : "",
                       "."});
  }
  x.steps.push_back({3, pp_title, pp_text});

  // 4. Context and expert parallelism, only where used, with the reason the numbers give.
  if (p.cp > 1 || p.ep > 1) {
    std::string text;
    if (p.cp > 1) {
      const std::optional<Estimate> no_cp = best_under(scenario, [&](ParallelConstraints& c) {
        as_planned(c);
        c.pp = p.pp;
        c.cp = 1;
        c.dp.reset();
      }, sub_search_s);
      x.facts.cp1_fits = no_cp.has_value();
      text += concat({"c = ", p.cp, " splits each ", scenario.training.seq_len, "-token sequence into ",
                      scenario.training.seq_len / p.cp, "-token chunks; K/V chunks pass round a ring, ",
                      seconds(best.time.cp_comm_s), " per step not hidden behind attention. "});
      if (!no_cp) {
        text += "Without it nothing fits: the activations of a whole sequence do not fit one GPU's usable memory. ";
      } else {
        x.facts.cp1_slower = no_cp->step_time_s / best.step_time_s - 1.0;
        x.facts.cp1_memory_bytes = no_cp->memory.total_bytes;
        text += concat({"CP 1 also fits (", gb(no_cp->memory.total_bytes), ", dp ", no_cp->parallel.dp, ", m = ",
                        format_fixed(no_cp->microbatches, 0), " micro-batches) but is ", pct(x.facts.cp1_slower),
                        " slower: CP ", p.cp, " takes GPUs from DP, so each replica gets more micro-batches (m = ",
                        format_fixed(best.microbatches, 0), ") and the pipeline less idle time. "});
      }
    }
    if (p.ep > 1 && model.moe) {
      const MoeSpec& moe = *model.moe;
      const GroupPlacement ep_group = place_group(p, cluster, Axis::kEp);
      const double a2a_bytes = message_sizes(scenario, p).ep_bytes;
      text += concat({"EP = ", p.ep, " spreads the ", moe.experts, " experts of each MoE layer, ", moe.experts / p.ep,
                      " per GPU",
                      expert_tp(p) > 1 ? concat({", each split over expert TP ", expert_tp(p)}) : std::string(),
                      expert_tp(p) != p.tp
                          ? concat({" (parallel folding: the experts' grid etp × ep × expert-dp reuses the ",
                                    1LL * p.tp * p.cp * p.dp, " GPUs of a stage's tp × cp × dp)"})
                          : std::string(),
                      "; their optimizer states shard over the tp·cp·dp/(etp·ep) = ", expert_dp(p),
                      " expert-data-parallel copies. Each token goes to its top-", moe.top_k,
                      " experts and back by all-to-all, 4 per MoE layer per micro-batch of ", gb(a2a_bytes), " per GPU; ",
                      ep_group.crosses_nodes()
                          ? concat({"the group spans ", ep_group.nodes, " NVLink domains, so ",
                                    ep_group.size - ep_group.ranks_per_node, "/", ep_group.size,
                                    " of it crosses the network"})
                          : concat({"the group fits inside one NVLink domain of ", domain,
                                    " GPUs, so the all-to-all stays on NVLink"}),
                      ": ", seconds(best.time.ep_comm_s), " per step", hidden_all_to_all(scenario, best), "."});
    }
    x.steps.push_back({4, p.cp > 1 && p.ep > 1 ? "Context and expert parallelism"
                          : p.cp > 1           ? "Context parallelism"
                                               : "Expert parallelism",
                       text});
  }

  // 5. Data parallelism and the ZeRO stage.
  x.steps.push_back({5, "The rest is data parallel",
                     concat({"N = ", cluster.gpus, " / (", p.tp, "·", p.pp, p.cp > 1 ? concat({"·", p.cp}) : std::string(),
                             ") = ", p.dp, " replicas, with ", zero_text(p.zero), ": ", seconds(best.time.dp_comm_s),
                             " of exposed gradient and weight traffic per step."})});

  // 6. Tuning, and the tie rule's choice.
  std::string tune =
      concat({"b = ", p.micro_batch, ", ", recompute_text(p), p.sequence_parallel ? ", sequence parallel" : "",
              best.timed ? concat({": ", seconds(best.step_time_s), " per step, MFU ", pct(best.mfu), " (",
                                   format_fixed(best.tflops_per_gpu, 0), " TFLOP/s per GPU), ",
                                   format_fixed(best.tokens_per_s / 1e6, 2), "M tokens/s."})
                         : ": not timed, the grid is not the cluster."});
  if (best.time.host_s > 0.1 * best.step_time_s) {
    // An MoE layer launches each local expert's GEMMs (compute.h): fewer experts per GPU help too.
    tune += concat({" The GPU waits for the host ", pct(best.time.host_s / best.step_time_s),
                    model.moe ? " of the time: the kernels are too short; a larger micro-batch, fewer experts per GPU "
                                "(a larger EP) or CUDA graphs help."
                              : " of the time: the kernels are too short; a larger micro-batch or CUDA graphs help."});
  }
  if (result.fastest) {
    x.facts.simpler_preferred = true;
    x.facts.fastest_faster = 1.0 - result.fastest->step_time_s / best.step_time_s;
    tune += concat({" A simpler plan was preferred: the fastest one (", differences(result.fastest->parallel, p), ") is ",
                    pct(x.facts.fastest_faster), " faster, within the 1% the model cannot tell apart."});
  }
  if (!result.within_headroom) {
    tune += concat({" Nothing fits within ", pct(1.0 - scenario.training.memory_headroom),
                    " of the memory (training.memory_headroom), so this plan leaves less room for fragmentation."});
  }
  x.steps.push_back({6, "Tune micro-batch, recomputation, overlap; check MFU", tune});

  // Steps that do not apply were left out: number the rest in order.
  for (std::size_t i = 0; i < x.steps.size(); ++i) x.steps[i].number = static_cast<int>(i + 1);

  // The alternatives: the textbook layout and the best plan of other layout families.
  const int textbook_tp = [&] {
    int t = 1;
    for (int cand = 1; cand <= std::min(domain, model.heads); cand *= 2) {
      if (model.heads % cand == 0 && cluster.gpus % cand == 0) t = cand;
    }
    return t;
  }();
  if (!pins.tp && !pins.zero && (p.tp != textbook_tp || p.zero != 1)) {
    const std::optional<Estimate> textbook = best_under(scenario, [&](ParallelConstraints& c) {
      c.tp = textbook_tp;
      c.zero = 1;
    }, sub_search_s);
    const std::string label = textbook ? layout_text(textbook->parallel) + " (the textbook layout: TP across the NVLink domain, the fewest stages that fit, distributed optimizer)"
                                       : "TP " + num(textbook_tp) + " with the distributed optimizer (the textbook layout)";
    x.alternatives.push_back(alternative(label, textbook, best, "does not fit"));
  }
  for (std::size_t i = 1; i < result.plans.size() && i <= 4; ++i) {
    const Estimate& other = result.plans[i];
    x.alternatives.push_back(alternative(layout_text(other.parallel), other, best, ""));
  }
  if (x.facts.smaller_pp > 0 && !x.facts.smaller_pp_fits) {
    Alternative a;
    a.label = "pp = " + num(x.facts.smaller_pp) + " at tp = " + num(p.tp) + (p.cp > 1 ? ", cp = " + num(p.cp) : "");
    a.verdict = "does not fit within the usable memory";
    x.alternatives.push_back(a);
  }

  // The 30-second answer, from the same figures.
  std::string answer = concat({"For ", model.name, " on ", cluster.gpus, " ", cluster.gpu.name, ": ", big_bytes(states),
                               " of model states need at least ", min_gpus, " GPUs per replica before sharding. "});
  if (p.tp > 1) {
    answer += concat({"Put TP = ", p.tp, tp_group.crosses_nodes() ? " (across NVLink domains)" : " inside each NVLink domain"});
  } else {
    answer += "No TP";
  }
  answer += p.pp > 1 ? concat({", PP = ", p.pp, " across nodes"}) : std::string(", no pipeline");
  if (p.cp > 1) {
    answer += concat({", CP = ", p.cp,
                      x.facts.cp1_fits ? concat({" (", pct(x.facts.cp1_slower), " faster than without it)"})
                                       : std::string(" (without it the sequence's activations do not fit)")});
  }
  if (p.ep > 1) {
    const GroupPlacement ep_group = place_group(p, cluster, Axis::kEp);
    answer += concat({", EP = ", p.ep,
                      ep_group.crosses_nodes() ? concat({" across ", ep_group.nodes, " NVLink domains"})
                                               : std::string(" inside one NVLink domain, so the all-to-all stays on NVLink")});
  }
  answer += concat({", and DP = ", p.dp, " for the rest, with ", zero_text(p.zero), ". Each GPU holds ",
                    gb(best.memory.total_bytes), " of ", gb(best.memory.capacity_bytes)});
  if (best.parallel.offload_layers > 0) {
    answer += concat({", with the first ", best.parallel.offload_layers, " layers' activations (",
                      gb(best.memory.offloaded_bytes), ") in host memory between their forward and backward"});
  }
  answer += ". ";
  if (p.pp > 1) {
    answer += concat({"With ", format_fixed(best.microbatches, 0), " micro-batches the bubble is ",
                      pct(best.bubble_fraction), " of the step. "});
  }
  answer += best.timed ? concat({"Expect about ", seconds(best.step_time_s), " per step and ", pct(best.mfu), " MFU."})
                       : concat({"No step time: tp·pp·dp·cp = ", 1LL * p.tp * p.pp * p.dp * p.cp,
                                 " GPUs is not the cluster's ", cluster.gpus, "."});
  if (x.facts.smaller_pp > 0 && !x.facts.smaller_pp_fits) {
    answer += concat({" (pp = ", x.facts.smaller_pp, " does not fit.)"});
  }
  if (!capped.empty()) answer += " " + capped;
  x.thirty_second_answer = answer;
  return x;
}

}  // namespace pplan
