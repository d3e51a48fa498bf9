#include "pplan/model/compute.h"

#include <algorithm>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/framework/framework.h"
#include "pplan/model/placement.h"

namespace pplan {

double LayerTimes::gpu_forward_s() const {
  return gemm_forward_s + attention_forward_s + memory_forward_s + tp_forward_s + cp_forward_s +
         ep_forward_s;
}

double LayerTimes::gpu_backward_s() const {
  return gemm_backward_s + attention_backward_s + memory_backward_s + tp_backward_s +
         cp_backward_s + ep_backward_s;
}

double LayerTimes::forward_s() const {
  if (host_expert_forward_s <= 0) return with_host_s(gpu_forward_s(), host_forward_s);
  return with_host_s(gpu_forward_s() - expert_gemm_forward_s, host_forward_s - host_expert_forward_s) +
         with_host_s(expert_gemm_forward_s, host_expert_forward_s);
}

double LayerTimes::backward_s() const { return with_host_s(gpu_backward_s(), host_backward_s); }

double LayerTimes::host_stall_s() const {
  return (forward_s() - gpu_forward_s()) + (backward_s() - gpu_backward_s());
}

double fp8_cast_bytes_per_element(Fp8Recipe recipe) {
  switch (recipe) {
    case Fp8Recipe::kDelayed: return 2.0;
    case Fp8Recipe::kCurrent: return 4.0;
    case Fp8Recipe::kBlockwise:
    case Fp8Recipe::kMxfp8: return 2.0 * (1.0 + 1.0 / 32.0);
    // NVFP4: two amax reads of the BF16 tensor (the per-tensor scale of it and of its random
    // Hadamard transform, which Transformer Engine applies to the weight-gradient GEMM's
    // inputs) and two 4.5-bit copies (row- and column-wise) with their scales.
    case Fp8Recipe::kNvfp4: return 2.0 + 2.0 + 2.0 * kNvfp4BytesPerElement;
  }
  return 4.0;
}

namespace {

/// One GEMM of a layer: (m × k) · (k × n) per micro-batch on one GPU.
struct Gemm {
  double m = 0, n = 0, k = 0;
};

/// Forward, and backward = dgrad (m × n)·(n × k) + wgrad (k × m)·(m × n), each by its own shape.
struct GemmTimes {
  double forward_s = 0;
  double backward_s = 0;
};

/// `at_floor`: each GEMM at gemm_floor_s() instead (layer_time_floor_s).
GemmTimes time_gemms(std::initializer_list<Gemm> gemms, const Device& device, Precision precision,
                     double batch = 1.0, bool at_floor = false) {
  const auto time = at_floor ? gemm_floor_s : gemm_s;
  GemmTimes t;
  for (const Gemm& g : gemms) {
    t.forward_s += time(g.m, g.n, g.k, device, precision, batch);
    t.backward_s += time(g.m, g.k, g.n, device, precision, batch) + time(g.k, g.n, g.m, device, precision, batch);
  }
  return t;
}

void add(GemmTimes& into, const GemmTimes& t, double times = 1.0) {
  into.forward_s += times * t.forward_s;
  into.backward_s += times * t.backward_s;
}

}  // namespace

namespace {

/// What every part of one layer's pricing reads: the scenario, the plan, the device and the
/// per-GPU shapes (tokens per GPU before TP, widths).
struct LayerContext {
  const Scenario& scenario;
  const ParallelConfig& parallel;
  Device device;
  bool fp8;
  Precision gemm_precision;  ///< the linear layers' (kernels.h gemm_precision)
  double t;         ///< tp
  double s_full;    ///< the whole sequence
  MessageSizes messages;
  double tokens;    ///< per GPU, before TP
  double h;
  AttentionDims dims;
  double q_width;   ///< heads · head_dim (h unless decoupled)
  double kv_width;
  bool sp;          ///< sequence parallelism in effect (tp > 1)
  bool moe;         ///< this layer is an MoE layer
  double slowdown;  ///< calibration.overlap_slowdown
  LayerShares shares;  ///< the blocks an average layer holds (a hybrid's shares)
  bool routed_at_floor = false;  ///< routed experts at gemm_floor_s() (layer_time_floor_s)
  bool all_at_floor = false;     ///< every GEMM at gemm_floor_s() (layer_work_floor_s)
};

LayerContext layer_context(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                           GemmMemo* gemm_memo) {
  const ModelSpec& model = scenario.model;
  Device device = device_of(scenario);
  device.gemm_memo = gemm_memo;
  const MessageSizes messages = message_sizes(scenario, parallel);
  return LayerContext{scenario,
                      parallel,
                      device,
                      scenario.training.precision == Precision::kFp8 && device.gpu.fp8_flops_per_s > 0,
                      gemm_precision(scenario.training, device.gpu),
                      double(parallel.tp),
                      double(scenario.training.seq_len),
                      messages,
                      messages.tokens,
                      double(model.hidden),
                      attention_dims(model),
                      model.heads * head_dim(model),
                      model.kv_heads * head_dim(model),
                      parallel.sequence_parallel && parallel.tp > 1,
                      is_moe_layer(model, layer_index),
                      scenario.calibration.overlap_slowdown,
                      layer_shares(model)};
}

/// A layer's GEMMs as its context prices them: each at gemm_floor_s() under all_at_floor, and the
/// routed experts' (`routed`) under routed_at_floor too.
GemmTimes time_layer_gemms(const LayerContext& c, std::initializer_list<Gemm> gemms, Precision precision,
                           double batch = 1.0, bool routed = false) {
  return time_gemms(gemms, c.device, precision, batch, c.all_at_floor || (routed && c.routed_at_floor));
}

/// The GEMMs of one layer per GPU, and the widths their FP8 casts stream.
struct LinearLayers {
  GemmTimes gemms;
  /// Forward GEMM time of the parts selective recomputation can rerun, by RecomputeModule bit.
  std::array<double, kRecomputeModuleCount> module_forward_s{};
  double linear_inputs = 0;     ///< widths of the linear layers' inputs per token (FP8 casts)
  double linear_outputs = 0;    ///< ... and of their outputs (the gradients cast in backward)
  double active_mlp_width = 0;  ///< MLP width a token passes through (top-k + shared experts)
  double routed_forward_s = 0;  ///< the routed experts' forward GEMMs
};

/// GEMMs, per GPU after the TP split (SP all-gathers the tokens first, so every GEMM sees all
/// of them). Attention projections: fused QKV and the output projection, or MLA's latents.
void add_attention_projections(const LayerContext& c, LinearLayers& l) {
  const ModelSpec& model = c.scenario.model;
  const Precision precision = c.gemm_precision;
  const double tokens = c.tokens, h = c.h, t = c.t;
  if (model.mla) {
    const MlaSpec& m = *model.mla;
    const double a = c.dims.heads / t;
    // The down-projections to the latents are replicated over TP; the up-projections and the
    // output projection split by heads.
    const double q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
    if (m.q_lora_rank > 0) add(l.gemms, time_layer_gemms(c, {{tokens, double(m.q_lora_rank), h}}, precision));
    // The up-projections (queries, and keys/values from their latent): `mla_up_proj` reruns them.
    const GemmTimes up = time_layer_gemms(
        c, {{tokens, a * c.dims.qk_head_dim, q_in},
            {tokens, a * (double(m.qk_nope_head_dim) + m.v_head_dim), double(m.kv_lora_rank)}},
        precision);
    add(l.gemms, up);
    l.module_forward_s[module_index(kRecomputeMlaUpProj)] += up.forward_s;
    add(l.gemms, time_layer_gemms(c, {{tokens, double(m.kv_lora_rank) + m.qk_rope_head_dim, h},
                                      {tokens, h, a * c.dims.v_head_dim}},
                                  precision));
    l.linear_inputs += h + q_in + double(m.kv_lora_rank) + a * c.dims.v_head_dim;
    l.linear_outputs += a * (c.dims.qk_head_dim + double(m.qk_nope_head_dim) + m.v_head_dim) + h;
  } else {
    add(l.gemms, time_layer_gemms(c, {{tokens, (c.q_width + 2.0 * c.kv_width) / t, h}, {tokens, h, c.q_width / t}},
                                  precision));
    l.linear_inputs += h + c.q_width / t;
    l.linear_outputs += (c.q_width + 2.0 * c.kv_width) / t + h;
  }
}

/// An MoE layer's routed experts: grouped GEMMs over the experts local to this GPU, each seeing
/// tokens·top_k/experts rows. Assumption, stated: routing is balanced (load-balancing loss or
/// bias). An imbalanced router stretches these GEMMs and the all-to-all by the max/mean expert load.
GemmTimes routed_expert_gemms(const LayerContext& c) {
  const MoeSpec& spec = *c.scenario.model.moe;
  const double up_width = gated_mlp(c.scenario.model.activation) ? 2.0 : 1.0;
  const double mlp_width = spec.expert_ffn_hidden;
  // Tokens arriving at this GPU's experts: every EP rank sends the top-k copies of its
  // tokens/tp, and expert-TP gathers those of its etp ranks; each expert's matrices are
  // split over etp (parallel folding).
  const double etp = expert_tp(c.parallel);
  // (A work floor leaves out the one-row minimum, which is not linear in the tokens.)
  const double rows = c.tokens * spec.top_k / spec.experts;
  const double rows_per_expert = (c.all_at_floor ? rows : std::max(1.0, rows)) * c.parallel.ep * etp / c.t;
  const double experts_local = double(spec.experts) / c.parallel.ep;
  // Their FLOPs, 2·max(1, tokens·top_k/experts)·experts·h·width·(up + 1)/tp, do not depend on
  // ep or etp; only their tiles' efficiency does.
  return time_layer_gemms(c, {{rows_per_expert, up_width * mlp_width / etp, c.h}, {rows_per_expert, c.h, mlp_width / etp}},
                          c.gemm_precision, experts_local, /*routed=*/true);
}

/// MLP: up (gate and up fused for SwiGLU) and down; an MoE layer's routed experts
/// (routed_expert_gemms), shared experts and router instead.
void add_mlp(const LayerContext& c, LinearLayers& l) {
  const ModelSpec& model = c.scenario.model;
  const Precision precision = c.gemm_precision;
  const double tokens = c.tokens, h = c.h, t = c.t;
  const double up_width = gated_mlp(model.activation) ? 2.0 : 1.0;
  double mlp_width = model.ffn_hidden;
  l.active_mlp_width = model.ffn_hidden;
  if (c.moe) {
    const MoeSpec& spec = *model.moe;
    mlp_width = spec.expert_ffn_hidden;
    l.active_mlp_width = double(spec.expert_ffn_hidden) * (spec.top_k + spec.shared_experts);
    const GemmTimes routed = routed_expert_gemms(c);
    add(l.gemms, routed);
    l.routed_forward_s += routed.forward_s;
    GemmTimes shared;
    if (spec.shared_experts > 0) {
      add(shared, time_layer_gemms(c, {{tokens, up_width * mlp_width / t, h}, {tokens, h, mlp_width / t}}, precision),
          spec.shared_experts);
      add(l.gemms, shared);
    }
    // The router stays in BF16.
    const GemmTimes router = time_layer_gemms(c, {{tokens, double(spec.experts), h}}, Precision::kBf16);
    add(l.gemms, router);
    l.module_forward_s[module_index(kRecomputeMoe)] += routed.forward_s + shared.forward_s + router.forward_s;
    l.module_forward_s[module_index(kRecomputeSharedExperts)] += shared.forward_s;
  } else {
    const GemmTimes mlp = time_layer_gemms(c, {{tokens, up_width * mlp_width / t, h}, {tokens, h, mlp_width / t}}, precision);
    add(l.gemms, mlp);
    l.module_forward_s[module_index(kRecomputeMlp)] += mlp.forward_s;
  }
  l.linear_inputs += h + l.active_mlp_width / t;
  l.linear_outputs += up_width * l.active_mlp_width / t + h;
}

/// A Mamba-2 mixer (Megatron's MambaMixer, TP over heads and groups): in_proj to z, x, B, C
/// and dt, out_proj back to h; its conv, scan and gated norm are priced in set_mamba_kernels.
void add_mamba(const LayerContext& c, LinearLayers& l) {
  const ModelSpec& model = c.scenario.model;
  if (!model.mamba) return;
  const MambaSpec& m = *model.mamba;
  const double tokens = c.tokens, h = c.h, t = c.t;
  const double d_inner = mamba_inner_width(m);
  const double in_width = d_inner + mamba_conv_channels(m) + m.heads;  // z, x·B·C, dt
  add(l.gemms, time_layer_gemms(c, {{tokens, in_width / t, h}, {tokens, h, d_inner / t}}, c.gemm_precision));
  l.linear_inputs += h + d_inner / t;
  l.linear_outputs += in_width / t + h;
}

/// Attention core. Flash attention skips the masked half of a causal score matrix; the
/// unfused path runs QKᵀ and A·V as batched GEMMs over the full score matrix, in BF16.
void set_attention_core(const LayerContext& c, LayerTimes& lt) {
  const ParallelConfig& parallel = c.parallel;
  const double heads_local = c.dims.heads / c.t;
  if (c.scenario.training.flash_attention) {
    // Local (sliding-window, chunked) layers skip the keys outside their window: the kernel runs
    // the layers' mean key count (architecture.h attention_keys_per_query).
    const double keys = attention_keys_per_query(c.scenario.model, c.s_full);
    const bool fp8 = c.fp8 && c.scenario.training.fp8_dot_product_attention;
    lt.attention_forward_s = flash_attention_forward_s(c.tokens, keys, heads_local, c.dims.qk_head_dim,
                                                       c.dims.v_head_dim, true, c.device, parallel.cp, fp8);
    lt.attention_backward_s = flash_attention_backward_s(c.tokens, keys, heads_local, c.dims.qk_head_dim,
                                                         c.dims.v_head_dim, true, c.device, parallel.cp, fp8);
    return;
  }
  // The unfused path materialises the whole masked score matrix, local layers included.
  const double queries = c.s_full / parallel.cp;
  const double batch = parallel.micro_batch * heads_local;
  const GemmTimes core = time_layer_gemms(
      c, {{queries, c.s_full, c.dims.qk_head_dim}, {queries, c.dims.v_head_dim, c.s_full}}, Precision::kBf16, batch);
  // The scaled, masked softmax and its dropout stream the score matrix: read and write it
  // in BF16 (4 bytes per score) plus the dropout mask and output (5 with dropout) forward,
  // about twice that backward. Selective recomputation reruns all of it.
  const double dropout_scores = c.scenario.model.dropout ? 5.0 : 0.0;
  const double score_bytes = c.tokens * heads_local * c.s_full * (4.0 + dropout_scores);
  lt.attention_forward_s = core.forward_s + stream_s(score_bytes, c.device);
  lt.attention_backward_s = core.backward_s + stream_s(2.0 * score_bytes, c.device);
}

/// Streaming kernels, bytes per token per GPU in the forward pass: norms 8h and
/// bias-dropout-residual (12 + 2·dropout)h, replicated over TP unless SP; the activation
/// function 4f (GeLU) or 6f (SwiGLU), rotary 4(h + kv), split over TP (the unfused softmax
/// is part of the attention core). FP8 adds the casts of every linear layer's input
/// (fp8_cast_bytes_per_element) and, in backward, of every output gradient. MoE adds the
/// permutation of the top-k token copies before and after the experts (read and write, twice).
void set_streaming(const LayerContext& c, const LinearLayers& l, LayerTimes& lt) {
  const ModelSpec& model = c.scenario.model;
  const double tokens = c.tokens, h = c.h, t = c.t;
  const double dropout = model.dropout ? 1.0 : 0.0;
  // Per block: its norm 4h and residual add 6h; a transformer layer has two blocks.
  const double blocks = c.shares.blocks();
  const double replicated_bytes = (10.0 * blocks + (c.shares.attention + c.shares.mlp) * dropout) * h;
  double split_bytes = (gated_mlp(model.activation) ? 6.0 : 4.0) * l.active_mlp_width;
  if (!model.learned_positions) split_bytes += c.shares.attention * 4.0 * (c.q_width + c.kv_width);
  double forward_bytes = tokens * ((c.sp ? replicated_bytes / t : replicated_bytes) + split_bytes / t);
  double backward_bytes = 2.0 * forward_bytes;
  // A clamped SwiGLU's clamps before the fused activation, per value of its gated input
  // (2 per output value; framework.h).
  const bool clamped = model.activation == Activation::kClampedSwiglu;
  const Framework framework = c.scenario.training.framework;
  const double clamp_forward = clamped ? clamped_activation_bytes_per_element(framework, false) : 0.0;
  const double clamp_backward = clamped ? clamped_activation_bytes_per_element(framework, true) : 0.0;
  forward_bytes += tokens * 2.0 * l.active_mlp_width / t * clamp_forward;
  backward_bytes += tokens * 2.0 * l.active_mlp_width / t * clamp_backward;
  if (c.fp8) {
    const double cast_bytes = fp8_cast_bytes_per_element(c.scenario.training.fp8_recipe);
    forward_bytes += tokens * cast_bytes * l.linear_inputs;
    backward_bytes += tokens * cast_bytes * l.linear_outputs;
  }
  double permute_bytes = 0;
  if (c.moe) {
    permute_bytes = 2.0 * 2.0 * 2.0 * tokens * model.moe->top_k * h / t;
    forward_bytes += permute_bytes;
    backward_bytes += permute_bytes;
    if (model.linear_bias) {
      // The routed experts' output bias, added outside their GEMMs (framework.h).
      const double outputs = c.shares.mlp * tokens * model.moe->top_k * h / t;
      forward_bytes += outputs * expert_bias_bytes_per_element(framework, false);
      backward_bytes += outputs * expert_bias_bytes_per_element(framework, true);
    }
  }
  lt.memory_forward_s = stream_s(forward_bytes, c.device);
  lt.memory_backward_s = stream_s(backward_bytes, c.device);
  // What the recomputable modules stream in their forward: the norms (read and write h), the
  // activation function over its width (moe_act: the routed experts'), a MoE block's permutes.
  const double activation_bytes = ((gated_mlp(model.activation) ? 6.0 : 4.0) + 2.0 * clamp_forward) * tokens / t;
  lt.module_forward_s[module_index(kRecomputeLayernorm)] = stream_s(tokens * 4.0 * h * blocks / (c.sp ? t : 1.0), c.device);
  if (c.moe) {
    const MoeSpec& moe = *model.moe;
    const double expert = moe.expert_ffn_hidden;
    lt.module_forward_s[module_index(kRecomputeMoeAct)] = stream_s(c.shares.mlp * activation_bytes * expert * moe.top_k, c.device);
    lt.module_forward_s[module_index(kRecomputeMoe)] += stream_s(c.shares.mlp * activation_bytes * l.active_mlp_width + permute_bytes, c.device);
    lt.module_forward_s[module_index(kRecomputeSharedExperts)] += stream_s(c.shares.mlp * activation_bytes * expert * moe.shared_experts, c.device);
  } else {
    lt.module_forward_s[module_index(kRecomputeMlp)] += stream_s(c.shares.mlp * activation_bytes * model.ffn_hidden, c.device);
  }
}

/// An MoE layer's dispatch and combine in one pass: the all-to-all of each GPU's
/// tokens·top_k·h·2/tp bytes each way; with expert-TP, the received copies are all-gathered over
/// the etp group before the experts and reduce-scattered after them (Megatron-Core
/// MoEAlltoAllTokenDispatcher). The flex dispatcher (DeepEP) sends a token over the network once
/// per remote node.
/// `ep_bytes`: message_sizes().ep_bytes, what one GPU sends each way.
double expert_dispatch_pass_s(const Scenario& scenario, const ParallelConfig& parallel, double ep_bytes) {
  const GpuSpec& gpu = scenario.cluster.gpu;
  double pass_s = 0;
  if (parallel.ep > 1) {
    const GroupPlacement ep_group = place_group(parallel, scenario.cluster, Axis::kEp);
    const MoeSpec& moe = *scenario.model.moe;
    pass_s = scenario.training.moe_dispatcher == MoeDispatcher::kFlex
                 ? 2.0 * deduplicated_all_to_all_s(ep_bytes / moe.top_k, moe.top_k,
                                                   remote_nodes_per_token(moe, ep_group.nodes), ep_group, gpu)
                 : 2.0 * all_to_all_s(ep_bytes, ep_group, gpu);
  }
  const int etp = expert_tp(parallel);
  if (etp > 1) {
    const GroupPlacement etp_group = place_group(parallel, scenario.cluster, Axis::kEtp);
    pass_s += 2.0 * reduce_scatter_s(ep_bytes * etp, etp_group, gpu);
  }
  return pass_s;
}

double expert_dispatch_pass_s(const LayerContext& c) {
  return c.moe ? expert_dispatch_pass_s(c.scenario, c.parallel, c.messages.ep_bytes) : 0.0;
}

/// Whether one micro-batch's dispatch hides behind another's computation: Megatron's combined
/// 1F1B (--overlap-moe-expert-parallel-comm) or DualPipe's overlapped F&B.
bool hides_expert_dispatch(const LayerContext& c) {
  return hides_expert_all_to_all(c.scenario.training, c.parallel, c.moe);
}

/// The exposed TP, CP and EP communication of the layer (lt's GEMM and attention times must be
/// set: the overlapped collectives hide behind them). Returns the collectives issued per pass.
double set_communication(const LayerContext& c, LayerTimes& lt) {
  const ParallelConfig& parallel = c.parallel;
  double collectives_per_pass = 0;
  // Tensor parallelism: 2 all-reduces (or all-gather + reduce-scatter pairs with SP: the same
  // traffic) of tokens·h·2 bytes per pass (Narayanan et al. 2021 §3.2; Korthikanti et al. 2022
  // §4.2.2). Without --tp-comm-overlap each GEMM waits for its collective; with it (SP only,
  // Megatron-LM d98e8a64 validate_args) the collectives are pipelined with the GEMMs beside them.
  if (parallel.tp > 1) {
    const GroupPlacement tp_group = place_group(parallel, c.scenario.cluster, Axis::kTp);
    // One all-reduce per block (a transformer layer's attention and MLP: two). An MoE layer's
    // routed experts take their tokens through the dispatcher instead (below); only shared
    // experts gather over TP as a dense MLP does (Megatron-Core SharedExpertMLP).
    const bool routed_only = c.moe && c.scenario.model.moe->shared_experts == 0;
    const double blocks = c.shares.blocks() - (routed_only ? c.shares.mlp : 0.0);
    const double per_pass = blocks * all_reduce_s(c.messages.tp_bytes, tp_group, c.device.gpu);
    collectives_per_pass += (c.sp ? 2.0 : 1.0) * blocks;
    if (c.sp && c.scenario.training.tp_comm_overlap) {
      lt.tp_forward_s = exposed_after_overlap_s(per_pass, lt.gemm_forward_s, c.slowdown);
      lt.tp_backward_s = exposed_after_overlap_s(per_pass, lt.gemm_backward_s, c.slowdown);
    } else {
      lt.tp_forward_s = per_pass;
      lt.tp_backward_s = per_pass;
    }
  }
  // Context parallelism: a ring passes K and V chunks (cp − 1 steps forward; K, V and their
  // gradients backward), hidden behind the attention of the chunk in hand.
  if (parallel.cp > 1) {
    const GroupPlacement cp_group = place_group(parallel, c.scenario.cluster, Axis::kCp);
    const Link link = cp_group.crosses_nodes() ? network(c.device.gpu) : nvlink(c.device.gpu);
    const double steps = parallel.cp - 1;
    const double forward_comm =
        c.shares.attention * steps * (c.messages.cp_kv_bytes / link.bytes_per_s + link.latency_s);
    lt.cp_forward_s = exposed_after_overlap_s(forward_comm, lt.attention_forward_s, c.slowdown);
    lt.cp_backward_s = exposed_after_overlap_s(2.0 * forward_comm, lt.attention_backward_s, c.slowdown);
    collectives_per_pass += c.shares.attention * 2.0 * steps;
    // Mamba-2 under CP (Megatron-LM d98e8a64 megatron/core/ssm/mamba_context_parallel.py): the
    // mixer all-to-alls z, x, B, C and dt from sequence to head shards before its conv and scan
    // and y back after, each way in both passes; not overlapped.
    const ModelSpec& model = c.scenario.model;
    if (model.mamba && c.shares.mamba > 0) {
      const MambaSpec& m = *model.mamba;
      const double bytes = c.tokens * 2.0 * (2.0 * mamba_inner_width(m) + mamba_conv_channels(m) + m.heads) / c.t;
      const double a2a = c.shares.mamba * all_to_all_s(bytes, cp_group, c.device.gpu);
      lt.cp_forward_s += a2a;
      lt.cp_backward_s += a2a;
      collectives_per_pass += c.shares.mamba * 6.0;
    }
  }
  // MoE: the dispatch and combine, both passes (expert_dispatch_pass_s).
  lt.ep_forward_s = lt.ep_backward_s = expert_dispatch_pass_s(c);
  if (c.moe) collectives_per_pass += (parallel.ep > 1 ? 2 : 0) + (expert_tp(parallel) > 1 ? 2 : 0);
  if (hides_expert_dispatch(c)) {
    // Combined 1F1B, or DualPipe's overlapped F&B: one micro-batch's forward runs beside
    // another's backward, so each pass's dispatch and combine hide behind the other pass's
    // computation (steady state; the warm-up and cool-down passes are priced as overlapped
    // too, a stated approximation).
    const double comm_s = lt.ep_forward_s + lt.ep_backward_s;
    const double window_s = lt.gemm_forward_s + lt.attention_forward_s + lt.memory_forward_s + lt.gemm_backward_s +
                            lt.attention_backward_s + lt.memory_backward_s;
    const double exposed_s = exposed_after_overlap_s(comm_s, window_s, c.slowdown);
    lt.ep_forward_s = lt.ep_backward_s = exposed_s / 2.0;
  }
  return collectives_per_pass;
}

/// The host time to launch one forward's kernels, its collectives apart: the layer's own and
/// its routed experts'.
struct HostLaunches {
  double layer_s = 0;
  double experts_s = 0;
};

/// The host issues every kernel: the framework's count per layer, FP8 casts, MoE routing and
/// permutation. CUDA graphs replay them without the host.
HostLaunches host_launches(const LayerContext& c) {
  const TrainingSpec& training = c.scenario.training;
  if (training.cuda_graphs) return {};
  // The framework's count is a transformer layer's (two blocks); a hybrid layer holds one.
  const double blocks = c.shares.blocks();
  const double kernels = (kernels_per_layer_forward(training.framework) + (c.fp8 ? 6.0 : 0.0)) * blocks / 2.0 +
                         (c.moe ? 8.0 : 0.0) +
                         (c.scenario.model.activation == Activation::kClampedSwiglu
                              ? c.shares.mlp * clamped_activation_kernels_forward(training.framework)
                              : 0.0);
  const double host_kernel_s = c.scenario.cluster.gpu.host_kernel_s > 0 ? c.scenario.cluster.gpu.host_kernel_s
                                                                        : c.scenario.calibration.host_kernel_s;
  // The routed experts' launches grow with the experts local to the GPU: with few tokens per
  // expert (many local experts, small micro-batches) the host, not the GPU, sets their pace.
  const double experts_local = c.moe ? double(c.scenario.model.moe->experts) / c.parallel.ep : 0.0;
  const double per_expert = kernels_per_local_expert_forward(training.framework, c.fp8) +
                            (c.moe && c.scenario.model.linear_bias
                                 ? expert_bias_kernels_per_local_expert_forward(training.framework)
                                 : 0.0);
  return {kernels * host_kernel_s, c.shares.mlp * experts_local * per_expert * host_kernel_s};
}

/// The host's time per pass: its launches and its collectives.
void set_host(const LayerContext& c, double collectives_per_pass, LayerTimes& lt) {
  if (c.scenario.training.cuda_graphs) {
    lt.host_forward_s = lt.host_backward_s = lt.expert_gemm_forward_s = 0.0;
    return;
  }
  const HostLaunches launches = host_launches(c);
  const double pass_host_s = launches.layer_s + collectives_per_pass * c.scenario.calibration.host_collective_s;
  lt.host_forward_s = pass_host_s + launches.experts_s;
  lt.host_backward_s = 2.0 * lt.host_forward_s;
  if (syncs_host_before_experts(c.scenario.training.framework)) lt.host_expert_forward_s = launches.experts_s;
  else lt.expert_gemm_forward_s = 0.0;
}

}  // namespace

namespace {

/// `into` += share · `part`: an average layer of a hybrid holds each block by its share.
void add_share(LinearLayers& into, const LinearLayers& part, double share) {
  add(into.gemms, part.gemms, share);
  for (std::size_t i = 0; i < into.module_forward_s.size(); ++i) into.module_forward_s[i] += share * part.module_forward_s[i];
  into.linear_inputs += share * part.linear_inputs;
  into.linear_outputs += share * part.linear_outputs;
  into.active_mlp_width += share * part.active_mlp_width;
  into.routed_forward_s += share * part.routed_forward_s;
}

/// The Mamba-2 mixer's other kernels: the SSD scan, and streaming the causal conv (in and out
/// of d_inner + 2·G·N channels), the gated RMSNorm and the dt/softplus (about 8 bytes per
/// channel each way), split over TP.
void set_mamba_kernels(const LayerContext& c, LayerTimes& lt) {
  const ModelSpec& model = c.scenario.model;
  if (!model.mamba || c.shares.mamba <= 0) return;
  const MambaSpec& m = *model.mamba;
  const double heads_local = double(m.heads) / c.t;
  const double channels = mamba_conv_channels(m) / c.t;
  const double bytes = c.tokens * 8.0 * channels;
  lt.memory_forward_s += c.shares.mamba * (ssd_scan_forward_s(c.tokens, heads_local, m.head_dim, m.state, m.chunk, c.device) +
                                           stream_s(bytes, c.device));
  lt.memory_backward_s += c.shares.mamba * (ssd_scan_backward_s(c.tokens, heads_local, m.head_dim, m.state, m.chunk, c.device) +
                                            stream_s(2.0 * bytes, c.device));
}

}  // namespace

namespace {

/// A layer's GEMMs, attention core, streaming and Mamba kernels (no communication, no host).
LayerTimes layer_kernels(const LayerContext& c) {
  LinearLayers attention, mlp, mamba, linear;
  add_attention_projections(c, attention);
  add_mlp(c, mlp);
  add_mamba(c, mamba);
  add_share(linear, attention, c.shares.attention);
  add_share(linear, mlp, c.shares.mlp);
  add_share(linear, mamba, c.shares.mamba);
  LayerTimes lt;
  lt.gemm_forward_s = linear.gemms.forward_s;
  lt.gemm_backward_s = linear.gemms.backward_s;
  lt.expert_gemm_forward_s = linear.routed_forward_s;
  lt.module_forward_s = linear.module_forward_s;
  set_attention_core(c, lt);
  lt.attention_forward_s *= c.shares.attention;
  lt.attention_backward_s *= c.shares.attention;
  set_streaming(c, linear, lt);
  set_mamba_kernels(c, lt);
  return lt;
}

}  // namespace

LayerTimes layer_times(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                       GemmMemo* gemm_memo) {
  const LayerContext c = layer_context(scenario, parallel, layer_index, gemm_memo);
  LayerTimes lt = layer_kernels(c);
  set_host(c, set_communication(c, lt), lt);
  // Rerunning a MoE block reruns its dispatch and combine.
  if (c.moe) lt.module_forward_s[module_index(kRecomputeMoe)] += lt.ep_forward_s;
  return with_recompute(lt, parallel.recompute, recompute_modules(parallel, scenario.model.mla.has_value()));
}

double layer_time_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                          GemmMemo* gemm_memo) {
  LayerContext c = layer_context(scenario, parallel, layer_index, gemm_memo);
  c.routed_at_floor = true;
  // Without communication and host time, and at least as fast per GEMM: below total_s() of every
  // recompute kind (recomputation only adds), for every ep and etp (only the routed experts'
  // tiles and the exposed collectives depend on them).
  const LayerTimes lt = layer_kernels(c);
  return lt.gpu_forward_s() + lt.gpu_backward_s();
}

