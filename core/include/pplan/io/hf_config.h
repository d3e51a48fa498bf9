#pragma once
/// Import a model from a Hugging Face `config.json` (transformers' PretrainedConfig as saved
/// next to the weights). The engine's `import_model` command and the CLI's `--model FILE`
/// use it; the page will too.
///
/// | family (architectures[0] / model_type) | pplan fields from                                 |
/// |----------------------------------------|---------------------------------------------------|
/// | LlamaForCausalLM / llama,              | num_hidden_layers, hidden_size, num_attention_    |
/// | MistralForCausalLM / mistral,          | heads, num_key_value_heads, intermediate_size,    |
/// | Qwen2ForCausalLM / qwen2,              | vocab_size, hidden_act (a gated MLP: SwiGLU),     |
/// | Qwen3ForCausalLM / qwen3               | tie_word_embeddings; head_dim, q/k norm (Qwen3)  |
/// | MixtralForCausalLM / mixtral           | + num_local_experts, num_experts_per_tok; every   |
/// |                                        | layer sparse, experts intermediate_size wide      |
/// | Qwen2MoeForCausalLM / qwen2_moe,       | + num_experts, num_experts_per_tok, moe_          |
/// | Qwen3MoeForCausalLM / qwen3_moe        | intermediate_size, shared_expert_intermediate_    |
/// |                                        | size (as whole experts of the routed width),      |
/// |                                        | mlp_only_layers (leading ones only)               |
/// | DeepseekV3ForCausalLM / deepseek_v3    | + n_routed_experts, n_shared_experts, moe_        |
/// |                                        | intermediate_size, first_k_dense_replace, MLA     |
/// |                                        | ranks, num_nextn_predict_layers (MTP); Kimi-K2    |
/// | GPT2LMHeadModel / gpt2                 | n_layer, n_embd, n_head, n_inner (or 4·n_embd),   |
/// |                                        | vocab_size; GeLU, tied, learned positions         |
/// | GPTNeoXForCausalLM / gpt_neox          | num_hidden_layers, hidden_size, num_attention_    |
/// |                                        | heads, intermediate_size, vocab_size; GeLU        |
/// | GptOssForCausalLM / gpt_oss            | + head_dim, num_local_experts, experts_per_token, |
/// |                                        | layer_types + sliding_window, attention_bias;     |
/// |                                        | sinks and expert/router biases by architecture    |
/// | Gemma3ForConditionalGeneration / gemma3| text_config: head_dim, hidden_activation (GeGLU), |
/// |                                        | sliding_window(_pattern) / layer_types, q/k norm; |
/// |                                        | Gemma3TextConfig's defaults for absent keys       |
/// | Llama4ForConditionalGeneration / llama4| text_config: intermediate_size_mlp (dense),       |
/// |                                        | intermediate_size (experts + 1 shared),           |
/// |                                        | interleave_moe_layer_step, attention_chunk_size   |
/// | NemotronHForCausalLM / nemotron_h      | hybrid_override_pattern, mamba_num_heads, mamba_  |
/// |                                        | head_dim, ssm_state_size, n_groups; relu2 MLPs    |
///
/// Field names: transformers' configuration_<family>.py. What pplan's ModelSpec cannot hold is
/// recorded, not lost (rope scaling, the local layers' RoPE base, norms after attention and MLP).
/// A config pplan would misprice (windows or dense layers that do not recur every
/// k-th layer) is refused with import.unsupported; an unknown architecture with
/// import.unknown_architecture, listing the fields it found.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/specs.h"

namespace pplan {

/// A model imported from a config.json.
struct ImportedModel {
  ModelSpec model;
  /// Per pplan model field, where it came from: {"from": config key or null, "value": what the
  /// config says, "note": ...}; plus "architecture", "model_type", and entries for the config
  /// fields pplan records without modelling them (rope_theta, ...).
  nlohmann::ordered_json mapped_from;
  std::vector<std::string> notes;  ///< approximations and what the model leaves out
};

/**
 * Maps `config` to a pplan model, validated as parse_model validates a custom model. Throws
 * InputError: import.unknown_architecture, import.missing_field, import.unsupported,
 * schema.wrong_type, input.out_of_range, with pointers under `path` ("/config/hidden_size").
 * `name` names the model; empty takes the config's `_name_or_path`, else its architecture.
 */
ImportedModel import_hf_config(const nlohmann::json& config, const std::string& path,
                               const std::string& name = "");

/// Whether a JSON document looks like a config.json (has "architectures" or "model_type")
/// rather than a pplan model object.
bool is_hf_config(const nlohmann::json& document);

}  // namespace pplan
