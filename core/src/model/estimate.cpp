#include "pplan/model/estimate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/compute.h"
#include "pplan/framework/framework.h"
#include "pplan/model/kernels.h"
#include "pplan/model/memory.h"
#include "pplan/model/placement.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "error";
}

double TimeBreakdown::total_s() const {
  return compute_s + host_s + recompute_s + tp_comm_s + cp_comm_s + ep_comm_s + pp_comm_s +
         bubble_s + dp_comm_s + offload_s + optimizer_s + straggler_s;
}

ParallelConfig resolve_defaults(const Scenario& scenario) {
  const ParallelConstraints& c = scenario.parallel;
  ParallelConfig p;
  p.tp = c.tp.value_or(1);
  p.pp = c.pp.value_or(1);
  p.cp = c.cp.value_or(1);
  p.ep = c.ep.value_or(1);
  p.etp = c.etp.value_or(0);
  // A V-shaped schedule runs two chunks per rank: vpp follows it unless pinned.
  p.vpp = c.vpp.value_or(c.schedule && is_v_shape(*c.schedule) ? 2 : 1);
  p.schedule = c.schedule.value_or(default_schedule(p.vpp));
  p.micro_batch = c.micro_batch.value_or(1);
  const long long model_parallel = 1LL * p.tp * p.pp * p.cp;
  p.dp = c.dp.value_or(static_cast<int>(std::max<long long>(1, scenario.cluster.gpus / model_parallel)));
  if (!c.etp) p.etp = default_expert_tp(p, scenario.model.moe);
  p.sequence_parallel = c.sequence_parallel.value_or(p.tp > 1);
  p.recompute = c.recompute.value_or(Recompute::kNone);
  p.zero = c.zero.value_or(0);
  p.recompute_layers = c.recompute_layers.value_or(0);
  p.recompute_modules = c.recompute_modules.value_or(0);
  p.first_stage_layers = c.first_stage_layers.value_or(0);
  p.last_stage_layers = c.last_stage_layers.value_or(0);
  p.offload_layers = c.offload_layers.value_or(0);
  return p;
}

