#include "pplan/report/explain.h"

#include <algorithm>
#include <cmath>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/estimate.h"
#include "pplan/model/placement.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

namespace {

std::string gb(double bytes) {
  const double v = bytes / units::kBytesPerGB;
  return format_fixed(v, v < 10 ? 2 : (v < 100 ? 2 : 1)) + " GB";
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

std::string pct(double fraction) { return format_fixed(fraction * 100.0, 1) + "%"; }

std::string seconds(double s) { return s < 1 ? format_fixed(s * 1000.0, 0) + " ms" : format_fixed(s, 2) + " s"; }

const char* recompute_text(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "no recomputation";
    case Recompute::kSelective: return "selective recomputation";
    case Recompute::kFull: return "full recomputation";
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

std::string first_error(const Estimate& e) {
  for (const Diagnostic& d : e.diagnostics) {
    if (d.severity == Severity::kError) return d.message;
  }
  return "";
}

/// Evaluates `alternative` and says why it loses to `best` (or that it is as good).
Alternative compare(const Scenario& scenario, const Estimate& best, const std::string& label,
                    const ParallelConfig& alternative) {
  Alternative a;
  a.label = label;
  const Estimate e = evaluate(scenario, alternative);
  a.feasible = e.feasible;
  a.step_time_s = e.step_time_s;
  if (!e.feasible) {
    if (!e.fits_in_memory) {
      a.verdict = "does not fit: " + gb(e.memory.total_bytes) + " > " + gb(e.memory.capacity_bytes);
    } else {
      a.verdict = "is not valid: " + first_error(e);
    }
    return a;
  }
  const double slower = e.step_time_s / best.step_time_s - 1.0;
  a.verdict = slower > 0.0005 ? "fits (" + gb(e.memory.total_bytes) + ") but is " + pct(slower) +
                                    " slower: " + seconds(e.step_time_s) + " per step against " +
                                    seconds(best.step_time_s) + ", MFU " + pct(e.mfu)
                              : "is as fast (" + seconds(e.step_time_s) + " per step)";
  return a;
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

  x.steps.push_back({1, "Budget the memory",
                     params_text(params) + " parameters × 16 bytes (bf16 weights and gradients, fp32 Adam) = " +
                         big_bytes(states) + " of model states; at " + gb(capacity) +
                         " per GPU one replica needs at least " + std::to_string(min_gpus) +
                         " GPUs before activations."});
  if (result.plans.empty()) {
    x.has_plan = false;
    std::string why = "No configuration fits.";
    if (!result.nearest_infeasible.empty()) {
      const Estimate& n = result.nearest_infeasible.front();
      const std::string layout = "tp " + std::to_string(n.parallel.tp) + " · pp " +
                                 std::to_string(n.parallel.pp) + " · dp " + std::to_string(n.parallel.dp);
      if (n.fits_in_memory || n.rejection_code != std::string("plan.out_of_memory")) {
        why += " The pinned plan (" + layout + ") is not valid: " + first_error(n) + ".";
      } else {
        why += " The closest, " + layout + ", needs " + gb(n.memory.total_bytes) + " of " +
               gb(n.memory.capacity_bytes) +
               ": add GPUs, use a larger-memory GPU, or shorten the sequence.";
      }
    }
    x.thirty_second_answer = why;
    return x;
  }
  x.has_plan = true;
  const Estimate& best = result.plans.front();
  const ParallelConfig& p = best.parallel;

  x.steps.push_back({2, "Tensor parallel inside a node",
                     "t = " + std::to_string(p.tp) +
                         (p.tp <= cluster.gpus_per_node
                              ? ", within one node's " + std::to_string(cluster.gpus_per_node) +
                                    " NVLink-connected GPUs: its 4 collectives per layer per pass stay on NVLink."
                              : ", more than a node: its collectives cross the network.")});
  std::string pp_text = "p = " + std::to_string(p.pp) + " stage" + (p.pp > 1 ? "s" : "") + " (" +
                        std::to_string(best.split.first_layers) +
                        (best.split.uneven ? "/" + std::to_string(best.split.middle_layers) + "/" +
                                                 std::to_string(best.split.last_layers)
                                           : "") +
                        " layers each): " + gb(best.memory.total_bytes) + " of " + gb(best.memory.capacity_bytes) +
                        " on the fullest stage (weights " + gb(best.memory.weights_bytes) +
                        ", gradients " + gb(best.memory.gradients_bytes) + ", optimizer " +
                        gb(best.memory.optimizer_bytes) + ", activations " +
                        gb(best.memory.activations_bytes) + ", reserved " +
                        gb(best.memory.reserved_bytes) + ").";
  if (p.pp > 1) {
    pp_text += " m = " + format_fixed(best.microbatches, 0) + " micro-batches, bubble " +
               (p.vpp > 1 ? "(p−1)/(v·m)" : "(p−1)/m") + " = " + pct(best.bubble_fraction) + ".";
  }
  x.steps.push_back({3, "Pipeline across nodes: the smallest p that fits", pp_text});
  std::string cp_ep = "No context or expert parallelism needed.";
  if (p.cp > 1 || p.ep > 1) {
    cp_ep = "";
    if (p.cp > 1) {
      cp_ep += "c = " + std::to_string(p.cp) + " splits each " + std::to_string(scenario.training.seq_len) +
               "-token sequence into " + std::to_string(scenario.training.seq_len / p.cp) +
               "-token chunks, so each GPU keeps 1/" + std::to_string(p.cp) +
               " of the activations; K/V chunks pass round a ring, " +
               seconds(best.time.cp_comm_s) + " per step not hidden behind attention. ";
    }
    if (p.ep > 1 && model.moe) {
      const MoeSpec& moe = *model.moe;
      const GroupPlacement ep_group = place_group(p, cluster.gpus_per_node, Axis::kEp);
      const double a2a_bytes = message_sizes(scenario, p).ep_bytes;
      cp_ep += "EP = " + std::to_string(p.ep) + " spreads the " + std::to_string(moe.experts) +
               " experts of each MoE layer, " + std::to_string(moe.experts / p.ep) +
               " per GPU, so expert weights take 1/" + std::to_string(p.ep) +
               " of the room and their optimizer states shard over the dp·cp/ep = " +
               std::to_string(1LL * p.dp * p.cp / p.ep) + " expert-data-parallel copies. EP borrows its GPUs from DP: " +
               "each token's hidden state travels to its top-" + std::to_string(moe.top_k) +
               " experts and back by all-to-all, 4 per MoE layer per micro-batch of " + gb(a2a_bytes) +
               " per GPU; the group spans " + std::to_string(ep_group.nodes) + " node" +
               (ep_group.nodes > 1 ? "s, so " + std::to_string(ep_group.size - ep_group.ranks_per_node) + "/" +
                                         std::to_string(ep_group.size) + " of it crosses the network"
                                   : ", so it stays on NVLink") +
               ": " + seconds(best.time.ep_comm_s) + " of all-to-all per step.";
    }
  }
  x.steps.push_back({4, "Context and expert parallelism as needed", cp_ep});
  x.steps.push_back({5, "The rest is data parallel",
                     "N = " + std::to_string(cluster.gpus) + " / (" + std::to_string(p.tp) + "·" +
                         std::to_string(p.pp) + (p.cp > 1 ? "·" + std::to_string(p.cp) : "") + ") = " +
                         std::to_string(p.dp) + " replicas, with " + zero_text(p.zero) + "."});
  x.steps.push_back({6, "Tune micro-batch, recomputation, overlap; check MFU",
                     "b = " + std::to_string(p.micro_batch) + ", " + recompute_text(p.recompute) +
                         (p.sequence_parallel ? ", sequence parallel" : "") + ": " +
                         seconds(best.step_time_s) + " per step, MFU " + pct(best.mfu) + " (" +
                         format_fixed(best.tflops_per_gpu, 0) + " TFLOP/s per GPU), " +
                         format_fixed(best.tokens_per_s / 1e6, 2) + "M tokens/s."});

  // The obvious alternatives.
  auto with = [&](auto change) {
    ParallelConfig q = p;
    change(q);
    return q;
  };
  if (p.pp >= 2 && p.pp % 2 == 0 && !scenario.parallel.pp) {
    x.alternatives.push_back(compare(scenario, best, "pp = " + std::to_string(p.pp / 2),
                                     with([](ParallelConfig& q) { q.pp /= 2; q.dp *= 2; })));
  }
  if (p.tp * 2 <= model.heads && p.dp % 2 == 0 && !scenario.parallel.tp) {
    x.alternatives.push_back(compare(scenario, best, "tp = " + std::to_string(p.tp * 2),
                                     with([](ParallelConfig& q) { q.tp *= 2; q.dp /= 2; })));
  }
  if (p.zero != 1 && !scenario.parallel.zero) {
    x.alternatives.push_back(compare(scenario, best, "distributed optimizer (ZeRO-1)",
                                     with([](ParallelConfig& q) { q.zero = 1; })));
  }
  if (p.zero != 0 && !scenario.parallel.zero) {
    x.alternatives.push_back(compare(scenario, best, "plain data parallel (ZeRO-0)",
                                     with([](ParallelConfig& q) { q.zero = 0; })));
  }
  if (!scenario.parallel.micro_batch && scenario.training.global_batch % (2LL * p.dp * p.micro_batch) == 0) {
    x.alternatives.push_back(compare(scenario, best, "micro-batch " + std::to_string(p.micro_batch * 2),
                                     with([](ParallelConfig& q) { q.micro_batch *= 2; })));
  }
  if (!scenario.parallel.recompute) {
    for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      if (r == p.recompute) continue;
      x.alternatives.push_back(compare(scenario, best, recompute_text(r),
                                       with([r](ParallelConfig& q) { q.recompute = r; })));
    }
  }

  std::string answer = "For " + model.name + " on " + std::to_string(cluster.gpus) + " " +
                       cluster.gpu.name + ": " + big_bytes(states) + " of model states need at least " +
                       std::to_string(min_gpus) + " GPUs per replica. Put TP = " + std::to_string(p.tp) +
                       " inside each node, PP = " + std::to_string(p.pp) + " across nodes";
  if (p.cp > 1) answer += ", CP = " + std::to_string(p.cp) + " for the long sequence";
  if (p.ep > 1) answer += ", EP = " + std::to_string(p.ep) + " for the experts";
  answer += ", and DP = " + std::to_string(p.dp) + " for the rest, with " + zero_text(p.zero) + ". ";
  answer += "Each GPU holds " + gb(best.memory.total_bytes) + " of " + gb(best.memory.capacity_bytes) + ". ";
  if (p.pp > 1) {
    answer += "With " + format_fixed(best.microbatches, 0) + " micro-batches the bubble is " +
              pct(best.bubble_fraction) + ". ";
  }
  answer += "Expect about " + seconds(best.step_time_s) + " per step and " + pct(best.mfu) + " MFU.";
  for (const Alternative& a : x.alternatives) {
    if (!a.feasible && a.label.rfind("pp = ", 0) == 0) {
      answer += " (" + a.label + " " + a.verdict + ".)";
    }
  }
  x.thirty_second_answer = answer;
  return x;
}

nlohmann::ordered_json explanation_to_json(const Explanation& x) {
  nlohmann::ordered_json j;
  j["has_plan"] = x.has_plan;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const ExplanationStep& s : x.steps) {
    steps.push_back({{"step", s.number}, {"title", s.title}, {"text", s.text}});
  }
  j["steps"] = steps;
  nlohmann::ordered_json alternatives = nlohmann::ordered_json::array();
  for (const Alternative& a : x.alternatives) {
    alternatives.push_back({{"label", a.label}, {"verdict", a.verdict}, {"feasible", a.feasible},
                            {"step_time_s", a.step_time_s}});
  }
  j["alternatives"] = alternatives;
  j["thirty_second_answer"] = x.thirty_second_answer;
  return j;
}

}  // namespace pplan
