#include "pplan/model/memory.h"

#include <algorithm>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/kernels.h"
#include "pplan/framework/framework.h"

namespace pplan {

double layer_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel,
                              int layer_index) {
  const ModelSpec& m = scenario.model;
  const double t = parallel.tp;
  const double h = m.hidden;
  const double s_local = double(scenario.training.seq_len) / parallel.cp;
  const double sbh = s_local * parallel.micro_batch * h;
  const bool sp = parallel.sequence_parallel && parallel.tp > 1;
  if (parallel.recompute == Recompute::kFull) {
    return 2.0 * sbh / (sp ? t : 1.0);
  }
  // Transformer Engine keeps the quantised copy of each linear layer's input for its weight
  // gradient (1 byte in FP8, 4.5 bits in NVFP4, instead of 2); norms, attention inputs and
  // activation-function inputs stay BF16.
  const double linear_input = gemm_operand_bytes(gemm_precision(scenario.training, scenario.cluster.gpu));
  const double dropout = m.dropout ? 1.0 : 0.0;
  const bool moe = is_moe_layer(m, layer_index);
  // Selective recomputation's modules (Megatron --recompute-modules) keep less: each drops what
  // its rerun recreates.
  const unsigned modules = recompute_modules(parallel, m.mla.has_value());
  const auto reruns = [modules](unsigned module) { return (modules & module) != 0; };
  // Units of s·b·h bytes. Replicated over TP unless SP: both norm inputs (4), the inputs of
  // the attention block and of the MLP (2 each: the norms' outputs, dropped when the norms are
  // recomputed), the dropout masks. A hybrid's average layer holds each block by its share
  // (layer_shares): one norm input and one block input each.
  const LayerShares shares = layer_shares(m);
  double replicated = (2.0 + (reruns(kRecomputeLayernorm) ? 0.0 : linear_input)) * shares.blocks() +
                      (shares.attention + shares.mlp) * dropout;
  double split = 0;  // divided over TP
  if (m.mla) {
    // MLA: the latents feeding the up-projections (and their norms) are per token, not per
    // head; Q, K and V are per head, not kept when the up-projections are recomputed
    // (Megatron's `mla_up_proj`; DeepSeek-AI 2024 §3.2.3).
    const MlaSpec& a = *m.mla;
    const AttentionDims dims = attention_dims(m);
    const double latents = double(a.q_lora_rank) + a.kv_lora_rank;
    replicated += (2.0 * latents + linear_input * latents + 2.0 * a.qk_rope_head_dim) / h;
    const double qkv = 2.0 * dims.heads * (2.0 * dims.qk_head_dim + dims.v_head_dim) / h;
    if (!reruns(kRecomputeMlaUpProj)) split += qkv;
    split += linear_input * dims.heads * dims.v_head_dim / h;  // attention output
  } else {
    // Q (heads·d wide, = h unless head_dim is decoupled), K and V (kv_heads·d each), the
    // attention output (heads·d).
    const double q_ratio = m.heads * head_dim(m) / h;
    const double kv_ratio = m.kv_heads * head_dim(m) / h;
    split += shares.attention * (2.0 * q_ratio + 4.0 * kv_ratio + linear_input * q_ratio);
  }
  // The MLP's inner activations: the up-projection output (2f GeLU, 4f SwiGLU) kept for the
  // activation's backward, and the activation output (f) feeding the down-projection. An MoE
  // layer's MLP is top_k routed + shared experts, each expert_ffn_hidden wide. Recomputed: a
  // dense MLP (`mlp`) or the shared experts keep neither; the routed experts' activation
  // (`moe_act`) keeps only its input; a whole MoE block (`moe`) keeps nothing past its input.
  // SwiGLU's input (the up-projection's two halves) in FP8 when the switch says so.
  const bool fp8_input = scenario.training.activation_func_fp8_input_store && m.activation == Activation::kSwiglu;
  const double up_output = gated_mlp(m.activation) ? (fp8_input ? 2.0 : 4.0) : 2.0;
  const double inner = up_output + linear_input;
  if (moe) {
    const double expert = double(m.moe->expert_ffn_hidden) / h;
    const bool whole_block = reruns(kRecomputeMoe);
    const double routed = whole_block ? 0.0 : (reruns(kRecomputeMoeAct) ? up_output : inner) * m.moe->top_k;
    const double shared = whole_block || reruns(kRecomputeSharedExperts) ? 0.0 : inner * m.moe->shared_experts;
    split += shares.mlp * (routed + shared) * expert;
  } else if (!reruns(kRecomputeMlp)) {
    split += shares.mlp * inner * double(m.ffn_hidden) / h;
  }
  if (m.mamba && shares.mamba > 0) {
    // A Mamba-2 mixer keeps, per token: in_proj's output (z, x, B, C, dt), the conv's output
    // (x, B, C), the scan's output y, the chunk states the SSD backward reads (H·P·N per chunk
    // of Q tokens), the gated norm's input and out_proj's input (Dao & Gu 2024 §7).
    const MambaSpec& mb = *m.mamba;
    const double d_inner = mamba_inner_width(mb), conv = mamba_conv_channels(mb);
    const double states = d_inner * mb.state / mb.chunk;
    split += shares.mamba * (2.0 * (d_inner + conv + mb.heads) + 2.0 * conv + 2.0 * d_inner + 2.0 * states +
                             2.0 * d_inner + linear_input * d_inner) / h;
  }
  // MoE dispatch: the top_k token copies entering the first expert GEMM (kept for its weight
  // gradient) and, where the framework scales them after the experts, the k expert outputs
  // before the combine (kept for the router's gradient; framework.h). Each GPU sends the copies
  // of its s·b/tp tokens; expert-TP all-gathers those of its etp group before the expert GEMMs:
  // etp/tp of the copies (not divided by tp when etp = tp).
  const double expert_outputs = moe_expert_output_bytes_kept(scenario.training.framework);
  const double dispatch = moe && !reruns(kRecomputeMoe)
                              ? (linear_input + expert_outputs) * m.moe->top_k * double(expert_tp(parallel)) / t
                              : 0.0;
  const bool scores_kept = !scenario.training.flash_attention && parallel.recompute != Recompute::kFull &&
                           !reruns(kRecomputeCoreAttn);
  if (scores_kept) {
    split += shares.attention * (2.0 + 3.0 * dropout) * m.heads * double(scenario.training.seq_len) / h;
  }
  return sbh * ((sp ? (replicated + split) / t : replicated + split / t) + dispatch);
}