namespace {

/// The schedule's own rules: its chunks per rank (vpp), a pipeline to run on, DualPipe's even
/// ranks (deepseek-ai/DualPipe 3da1bbe dualpipe/dualpipe.py:332) and its micro-batch counts
/// (specs.h schedule_microbatch_problem).
template <typename Visit>
void visit_schedule(const Scenario& scenario, const ParallelConfig& p, Visit&& visit) {
  const ScheduleKind schedule = p.schedule;
  if (schedule == ScheduleKind::kOneFOneB && p.vpp <= 1) return;
  const std::string name = schedule_name(schedule);
  if (!schedule_vpp_ok(schedule, p.vpp)) {
    visit("plan.schedule_vpp", Severity::kError, [&] {
      const std::string wants = schedule == ScheduleKind::kInterleaved ? "vpp > 1"
                                : is_v_shape(schedule)                 ? "vpp = 2 (a V: two chunks per rank)"
                                                                       : "vpp = 1";
      return concat({"parallel.schedule ", name, " runs ", wants, ", but vpp = ", p.vpp});
    });
  }
  if (p.pp <= 1 && schedule != ScheduleKind::kOneFOneB && schedule != ScheduleKind::kInterleaved) {
    visit("plan.schedule_needs_pp", Severity::kError,
          [&] { return concat({"parallel.schedule ", name, " is a pipeline schedule: it needs pp > 1"}); });
    return;
  }
  if (overlaps_forward_backward(schedule) && p.pp > 1) {
    const long long per_step = 1LL * p.micro_batch * p.dp;
    const long long m = per_step > 0 ? scenario.training.global_batch / per_step : 0;
    const bool dualpipe = schedule == ScheduleKind::kDualPipe;
    if (dualpipe && p.pp % 2 != 0) {
      visit("plan.schedule_pp", Severity::kError,
            [&] { return concat({"DualPipe pairs ranks from both ends: pp = ", p.pp, " must be even"}); });
    }
    if (schedule_microbatch_problem(schedule, p.pp, m)) {
      visit("plan.schedule_microbatches", Severity::kError, [&] {
        return concat({name, " needs at least 2·pp = ", 2 * p.pp, dualpipe ? " micro-batches, an even count" : " micro-batches",
                       "; the step has ", m});
      });
    }
  }
}

/// Visits every structural rule a configuration breaks. `visit(code, severity, message)`
/// gets the message as a callable, so the search can skip building strings it never shows.
template <typename Visit>
void visit_structure(const Scenario& scenario, const ParallelConfig& p, const StageSplit& split,
                     Visit&& visit) {
  const ModelSpec& model = scenario.model;
  const ClusterSpec& cluster = scenario.cluster;
  const Severity kErr = Severity::kError;
  const Severity kWarn = Severity::kWarning;
  const long long product = 1LL * p.tp * p.pp * p.dp * p.cp;
  if (product != cluster.gpus) {
    visit("plan.gpu_count_mismatch", kErr, [&] {
      return concat({"tp·pp·dp·cp = ", p.tp, "·", p.pp, "·", p.dp, "·", p.cp, " = ", product, ", but the cluster has ",
                     cluster.gpus, " GPUs"});
    });
  }
  if (model.heads % p.tp != 0) {
    visit("plan.heads_not_divisible", kErr, [&] {
      return concat({model.heads, " attention heads are not divisible by tp = ", p.tp});
    });
  }
  if (model.kv_heads % p.tp != 0 && p.tp % model.kv_heads != 0) {
    visit("plan.kv_heads_not_divisible", kErr, [&] {
      return concat({model.kv_heads, " kv heads and tp = ", p.tp,
                     " divide neither way (Megatron needs kv_heads % tp == 0 or tp % kv_heads == 0)"});
    });
  }
  if (!split.valid) visit("plan.layers_not_divisible", kErr, [&] { return split.reason; });
  if (p.offload_layers > 0) {
    if (cluster.gpu.host_link_bytes_per_s <= 0 || cluster.gpu.host_memory_bytes <= 0) {
      visit("plan.offload_needs_host_link", kErr, [&] {
        return std::string("offload_layers copies activations to host memory, but the GPU spec gives no "
                           "host link or host memory: set cluster.gpu.host_link_gbytes_per_s and host_memory_gb");
      });
    }
    if (p.pp > 1 || p.recompute != Recompute::kNone) {
      // Megatron-LM d98e8a64 transformer_config.py:1891 and :1896; the model prices it so too.
      visit("plan.offload_needs_one_stage", kErr, [&] {
        return concat({"offload_layers = ", p.offload_layers,
                       " is priced for one pipeline stage without recomputation, as Megatron runs it (pp = ", p.pp,
                       ", recompute ", recompute_name(p.recompute), ")"});
      });
    }
  }
  const long long per_step = 1LL * p.micro_batch * p.dp;
  if (scenario.training.global_batch % per_step != 0) {
    visit("plan.batch_not_divisible", kErr, [&] {
      return concat({"global batch ", scenario.training.global_batch, " is not divisible by micro_batch·dp = ",
                     p.micro_batch, "·", p.dp, " = ", per_step});
    });
  }
  if (p.vpp > 1) {
    if (p.pp <= 1) {
      visit("plan.vpp_needs_pp", kErr,
            [&] { return concat({"interleaving (vpp = ", p.vpp, ") needs pp > 1"}); });
    } else if (split.valid && !vpp_divides(split, p.vpp)) {
      visit("plan.vpp_not_divisible", kErr, [&] {
        const int units = split.units_per_stage;
        if (units > 0) return concat({"vpp = ", p.vpp, " does not divide the ", units, " layers per stage"});
        return concat({"vpp = ", p.vpp, " does not divide the stage sizes ", split.first_layers, "/", split.middle_layers,
                       "/", split.last_layers});
      });
    }
    const long long m = per_step > 0 ? scenario.training.global_batch / per_step : 0;
    if (p.schedule == ScheduleKind::kInterleaved && schedule_microbatch_problem(p.schedule, p.pp, m)) {
      visit("plan.vpp_microbatches", kErr, [&] {
        return concat({"the interleaved schedule needs the ", m, " micro-batches to be a multiple of pp = ", p.pp});
      });
    }
  }
  visit_schedule(scenario, p, visit);
  if (p.cp > 1 && scenario.training.seq_len % (2 * p.cp) != 0) {
    visit("plan.cp_seq_not_divisible", kErr, [&] {
      return concat({"seq_len ", scenario.training.seq_len, " is not divisible by 2·cp = ", 2 * p.cp});
    });
  }
  const bool moe = model.moe && model.moe->experts > 0;
  if (!moe && (p.ep > 1 || expert_tp(p) != p.tp)) {
    visit(p.ep > 1 ? "plan.ep_without_moe" : "plan.etp_without_moe", kErr, [&] {
      return concat({p.ep > 1 ? "ep = " : "etp = ", p.ep > 1 ? p.ep : expert_tp(p), " needs a mixture-of-experts model"});
    });
  }
  if (moe) {
    if (model.moe->experts % p.ep != 0) {
      visit("plan.ep_not_divisible", kErr, [&] {
        return concat({model.moe->experts, " experts are not divisible by ep = ", p.ep});
      });
    }
    if (!expert_grid_tiles(p)) {
      visit("plan.ep_not_divisible", kErr, [&] {
        return concat({"etp·ep = ", expert_tp(p), "·", p.ep, " = ", 1LL * expert_tp(p) * p.ep,
                       " must divide a stage's tp·cp·dp = ", 1LL * p.tp * p.cp * p.dp,
                       " GPUs (the expert part folds over the attention part's GPUs)"});
      });
    }
    if (!expert_width_splits(*model.moe, expert_tp(p))) {
      visit("plan.etp_not_divisible", kErr, [&] {
        return concat({"the expert width ", model.moe->expert_ffn_hidden, " is not divisible by etp = ", expert_tp(p)});
      });
    }
    // The all-to-all is the heaviest MoE traffic: inside one NVLink domain it is cheap; past
    // it, (n − k)/n of every token copy crosses the NICs (comm.h all_to_all_s).
    if (p.ep > 1) {
      const GroupPlacement ep_group = place_group(p, cluster, Axis::kEp);
      if (ep_group.crosses_nodes()) {
        visit("plan.ep_spans_nodes", kWarn, [&] {
          return concat({"ep = ", p.ep, " (× expert-tp ", expert_tp(p), ") spans ", ep_group.nodes, " nodes: ",
                         ep_group.size - ep_group.ranks_per_node, "/", ep_group.size,
                         " of the all-to-all traffic crosses the network"});
        });
      }
    }
  }
  if (p.tp > cluster.nvlink_domain_gpus) {
    visit("plan.tp_exceeds_node", kWarn, [&] {
      return concat({"tp = ", p.tp, " spans more than the ", cluster.nvlink_domain_gpus,
                     " GPUs of one NVLink domain: its all-reduces leave NVLink"});
    });
  }
  if (cluster.gpus % cluster.gpus_per_node != 0) {
    visit("plan.gpus_per_node_mismatch", kWarn, [&] {
      return concat({cluster.gpus, " GPUs do not fill whole nodes of ", cluster.gpus_per_node});
    });
  }
}

}  // namespace

std::vector<Diagnostic> check_structure(const Scenario& scenario, const ParallelConfig& p,
                                        const StageSplit& split) {
  std::vector<Diagnostic> out;
  visit_structure(scenario, p, split, [&out](const char* code, Severity severity, auto message) {
    out.push_back({code, severity, message()});
  });
  return out;
}

