#pragma once
/// Parameter and FLOP counts of a transformer, from its architecture alone.

#include "pplan/specs.h"

namespace pplan {

/**
 * Vocabulary after Megatron's padding: ceil(V / (128·tp)) · 128·tp.
 * Source: Megatron-LM `vocab_size_with_padding` (Megatron-LM d98e8a64 megatron/training/arguments.py,
 * `--make-vocab-size-divisible-by` 128). Example: GPT-3's 50257 at tp = 8 -> 51200.
 */
double padded_vocab(const ModelSpec& model, int tp);

/// Head dimension d: model.head_dim where given, else hidden / heads.
double head_dim(const ModelSpec& model);

/// Q, K, V and output projection weights of one layer: h·(2·a·d + 2·kv·d) (GQA-aware; a·d = h
/// unless head_dim is decoupled), plus their biases and the per-head sinks where the model has them. With MLA
/// (DeepSeek-AI 2024, DeepSeek-V3 §2.1.1): h·q_lora + q_lora·a·(d_nope + d_rope) + h·(kv_lora +
/// d_rope) + kv_lora·a·(d_nope + d_v) + a·d_v·h, plus the two latent norms. DeepSeek-V3:
/// 187.1M per layer.
double attention_params_per_layer(const ModelSpec& model);

/// What the attention core of one layer computes: heads, and the query/key and value widths
/// of one head (d, d for multi-head and GQA; d_nope + d_rope and d_v for MLA).
struct AttentionDims {
  double heads = 0;
  double qk_head_dim = 0;
  double v_head_dim = 0;
};
AttentionDims attention_dims(const ModelSpec& model);

/// Dense MLP weights of one layer: 2·h·f (GeLU) or 3·h·f (SwiGLU).
double dense_mlp_params_per_layer(const ModelSpec& model);

/// Weights of one expert (moe.expert_ffn_hidden wide; biases where the model has them).
double expert_params(const ModelSpec& model);

/// The router of an MoE layer: h x experts (and a bias per expert with linear_bias).
double router_params(const ModelSpec& model);

/// MLP weights of layer `layer_index` (0-based): dense, or all experts of an MoE layer.
double mlp_params_of_layer(const ModelSpec& model, int layer_index);

/// MLP weights one token actually uses in layer `layer_index` (top-k + shared experts).
double active_mlp_params_of_layer(const ModelSpec& model, int layer_index);

/// Whether layer `layer_index` holds experts: past the dense_layers, every moe.every-th layer.
bool is_moe_layer(const ModelSpec& model, int layer_index);

/// Layers in [first, last) that hold experts. Closed form, so huge models stay O(1).
int moe_layers_in(const ModelSpec& model, int first, int last);

/// Layers that hold experts; the rest are dense.
int moe_layer_count(const ModelSpec& model);

/// The first expert layer (-1 without experts) and the first dense one (0 when every layer
/// holds experts): the layers whose times and activations stand for their kind.
int first_moe_layer(const ModelSpec& model);
int first_dense_layer(const ModelSpec& model);

/// Weights of one multi-token-prediction module (all experts, or only those a token uses).
double mtp_params_per_module(const ModelSpec& model, bool active_only);

/**
 * Keys each query attends to, averaged over the layers, in the full count (a global layer: s,
 * twice its causal mean s/2). A sliding window of W keys: 2W - W^2/s (causal mean W - W^2/(2s));
 * a chunk of C tokens: C (causal mean C/2). Example: Gemma 3 27B at s = 32,768, 52 of 62
 * layers sliding at 1,024: (10·32768 + 52·2016)/62 = 6,976 keys, 21% of the all-global count.
 */
double attention_keys_per_query(const ModelSpec& model, double seq_len);

/// What an average layer holds, as shares of the layers: attention blocks, MLP blocks, Mamba-2
/// mixers. 1, 1, 0 for a transformer (each layer attention + MLP); a hybrid's pattern counts
/// (Nemotron-H 56B: 10, 54 and 54 of 118). pplan prices a hybrid's stages by these shares: its
/// layer kinds are spread evenly through the pattern (a stated approximation per stage).
struct LayerShares {
  double attention = 1;
  double mlp = 1;
  double mamba = 0;
  /// Blocks an average layer holds (each with its norm, residual add and TP all-reduce): 2 for
  /// a transformer layer, 1 for a hybrid's.
  double blocks() const { return attention + mlp + mamba; }
};
LayerShares layer_shares(const ModelSpec& model);

/// A Mamba-2 mixer's inner width d_inner = heads · head_dim, and its conv's channels
/// d_inner + 2·G·N (x, B and C).
double mamba_inner_width(const MambaSpec& m);
double mamba_conv_channels(const MambaSpec& m);

/// Weights of one Mamba-2 mixer layer (Dao & Gu 2024 §7; Megatron's MambaMixer): in_proj
/// h·(2·d_inner + 2·G·N + H), the causal conv (d_inner + 2·G·N)·(k + 1), dt bias, A and D (H
/// each), the gated RMSNorm (d_inner), out_proj d_inner·h, and the layer's norm (h).
/// Nemotron-H 56B: 438.4M.
double mamba_params_per_layer(const ModelSpec& model);

/// Forward FLOPs of one Mamba-2 mixer for `tokens` tokens: the projections 2·tokens·(in + out
/// weights) and the SSD scan 7·tokens·d_inner·N, as Megatron-LM counts it (d98e8a64
/// megatron/training/training.py mamba_layer_flops).
double mamba_forward_flops(const ModelSpec& model, double tokens);

/// Norm weights of an average layer: two norms of h (attention and MLP blocks; one per block of
/// a hybrid), and the per-head q/k norms of qk_norm.
double norm_params_per_layer(const ModelSpec& model);

/// Input embedding (V·h) plus a learned position table (seq_len·h) where the model has one.
double input_embedding_params(const ModelSpec& model, int seq_len, int tp);

/// LM head weights: V·h when untied, 0 when tied to the input embedding.
double lm_head_params(const ModelSpec& model, int tp);

/// Every weight of the model (what 16 bytes/param multiplies).
double total_params(const ModelSpec& model, int seq_len, int tp = 1);

/// Weights one token uses (equals total_params for dense models).
double active_params(const ModelSpec& model, int seq_len, int tp = 1);

/// Forward FLOPs of one layer for `tokens` tokens of a `seq_len` sequence, split into parts.
struct LayerFlops {
  double projections = 0;     ///< QKV + output projection GEMMs
  double attention_core = 0;  ///< QK^T and A·V: 2·a·(d_qk + d_v)·keys per token, full (non-causal)
  double mlp = 0;             ///< MLP GEMMs (active experts only for MoE)
  double router = 0;          ///< MoE router GEMM
  double mamba = 0;           ///< Mamba-2 mixers (a hybrid's share of them)
  double total() const { return projections + attention_core + mlp + router + mamba; }
};

/**
 * Forward FLOPs of layer `layer_index` for `tokens` tokens each attending to `seq_len` keys (a
 * hybrid's average layer: each block by its share, layer_shares).
 * 2 FLOPs per multiply-add; the attention core counts the full s×s score matrix, as
 * Narayanan et al. 2021 eq. 3 and PaLM (Chowdhery et al. 2022, App. B) do.
 * Example: GPT-3 layer, one 2048-token sequence: 24·s·h² + 4·s²·h = 7.63e12 FLOPs.
 */
LayerFlops layer_forward_flops(const ModelSpec& model, int layer_index, double tokens,
                               double seq_len);

/// Forward FLOPs of the LM head for `tokens` tokens: 2·tokens·h·V.
double lm_head_forward_flops(const ModelSpec& model, double tokens, int tp = 1);

/**
 * Model FLOPs of one training step (forward + backward = 3× forward, no recompute).
 * What MFU divides by. Narayanan et al. 2021 eq. 3 for GPT:
 * 72·B·s·L·h²·(1 + s/(6h) + V/(12·h·L)) — this function generalises it to GQA, SwiGLU, MoE.
 */
double model_flops_per_step(const ModelSpec& model, int seq_len, int global_batch);

/// The same with the causal mask's half of the score matrix left out, as Megatron-LM (since
/// 8873b55d, 2025) and NeMo (since 6251117f, 2025) count model FLOPs; pplan's `mfu` keeps the
/// full count above, its `mfu_causal` uses this one.
double model_flops_per_step_causal(const ModelSpec& model, int seq_len, int global_batch);

}  // namespace pplan