int moe_layers_on_stage(const ModelSpec& model, const StageSplit& split, int stage, int pp) {
  const int layers = split.layers_on_stage(stage, pp);
  const int first_index = stage == 0 ? 0 : split.first_layers + (stage - 1) * split.middle_layers;
  return moe_layers_in(model, first_index, first_index + layers);
}

int mtp_layers_on_stage(const ModelSpec& model, const ParallelConfig& parallel, int stage) {
  return stage == head_rank(parallel) ? model.mtp_layers : 0;
}

int moe_layers_with_mtp(const ModelSpec& model, const ParallelConfig& parallel, const StageSplit& split, int stage) {
  const int mtp = mtp_layers_on_stage(model, parallel, stage);
  return moe_layers_on_stage(model, split, stage, parallel.pp) + (is_moe_layer(model, model.layers - 1) ? mtp : 0);
}

StageParams stage_params_per_gpu(const Scenario& scenario, const ParallelConfig& parallel,
                                 const StageSplit& split, int stage) {
  const ModelSpec& m = scenario.model;
  const int pp = parallel.pp;
  const double t = parallel.tp;
  // Multi-token prediction modules on the last stage (Megatron places them there) are layers of
  // the last layer's kind, plus their 2h -> h projection and three norms; embedding and head
  // shared.
  const int mtp = mtp_layers_on_stage(m, parallel, stage);
  const int layers = split.layers_on_stage(stage, pp) + mtp;
  const int moe_layers = moe_layers_with_mtp(m, parallel, split, stage);
  const int dense_layers = layers - moe_layers;

  StageParams out;
  double& params = out.dense;
  const LayerShares shares = layer_shares(m);
  // A Mamba mixer splits over TP but for its layer norm (h).
  const double mamba_per_gpu = m.mamba ? (mamba_params_per_layer(m) - m.hidden) / t + m.hidden : 0.0;
  params = layers * (shares.attention * attention_params_per_layer(m) / t + norm_params_per_layer(m) +
                     shares.mamba * mamba_per_gpu);
  params += dense_layers * shares.mlp * dense_mlp_params_per_layer(m) / t;
  if (moe_layers > 0) {
    const MoeSpec& moe = *m.moe;
    const double expert = expert_params(m);
    // Routed experts split over EP, each expert's matrices over expert-TP.
    out.expert = moe_layers * double(moe.experts) / parallel.ep * expert / expert_tp(parallel);
    params += moe_layers * (moe.shared_experts * expert / t + router_params(m));
  }
  params += mtp * (2.0 * double(m.hidden) * m.hidden / t + 3.0 * m.hidden);
  const double layer_params = params;
  if (stage == 0) params += input_embedding_params(m, scenario.training.seq_len, parallel.tp) / t;
  // The head's rank holds the LM head; when tied and pp > 1 Megatron keeps a copy there.
  if (stage == head_rank(parallel)) {
    if (!m.tied_embeddings || pp > 1) params += padded_vocab(m, parallel.tp) * m.hidden / t;
    params += m.hidden;  // final norm
  }
  out.embedding_and_head = params - layer_params;
  return out;
}