const char* first_structural_error(const Scenario& scenario, const ParallelConfig& p,
                                   const StageSplit& split) {
  const char* first = nullptr;
  visit_structure(scenario, p, split, [&first](const char* code, Severity severity, auto) {
    if (!first && severity == Severity::kError) first = code;
  });
  return first;
}

/// Per-micro-batch time of one stage and the parts it is made of.
struct StageTime {
  LayerTimes per_layer_sum;  ///< component times summed over the stage's layers
  double forward_s = 0;      ///< the stage's layers' passes as they take (host waits included)
  double backward_s = 0;
  double recompute_s = 0;
  double host_stall_s = 0;
  double extra_s = 0;        ///< LM head on the last stage
  double total_s() const { return forward_s + backward_s + recompute_s + extra_s; }
};

/// sum += times · lt, field by field.
static void add_layer_times(LayerTimes& sum, const LayerTimes& lt, double times) {
  sum.gemm_forward_s += times * lt.gemm_forward_s;
  sum.gemm_backward_s += times * lt.gemm_backward_s;
  sum.attention_forward_s += times * lt.attention_forward_s;
  sum.attention_backward_s += times * lt.attention_backward_s;
  sum.memory_forward_s += times * lt.memory_forward_s;
  sum.memory_backward_s += times * lt.memory_backward_s;
  sum.host_forward_s += times * lt.host_forward_s;
  sum.host_backward_s += times * lt.host_backward_s;
  sum.tp_forward_s += times * lt.tp_forward_s;
  sum.tp_backward_s += times * lt.tp_backward_s;
  sum.cp_forward_s += times * lt.cp_forward_s;
  sum.cp_backward_s += times * lt.cp_backward_s;
  sum.ep_forward_s += times * lt.ep_forward_s;
  sum.ep_backward_s += times * lt.ep_backward_s;
  sum.recompute_s += times * lt.recompute_s;
}

/// A layer's times with its pass times worked out once (each is a cube root under the host
/// overlap, with_host_s): every stage of a plan adds the same two layers, dense and MoE.
struct LayerPass {
  const LayerTimes& times;
  double forward_s, backward_s, host_stall_s;
  explicit LayerPass(const LayerTimes& lt)
      : times(lt), forward_s(lt.forward_s()), backward_s(lt.backward_s()),
        host_stall_s((forward_s - lt.gpu_forward_s()) + (backward_s - lt.gpu_backward_s())) {}
};

static void accumulate(StageTime& st, const LayerPass& layer, double times) {
  add_layer_times(st.per_layer_sum, layer.times, times);
  st.forward_s += times * layer.forward_s;
  st.backward_s += times * layer.backward_s;
  st.recompute_s += times * layer.times.recompute_s;
  st.host_stall_s += times * layer.host_stall_s;
}

/// One pipeline stage's layers (and the head and MTP modules where they are) per micro-batch.
static StageTime stage_time(const Scenario& scenario, const ParallelConfig& p,
                            const StageSplit& split, int stage, const LayerPass& dense,
                            const LayerPass& moe) {
  const int layers = split.layers_on_stage(stage, p.pp);
  const int moe_layers = moe_layers_on_stage(scenario.model, split, stage, p.pp);
  StageTime st;
  accumulate(st, dense, layers - moe_layers);
  accumulate(st, moe, moe_layers);
  // Partial full recomputation reruns only its share of the stage's layers.
  if (p.recompute == Recompute::kFull) {
    const double share = recomputed_share(p, layers);
    st.recompute_s *= share;
    st.per_layer_sum.recompute_s *= share;
  }
  if (stage == head_rank(p)) {
    const double head_s = lm_head_times_s(scenario, p);
    st.extra_s = head_s;
    // MTP modules (DeepSeek-V3 §2.2) with the head: a layer of the last layer's kind, its
    // 2h -> h projection and the head again.
    const int mtp = scenario.model.mtp_layers;
    if (mtp > 0) {
      accumulate(st, is_moe_layer(scenario.model, scenario.model.layers - 1) ? moe : dense, mtp);
      st.extra_s += mtp * (mtp_projection_times_s(scenario, p) + head_s);
    }
  }
  return st;
}

/// A rank's time per micro-batch. Under DualPipe a rank runs stage k for the micro-batches of
/// one direction and its mirror p−1−k for the other's, half of them each.
static StageTime rank_time(const Scenario& scenario, const ParallelConfig& p, const StageSplit& split,
                           int rank, const LayerPass& dense, const LayerPass& moe) {
  const StageTime own = stage_time(scenario, p, split, rank, dense, moe);
  const int mirror = p.pp - 1 - rank;
  if (p.schedule != ScheduleKind::kDualPipe || mirror == rank) return own;
  const StageTime other = stage_time(scenario, p, split, mirror, dense, moe);
  StageTime st;
  for (const StageTime* half : {&own, &other}) {
    add_layer_times(st.per_layer_sum, half->per_layer_sum, 0.5);
    st.forward_s += 0.5 * half->forward_s;
    st.backward_s += 0.5 * half->backward_s;
    st.recompute_s += 0.5 * half->recompute_s;
    st.host_stall_s += 0.5 * half->host_stall_s;
    st.extra_s += 0.5 * half->extra_s;
  }
  return st;
}

