#include "pplan/model/compute.h"

#include <algorithm>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/placement.h"

namespace pplan {

double peak_flops_per_s(const GpuSpec& gpu, Precision precision) {
  if (precision == Precision::kFp8 && gpu.fp8_flops_per_s > 0) return gpu.fp8_flops_per_s;
  return gpu.bf16_flops_per_s;
}

double gemm_efficiency(double m, double n, double k, const GpuSpec& gpu, Precision precision) {
  const double balance = peak_flops_per_s(gpu, precision) / gpu.hbm_bytes_per_s;
  // bytes/flops = e(MK + KN + MN) / 2MNK for e-byte elements: bf16 2, fp8 1.
  const double element_bytes = precision == Precision::kFp8 && gpu.fp8_flops_per_s > 0 ? 1.0 : 2.0;
  const double bytes_per_flop = element_bytes / 2.0 * (1.0 / n + 1.0 / m + 1.0 / k);
  return 1.0 / (1.0 / gpu.gemm_efficiency + balance * bytes_per_flop);
}

double LayerTimes::forward_s() const {
  return gemm_forward_s + attention_forward_s + memory_forward_s + launch_forward_s + tp_forward_s;
}

double LayerTimes::backward_s() const {
  // GEMM backward = dgrad + wgrad = 2× forward; attention per kFlashBackwardRatio (set in
  // layer_times); memory-bound kernels read and write about twice as much.
  return 2.0 * gemm_forward_s + attention_forward_s * kFlashBackwardRatio +
         2.0 * (memory_forward_s + launch_forward_s) + tp_backward_s + cp_exposed_s + ep_exposed_s;
}

/// Seconds for a GEMM of `flops` with the given shape on one GPU.
static double gemm_s(double m, double n, double k, const GpuSpec& gpu, Precision precision) {
  const double flops = 2.0 * m * n * k;
  return flops / (peak_flops_per_s(gpu, precision) * gemm_efficiency(m, n, k, gpu, precision));
}

LayerTimes layer_times(const Scenario& scenario, const ParallelConfig& parallel, int layer_index) {
  const ModelSpec& model = scenario.model;
  const GpuSpec& gpu = scenario.cluster.gpu;
  const Precision precision = scenario.training.precision;
  const double t = parallel.tp;
  const double s_full = scenario.training.seq_len;
  const MessageSizes messages = message_sizes(scenario, parallel);
  const double tokens = messages.tokens;  // per GPU, before TP
  const double h = model.hidden;
  const double d = head_dim(model);
  const double kv_width = model.kv_heads * d;
  const bool sp = parallel.sequence_parallel && parallel.tp > 1;
  const bool moe = is_moe_layer(model, layer_index);
  LayerTimes lt;

  // GEMMs: QKV, output projection, MLP up (2 matrices fused for SwiGLU) and down.
  double gemm = gemm_s(tokens, (h + 2.0 * kv_width) / t, h, gpu, precision) +
                gemm_s(tokens, h, h / t, gpu, precision);
  const double up_width = model.activation == Activation::kSwiglu ? 2.0 : 1.0;
  double mlp_width = model.ffn_hidden;
  if (moe) {
    // Each token visits top_k routed experts (+ shared ones); grouped GEMMs over the experts
    // local to this GPU see tokens·top_k/experts rows each. Assumption, stated: routing is
    // balanced (load-balancing loss or bias). An imbalanced router stretches these GEMMs and
    // the all-to-all below by the max/mean expert load (bounded by the capacity factor when
    // tokens are dropped, e.g. 1.25 in Switch Transformer, Fedus et al. 2022 §2.2).
    const MoeSpec& spec = *model.moe;
    mlp_width = spec.expert_ffn_hidden;
    const double per_expert_rows = std::max(1.0, tokens * spec.top_k / spec.experts);
    const double experts_local = double(spec.experts) / parallel.ep;
    const double expert_gemms =
        experts_local * (gemm_s(per_expert_rows * parallel.ep, up_width * mlp_width / t, h, gpu, precision) +
                         gemm_s(per_expert_rows * parallel.ep, h, mlp_width / t, gpu, precision));
    gemm += expert_gemms;
    if (spec.shared_experts > 0) {
      gemm += spec.shared_experts * (gemm_s(tokens, up_width * mlp_width / t, h, gpu, precision) +
                                     gemm_s(tokens, h, mlp_width / t, gpu, precision));
    }
    gemm += gemm_s(tokens, spec.experts, h, gpu, precision);  // router
  } else {
    gemm += gemm_s(tokens, up_width * mlp_width / t, h, gpu, precision) +
            gemm_s(tokens, h, mlp_width / t, gpu, precision);
  }
  lt.gemm_forward_s = gemm;

  // Attention core. Flash attention skips the masked half of a causal score matrix; without
  // it the scores are batched GEMMs (s × d by d × s per head) with the mask applied after.
  const double core_flops_full = 4.0 * tokens * s_full * h / t;  // model-FLOP count
  if (scenario.training.flash_attention) {
    const double executed = 0.5 * core_flops_full;
    lt.attention_forward_s =
        executed / (peak_flops_per_s(gpu, precision) * gpu.attention_efficiency);
  } else {
    const double e = gemm_efficiency(tokens, s_full, d, gpu, precision);
    lt.attention_forward_s = core_flops_full / (peak_flops_per_s(gpu, precision) * e);
  }

  // Memory-bound kernels, bytes per token per GPU in the forward pass:
  // norms 8h, bias-dropout-residual (12 + 2·dropout)h [replicated over TP unless SP];
  // fused bias-GeLU 4f or SwiGLU 6f, rotary 4(h + kv) [split]; softmax without flash
  // (4 + 5·dropout)·a·s [split].
  const double dropout = model.dropout ? 1.0 : 0.0;
  const double replicated_bytes = (8.0 + 12.0 + 2.0 * dropout) * h;
  double split_bytes = (model.activation == Activation::kSwiglu ? 6.0 : 4.0) *
                       (moe ? mlp_width * (model.moe->top_k + model.moe->shared_experts)
                            : mlp_width);
  if (!model.learned_positions) split_bytes += 4.0 * (h + kv_width);
  if (!scenario.training.flash_attention) {
    split_bytes += (4.0 + 5.0 * dropout) * model.heads * s_full;
  }
  const double elementwise_bytes =
      tokens * ((sp ? replicated_bytes / t : replicated_bytes) + split_bytes / t);
  lt.memory_forward_s = elementwise_bytes / (gpu.hbm_bytes_per_s * kHbmEfficiency);
  lt.launch_forward_s = kKernelsPerLayerForward * kKernelOverheadS;

  // Tensor parallelism: 2 all-reduces (or all-gather + reduce-scatter with SP, the same
  // traffic) of tokens·h·2 bytes per pass (Narayanan et al. 2021 §3.2; Korthikanti et al. 2022 §4.2.2).
  if (parallel.tp > 1) {
    const GroupPlacement tp_group = place_group(parallel, scenario.cluster.gpus_per_node, Axis::kTp);
    const double per_pass = 2.0 * all_reduce_s(messages.tp_bytes, tp_group, gpu);
    // Exposed in both passes: without --tp-comm-overlap each GEMM waits for its collective.
    // (Calibrated against Korthikanti et al. 2022 Table 5 iteration times, which this
    // reproduces within 4%: 22B 1.07 s vs 1.10 s, 175B 13.8 s vs 13.75 s, 1T 73 s vs 71.5 s.)
    lt.tp_forward_s = per_pass;
    lt.tp_backward_s = per_pass;
  }

  // Context parallelism: a ring passes K and V chunks (cp − 1 steps forward; K, V and their
  // gradients backward), hidden behind the attention of the chunk in hand.
  if (parallel.cp > 1) {
    const GroupPlacement cp_group = place_group(parallel, scenario.cluster.gpus_per_node, Axis::kCp);
    const double kv_bytes = messages.cp_kv_bytes;
    const Link link = cp_group.crosses_nodes() ? network(gpu) : nvlink(gpu);
    const double steps = parallel.cp - 1;
    const double forward_comm = steps * (kv_bytes / link.bytes_per_s + link.latency_s);
    const double backward_comm = 2.0 * forward_comm;
    lt.cp_exposed_s = exposed_after_overlap_s(forward_comm, lt.attention_forward_s) +
                      exposed_after_overlap_s(backward_comm,
                                              lt.attention_forward_s * kFlashBackwardRatio);
  }

  // MoE: all-to-all dispatch and combine of tokens·top_k·h·2 bytes, forward and backward.
  if (moe && parallel.ep > 1) {
    const GroupPlacement ep_group = place_group(parallel, scenario.cluster.gpus_per_node, Axis::kEp);
    lt.ep_exposed_s = 4.0 * all_to_all_s(messages.ep_bytes, ep_group, gpu);
  }

  // Recomputation: full reruns the whole forward; selective reruns the attention core
  // (Korthikanti et al. 2022 §5).
  // (Their FLOPs count toward HFU at the model level, in estimate.cpp.)
  if (parallel.recompute == Recompute::kFull) {
    lt.recompute_s = lt.forward_s() + (moe && parallel.ep > 1 ? lt.ep_exposed_s / 2.0 : 0.0);
  } else if (parallel.recompute == Recompute::kSelective) {
    lt.recompute_s = lt.attention_forward_s;
  }
  return lt;
}

double lm_head_times_s(const Scenario& scenario, const ParallelConfig& parallel) {
  const ModelSpec& model = scenario.model;
  const GpuSpec& gpu = scenario.cluster.gpu;
  const Precision precision = scenario.training.precision;
  const double tokens = message_sizes(scenario, parallel).tokens;
  const double vocab_local = padded_vocab(model, parallel.tp) / parallel.tp;
  const double forward = gemm_s(tokens, vocab_local, model.hidden, gpu, precision);
  // Cross-entropy over the vocabulary shard: fp32 logits read and written a few times.
  const double loss_bytes = tokens * vocab_local * 4.0 * 3.0;
  return 3.0 * forward + loss_bytes / (gpu.hbm_bytes_per_s * kHbmEfficiency);
}

double optimizer_step_s(double optimizer_params_per_gpu, const GpuSpec& gpu) {
  constexpr double kAdamBytesPerParam = 30.0;
  return optimizer_params_per_gpu * kAdamBytesPerParam / (gpu.hbm_bytes_per_s * kHbmEfficiency);
}

}  // namespace pplan