RankParams rank_params(const Scenario& scenario, const ParallelConfig& parallel, const StageSplit& split, int rank) {
  RankParams out;
  const int mirror = parallel.pp - 1 - rank;
  const bool two_copies = parallel.schedule == ScheduleKind::kDualPipe && mirror != rank;
  for (int copy = 0; copy < (two_copies ? 2 : 1); ++copy) {
    const int stage = copy == 0 ? rank : mirror;
    const StageParams p = stage_params_per_gpu(scenario, parallel, split, stage);
    out.params.dense += p.dense;
    out.params.expert += p.expert;
    out.params.embedding_and_head += p.embedding_and_head;
    out.layers += split.layers_on_stage(stage, parallel.pp) + mtp_layers_on_stage(scenario.model, parallel, stage);
    out.moe_layers += moe_layers_with_mtp(scenario.model, parallel, split, stage);
  }
  return out;
}

ModelStateBytes model_state_bytes(const Scenario& scenario, int zero) {
  ModelStateBytes b;
  b.gradients = scenario.training.grad_reduce_in_fp32 ? 4.0 : 2.0;
  if (scenario.training.optimizer_state_dtype == OptimizerStateDtype::kBf16) {
    const Framework framework = scenario.training.framework;
    const bool megatron = framework == Framework::kMegatronCore || framework == Framework::kMegatronLm;
    const bool fp32_master = framework == Framework::kTorchtitan || (megatron && zero >= 2);
    b.optimizer = fp32_master ? kFp32MasterBf16OptimizerBytesPerParam : kBf16OptimizerBytesPerParam;
  }
  const Precision gemm = gemm_precision(scenario.training, scenario.cluster.gpu);
  const bool fp8 = gemm != Precision::kBf16;
  // FP8 parameters (--fp8-param-gather): the layer's weight is its FP8 bytes and their
  // transpose, 1 + 1, in place of the BF16 weight (2, counted in `weights`) and no copies beside
  // it. Under ZeRO-3 that counts the shard at 2 bytes where its FP8 data alone is 1 (stated).
  // NVFP4 (--fp4-param-gather) gathers 4.5 bits per parameter; its two copies, 2 · 4.5 bits, are
  // counted at the BF16 weight's 2 bytes too (stated: an upper bound).
  const bool fp8_params = fp8 && keeps_fp8_params(scenario.training, zero);
  if (fp8) b.fp8_weight_copies = fp8_params ? 0.0 : 2.0 * gemm_operand_bytes(gemm);
  if (fp8_params) b.gathered_layer_weights = gemm_operand_bytes(gemm);
  return b;
}