/// Method hand calculation for this configuration (Narayanan et al. 2021 §3; Rajbhandari et al. 2020 §3.1).
static MethodFigures method_figures(const Scenario& scenario, const ParallelConfig& p) {
  MethodFigures f;
  const ModelSpec& model = scenario.model;
  // The method reasons with the memory as sold ("fits in 80 GB").
  const double capacity = scenario.cluster.gpu.marketed_memory_bytes;
  f.params_nominal = model.nominal_params > 0;
  f.params = f.params_nominal ? model.nominal_params : total_params(model, scenario.training.seq_len);
  f.model_states_bytes = 16.0 * f.params;
  // 64-bit and saturated: the largest accepted models need more than 2^31 GPUs (issue #14).
  f.min_gpus_per_replica =
      static_cast<long long>(std::min(std::ceil(f.model_states_bytes / capacity), 4e18));
  const double tp_pp = double(p.tp) * p.pp;
  f.model_states_bytes_per_gpu = f.model_states_bytes / tp_pp;
  const double interleave = p.vpp > 1 ? 1.0 + (p.pp - 1.0) / (double(p.pp) * p.vpp) : 1.0;
  f.activations_bytes = layer_activation_bytes(scenario, p) * model.layers * interleave;
  f.total_bytes = f.model_states_bytes_per_gpu + f.activations_bytes;
  if (p.pp >= 2 && p.pp % 2 == 0) {
    f.half_pp = p.pp / 2;
    f.half_pp_model_states_bytes_per_gpu = f.model_states_bytes / (double(p.tp) * f.half_pp);
    f.half_pp_fits = f.half_pp_model_states_bytes_per_gpu + f.activations_bytes <= capacity;
  }
  f.distributed_optimizer_bytes_per_gpu =
      4.0 * f.params / tp_pp + 12.0 * f.params / (tp_pp * std::max(1, p.dp));
  // The same hand count for the plan as it is sharded: routed experts over EP too, and each
  // part's 16 bytes over its data-parallel copies as the plan's ZeRO stage says.
  const double routed_params =
      model.moe ? double(moe_layer_count(model) + (is_moe_layer(model, model.layers - 1) ? model.mtp_layers : 0)) *
                      model.moe->experts * expert_params(model)
                : 0.0;
  const double dense_params = std::max(0.0, f.params - routed_params);
  auto bytes_per_param = [&](double copies) {
    copies = std::max(1.0, copies);
    switch (p.zero) {
      case 0: return 16.0;
      case 1: return 4.0 + 12.0 / copies;
      case 2: return 2.0 + 14.0 / copies;
      default: return 16.0 / copies;
    }
  };
  const double ep = std::max(1, p.ep);
  f.plan_total_bytes = dense_params / tp_pp * bytes_per_param(p.dp) +
                       routed_params / (double(expert_tp(p)) * p.pp * ep) * bytes_per_param(double(expert_dp(p))) +
                       f.activations_bytes;
  f.fits = f.plan_total_bytes <= capacity;
  f.bubble_ratio = bubble_ratio(p.pp, p.vpp, microbatches(scenario.training.global_batch, p.dp, p.micro_batch));
  return f;
}

LayerTimes dense_layer_times(const Scenario& scenario, const ParallelConfig& parallel, GemmMemo* gemm_memo) {
  return layer_times(scenario, parallel, first_dense_layer(scenario.model), gemm_memo);
}

LayerTimesPair layer_times_for(const Scenario& scenario, const ParallelConfig& parallel, GemmMemo* gemm_memo,
                               const LayerTimes* dense) {
  const ModelSpec& model = scenario.model;
  // Layer 0 is dense unless every layer holds experts, and then no dense layer is counted.
  const int moe_layer = first_moe_layer(model);
  LayerTimesPair pair;
  pair.dense = dense ? *dense : dense_layer_times(scenario, parallel, gemm_memo);
  pair.moe = moe_layer >= 0 ? layer_times(scenario, parallel, moe_layer, gemm_memo) : pair.dense;
  return pair;
}

