#include "pplan/io/hf_config.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "pplan/io/json_io.h"
#include "pplan/text.h"

namespace pplan {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

enum class Family { kLlama, kMixtral, kQwen2Moe, kQwen3Moe, kDeepseekV3, kGpt2, kGptNeox };

struct FamilyName {
  const char* architecture;
  const char* model_type;
  Family family;
};

// Class and model_type names as transformers registers them (models/auto/configuration_auto.py).
constexpr FamilyName kFamilies[] = {
    {"LlamaForCausalLM", "llama", Family::kLlama},
    {"MistralForCausalLM", "mistral", Family::kLlama},
    {"Qwen2ForCausalLM", "qwen2", Family::kLlama},
    {"Qwen3ForCausalLM", "qwen3", Family::kLlama},
    {"MixtralForCausalLM", "mixtral", Family::kMixtral},
    {"Qwen2MoeForCausalLM", "qwen2_moe", Family::kQwen2Moe},
    {"Qwen3MoeForCausalLM", "qwen3_moe", Family::kQwen3Moe},
    {"DeepseekV3ForCausalLM", "deepseek_v3", Family::kDeepseekV3},
    {"GPT2LMHeadModel", "gpt2", Family::kGpt2},
    {"GPTNeoXForCausalLM", "gpt_neox", Family::kGptNeox},
};

std::string supported_list() {
  std::string out;
  for (const FamilyName& f : kFamilies)
    out += (out.empty() ? "" : ", ") + std::string(f.architecture);
  return out;
}

/// Reads a config.json, recording where every pplan field came from.
class ConfigReader {
 public:
  ConfigReader(const json& config, std::string path, ordered_json& mapped)
      : config_(config), path_(std::move(path)), mapped_(mapped) {}

  std::string at(const char* key) const { return path_ + "/" + key; }
  bool has(const char* key) const {
    auto it = config_.find(key);
    return it != config_.end() && !it->is_null();
  }
  const json& value(const char* key) const { return config_.at(key); }

  /// A positive whole number the architecture needs; `field` is the pplan field it feeds.
  long long count(const char* field, const char* key) {
    if (!has(key)) {
      throw InputError(
          "import.missing_field", at(key),
          "the config has no " + std::string(key) + ", which pplan's " + field + " needs");
    }
    const long long v = whole(key);
    record(field, key, value(key));
    return v;
  }

  std::optional<long long> optional_count(const char* key) const {
    if (!has(key)) return std::nullopt;
    return whole(key);
  }

  /// A boolean, or `fallback` (the architecture's default, said so in mapped_from).
  bool flag(const char* field, const char* key, bool fallback) {
    if (!has(key)) {
      mapped_[field] = {{"from", nullptr},
                        {"value", fallback},
                        {"note", std::string(key) + " absent: the architecture's default"}};
      return fallback;
    }
    if (!value(key).is_boolean()) {
      throw InputError("schema.wrong_type", at(key), at(key) + " must be true or false");
    }
    record(field, key, value(key));
    return value(key).get<bool>();
  }

  std::string text(const char* key) const {
    if (!has(key)) return "";
    if (!value(key).is_string()) {
      throw InputError("schema.wrong_type", at(key), at(key) + " must be a string");
    }
    return value(key).get<std::string>();
  }

  double real(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    if (!value(key).is_number()) {
      throw InputError("schema.wrong_type", at(key), at(key) + " must be a number");
    }
    return value(key).get<double>();
  }

  void record(const std::string& field, const char* key, const json& v,
              const std::string& note = "") {
    ordered_json entry = {{"from", key}, {"value", v}};
    if (!note.empty()) entry["note"] = note;
    mapped_[field] = entry;
  }

  /// A config field pplan reads but does not model: kept in mapped_from with why.
  void keep(const char* key, const std::string& note) {
    if (has(key)) record(key, key, value(key), note);
  }

  void unsupported(const char* key, const std::string& why) const {
    throw InputError("import.unsupported", at(key), at(key) + ": " + why);
  }

