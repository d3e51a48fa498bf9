#include "pplan/model/estimate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/compute.h"
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
  return compute_s + recompute_s + tp_comm_s + cp_comm_s + ep_comm_s + pp_comm_s + bubble_s +
         dp_comm_s + optimizer_s;
}

ParallelConfig resolve_defaults(const Scenario& scenario) {
  const ParallelConstraints& c = scenario.parallel;
  ParallelConfig p;
  p.tp = c.tp.value_or(1);
  p.pp = c.pp.value_or(1);
  p.cp = c.cp.value_or(1);
  p.ep = c.ep.value_or(1);
  p.vpp = c.vpp.value_or(1);
  p.micro_batch = c.micro_batch.value_or(1);
  const long long model_parallel = 1LL * p.tp * p.pp * p.cp;
  p.dp = c.dp.value_or(static_cast<int>(std::max<long long>(1, scenario.cluster.gpus / model_parallel)));
  p.sequence_parallel = c.sequence_parallel.value_or(p.tp > 1);
  p.recompute = c.recompute.value_or(Recompute::kNone);
  p.zero = c.zero.value_or(0);
  p.first_stage_layers = c.first_stage_layers.value_or(0);
  p.last_stage_layers = c.last_stage_layers.value_or(0);
  return p;
}

static std::string str(long long v) { return std::to_string(v); }