double offloaded_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel) {
  if (parallel.offload_layers <= 0) return 0.0;
  // A layer's activations depend on its index only through dense or MoE (layer_activation_bytes):
  // count the two kinds among the first offload_layers and price each once.
  const int moe_layers = moe_layers_in(scenario.model, 0, parallel.offload_layers);
  const int dense_layers = parallel.offload_layers - moe_layers;
  const int dense_index = first_dense_layer(scenario.model), moe_index = first_moe_layer(scenario.model);
  return (dense_layers > 0 ? dense_layers * layer_activation_bytes(scenario, parallel, dense_index) : 0.0) +
         (moe_layers > 0 ? moe_layers * layer_activation_bytes(scenario, parallel, moe_index) : 0.0);
}

LayerActivationParts layer_activation_parts(const Scenario& scenario, const ParallelConfig& parallel) {
  LayerActivationParts a;
  const ModelSpec& model = scenario.model;
  const int dense_layer = first_dense_layer(model);
  const int moe_layer = first_moe_layer(model);
  const bool moe = moe_layer >= 0;
  a.first_layer_bytes = layer_activation_bytes(scenario, parallel, dense_layer);
  a.last_layer_bytes = moe ? layer_activation_bytes(scenario, parallel, moe_layer) : a.first_layer_bytes;
  a.first_layer_kept_bytes = a.first_layer_bytes;
  a.last_layer_kept_bytes = a.last_layer_bytes;
  if (parallel.recompute == Recompute::kFull) {
    ParallelConfig kept = parallel;
    kept.recompute = Recompute::kNone;
    a.first_layer_kept_bytes = layer_activation_bytes(scenario, kept, dense_layer);
    a.last_layer_kept_bytes = moe ? layer_activation_bytes(scenario, kept, moe_layer) : a.first_layer_kept_bytes;
  }
  // Logits of one micro-batch: bf16 output plus fp32 softmax for the cross-entropy.
  const double tokens = message_sizes(scenario, parallel).tokens;
  // Each MTP module runs the head again on the last stage.
  a.logits_bytes = (1.0 + model.mtp_layers) * 6.0 * tokens * padded_vocab(model, parallel.tp) / parallel.tp;
  return a;
}

