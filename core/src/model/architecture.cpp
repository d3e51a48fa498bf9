#include "pplan/model/architecture.h"

#include <cmath>

namespace pplan {

double padded_vocab(const ModelSpec& model, int tp) {
  const double multiple = 128.0 * tp;
  return std::ceil(model.vocab / multiple) * multiple;
}

double head_dim(const ModelSpec& model) { return double(model.hidden) / model.heads; }

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
  const double kv_width = model.kv_heads * head_dim(model);
  return h * (2.0 * h + 2.0 * kv_width);
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

double dense_mlp_params_per_layer(const ModelSpec& model) {
  const double matrices = model.activation == Activation::kSwiglu ? 3.0 : 2.0;
  return matrices * double(model.hidden) * model.ffn_hidden;
}

bool is_moe_layer(const ModelSpec& model, int layer_index) {
  return model.moe.has_value() && model.moe->experts > 0 && layer_index >= model.moe->dense_layers;
}

static double expert_params(const ModelSpec& model) {
  const double matrices = model.activation == Activation::kSwiglu ? 3.0 : 2.0;
  return matrices * double(model.hidden) * model.moe->expert_ffn_hidden;
}

double mlp_params_of_layer(const ModelSpec& model, int layer_index) {
  if (!is_moe_layer(model, layer_index)) return dense_mlp_params_per_layer(model);
  const MoeSpec& moe = *model.moe;
  const double router = double(model.hidden) * moe.experts;
  return (moe.experts + moe.shared_experts) * expert_params(model) + router;
}

double active_mlp_params_of_layer(const ModelSpec& model, int layer_index) {
  if (!is_moe_layer(model, layer_index)) return dense_mlp_params_per_layer(model);
  const MoeSpec& moe = *model.moe;
  const double router = double(model.hidden) * moe.experts;
  return (moe.top_k + moe.shared_experts) * expert_params(model) + router;
}

double norm_params_per_layer(const ModelSpec& model) { return 2.0 * model.hidden; }

double input_embedding_params(const ModelSpec& model, int seq_len, int tp) {
  const double positions = model.learned_positions ? double(seq_len) : 0.0;
  return (padded_vocab(model, tp) + positions) * model.hidden;
}

double lm_head_params(const ModelSpec& model, int tp) {
  return model.tied_embeddings ? 0.0 : padded_vocab(model, tp) * model.hidden;
}

int moe_layer_count(const ModelSpec& model) {
  if (!model.moe.has_value() || model.moe->experts <= 0) return 0;
  return model.layers > model.moe->dense_layers ? model.layers - model.moe->dense_layers : 0;
}

static double layer_stack_params(const ModelSpec& model, bool active_only) {
  const int moe_layers = moe_layer_count(model);
  const int dense_layers = model.layers - moe_layers;
  const int first_moe = model.layers - moe_layers;
  const double per_layer_common = attention_params_per_layer(model) + norm_params_per_layer(model);
  double mlp = dense_layers * dense_mlp_params_per_layer(model);
  if (moe_layers > 0) {
    mlp += moe_layers * (active_only ? active_mlp_params_of_layer(model, first_moe)
                                     : mlp_params_of_layer(model, first_moe));
  }
  return model.layers * per_layer_common + mlp;
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
  f.projections = 2.0 * tokens * attention_params_per_layer(model);
  const AttentionDims dims = attention_dims(model);
  f.attention_core = 2.0 * tokens * seq_len * dims.heads * (dims.qk_head_dim + dims.v_head_dim);
  if (is_moe_layer(model, layer_index)) {
    const double router = double(model.hidden) * model.moe->experts;
    f.router = 2.0 * tokens * router;
    f.mlp = 2.0 * tokens * (active_mlp_params_of_layer(model, layer_index) - router);
  } else {
    f.mlp = 2.0 * tokens * dense_mlp_params_per_layer(model);
  }
  return f;
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
  if (dense_layers > 0) forward += dense_layers * layer(0);
  if (moe_layers > 0) forward += moe_layers * layer(dense_layers);
  return 3.0 * forward;
}

double model_flops_per_step(const ModelSpec& model, int seq_len, int global_batch) {
  return step_flops(model, seq_len, global_batch, 1.0);
}

double model_flops_per_step_causal(const ModelSpec& model, int seq_len, int global_batch) {
  return step_flops(model, seq_len, global_batch, 0.5);
}

}  // namespace pplan