 private:
  long long whole(const char* key) const {
    const json& v = value(key);
    if (!v.is_number()) {
      throw InputError("schema.wrong_type", at(key), at(key) + " must be a whole number");
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > 2147483647.0) {
      throw InputError("input.out_of_range", at(key),
                       at(key) + " = " + v.dump() + " must be a whole number from 0 to 2^31 - 1");
    }
    return static_cast<long long>(x);
  }

  const json& config_;
  std::string path_;
  ordered_json& mapped_;
};

/// The config's first class name (transformers lists one), or nothing when it lists none.
std::optional<std::string> first_architecture(const json& config, const std::string& path) {
  const auto it = config.find("architectures");
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) {
    throw InputError("schema.wrong_type", path + "/architectures",
                     path + "/architectures must be an array of class names, e.g. "
                            "[\"LlamaForCausalLM\"]");
  }
  if (it->empty()) return std::nullopt;
  if (!it->front().is_string()) {
    throw InputError("schema.wrong_type", path + "/architectures/0",
                     path + "/architectures/0 must be a class name (a string)");
  }
  return it->front().get<std::string>();
}

Family family_of(const json& config, const std::string& path) {
  const std::string architecture = first_architecture(config, path).value_or("");
  const std::string model_type = config.contains("model_type") && config["model_type"].is_string()
                                     ? config["model_type"].get<std::string>()
                                     : "";
  for (const FamilyName& f : kFamilies) {
    if (model_type == f.model_type) return f.family;
  }
  for (const FamilyName& f : kFamilies) {
    if (architecture == f.architecture) return f.family;
  }
  std::string fields;
  int listed = 0;
  for (auto it = config.begin(); it != config.end() && listed < 60; ++it, ++listed) {
    fields += (fields.empty() ? "" : ", ") + printable(it.key(), 40);
  }
  if (config.size() > 60) fields += ", ...";
  const std::string seen = !architecture.empty()
                               ? "architecture \"" + printable(architecture, 64) + "\""
                           : !model_type.empty() ? "model_type \"" + printable(model_type, 64) + "\""
                                                 : "no architectures or model_type";
  throw InputError(
      "import.unknown_architecture",
      path + (!architecture.empty() || model_type.empty() ? "/architectures" : "/model_type"),
      "pplan cannot map " + seen + " (it maps " + supported_list() +
          "); the config's fields: " + (fields.empty() ? "none" : fields));
}

/// Whether any dropout probability of the config is above 0 (then pplan keeps the masks).
bool has_dropout(const ConfigReader& r, ordered_json& mapped, Family family) {
  const bool gpt2 = family == Family::kGpt2;
  // GPT-2's probabilities default to 0.1 (GPT2Config), the others' to 0.
  const std::vector<std::pair<const char*, double>> keys =
      gpt2 ? std::vector<std::pair<const char*, double>>{{"resid_pdrop", 0.1},
                                                         {"embd_pdrop", 0.1},
                                                         {"attn_pdrop", 0.1}}
           : std::vector<std::pair<const char*, double>>{{"attention_dropout", 0.0},
                                                         {"hidden_dropout", 0.0},
                                                         {"attention_probs_dropout_prob", 0.0},
                                                         {"hidden_dropout_prob", 0.0}};
  // Every probability is checked, not only up to the first one above 0.
  const char* first_positive = nullptr;
  double first_positive_p = 0;
  for (const auto& [key, fallback] : keys) {
    const double p = r.real(key, fallback);
    if (!(p >= 0 && p < 1)) {
      throw InputError("input.out_of_range", r.at(key),
                       r.at(key) + " = " + format_significant(p) +
                           " is not a dropout probability (from 0 up to, not including, 1)");
    }
    if (p > 0 && !first_positive) {
      first_positive = key;
      first_positive_p = p;
    }
  }
  if (first_positive) {
    mapped["dropout"] = {{"from", first_positive}, {"value", first_positive_p}};
    return true;
  }
  mapped["dropout"] = {{"from", keys.front().first},
                       {"value", r.real(keys.front().first, keys.front().second)}};
  return false;
}

}  // namespace