namespace {

/// How ZeRO shards one configuration's model state: the same for every stage.
struct StateSharding {
  double dense_shards = 1;
  double expert_shards = 1;
  bool deferred = false;
  ModelStateBytes bytes;
};

StateSharding state_sharding(const Scenario& scenario, const ParallelConfig& parallel) {
  StateSharding c;
  // Dense weights shard over DP×CP; experts over the expert-data-parallel group.
  c.dense_shards = double(parallel.dp) * parallel.cp;
  c.expert_shards = double(expert_dp(parallel));
  // FSDP2 under a pipeline keeps gradients and weights unsharded through the step.
  c.deferred = defers_gradient_sync(scenario.training, parallel);
  c.bytes = model_state_bytes(scenario, parallel.zero);
  // Deferred sync accumulates the unsharded gradients in the compute dtype (BF16) until the
  // last micro-batch reduces them in fp32 (assumption, stated: FSDP2's mixed-precision policy).
  if (c.deferred) c.bytes.gradients = kGradientBytesPerParam;
  return c;
}

StageStateBytes stage_state_bytes(const ParallelConfig& parallel, const StateSharding& c, int layers,
                                  const StageParams& params) {
  StageStateBytes state;
  auto sharded = [&](double bytes_per_param, int from_stage) {
    const bool shard = parallel.zero >= from_stage && !(c.deferred && from_stage >= 2);
    return bytes_per_param * (params.dense / (shard ? c.dense_shards : 1.0) +
                              params.expert / (shard ? c.expert_shards : 1.0));
  };
  state.weights = sharded(c.bytes.weights, 3);
  state.gradients = sharded(c.bytes.gradients, 2);
  state.optimizer = sharded(c.bytes.optimizer, 1);
  // A layer is a transformer layer: the embedding and LM head are not spread over the stage's
  // layers (that made the ZeRO-3 buffer, and memory, grow with pp).
  const double layer_params = params.total() - params.embedding_and_head;
  if (parallel.zero >= 3 && !c.deferred) {
    // FSDP gathers one layer's weights ahead of use: keep two layers' full weights (and their
    // FP8 copies).
    const double layer = layer_params / std::max(1, layers);
    state.weights += 2.0 * (c.bytes.weights + c.bytes.fp8_weight_copies) * layer;
  } else {
    // The output layer is not a TE module: no FP8 copy of the embedding and head.
    state.weights += c.bytes.fp8_weight_copies * layer_params;
  }
  return state;
}

double stage_activation_bytes(const ParallelConfig& parallel, double microbatches, int stage, int layers,
                              int moe_layers, const LayerActivationParts& activations) {
  // Partial recomputation: the recomputed share keeps only layer inputs, the rest everything.
  const double share = recomputed_share(parallel, layers);
  auto mixed = [share](double configured, double kept) {
    return share <= 0 || share >= 1 ? configured : share * configured + (1 - share) * kept;
  };
  // Dense and MoE layers keep different activations; weight them by their share of the stage.
  double per_layer = mixed(activations.first_layer_bytes, activations.first_layer_kept_bytes);
  if (moe_layers > 0) {
    const double moe_bytes = mixed(activations.last_layer_bytes, activations.last_layer_kept_bytes);
    per_layer = moe_layers >= layers
                    ? moe_bytes
                    : ((layers - moe_layers) * per_layer + moe_layers * moe_bytes) / std::max(1, layers);
  }
  double layer_microbatches =
      inflight_layer_microbatches(parallel.schedule, stage, parallel.pp, parallel.vpp, microbatches, layers);
  // Offloaded layers (one stage, one micro-batch in flight) hold their activations in host
  // memory: the layer being copied frees its HBM when the copy ends, before the next layer's
  // forward has finished (at the average layer's bytes on a model mixing dense and MoE layers).
  if (parallel.offload_layers > 0) layer_microbatches = std::max(0.0, layer_microbatches - parallel.offload_layers);
  double bytes = per_layer * layer_microbatches;
  // A DualPipe rank at either end runs the head for one direction.
  const bool head = stage == head_rank(parallel) ||
                    (parallel.schedule == ScheduleKind::kDualPipe && stage == 0);
  if (head) bytes += activations.logits_bytes;
  return bytes;
}

StageMemory stage_memory_of(int stage, const StageStateBytes& state, double activations_bytes) {
  StageMemory mem;
  mem.stage = stage;
  mem.weights_bytes = state.weights;
  mem.gradients_bytes = state.gradients;
  mem.optimizer_bytes = state.optimizer;
  mem.activations_bytes = activations_bytes;
  return mem;
}

/// Calls visit(memory) for each candidate stage of `params`, given their activation bytes,
/// until it returns false.
template <typename Visit>
void for_each_candidate_stage(const ParallelConfig& parallel, const CandidateStageParams& params,
                              const CandidateActivations& activations, Visit visit) {
  const int zero = std::clamp(parallel.zero, 0, 3);
  for (int i = 0; i < params.stages.count; ++i) {
    const StageMemory mem =
        stage_memory_of(params.stages.stages[i], params.state_by_zero[i][zero], activations.bytes[i]);
    if (!visit(mem)) return;
  }
}

}  // namespace