double layer_work_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index) {
  LayerContext c = layer_context(scenario, parallel, layer_index, nullptr);
  c.all_at_floor = true;
  const LayerTimes lt = layer_kernels(c);
  return lt.gpu_forward_s() + lt.gpu_backward_s();
}

double expert_dispatch_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index) {
  // Hidden dispatch is priced by how much of it the layer's computation covers: no floor above 0.
  // (No whole LayerContext: the search asks this for every expert layout.)
  const bool moe = is_moe_layer(scenario.model, layer_index);
  if (!moe || hides_expert_all_to_all(scenario.training, parallel, moe)) return 0.0;
  return 2.0 * expert_dispatch_pass_s(scenario, parallel, expert_dispatch_bytes(scenario, parallel));
}

double expert_tiles_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                            GemmMemo* gemm_memo) {
  LayerContext c = layer_context(scenario, parallel, layer_index, gemm_memo);
  if (!c.moe) return 0.0;
  const GemmTimes tiled = routed_expert_gemms(c);
  c.routed_at_floor = true;
  const GemmTimes floor = routed_expert_gemms(c);
  // An average layer holds the experts by its MLP share; a hair less, for rounding.
  const double tiles_s = c.shares.mlp * ((tiled.forward_s - floor.forward_s) + (tiled.backward_s - floor.backward_s));
  return std::max(0.0, tiles_s) * (1.0 - 1e-9);
}