namespace {

/// Notes on the scenario itself: a custom model completed from its preset twin, FP8 asked of a
/// GPU without it, hosts that do not tile the system's NVLink domain, a part-filled domain.
void add_scenario_diagnostics(const Scenario& scenario, Estimate& e) {
  const ModelSpec& model = scenario.model;
  if (!model.details_from_preset.empty()) {
    e.diagnostics.push_back({"model.details_from_preset", Severity::kInfo,
                             "the model's layers, widths, heads and experts are those of the preset " +
                                 model.details_from_preset + ": " + model.details_taken +
                                 ", which the model leaves out, are taken from it (give them to override)"});
  }
  if (scenario.training.precision == Precision::kFp8 && scenario.cluster.gpu.fp8_flops_per_s <= 0) {
    e.diagnostics.push_back({"plan.fp8_unsupported", Severity::kWarning,
                             truncate_utf8(scenario.cluster.gpu.name, 80) +
                                 " has no FP8 tensor cores (fp8_tflops = 0): priced in BF16, and "
                                 "the Megatron, NeMo and torchtitan launches refuse FP8 on it"});
  }
  if (scenario.training.precision == Precision::kFp8 && scenario.training.fp8_recipe == Fp8Recipe::kNvfp4 &&
      scenario.cluster.gpu.fp8_flops_per_s > 0 && scenario.cluster.gpu.fp4_flops_per_s <= 0) {
    e.diagnostics.push_back({"plan.fp4_unsupported", Severity::kWarning,
                             truncate_utf8(scenario.cluster.gpu.name, 80) +
                                 " has no FP4 rate (fp4_tflops = 0): NVFP4 priced at the FP8 rate"});
  }
  const ClusterSpec& cluster_spec = scenario.cluster;
  const int system_domain_gpus = cluster_spec.gpu.system.nvlink_domain_gpus;
  if (system_domain_gpus > cluster_spec.nvlink_domain_gpus && system_domain_gpus % cluster_spec.gpus_per_node != 0) {
    // The hosts the cluster names do not tile the system's domain (64-GPU hosts on an NVL72):
    // priced on the whole hosts that fit in it, which the user may not have meant.
    e.diagnostics.push_back(
        {"cluster.nvlink_domain_trimmed", Severity::kWarning,
         truncate_utf8(cluster_spec.gpu.system.name, 80) + "'s NVLink domain of " + std::to_string(system_domain_gpus) +
             " GPUs is not a whole number of " + std::to_string(cluster_spec.gpus_per_node) +
             "-GPU hosts (cluster.gpus_per_node): priced as domains of " +
             std::to_string(cluster_spec.nvlink_domain_gpus) + " GPUs. Give gpus_per_node as the system's hosts (" +
             std::to_string(cluster_spec.gpu.system.gpus_per_node) +
             " GPUs) to use the whole domain, or set cluster.nvlink_domain_gpus"});
  }
  if (cluster_spec.gpus > cluster_spec.nvlink_domain_gpus &&
      cluster_spec.gpus % cluster_spec.nvlink_domain_gpus != 0) {
    // Legal (a job on part of a rack), but a group that straddles the part-filled domain's
    // edge leaves NVLink: say so rather than price it silently.
    e.diagnostics.push_back(
        {"cluster.partial_nvlink_domain", Severity::kWarning,
         std::to_string(cluster_spec.gpus) + " GPUs are " +
             std::to_string(cluster_spec.gpus / cluster_spec.nvlink_domain_gpus) +
             " NVLink domains of " + std::to_string(cluster_spec.nvlink_domain_gpus) + " and " +
             std::to_string(cluster_spec.gpus % cluster_spec.nvlink_domain_gpus) +
             " GPUs of another: groups are placed in rank order, so one that crosses a domain's "
             "edge is priced on the network"});
  }
}

/// Offloaded activations must fit the host's share of DRAM: beyond it the plan does not fit.
void set_host_memory(const Scenario& scenario, const ParallelConfig& p, bool detailed, Estimate& e) {
  e.memory.offloaded_bytes = offloaded_activation_bytes(scenario, p);
  const double usable = usable_host_memory_bytes(scenario);
  if (e.memory.offloaded_bytes <= usable) return;
  e.fits_in_memory = false;
  if (!e.rejection_code) e.rejection_code = "plan.out_of_host_memory";
  if (!detailed) return;
  e.diagnostics.push_back({"plan.out_of_host_memory", Severity::kError,
                           "the " + std::to_string(p.offload_layers) + " offloaded layers hold " +
                               format_fixed(e.memory.offloaded_bytes / units::kBytesPerGB, 1) +
                               " GB of activations in host memory, more than the " +
                               format_fixed(usable / units::kBytesPerGB, 1) +
                               " GB usable of the host's share per GPU (cluster.gpu.host_memory_gb)"});
}

/// e.memory from the peak stage, with the out-of-memory error and the low-headroom warning.
void set_memory(const Scenario& scenario, const StageMemory& peak, bool detailed, Estimate& e) {
  const GpuSpec& gpu = scenario.cluster.gpu;
  e.memory.weights_bytes = peak.weights_bytes;
  e.memory.gradients_bytes = peak.gradients_bytes;
  e.memory.optimizer_bytes = peak.optimizer_bytes;
  e.memory.activations_bytes = peak.activations_bytes;
  e.memory.reserved_bytes = peak.reserved_bytes;
  e.memory.total_bytes = peak.total_bytes();
  e.memory.capacity_bytes = gpu.memory_bytes;
  e.memory.peak_stage = peak.stage;
  e.fits_in_memory = e.memory.total_bytes <= e.memory.capacity_bytes;
  if (!e.fits_in_memory && !e.rejection_code) e.rejection_code = "plan.out_of_memory";
  if (!detailed) return;
  if (!e.fits_in_memory) {
    e.diagnostics.push_back({"plan.out_of_memory", Severity::kError,
                             "stage " + std::to_string(peak.stage) + " needs " +
                                 format_fixed(e.memory.total_bytes / units::kBytesPerGB, 1) +
                                 " GB but the GPU has " +
                                 format_fixed(gpu.memory_bytes / units::kBytesPerGB, 1) + " GB"});
  }
  const double usable = gpu.memory_bytes * (1.0 - scenario.training.memory_headroom);
  if (e.fits_in_memory && e.memory.total_bytes > usable) {
    e.diagnostics.push_back({"plan.low_headroom", Severity::kWarning,
                             "stage " + std::to_string(peak.stage) + " needs " +
                                 format_fixed(e.memory.total_bytes / units::kBytesPerGB, 1) + " of " +
                                 format_fixed(gpu.memory_bytes / units::kBytesPerGB, 1) +
                                 " GB, more than the " +
                                 format_fixed(100.0 * (1.0 - scenario.training.memory_headroom), 0) +
                                 "% kept usable (training.memory_headroom) for fragmentation and spikes"});
  }
}

/// The slowest stage's time per micro-batch, over the stages that can be slowest.
StageTime slowest_stage(const Scenario& scenario, const ParallelConfig& p, const StageSplit& split,
                        const LayerTimesPair& times) {
  const LayerPass dense(times.dense), moe(times.moe);
  StageTime slowest = rank_time(scenario, p, split, 0, dense, moe);
  for (int stage : candidate_stages(scenario.model, split, p.pp)) {
    if (stage <= 0 || stage >= p.pp) continue;
    StageTime st = rank_time(scenario, p, split, stage, dense, moe);
    if (st.total_s() > slowest.total_s()) slowest = st;
  }
  return slowest;
}

/// Activation offloading per micro-batch: each of the first offload_layers layers copies its
/// activations to host memory while the next layer runs its forward, and back while the layer
/// after it runs its backward (Megatron's --cpu-offloading-num-layers through Transformer
/// Engine's CPU offload context, one layer ahead each way). What a copy takes beyond that
/// layer's pass is exposed. The copies' own HBM traffic is left out (stated).
double activation_offload_s(const Scenario& scenario, const ParallelConfig& p, const LayerTimesPair& times) {
  const double link = scenario.cluster.gpu.host_link_bytes_per_s;
  if (p.offload_layers <= 0 || link <= 0) return 0.0;
  // A layer's copy and passes depend on its index only through dense or MoE: price each kind once.
  auto exposed_s = [&](int layers, int layer_index, const LayerTimes& lt) {
    if (layers <= 0) return 0.0;
    const double copy_s = layer_activation_bytes(scenario, p, layer_index) / link;
    return layers * (std::max(0.0, copy_s - lt.forward_s()) + std::max(0.0, copy_s - lt.backward_s()));
  };
  const int moe_layers = moe_layers_in(scenario.model, 0, p.offload_layers);
  return exposed_s(p.offload_layers - moe_layers, first_dense_layer(scenario.model), times.dense) +
         exposed_s(moe_layers, first_moe_layer(scenario.model), times.moe);
}

/// Pipeline point-to-point: one activation of tokens·h bf16 per boundary per micro-batch each
/// way; each TP rank sends its 1/t share (Narayanan et al. 2021 §4.1 scatter/gather).
double pipeline_p2p_s(const Scenario& scenario, const ParallelConfig& p, double m) {
  if (p.pp <= 1) return 0.0;
  const GroupPlacement pp_group = place_group(p, scenario.cluster, Axis::kPp);
  const double one_way =
      send_recv_s(message_sizes(scenario, p).pp_bytes, pp_group.crosses_nodes(), scenario.cluster.gpu);
  // 1F1B without interleaving blocks on every exchange; interleaved schedules overlap
  // p2p with compute (Megatron --overlap-p2p-communication) except during fill and drain.
  // Fill and drain put every chunk boundary on the critical path: (p−1)·v transfers each way.
  // DualPipe's sends, like its all-to-alls, hide behind the paired pass (DeepSeek-AI 2024 §3.2.1).
  return p.vpp > 1 || overlaps_f_and_b(scenario.training, p) ? 2.0 * (p.pp - 1.0) * p.vpp * one_way +
                         exposed_after_overlap_s(2.0 * m * p.vpp * one_way, 2.0 * m * p.vpp * one_way,
                                                 scenario.calibration.overlap_slowdown)
                   : 2.0 * (m + p.pp - 1.0) * one_way;
}

/// Exposed data-parallel communication per step and the optimizer step, for the stage at
/// `peak_stage`. Gradients are reduced in the framework's gradient dtype; weights gathered in
/// BF16, or FP8 (training.fp8_param_gather). What overlaps with what follows the scenario's
/// switches (framework/framework.h).
void set_data_parallel_times(const Scenario& scenario, const ParallelConfig& p, const StageSplit& split,
                             int peak_stage, const StageTime& slowest, double m, TimeBreakdown& t) {
  const TrainingSpec& training = scenario.training;
  const GpuSpec& gpu = scenario.cluster.gpu;
  const double slowdown = scenario.calibration.overlap_slowdown;
  const ModelStateBytes state_bytes = model_state_bytes(scenario, p.zero);
  const double grad_bytes = state_bytes.gradients;
  const StageParams params = rank_params(scenario, p, split, peak_stage).params;
  const int gpn = scenario.cluster.nvlink_domain_gpus;
  const GroupPlacement dp_group = place_dp_cp_group(p, scenario.cluster);
  const GroupPlacement edp_group = place_expert_dp_group(p, scenario.cluster);
  // DeepSpeed's ZeRO-3 gathers each parameter with flat all-gathers over the whole DP group:
  // Narayanan et al. 2021 Table 2 shows its step time flat from 384 to 1,536 GPUs, as when
  // every GPU's own NIC carries the whole (n−1)/n of the weights, not 1/k of them.
  // Inside one NVLink domain the same flat gather stays on NVLink (a single-node ZeRO-3 run).
  const bool flat_gathers = training.framework == Framework::kDeepSpeed && p.zero >= 3 &&
                            (dp_group.crosses_nodes() || edp_group.crosses_nodes());
  const GroupPlacement gather_group = flat_gathers ? place_ranks(gpn, dp_group.size, gpn) : dp_group;
  const GroupPlacement gather_edp = flat_gathers ? place_ranks(gpn, edp_group.size, gpn) : edp_group;
  auto reduce = [&](double bytes_per_param, const GroupPlacement& dense_group,
                    const GroupPlacement& expert_group) {
    return reduce_scatter_s(bytes_per_param * params.dense, dense_group, gpu) +
           reduce_scatter_s(bytes_per_param * params.expert, expert_group, gpu);
  };
  const double gradient_rs = reduce(grad_bytes, dp_group, edp_group);
  // FP8 parameters gather one byte per layer parameter; the embedding and head stay BF16.
  const double weight_ag =
      state_bytes.gathered_layer_weights == kWeightBytesPerParam
          ? reduce(kWeightBytesPerParam, gather_group, gather_edp)
          : reduce_scatter_s(kWeightBytesPerParam * params.embedding_and_head +
                                 state_bytes.gathered_layer_weights * (params.dense - params.embedding_and_head),
                             gather_group, gpu) +
                reduce_scatter_s(state_bytes.gathered_layer_weights * params.expert, gather_edp, gpu);
  const bool overlap_grads = overlaps_grad_reduce(training, p.zero);
  const bool overlap_params = overlaps_param_gather(training, p.zero);
  const double mb_forward_s = slowest.forward_s;
  const double mb_backward_s = slowest.backward_s + slowest.recompute_s;
  auto hidden_behind = [&](bool overlap, double comm_s, double window_s) {
    return overlap ? exposed_after_overlap_s(comm_s, window_s, slowdown) : comm_s;
  };
  if (p.zero == 0) {
    // All-reduce (2× a reduce-scatter's traffic) during the last micro-batch's backward.
    t.dp_comm_s = hidden_behind(overlap_grads, 2.0 * gradient_rs, mb_backward_s);
  } else if (p.zero == 1) {
    // Distributed optimizer: reduce-scatter the gradients, all-gather the updated weights.
    t.dp_comm_s = hidden_behind(overlap_grads, gradient_rs, mb_backward_s) +
                  hidden_behind(overlap_params, weight_ag, mb_forward_s);
  } else if (defers_gradient_sync(training, p)) {
    // FSDP2 under PyTorch's pipeline schedules skips the gradient sync and keeps the weights
    // unsharded on all but the last micro-batch (torch.distributed.pipelining
    // backward_maybe_with_nosync): one gather and one reduce-scatter per step.
    t.dp_comm_s = hidden_behind(overlap_grads, gradient_rs, mb_backward_s) +
                  hidden_behind(overlap_params, weight_ag, mb_forward_s);
  } else if (p.zero == 2) {
    // Gradients sharded: every micro-batch's backward reduce-scatters its gradients (no full
    // gradient buffer is kept). Weights: gathered once per step, or, in FSDP2 without
    // resharding after forward (torchtitan), once per micro-batch.
    const double per_step_gathers = training.framework == Framework::kTorchtitan ? m : 1.0;
    t.dp_comm_s = m * hidden_behind(overlap_grads, gradient_rs, mb_backward_s) +
                  per_step_gathers * hidden_behind(overlap_params, weight_ag, mb_forward_s);
  } else {
    // FSDP / ZeRO-3: every micro-batch gathers the weights for its forward, again for a full
    // recomputation, and for its backward, and reduce-scatters its gradients; prefetching
    // hides them behind the micro-batch's compute.
    const double gathers = p.recompute == Recompute::kFull ? 3.0 : 2.0;
    const double per_mb = gathers * weight_ag + gradient_rs;
    t.dp_comm_s = m * hidden_behind(overlap_params || overlap_grads, per_mb, mb_forward_s + mb_backward_s);
  }
  const double dense_shards = double(p.dp) * p.cp;
  const double opt_params = p.zero >= 1 ? params.dense / dense_shards + params.expert / double(expert_dp(p))
                                        : params.total();
  t.optimizer_s = optimizer_step_s(opt_params, state_bytes.optimizer, device_of(scenario));
}

/// FLOPs per step spent recomputing activations: the recomputed share of every stage's layers
/// (partial full recomputation), whole layers under full, attention cores under selective.
double recompute_flops_per_step(const Scenario& scenario, const ParallelConfig& p, const StageSplit& split) {
  if (p.recompute == Recompute::kNone) return 0.0;
  const ModelSpec& model = scenario.model;
  const double tokens_per_step = double(scenario.training.seq_len) * scenario.training.global_batch;
  const int moe_layers = moe_layer_count(model);
  const LayerFlops dense_f = layer_forward_flops(model, first_dense_layer(model), tokens_per_step, scenario.training.seq_len);
  const LayerFlops moe_f =
      layer_forward_flops(model, std::max(0, first_moe_layer(model)), tokens_per_step, scenario.training.seq_len);
  auto part = [&](const LayerFlops& f) {
    return p.recompute == Recompute::kFull ? f.total() : f.attention_core;
  };
  double share = 1.0;
  if (p.recompute == Recompute::kFull && p.recompute_layers > 0) {
    double recomputed = 0;
    for (int stage : {0, 1, p.pp - 1}) {
      if (stage >= p.pp || (stage == 1 && p.pp < 3)) continue;
      const int layers = split.layers_on_stage(stage, p.pp);
      const double count = stage == 1 ? p.pp - 2.0 : 1.0;
      recomputed += count * recomputed_share(p, layers) * layers;
    }
    share = recomputed / model.layers;
  }
  return share * ((model.layers - moe_layers) * part(dense_f) + moe_layers * part(moe_f));
}

/// FLOPs, MFU, HFU, TFLOP/s per GPU, tokens/s and days to train from e.step_time_s.
void set_throughput(const Scenario& scenario, Estimate& e) {
  const ModelSpec& model = scenario.model;
  // MFU against the peak of the precision the linear layers run in (FP4 under NVFP4): no
  // kernel runs above it, so MFU stays below 1 but for masked attention (below).
  const double peak_flops = peak_flops_per_s(scenario.cluster.gpu, gemm_precision(scenario.training, scenario.cluster.gpu));
  const double tokens_per_step = double(scenario.training.seq_len) * scenario.training.global_batch;
  e.model_flops_per_step = model_flops_per_step(model, scenario.training.seq_len,
                                                scenario.training.global_batch);
  e.hardware_flops_per_step = e.model_flops_per_step + recompute_flops_per_step(scenario, e.parallel, e.split);
  const double gpus = scenario.cluster.gpus;
  if (e.step_time_s > 0) {
    e.mfu = e.model_flops_per_step / (e.step_time_s * gpus * peak_flops);
    e.mfu_causal = model_flops_per_step_causal(model, scenario.training.seq_len, scenario.training.global_batch) /
                   (e.step_time_s * gpus * peak_flops);
    e.hfu = e.hardware_flops_per_step / (e.step_time_s * gpus * peak_flops);
    e.tflops_per_gpu = e.model_flops_per_step / (e.step_time_s * gpus) / units::kFlopsPerTflop;
    e.tokens_per_s = tokens_per_step / e.step_time_s;
    if (scenario.training.token_budget > 0) {
      e.days_to_train = scenario.training.token_budget / e.tokens_per_s / units::kSecondsPerDay;
    }
  }
  if (e.mfu > 1.0) {
    // No kernel runs above peak (kernels.cpp caps every rate), but eq. 3 counts the whole score
    // matrix while causal kernels compute half of it: attention-bound steps at near-peak
    // attention rates (long sequences, overridden efficiencies) pass 100% by that convention.
    e.diagnostics.push_back({"plan.mfu_counts_masked_attention", Severity::kWarning,
                             "MFU is " + format_fixed(e.mfu * 100, 1) +
                                 "% because it counts the masked half of causal attention "
                                 "(Narayanan et al. 2021 eq. 3); counting what the kernels compute, "
                                 "mfu_causal is " + format_fixed(e.mfu_causal * 100, 1) + "%"});
  }
}

}  // namespace