StageMemory stage_memory(const Scenario& scenario, const ParallelConfig& parallel, const StageSplit& split,
                         int stage) {
  const RankParams rank = rank_params(scenario, parallel, split, stage);
  const StageStateBytes state =
      stage_state_bytes(parallel, state_sharding(scenario, parallel), rank.layers, rank.params);
  const double m = microbatches(scenario.training.global_batch, parallel.dp, parallel.micro_batch);
  return stage_memory_of(stage, state,
                         stage_activation_bytes(parallel, m, stage, rank.layers, rank.moe_layers,
                                                layer_activation_parts(scenario, parallel)));
}

StageList candidate_stages(const ModelSpec& model, const StageSplit& split, int pp) {
  StageList out;
  out.push(0);
  if (pp > 1) out.push(1);
  if (model.moe && model.moe->experts > 0 && pp > 3) {
    // The middle stage with the most expert layers, where it has more than stage 1.
    int best = -1;
    int most = moe_layers_on_stage(model, split, 1, pp);
    for (int stage = 2; stage < pp - 1; ++stage) {
      const int count = moe_layers_on_stage(model, split, stage, pp);
      if (count > most) {
        most = count;
        best = stage;
        if (count == split.layers_on_stage(stage, pp)) break;
      }
    }
    if (best > 0) out.push(best);
  }
  if (pp > 2) out.push(pp - 1);
  return out;
}

CandidateStageParams candidate_stage_params(const Scenario& scenario, const ParallelConfig& parallel,
                                            const StageSplit& split) {
  CandidateStageParams out;
  for (int stage : candidate_stages(scenario.model, split, parallel.pp)) {
    if (stage < 0 || stage >= parallel.pp) continue;
    const int i = out.stages.count;
    const RankParams rank = rank_params(scenario, parallel, split, stage);
    out.params[i] = rank.params;
    out.layers[i] = rank.layers;
    out.moe_layers[i] = rank.moe_layers;
    for (int zero = 0; zero < 4; ++zero) {
      ParallelConfig sharded = parallel;
      sharded.zero = zero;
      out.state_by_zero[i][zero] =
          stage_state_bytes(sharded, state_sharding(scenario, sharded), out.layers[i], out.params[i]);
    }
    out.stages.push(stage);
  }
  return out;
}

CandidateActivations candidate_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel,
                                                const CandidateStageParams& params,
                                                const LayerActivationParts& activations) {
  CandidateActivations out;
  const double m = microbatches(scenario.training.global_batch, parallel.dp, parallel.micro_batch);
  for (int i = 0; i < params.stages.count; ++i) {
    out.bytes[i] = stage_activation_bytes(parallel, m, params.stages.stages[i], params.layers[i],
                                          params.moe_layers[i], activations);
  }
  return out;
}

StageMemory peak_stage_memory(const ParallelConfig& parallel, const CandidateStageParams& params,
                              const CandidateActivations& activations) {
  StageMemory best;
  bool first = true;
  for_each_candidate_stage(parallel, params, activations, [&](const StageMemory& mem) {
    if (first || mem.total_bytes() > best.total_bytes()) best = mem;
    first = false;
    return true;
  });
  return best;
}

StageMemory peak_stage_memory(const Scenario& scenario, const ParallelConfig& parallel,
                              const CandidateStageParams& params, const LayerActivationParts& activations) {
  return peak_stage_memory(parallel, params, candidate_activation_bytes(scenario, parallel, params, activations));
}

bool every_stage_fits(const Scenario& scenario, const ParallelConfig& parallel,
                      const CandidateStageParams& params, const LayerActivationParts& activations,
                      double capacity_bytes) {
  bool fits = true;
  for_each_candidate_stage(parallel, params, candidate_activation_bytes(scenario, parallel, params, activations),
                           [&](const StageMemory& mem) {
                             fits = mem.total_bytes() <= capacity_bytes;
                             return fits;
                           });
  return fits;
}

StageMemory peak_stage_memory(const Scenario& scenario, const ParallelConfig& parallel,
                              const StageSplit& split) {
  return peak_stage_memory(scenario, parallel, candidate_stage_params(scenario, parallel, split),
                           layer_activation_parts(scenario, parallel));
}

}  // namespace pplan