double layer_host_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index) {
  const HostLaunches launches = host_launches(layer_context(scenario, parallel, layer_index, nullptr));
  // Each pass takes at least its host time (with_host_s), and the backward issues twice the
  // forward's (set_host); a hair less, for rounding.
  return 3.0 * (launches.layer_s + launches.experts_s) * (1.0 - 1e-9);
}

double recomputed_s(const LayerTimes& lt, Recompute recompute, unsigned modules, double forward_s) {
  // Full reruns the whole forward; selective reruns its modules: the attention core
  // (Korthikanti et al. 2022 §5) and those Megatron's --recompute-modules names. Their FLOPs
  // count toward HFU at the model level (estimate.cpp).
  if (recompute == Recompute::kFull) return forward_s;
  if (recompute != Recompute::kSelective) return 0.0;
  double rerun_s = (modules & kRecomputeCoreAttn) ? lt.attention_forward_s : 0.0;
  for (std::size_t bit = 1; bit < lt.module_forward_s.size(); ++bit) {
    if (modules & (1u << bit)) rerun_s += lt.module_forward_s[bit];
  }
  return rerun_s;
}

LayerTimes with_recompute(LayerTimes lt, Recompute recompute, unsigned modules) {
  lt.recompute_s = recomputed_s(lt, recompute, modules, recompute == Recompute::kFull ? lt.forward_s() : 0.0);
  return lt;
}