namespace {

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
      return "tp·pp·dp·cp = " + str(p.tp) + "·" + str(p.pp) + "·" + str(p.dp) + "·" + str(p.cp) +
             " = " + str(product) + ", but the cluster has " + str(cluster.gpus) + " GPUs";
    });
  }
  if (model.heads % p.tp != 0) {
    visit("plan.heads_not_divisible", kErr, [&] {
      return str(model.heads) + " attention heads are not divisible by tp = " + str(p.tp);
    });
  }
  if (model.kv_heads % p.tp != 0 && p.tp % model.kv_heads != 0) {
    visit("plan.kv_heads_not_divisible", kErr, [&] {
      return str(model.kv_heads) + " kv heads and tp = " + str(p.tp) +
             " divide neither way (Megatron needs kv_heads % tp == 0 or tp % kv_heads == 0)";
    });
  }
  if (!split.valid) visit("plan.layers_not_divisible", kErr, [&] { return split.reason; });
  const long long per_step = 1LL * p.micro_batch * p.dp;
  if (scenario.training.global_batch % per_step != 0) {
    visit("plan.batch_not_divisible", kErr, [&] {
      return "global batch " + str(scenario.training.global_batch) +
             " is not divisible by micro_batch·dp = " + str(p.micro_batch) + "·" + str(p.dp) +
             " = " + str(per_step);
    });
  }
  if (p.vpp > 1) {
    if (p.pp <= 1) {
      visit("plan.vpp_needs_pp", kErr,
            [&] { return "interleaving (vpp = " + str(p.vpp) + ") needs pp > 1"; });
    } else if (split.valid && !vpp_divides(split, p.vpp)) {
      visit("plan.vpp_not_divisible", kErr, [&] {
        const int units = split.units_per_stage;
        return "vpp = " + str(p.vpp) + " does not divide the " +
               (units > 0 ? str(units) + " layers per stage"
                          : "stage sizes " + str(split.first_layers) + "/" +
                                str(split.middle_layers) + "/" + str(split.last_layers));
      });
    }
    const long long m = per_step > 0 ? scenario.training.global_batch / per_step : 0;
    if (p.pp > 1 && (m < p.pp || m % p.pp != 0)) {
      visit("plan.vpp_microbatches", kErr, [&] {
        return "the interleaved schedule needs the " + str(m) +
               " micro-batches to be a multiple of pp = " + str(p.pp);
      });
    }
  }
  if (p.cp > 1 && scenario.training.seq_len % (2 * p.cp) != 0) {
    visit("plan.cp_seq_not_divisible", kErr, [&] {
      return "seq_len " + str(scenario.training.seq_len) + " is not divisible by 2·cp = " +
             str(2 * p.cp);
    });
  }
  if (p.ep > 1) {
    if (!model.moe || model.moe->experts <= 0) {
      visit("plan.ep_without_moe", kErr,
            [&] { return "ep = " + str(p.ep) + " needs a mixture-of-experts model"; });
    } else {
      if (model.moe->experts % p.ep != 0) {
        visit("plan.ep_not_divisible", kErr, [&] {
          return str(model.moe->experts) + " experts are not divisible by ep = " + str(p.ep);
        });
      }
      if ((1LL * p.dp * p.cp) % p.ep != 0) {
        visit("plan.ep_not_divisible", kErr, [&] {
          return "ep = " + str(p.ep) + " must divide dp·cp = " + str(1LL * p.dp * p.cp) +
                 " (EP borrows from data parallel)";
        });
      }
      // The all-to-all is the heaviest MoE traffic: inside one NVLink domain it is cheap; past
      // it, (n − k)/n of every token copy crosses the NICs (comm.h all_to_all_s).
      const GroupPlacement ep_group = place_group(p, cluster.gpus_per_node, Axis::kEp);
      if (ep_group.crosses_nodes()) {
        visit("plan.ep_spans_nodes", kWarn, [&] {
          return "ep = " + str(p.ep) + " (× expert-tp " + str(p.tp) + ") spans " +
                 str(ep_group.nodes) + " nodes: " +
                 str(ep_group.size - ep_group.ranks_per_node) + "/" + str(ep_group.size) +
                 " of the all-to-all traffic crosses the network";
        });
      }
    }
  }
  if (p.tp > cluster.gpus_per_node) {
    visit("plan.tp_exceeds_node", kWarn, [&] {
      return "tp = " + str(p.tp) + " spans more than the " + str(cluster.gpus_per_node) +
             " GPUs of one node: its all-reduces leave NVLink";
    });
  }
  if (cluster.gpus % cluster.gpus_per_node != 0) {
    visit("plan.gpus_per_node_mismatch", kWarn, [&] {
      return str(cluster.gpus) + " GPUs do not fill whole nodes of " + str(cluster.gpus_per_node);
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
  LayerTimes per_layer_sum;  ///< summed over the stage's layers
  double extra_s = 0;        ///< LM head on the last stage
  double total_s() const { return per_layer_sum.total_s() + extra_s; }
};

static void accumulate(LayerTimes& sum, const LayerTimes& lt, double times) {
  sum.gemm_forward_s += times * lt.gemm_forward_s;
  sum.attention_forward_s += times * lt.attention_forward_s;
  sum.memory_forward_s += times * lt.memory_forward_s;
  sum.launch_forward_s += times * lt.launch_forward_s;
  sum.tp_forward_s += times * lt.tp_forward_s;
  sum.tp_backward_s += times * lt.tp_backward_s;
  sum.cp_exposed_s += times * lt.cp_exposed_s;
  sum.ep_exposed_s += times * lt.ep_exposed_s;
  sum.recompute_s += times * lt.recompute_s;
}

static StageTime stage_time(const Scenario& scenario, const ParallelConfig& p,
                            const StageSplit& split, int stage, const LayerTimes& dense,
                            const LayerTimes& moe) {
  const ModelSpec& model = scenario.model;
  const int layers = split.layers_on_stage(stage, p.pp);
  const int first_index = stage == 0 ? 0 : split.first_layers + (stage - 1) * split.middle_layers;
  const int moe_from = model.moe && model.moe->experts > 0 ? model.moe->dense_layers : model.layers;
  const int moe_layers = std::max(0, first_index + layers - std::max(first_index, moe_from));
  StageTime st;
  accumulate(st.per_layer_sum, dense, layers - moe_layers);
  accumulate(st.per_layer_sum, moe, moe_layers);
  if (stage == p.pp - 1) st.extra_s = lm_head_times_s(scenario, p);
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
  f.fits = f.total_bytes <= capacity;
  if (p.pp >= 2 && p.pp % 2 == 0) {
    f.half_pp = p.pp / 2;
    f.half_pp_model_states_bytes_per_gpu = f.model_states_bytes / (double(p.tp) * f.half_pp);
    f.half_pp_fits = f.half_pp_model_states_bytes_per_gpu + f.activations_bytes <= capacity;
  }
  f.distributed_optimizer_bytes_per_gpu =
      4.0 * f.params / tp_pp + 12.0 * f.params / (tp_pp * std::max(1, p.dp));
  return f;
}

LayerTimesPair layer_times_for(const Scenario& scenario, const ParallelConfig& parallel) {
  const ModelSpec& model = scenario.model;
  // Layer 0 is dense unless every layer holds experts, and then no dense layer is counted.
  const bool has_moe = model.moe && model.moe->experts > 0 && model.moe->dense_layers < model.layers;
  LayerTimesPair pair;
  pair.dense = layer_times(scenario, parallel, 0);
  pair.moe = has_moe ? layer_times(scenario, parallel, model.moe->dense_layers) : pair.dense;
  return pair;
}

Estimate evaluate(const Scenario& scenario, const ParallelConfig& parallel,
                  const EvaluateOptions& options) {
  Estimate e;
  e.parallel = parallel;
  ParallelConfig& p = e.parallel;
  const bool detailed = options.detailed;
  if (p.tp <= 1) {
    if (p.sequence_parallel && detailed) {
      e.diagnostics.push_back({"plan.sp_needs_tp", Severity::kWarning,
                               "sequence_parallel has no effect at tp = 1 (Megatron turns it off)"});
    }
    p.sequence_parallel = false;
  }
  const ModelSpec& model = scenario.model;
  const GpuSpec& gpu = scenario.cluster.gpu;
  e.split = split_layers(model.layers, p.pp, p.first_stage_layers, p.last_stage_layers);
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
  e.memory.weights_bytes = peak.weights_bytes;
  e.memory.gradients_bytes = peak.gradients_bytes;
  e.memory.optimizer_bytes = peak.optimizer_bytes;
  e.memory.activations_bytes = peak.activations_bytes;
  e.memory.reserved_bytes = peak.reserved_bytes;
  e.memory.total_bytes = peak.total_bytes();
  e.memory.capacity_bytes = gpu.memory_bytes;
  e.memory.peak_stage = peak.stage;
  e.fits_in_memory = e.memory.total_bytes <= e.memory.capacity_bytes;
  if (!e.fits_in_memory) {
    if (!e.rejection_code) e.rejection_code = "plan.out_of_memory";
    if (!detailed) return e;
    if (detailed) {
      e.diagnostics.push_back({"plan.out_of_memory", Severity::kError,
                               "stage " + std::to_string(peak.stage) + " needs " +
                                   format_fixed(e.memory.total_bytes / units::kBytesPerGB, 1) +
                                   " GB but the GPU has " +
                                   format_fixed(gpu.memory_bytes / units::kBytesPerGB, 1) + " GB"});
    }
  }

  // Pipeline.
  e.microbatches = microbatches(scenario.training.global_batch, p.dp, p.micro_batch);
  e.bubble_fraction = bubble_fraction(p.pp, p.vpp, e.microbatches);

  // Per-layer times, dense and MoE (the search passes them cached), and the slowest stage.
  const LayerTimesPair computed = options.layer_times ? LayerTimesPair{} : layer_times_for(scenario, p);
  const LayerTimesPair& times = options.layer_times ? *options.layer_times : computed;
  const LayerTimes& dense = times.dense;
  const LayerTimes& moe = times.moe;
  StageTime slowest = stage_time(scenario, p, e.split, 0, dense, moe);
  for (int stage : candidate_stages(model, e.split, p.pp)) {
    if (stage <= 0 || stage >= p.pp) continue;
    StageTime st = stage_time(scenario, p, e.split, stage, dense, moe);
    if (st.total_s() > slowest.total_s()) slowest = st;
  }
  const LayerTimes& sum = slowest.per_layer_sum;
  const double m = e.microbatches;
  TimeBreakdown& t = e.time;
  t.compute_s = m * (3.0 * (sum.gemm_forward_s + sum.memory_forward_s + sum.launch_forward_s) +
                     sum.attention_forward_s * (1.0 + kFlashBackwardRatio) + slowest.extra_s);
  t.recompute_s = m * sum.recompute_s;
  t.tp_comm_s = m * (sum.tp_forward_s + sum.tp_backward_s);
  t.cp_comm_s = m * sum.cp_exposed_s;
  t.ep_comm_s = m * sum.ep_exposed_s;
  const double stage_mb_s = slowest.total_s();
  t.bubble_s = p.pp > 1 ? (p.pp - 1.0) / p.vpp * stage_mb_s : 0.0;

  // Pipeline point-to-point: one activation of tokens·h bf16 per boundary per micro-batch
  // each way; each TP rank sends its 1/t share (Narayanan et al. 2021 §4.1 scatter/gather).
  if (p.pp > 1) {
    const GroupPlacement pp_group = place_group(p, scenario.cluster.gpus_per_node, Axis::kPp);
    const double one_way = send_recv_s(message_sizes(scenario, p).pp_bytes, pp_group.crosses_nodes(), gpu);
    // 1F1B without interleaving blocks on every exchange; interleaved schedules overlap
    // p2p with compute (Megatron --overlap-p2p-communication) except during fill and drain.
    // Fill and drain put every chunk boundary on the critical path: (p−1)·v transfers each way.
    t.pp_comm_s = p.vpp > 1 ? 2.0 * (p.pp - 1.0) * p.vpp * one_way +
                                  exposed_after_overlap_s(2.0 * m * p.vpp * one_way, 2.0 * m * p.vpp * one_way)
                            : 2.0 * (m + p.pp - 1.0) * one_way;
  }

  // Data parallel: gradients reduced in fp32 (Megatron's default with bf16), weights
  // gathered in bf16 under ZeRO; the overlap windows follow below.
  const StageParams params = stage_params_per_gpu(scenario, p, e.split, peak.stage);
  const GroupPlacement dp_group = place_dp_cp_group(p, scenario.cluster.gpus_per_node);
  const GroupPlacement edp_group =
      place_ranks(1LL * p.tp * p.ep, 1LL * p.dp * p.cp / std::max(1, p.ep), scenario.cluster.gpus_per_node);
  auto grad_sync = [&](double bytes_per_param) {
    return reduce_scatter_s(bytes_per_param * params.dense, dp_group, gpu) +
           reduce_scatter_s(bytes_per_param * params.expert, edp_group, gpu);
  };
  // Megatron overlaps gradient reduction with the last micro-batch's backward and the weight
  // gather with the first forward only when asked (--overlap-grad-reduce/-param-gather, off
  // by default); otherwise both run exposed after the backward pass.
  const bool overlap = scenario.training.overlap_grad_reduce;
  const double fwd_window = overlap ? sum.forward_s() : 0.0;
  const double bwd_window = overlap ? sum.backward_s() : 0.0;
  if (p.zero == 0) {
    t.dp_comm_s = exposed_after_overlap_s(2.0 * grad_sync(4.0), bwd_window);
  } else if (p.zero <= 2) {
    t.dp_comm_s = exposed_after_overlap_s(grad_sync(4.0), bwd_window) + exposed_after_overlap_s(grad_sync(2.0), fwd_window);
  } else {
    // FSDP: gather weights for forward and backward, reduce-scatter gradients, per micro-batch.
    const double per_mb = 2.0 * grad_sync(2.0) + grad_sync(4.0);
    t.dp_comm_s = m * exposed_after_overlap_s(per_mb, stage_mb_s);
  }
  const double dense_shards = double(p.dp) * p.cp;
  const double opt_params = p.zero >= 1 ? params.dense / dense_shards + params.expert / std::max(1.0, dense_shards / p.ep)
                                        : params.total();
  t.optimizer_s = optimizer_step_s(opt_params, gpu);
  e.step_time_s = t.total_s();

  e.feasible = e.rejection_code == nullptr;
  if (!detailed) return e;  // the search ranks on step time; returned plans are re-evaluated

  // Throughput.
  const double peak_flops = peak_flops_per_s(gpu, scenario.training.precision);
  const double tokens_per_step = double(scenario.training.seq_len) * scenario.training.global_batch;
  e.model_flops_per_step = model_flops_per_step(model, scenario.training.seq_len,
                                                scenario.training.global_batch);
  double recompute_flops = 0;
  if (p.recompute != Recompute::kNone) {
    const int moe_layers = moe_layer_count(model);
    const LayerFlops dense_f = layer_forward_flops(model, 0, tokens_per_step, scenario.training.seq_len);
    const LayerFlops moe_f = layer_forward_flops(model, model.layers - 1, tokens_per_step, scenario.training.seq_len);
    auto part = [&](const LayerFlops& f) {
      return p.recompute == Recompute::kFull ? f.total() : f.attention_core;
    };
    recompute_flops = (model.layers - moe_layers) * part(dense_f) + moe_layers * part(moe_f);
  }
  e.hardware_flops_per_step = e.model_flops_per_step + recompute_flops;
  const double gpus = scenario.cluster.gpus;
  if (e.step_time_s > 0) {
    e.mfu = e.model_flops_per_step / (e.step_time_s * gpus * peak_flops);
    e.hfu = e.hardware_flops_per_step / (e.step_time_s * gpus * peak_flops);
    e.tflops_per_gpu = e.model_flops_per_step / (e.step_time_s * gpus) / units::kFlopsPerTflop;
    e.tokens_per_s = tokens_per_step / e.step_time_s;
    if (scenario.training.token_budget > 0) {
      e.days_to_train = scenario.training.token_budget / e.tokens_per_s / units::kSecondsPerDay;
    }
  }
  if (detailed && e.bubble_fraction > 0.25) {
    e.diagnostics.push_back({"plan.pp_bubble_large", Severity::kWarning,
                             "the pipeline bubble is " + format_fixed(e.bubble_fraction * 100, 0) +
                                 "% of compute: raise the micro-batch count or interleave"});
  }
  e.feasible = e.rejection_code == nullptr;
  return e;
}

}  // namespace pplan