bool is_hf_config(const json& document) {
  return document.is_object() &&
         (document.contains("architectures") || document.contains("model_type"));
}

ImportedModel import_hf_config(const json& config, const std::string& path,
                               const std::string& name) {
  if (!config.is_object()) {
    throw InputError("schema.not_an_object", path.empty() ? "/" : path,
                     (path.empty() ? std::string("the config") : path) +
                         " must be a JSON object (a config.json)");
  }
  const Family family = family_of(config, path);
  ImportedModel out;
  ordered_json& mapped = out.mapped_from;
  ConfigReader r(config, path, mapped);
  if (r.has("architectures")) mapped["architecture"] = config["architectures"];
  if (r.has("model_type")) mapped["model_type"] = config["model_type"];

  const bool gpt2 = family == Family::kGpt2;
  ordered_json m;
  m["id"] = "custom";
  const std::optional<std::string> architecture = first_architecture(config, path);
  std::string model_name = name;
  if (model_name.empty()) model_name = r.text("_name_or_path");
  if (model_name.empty()) model_name = architecture.value_or("");
  if (model_name.empty()) model_name = r.text("model_type");
  // The name reaches tables, scripts and reports: refused here if it holds a control
  // character (a terminal escape, a newline), and cut on a character boundary.
  if (const auto bad = first_forbidden_character(model_name)) {
    const std::string from = !name.empty()                   ? "/name"
                             : r.has("_name_or_path")         ? path + "/_name_or_path"
                             : architecture                   ? path + "/architectures/0"
                                                              : path + "/model_type";
    throw InputError("input.control_character", from,
                     from + ": the model's name contains " + code_point_name(bad->code_point) +
                         " at character " + std::to_string(bad->character_index + 1));
  }
  m["name"] = truncate_utf8(model_name, 160) + " (imported)";
  m["layers"] = r.count("layers", gpt2 ? "n_layer" : "num_hidden_layers");
  const long long hidden = r.count("hidden", gpt2 ? "n_embd" : "hidden_size");
  m["hidden"] = hidden;
  const long long heads = r.count("heads", gpt2 ? "n_head" : "num_attention_heads");
  m["heads"] = heads;
  if (!gpt2 && family != Family::kGptNeox && r.has("num_key_value_heads")) {
    m["kv_heads"] = r.count("kv_heads", "num_key_value_heads");
  } else {
    m["kv_heads"] = heads;
    mapped["kv_heads"] = {
        {"from", nullptr}, {"value", heads}, {"note", "multi-head attention: kv heads = heads"}};
  }
  if (gpt2) {
    if (r.has("n_inner")) {
      m["ffn_hidden"] = r.count("ffn_hidden", "n_inner");
    } else {
      m["ffn_hidden"] = 4 * hidden;
      mapped["ffn_hidden"] = {
          {"from", nullptr}, {"value", 4 * hidden}, {"note", "n_inner null: 4·n_embd (GPT2MLP)"}};
    }
  } else {
    m["ffn_hidden"] = r.count("ffn_hidden", "intermediate_size");
  }
  m["vocab"] = r.count("vocab", "vocab_size");

  // Activation: the Llama-style families have a gated MLP (gate, up, down: SwiGLU's three
  // matrices whatever the gate's function); GPT-2 and NeoX a two-matrix GeLU MLP.
  const bool gated = !gpt2 && family != Family::kGptNeox;
  const char* act_key = gpt2 ? "activation_function" : "hidden_act";
  const std::string act = r.text(act_key);
  if (gated) {
    m["activation"] = "swiglu";
    r.record("activation", act_key, act.empty() ? json(nullptr) : json(act),
             act == "silu" || act.empty()
                 ? "gated MLP with SiLU: SwiGLU"
                 : "gated MLP (gate, up, down): counted as SwiGLU's three matrices");
  } else {
    if (!act.empty() && act.rfind("gelu", 0) != 0) {
      r.unsupported(act_key, "\"" + printable(act, 40) + "\": pplan's two-matrix MLP is GeLU");
    }
    m["activation"] = "gelu";
    r.record("activation", act_key, act.empty() ? json(nullptr) : json(act));
  }

  // Untied by default everywhere but GPT-2, whose LM head is the input embedding (GPT2Config
  // keeps PretrainedConfig's tie_word_embeddings = true; the others' configs set false).
  m["tied_embeddings"] = r.flag("tied_embeddings", "tie_word_embeddings", gpt2);
  m["dropout"] = has_dropout(r, mapped, family);
  m["learned_positions"] = gpt2;
  mapped["learned_positions"] = {
      {"from", gpt2 ? json("n_positions") : json(nullptr)},
      {"value", gpt2 ? (r.has("n_positions") ? config["n_positions"] : json(1024)) : json(false)},
      {"note", gpt2 ? "a learned position table, sized by the training seq_len"
                    : "rotary positions: no table"}};

  // Attention width: pplan's projections are hidden wide (head dim = hidden / heads).
  if (family == Family::kDeepseekV3) {
    // Multi-head latent attention (DeepSeek-V2 §2.1, V3 §2.1.1), as pplan's model holds it.
    json mla = json::object();
    for (const char* key :
         {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
      mla[key] = r.count("mla", key);
    }
    m["mla"] = mla;
    r.record("mla", "q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim",
             mla, "multi-head latent attention");
  } else if (r.has("head_dim")) {
    const long long head_dim = r.optional_count("head_dim").value_or(0);
    if (head_dim * heads != hidden) {
      r.unsupported("head_dim", std::to_string(head_dim) + " × " + std::to_string(heads) +
                                    " heads = " + std::to_string(head_dim * heads) +
                                    " is not hidden_size " + std::to_string(hidden) +
                                    ": pplan's attention projections are hidden wide (head dim = "
                                    "hidden / heads), so it would misprice this attention");
    }
    r.keep("head_dim", "equals hidden / heads");
  }

  // Mixture of experts.
  ordered_json moe = nullptr;
  auto moe_block = [&](long long experts, long long top_k, long long shared, long long width,
                       long long dense) {
    return ordered_json{{"experts", experts},
                        {"top_k", top_k},
                        {"shared_experts", shared},
                        {"expert_ffn_hidden", width},
                        {"dense_layers", dense}};
  };
  auto leading_dense_layers = [&](const char* key) -> long long {
    if (!r.has(key)) return 0;
    const json& layers = config.at(key);
    if (!layers.is_array())
      throw InputError("schema.wrong_type", r.at(key), r.at(key) + " must be an array");
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (!layers[i].is_number_integer() ||
          layers[i].get<long long>() != static_cast<long long>(i)) {
        r.unsupported(key,
                      "dense layers other than the leading ones; pplan's MoE models have the "
                      "dense layers first (dense_layers)");
      }
    }
    r.record("moe.dense_layers", key, layers);
    return static_cast<long long>(layers.size());
  };
  auto every_layer_sparse = [&](const char* key) {
    if (r.has(key) && r.optional_count(key).value_or(1) != 1) {
      r.unsupported(
          key, "MoE every " + config.at(key).dump() + " layers; pplan's MoE layers are contiguous");
    }
    r.keep(key, "1: every layer after the dense ones is sparse");
  };
  if (family == Family::kMixtral) {
    const long long width = m["ffn_hidden"].get<long long>();
    moe = moe_block(r.count("moe.experts", "num_local_experts"),
                    r.count("moe.top_k", "num_experts_per_tok"), 0, width, 0);
    mapped["moe.expert_ffn_hidden"] = {{"from", "intermediate_size"}, {"value", width}};
    mapped["moe.dense_layers"] = {
        {"from", nullptr}, {"value", 0}, {"note", "every Mixtral layer is sparse"}};
  } else if (family == Family::kQwen2Moe || family == Family::kQwen3Moe) {
    every_layer_sparse("decoder_sparse_step");
    const long long width = r.count("moe.expert_ffn_hidden", "moe_intermediate_size");
    long long shared = 0;
    if (family == Family::kQwen2Moe && r.has("shared_expert_intermediate_size")) {
      const long long shared_width =
          r.optional_count("shared_expert_intermediate_size").value_or(0);
      if (width == 0 || shared_width % width != 0) {
        r.unsupported("shared_expert_intermediate_size",
                      "a shared expert that is not a whole number of routed experts wide");
      }
      shared = shared_width / width;
      r.record("moe.shared_experts", "shared_expert_intermediate_size", shared_width,
               "one shared expert of " + std::to_string(shared_width) + " = " +
                   std::to_string(shared) +
                   " experts of the routed width (the same weights and FLOPs)");
      out.notes.push_back(
          "Qwen2-MoE's shared-expert gate (hidden weights per layer) is not counted.");
    }
    const long long dense = leading_dense_layers("mlp_only_layers");
    moe = moe_block(r.count("moe.experts", "num_experts"),
                    r.count("moe.top_k", "num_experts_per_tok"), shared, width, dense);
  } else if (family == Family::kDeepseekV3) {
    every_layer_sparse("moe_layer_freq");
    moe = moe_block(r.count("moe.experts", "n_routed_experts"),
                    r.count("moe.top_k", "num_experts_per_tok"),
                    r.count("moe.shared_experts", "n_shared_experts"),
                    r.count("moe.expert_ffn_hidden", "moe_intermediate_size"),
                    r.count("moe.dense_layers", "first_k_dense_replace"));
    r.keep("num_nextn_predict_layers",
           "the multi-token-prediction module is not part of the model pplan trains (671B excludes "
           "it)");
  }
  m["moe"] = moe;

  // What the config says that pplan's ModelSpec does not hold.
  const auto is = [&](const char* key, const json& v) {
    return config.contains(key) && config[key] == v;
  };
  // The rotary base: Megatron's --rotary-base in the launch (RoFormer, Su et al. 2021).
  if (!m.value("learned_positions", false) && r.has("rope_theta")) {
    m["rope_theta"] = r.value("rope_theta");
    r.record("rope_theta", "rope_theta", r.value("rope_theta"));
  }
  r.keep("max_position_embeddings", "the training seq_len is the scenario's, not the model's");
  if (family == Family::kGpt2)
    r.keep("n_positions", "the position table pplan counts is seq_len long");
  if (family == Family::kGptNeox) {
    r.keep("rotary_pct", "partial rotary embedding: no weights");
    r.keep("use_parallel_residual", "attention and MLP in parallel: same weights and FLOPs");
  }
  if (r.has("use_sliding_window") ? is("use_sliding_window", true) : r.has("sliding_window")) {
    r.keep("sliding_window", "sliding-window attention is priced as full causal attention");
  }
  if (family == Family::kGpt2 || family == Family::kGptNeox || is("attention_bias", true) ||
      is("model_type", "qwen2") || is("model_type", "qwen2_moe")) {
    out.notes.push_back(
        "Linear-layer and norm biases are not counted (a few hidden-sized vectors per "
        "layer, under 0.1% of the weights).");
  }
  m["source"] = "imported from a Hugging Face config.json (" +
                printable(architecture.value_or(r.text("model_type")), 64) + ")";

  // Validate as any custom model; a bad figure is reported at the config key it came from.
  try {
    out.model = parse_model(json::parse(m.dump()), "");
  } catch (const InputError& e) {
    std::string field = e.path().substr(1);
    std::replace(field.begin(), field.end(), '/', '.');
    std::string key = field;
    if (mapped.contains(field) && mapped[field].contains("from") &&
        mapped[field]["from"].is_string()) {
      key = mapped[field]["from"].get<std::string>();
    }
    throw InputError(e.code(), path + "/" + key,
                     "the config's " + key + " gives pplan's model." + field + ": " + e.what());
  }
  return out;
}

}  // namespace pplan