double lm_head_times_s(const Scenario& scenario, const ParallelConfig& parallel) {
  const ModelSpec& model = scenario.model;
  const Device device = device_of(scenario);
  const double tokens = message_sizes(scenario, parallel).tokens;
  const double vocab_local = padded_vocab(model, parallel.tp) / parallel.tp;
  // The output layer is not a Transformer Engine module in Megatron: it runs in BF16.
  const GemmTimes head = time_gemms({{tokens, vocab_local, double(model.hidden)}}, device, Precision::kBf16);
  // Cross-entropy over the vocabulary shard: fp32 logits read and written a few times.
  const double loss_bytes = tokens * vocab_local * 4.0 * 3.0;
  return head.forward_s + head.backward_s + stream_s(loss_bytes, device);
}

double mtp_projection_times_s(const Scenario& scenario, const ParallelConfig& parallel) {
  const Device device = device_of(scenario);
  const double tokens = message_sizes(scenario, parallel).tokens;
  const double h = scenario.model.hidden;
  // eh_proj, [norm(h_prev); norm(emb)] (2h) -> h, is a column-parallel Transformer Engine
  // linear split over TP (Megatron-LM d98e8a64 megatron/core/transformer/
  // multi_token_prediction.py:1174), so it runs at the linear layers' precision.
  const GemmTimes projection =
      time_gemms({{tokens, h / parallel.tp, 2.0 * h}}, device, gemm_precision(scenario.training, device.gpu));
  return projection.forward_s + projection.backward_s;
}

double optimizer_step_s(double optimizer_params_per_gpu, double state_bytes_per_param, const Device& device) {
  // Read the fp32 gradient (4), read and write the state, write the bf16 weight (2).
  const double bytes_per_param = 4.0 + 2.0 * state_bytes_per_param + 2.0;
  return stream_s(optimizer_params_per_gpu * bytes_per_param, device);
}

}  // namespace pplan
