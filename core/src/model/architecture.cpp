#include "pplan/model/architecture.h"

#include <algorithm>
#include <cmath>

namespace pplan {

double padded_vocab(const ModelSpec& model, int tp) {
  const double multiple = 128.0 * tp;
  return std::ceil(model.vocab / multiple) * multiple;
}

double head_dim(const ModelSpec& model) {
  return model.head_dim > 0 ? double(model.head_dim) : double(model.hidden) / model.heads;
}

double attention_params_per_layer(const ModelSpec& model) {
  const double h = model.hidden;
  if (model.mla) {
    const MlaSpec& m = *model.mla;
    const double a = model.heads;
    const double qk = double(m.qk_nope_head_dim) + m.qk_rope_head_dim;
    const double q = m.q_lora_rank > 0 ? h * m.q_lora_rank + double(m.q_lora_rank) * a * qk + m.q_lora_rank
                                       : h * a * qk;
    const double kv = h * (double(m.kv_lora_rank) + m.qk_rope_head_dim) +
                      double(m.kv_lora_rank) * a * (double(m.qk_nope_head_dim) + m.v_head_dim) +
                      m.kv_lora_rank;
    return q + kv + a * m.v_head_dim * h;
  }
  const double q_width = model.heads * head_dim(model);
  const double kv_width = model.kv_heads * head_dim(model);
  const double bias = model.linear_bias ? q_width + 2.0 * kv_width + h : 0.0;
  const double sinks = model.attention_sinks ? double(model.heads) : 0.0;
  return h * (2.0 * q_width + 2.0 * kv_width) + bias + sinks;
}

AttentionDims attention_dims(const ModelSpec& model) {
  AttentionDims d;
  d.heads = model.heads;
  if (model.mla) {
    d.qk_head_dim = double(model.mla->qk_nope_head_dim) + model.mla->qk_rope_head_dim;
    d.v_head_dim = model.mla->v_head_dim;
  } else {
    d.qk_head_dim = d.v_head_dim = head_dim(model);
  }
  return d;
}

/// Weights of one MLP of width f, biases included where the model has them.
static double mlp_params(const ModelSpec& model, double f) {
  const bool gated = gated_mlp(model.activation);
  const double bias = model.linear_bias ? (gated ? 2.0 : 1.0) * f + model.hidden : 0.0;
  return (gated ? 3.0 : 2.0) * double(model.hidden) * f + bias;
}

double dense_mlp_params_per_layer(const ModelSpec& model) { return mlp_params(model, model.ffn_hidden); }

bool is_moe_layer(const ModelSpec& model, int layer_index) {
  return model.moe.has_value() && model.moe->experts > 0 && layer_index >= model.moe->dense_layers &&
         (layer_index + 1) % std::max(1, model.moe->every) == 0;
}

int moe_layers_in(const ModelSpec& model, int first, int last) {
  if (!model.moe.has_value() || model.moe->experts <= 0) return 0;
  first = std::max(first, model.moe->dense_layers);
  last = std::min(last, model.layers);
  if (last <= first) return 0;
  // Indices i in [first, last) with (i + 1) % every == 0: multiples of every in (first, last].
  const int every = std::max(1, model.moe->every);
  return last / every - first / every;
}

int first_moe_layer(const ModelSpec& model) {
  if (moe_layer_count(model) == 0) return -1;
  const int every = std::max(1, model.moe->every);
  const int first = model.moe->dense_layers;
  return ((first + 1 + every - 1) / every) * every - 1;  // the first i >= first with (i+1) % every == 0
}

int first_dense_layer(const ModelSpec&) {
  // Layer 0 is dense unless every layer holds experts (dense_layers 0 and every 1), and then
  // layer 0 stands in for a dense layer the model does not have: 0 either way, in O(1).
  return 0;
}

double expert_params(const ModelSpec& model) { return mlp_params(model, model.moe->expert_ffn_hidden); }

/// The router: h x experts, and its bias where the model has linear biases.
double router_params(const ModelSpec& model) {
  return (double(model.hidden) + (model.linear_bias ? 1.0 : 0.0)) * model.moe->experts;
}

double mlp_params_of_layer(const ModelSpec& model, int layer_index) {
  if (!is_moe_layer(model, layer_index)) return dense_mlp_params_per_layer(model);
  const MoeSpec& moe = *model.moe;
  return (moe.experts + moe.shared_experts) * expert_params(model) + router_params(model);
}

double active_mlp_params_of_layer(const ModelSpec& model, int layer_index) {
  if (!is_moe_layer(model, layer_index)) return dense_mlp_params_per_layer(model);
  const MoeSpec& moe = *model.moe;
  return (moe.top_k + moe.shared_experts) * expert_params(model) + router_params(model);
}

LayerShares layer_shares(const ModelSpec& model) {
  LayerShares s;
  if (model.hybrid_pattern.empty() || model.layers <= 0) return s;
  double attention = model.hybrid_attention_layers, mlp = model.hybrid_mlp_layers,
         mamba = model.hybrid_mamba_layers;
  if (attention + mlp + mamba != double(model.hybrid_pattern.size())) {
    attention = mlp = mamba = 0;
    for (char c : model.hybrid_pattern) {
      attention += c == '*';
      mlp += c == '-';
      mamba += c == 'M';
    }
  }
  s.attention = attention / model.layers;
  s.mlp = mlp / model.layers;
  s.mamba = mamba / model.layers;
  return s;
}

double mamba_inner_width(const MambaSpec& m) { return double(m.heads) * m.head_dim; }

double mamba_conv_channels(const MambaSpec& m) { return mamba_inner_width(m) + 2.0 * m.groups * m.state; }

double mamba_params_per_layer(const ModelSpec& model) {
  if (!model.mamba) return 0.0;
  const MambaSpec& m = *model.mamba;
  const double h = model.hidden, d_inner = mamba_inner_width(m), bc = 2.0 * m.groups * m.state;
  const double in_proj = h * (2.0 * d_inner + bc + m.heads);
  const double conv = (d_inner + bc) * (m.conv_kernel + 1.0);
  return in_proj + conv + 3.0 * m.heads + d_inner + d_inner * h + h;
}

double mamba_forward_flops(const ModelSpec& model, double tokens) {
  if (!model.mamba) return 0.0;
  const MambaSpec& m = *model.mamba;
  const double h = model.hidden, d_inner = mamba_inner_width(m);
  return 2.0 * tokens * h * (2.0 * d_inner + 2.0 * m.groups * m.state + m.heads) +
         7.0 * tokens * d_inner * m.state + 2.0 * tokens * d_inner * h;
}

double norm_params_per_layer(const ModelSpec& model) {
  const LayerShares s = layer_shares(model);
  // A transformer layer: the attention block's and the MLP block's norms; a hybrid layer holds
  // one block and its norm (a Mamba mixer's is in mamba_params_per_layer).
  return (s.attention + s.mlp) * model.hidden +
         (model.qk_norm && !model.mla ? s.attention * 2.0 * head_dim(model) : 0.0);
}

double input_embedding_params(const ModelSpec& model, int seq_len, int tp) {
  const double positions = model.learned_positions ? double(seq_len) : 0.0;
  return (padded_vocab(model, tp) + positions) * model.hidden;
}

double lm_head_params(const ModelSpec& model, int tp) {
  return model.tied_embeddings ? 0.0 : padded_vocab(model, tp) * model.hidden;
}

int moe_layer_count(const ModelSpec& model) { return moe_layers_in(model, 0, model.layers); }

double mtp_params_per_module(const ModelSpec& model, bool active_only) {
  const int last = model.layers - 1;
  const double h = model.hidden;
  const double mlp = active_only ? active_mlp_params_of_layer(model, last) : mlp_params_of_layer(model, last);
  // The layer, its projection of [norm(h_prev); norm(emb)] (2h -> h), the two input norms and
  // the norm before the shared head.
  return attention_params_per_layer(model) + norm_params_per_layer(model) + mlp + 2.0 * h * h + 3.0 * h;
}

static double layer_stack_params(const ModelSpec& model, bool active_only) {
  const int moe_layers = moe_layer_count(model);
  const int dense_layers = model.layers - moe_layers;
  const int first_moe = std::max(0, first_moe_layer(model));
  const LayerShares shares = layer_shares(model);
  const double per_layer_common = shares.attention * attention_params_per_layer(model) +
                                  norm_params_per_layer(model) + shares.mamba * mamba_params_per_layer(model);
  double mlp = dense_layers * shares.mlp * dense_mlp_params_per_layer(model);
  if (moe_layers > 0) {
    mlp += moe_layers * (active_only ? active_mlp_params_of_layer(model, first_moe)
                                     : mlp_params_of_layer(model, first_moe));
  }
  return model.layers * per_layer_common + mlp + model.mtp_layers * mtp_params_per_module(model, active_only);
}

double total_params(const ModelSpec& model, int seq_len, int tp) {
  return layer_stack_params(model, false) + input_embedding_params(model, seq_len, tp) +
         lm_head_params(model, tp) + model.hidden /* final norm */;
}

double active_params(const ModelSpec& model, int seq_len, int tp) {
  return layer_stack_params(model, true) + input_embedding_params(model, seq_len, tp) +
         lm_head_params(model, tp) + model.hidden;
}

LayerFlops layer_forward_flops(const ModelSpec& model, int layer_index, double tokens,
                               double seq_len) {
  LayerFlops f;
  const LayerShares shares = layer_shares(model);
  f.projections = shares.attention * 2.0 * tokens * attention_params_per_layer(model);
  const AttentionDims dims = attention_dims(model);
  f.attention_core = shares.attention * 2.0 * tokens * attention_keys_per_query(model, seq_len) * dims.heads *
                     (dims.qk_head_dim + dims.v_head_dim);
  f.mamba = shares.mamba * mamba_forward_flops(model, tokens);
  if (is_moe_layer(model, layer_index)) {
    const double router = router_params(model);
    f.router = 2.0 * tokens * router;
    f.mlp = 2.0 * tokens * (active_mlp_params_of_layer(model, layer_index) - router);
  } else {
    f.mlp = shares.mlp * 2.0 * tokens * dense_mlp_params_per_layer(model);
  }
  return f;
}

double attention_keys_per_query(const ModelSpec& model, double seq_len) {
  if (!model.local_attention || model.local_attention->tokens <= 0) return seq_len;
  const LocalAttentionSpec& local = *model.local_attention;
  const double window = local.tokens;
  // Full-count keys of a local layer (twice the causal mean, as a global layer's s is twice
  // its causal s/2): a causal sliding window of W keys averages W - W^2/(2s) for W <= s; a
  // chunk of C tokens averages C/2.
  double local_keys = seq_len;
  if (window < seq_len) local_keys = local.chunked ? window : 2.0 * window - window * window / seq_len;
  const double global_layers = local.global_every > 0 ? double(model.layers / local.global_every) : 0.0;
  return (global_layers * seq_len + (model.layers - global_layers) * local_keys) / model.layers;
}

double lm_head_forward_flops(const ModelSpec& model, double tokens, int tp) {
  return 2.0 * tokens * model.hidden * padded_vocab(model, tp);
}

static double step_flops(const ModelSpec& model, int seq_len, int global_batch, double attention_share) {
  const double tokens = double(seq_len) * global_batch;
  const int moe_layers = moe_layer_count(model);
  const int dense_layers = model.layers - moe_layers;
  auto layer = [&](int index) {
    LayerFlops f = layer_forward_flops(model, index, tokens, seq_len);
    f.attention_core *= attention_share;
    return f.total();
  };
  double forward = lm_head_forward_flops(model, tokens);
  if (dense_layers > 0) forward += dense_layers * layer(first_dense_layer(model));
  if (moe_layers > 0) forward += moe_layers * layer(first_moe_layer(model));
  // Each MTP module: its layer, the 2h -> h projection and another pass of the shared head.
  forward += model.mtp_layers * (layer(model.layers - 1) + 2.0 * tokens * 2.0 * model.hidden * model.hidden +
                                 lm_head_forward_flops(model, tokens));
  return 3.0 * forward;
}

double model_flops_per_step(const ModelSpec& model, int seq_len, int global_batch) {
  return step_flops(model, seq_len, global_batch, 1.0);
}

double model_flops_per_step_causal(const ModelSpec& model, int seq_len, int global_batch) {
  return step_flops(model, seq_len, global_batch, 0.5);
}

}  // namespace pplan