Estimate evaluate(const Scenario& scenario, const ParallelConfig& parallel,
                  const EvaluateOptions& options) {
  Estimate e;
  e.parallel = parallel;
  ParallelConfig& p = e.parallel;
  const bool detailed = options.detailed;
  if (detailed) add_scenario_diagnostics(scenario, e);
  if (p.tp <= 1) {
    if (p.sequence_parallel && detailed) {
      e.diagnostics.push_back({"plan.sp_needs_tp", Severity::kWarning,
                               "sequence_parallel has no effect at tp = 1 (Megatron turns it off)"});
    }
    p.sequence_parallel = false;
  }
  const ModelSpec& model = scenario.model;
  e.split = plan_split(model, p);
  e.rejection_code = first_structural_error(scenario, p, e.split);
  if (!detailed && e.rejection_code) return e;  // the search needs only the code
  if (detailed) {
    std::vector<Diagnostic> structural = check_structure(scenario, p, e.split);
    e.diagnostics.insert(e.diagnostics.end(), structural.begin(), structural.end());
    e.method = method_figures(scenario, p);
  }
  if (!e.split.valid) {
    // Estimate the rest with the nearest even split so the numbers still say something.
    const int per = (model.layers + p.pp - 1) / p.pp;
    e.split.first_layers = e.split.middle_layers = e.split.last_layers = per;
  }

  // Memory on the peak stage.
  const StageMemory peak =
      options.peak_memory ? *options.peak_memory : peak_stage_memory(scenario, p, e.split);
  set_memory(scenario, peak, detailed, e);
  if (p.offload_layers > 0) set_host_memory(scenario, p, detailed, e);
  if (!e.fits_in_memory && !detailed) return e;

  // Pipeline.
  e.microbatches = microbatches(scenario.training.global_batch, p.dp, p.micro_batch);
  e.bubble_fraction = bubble_fraction(p.pp, p.vpp, e.microbatches);
  e.bubble_ratio = bubble_ratio(p.pp, p.vpp, e.microbatches);
  // A grid that does not tile the cluster runs on a different number of GPUs than it is
  // charged for: any time, MFU or throughput would be fiction (MFU above 100%), so none is given.
  if (1LL * p.tp * p.pp * p.dp * p.cp != scenario.cluster.gpus) {
    e.timed = false;
    e.feasible = false;
    return e;
  }

  // Per-layer times, dense and MoE (the search passes them cached), and the slowest stage.
  const LayerTimesPair computed = options.layer_times ? LayerTimesPair{} : layer_times_for(scenario, p);
  const StageTime slowest =
      slowest_stage(scenario, p, e.split, options.layer_times ? *options.layer_times : computed);
  const LayerTimes& sum = slowest.per_layer_sum;
  const double m = e.microbatches;
  TimeBreakdown& t = e.time;
  t.compute_s = m * (sum.gemm_forward_s + sum.gemm_backward_s + sum.attention_forward_s +
                     sum.attention_backward_s + sum.memory_forward_s + sum.memory_backward_s +
                     slowest.extra_s);
  t.host_s = m * slowest.host_stall_s;
  t.recompute_s = m * slowest.recompute_s;
  t.tp_comm_s = m * (sum.tp_forward_s + sum.tp_backward_s);
  t.cp_comm_s = m * (sum.cp_forward_s + sum.cp_backward_s);
  t.ep_comm_s = m * (sum.ep_forward_s + sum.ep_backward_s);
  // B carries the head's passes and the recomputation; W is the weight-gradient half of the
  // GEMMs' backward (each linear layer's dgrad and wgrad GEMMs have the same FLOPs).
  const StagePasses passes{slowest.forward_s, slowest.backward_s + slowest.recompute_s + slowest.extra_s,
                           0.5 * sum.gemm_backward_s};
  t.bubble_s = pipeline_bubble_s(p.schedule, p.pp, p.vpp, passes);
  if (!is_one_f_one_b(p.schedule) && p.pp > 1) {
    // The zero-bubble and DualPipe bubbles depend on F, B and W: their shares come from the times.
    const double busy_s = m * slowest.total_s();
    e.bubble_ratio = busy_s > 0 ? t.bubble_s / busy_s : 0.0;
    e.bubble_fraction = busy_s > 0 ? t.bubble_s / (busy_s + t.bubble_s) : 0.0;
  }
  t.pp_comm_s = pipeline_p2p_s(scenario, p, m);
  t.offload_s = m * activation_offload_s(scenario, p, options.layer_times ? *options.layer_times : computed);
  set_data_parallel_times(scenario, p, e.split, peak.stage, slowest, m, t);
  t.straggler_s = slowest_gpu_slowdown(scenario.cluster.gpus, device_of(scenario).arch.gpu_speed_spread) *
                  (t.compute_s + t.recompute_s + t.bubble_s);
  e.step_time_s = t.total_s();

  e.feasible = e.rejection_code == nullptr;
  if (!detailed) return e;  // the search ranks on step time; returned plans are re-evaluated

  set_throughput(scenario, e);
  if (e.bubble_fraction > 0.2) {
    e.diagnostics.push_back({"plan.pp_bubble_large", Severity::kWarning,
                             "the pipeline bubble is " + format_fixed(e.bubble_fraction * 100, 0) +
                                 "% of the step: raise the micro-batch count or interleave"});
  }
  return e;
}

}  // namespace pplan
