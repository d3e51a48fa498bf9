#include "pplan/io/hf_config.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include "pplan/io/json_io.h"
#include "pplan/text.h"

namespace pplan {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

enum class Family {
  kLlama,
  kQwen3,
  kMixtral,
  kQwen2Moe,
  kQwen3Moe,
  kDeepseekV3,
  kGpt2,
  kGptNeox,
  kGptOss,
  kGemma3,
  kLlama4,
  kNemotronH,
};

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
    {"Qwen3ForCausalLM", "qwen3", Family::kQwen3},
    {"MixtralForCausalLM", "mixtral", Family::kMixtral},
    {"Qwen2MoeForCausalLM", "qwen2_moe", Family::kQwen2Moe},
    {"Qwen3MoeForCausalLM", "qwen3_moe", Family::kQwen3Moe},
    {"DeepseekV3ForCausalLM", "deepseek_v3", Family::kDeepseekV3},
    {"GPT2LMHeadModel", "gpt2", Family::kGpt2},
    {"GPTNeoXForCausalLM", "gpt_neox", Family::kGptNeox},
    {"GptOssForCausalLM", "gpt_oss", Family::kGptOss},
    {"Gemma3ForCausalLM", "gemma3_text", Family::kGemma3},
    {"Gemma3ForConditionalGeneration", "gemma3", Family::kGemma3},
    {"Llama4ForCausalLM", "llama4_text", Family::kLlama4},
    {"Llama4ForConditionalGeneration", "llama4", Family::kLlama4},
    {"NemotronHForCausalLM", "nemotron_h", Family::kNemotronH},
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

  /// count(), or the architecture's default when the config leaves the key out (transformers
  /// fills it from the config class), said so in mapped_from.
  long long count_or(const char* field, const char* key, long long fallback, const char* default_from) {
    if (has(key)) return count(field, key);
    mapped_[field] = {{"from", nullptr},
                      {"value", fallback},
                      {"note", std::string(key) + " absent: " + default_from + "'s default"}};
    return fallback;
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

bool is_true(const ConfigReader& r, const char* key) {
  return r.has(key) && r.value(key).is_boolean() && r.value(key).get<bool>();
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
  if (config.contains("architectures") && !config["architectures"].is_null()) mapped["architecture"] = config["architectures"];
  if (config.contains("model_type") && !config["model_type"].is_null()) mapped["model_type"] = config["model_type"];
  // Vision-language checkpoints (Gemma 3, Llama 4) nest the language model under text_config;
  // pplan plans the language model and reports the vision tower apart.
  const bool nested = config.contains("text_config") && config["text_config"].is_object();
  const json& text_config = nested ? config["text_config"] : config;
  const std::string text_path = nested ? path + "/text_config" : path;
  if (nested) {
    mapped["text_config"] = {{"from", "text_config"},
                             {"note", "the language model; the vision tower (vision_config) and "
                                      "its projector are not counted"}};
    out.notes.push_back("The vision tower (vision_config) is not part of the planned model.");
  }
  ConfigReader r(text_config, text_path, mapped);

  const bool gpt2 = family == Family::kGpt2;
  ordered_json m;
  m["id"] = "custom";
  const std::optional<std::string> architecture = first_architecture(config, path);
  std::string model_name = name;
  if (model_name.empty() && config.contains("_name_or_path") && config["_name_or_path"].is_string())
    model_name = config["_name_or_path"].get<std::string>();
  if (model_name.empty()) model_name = architecture.value_or("");
  if (model_name.empty() && config.contains("model_type") && config["model_type"].is_string())
    model_name = config["model_type"].get<std::string>();
  // The name reaches tables, scripts and reports: refused here if it holds a control
  // character (a terminal escape, a newline), and cut on a character boundary.
  if (const auto bad = first_forbidden_character(model_name)) {
    const std::string from = !name.empty()                   ? "/name"
                             : config.contains("_name_or_path") ? path + "/_name_or_path"
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
    // Llama 4's dense layers are intermediate_size_mlp wide; its experts intermediate_size.
    m["ffn_hidden"] = family == Family::kLlama4 && r.has("intermediate_size_mlp")
                          ? r.count("ffn_hidden", "intermediate_size_mlp")
                          : r.count("ffn_hidden", "intermediate_size");
  }
  // Gemma3TextConfig's default vocabulary (transformers configuration_gemma3.py), which Gemma
  // 3's released text_config leaves out.
  m["vocab"] = family == Family::kGemma3 ? r.count_or("vocab", "vocab_size", 262208, "Gemma3TextConfig")
                                         : r.count("vocab", "vocab_size");

  // Activation: the Llama-style families have a gated MLP (gate, up, down): SwiGLU with SiLU,
  // GeGLU with a GeLU gate (Gemma); GPT-2 and NeoX a two-matrix GeLU MLP; Nemotron-H a
  // two-matrix squared-ReLU one (mlp_hidden_act "relu2").
  const bool nemotron_h = family == Family::kNemotronH;
  const bool gated = !gpt2 && family != Family::kGptNeox && !nemotron_h;
  const char* act_key = gpt2 ? "activation_function"
                        : nemotron_h ? "mlp_hidden_act"
                        : r.has("hidden_activation") ? "hidden_activation"
                                                     : "hidden_act";
  std::string act = r.text(act_key);
  if (act.empty() && family == Family::kGemma3) act = "gelu_pytorch_tanh";  // Gemma3TextConfig's
  if (gated) {
    const bool gelu_gate = act.rfind("gelu", 0) == 0;
    if (!act.empty() && !gelu_gate && act != "silu" && act != "swish") {
      r.unsupported(act_key, "\"" + printable(act, 40) +
                                 "\": pplan's gated MLPs are SwiGLU (silu) and GeGLU (gelu)");
    }
    // gpt-oss clamps its SwiGLU (modeling_gpt_oss.py GptOssExperts: gate·sigmoid(1.702·gate)·
    // (up + 1), gate ≤ swiglu_limit, |up| ≤ swiglu_limit); pplan's clamped_swiglu is its 7.
    const bool clamped = family == Family::kGptOss;
    m["activation"] = clamped ? "clamped_swiglu" : gelu_gate ? "geglu" : "swiglu";
    r.record("activation", act_key, act.empty() ? json(nullptr) : json(act),
             clamped     ? "gpt-oss's clamped SwiGLU (swiglu_limit)"
             : gelu_gate ? "gated MLP with a GeLU gate: GeGLU"
                         : "gated MLP with SiLU: SwiGLU");
  } else if (nemotron_h) {
    if (!act.empty() && act != "relu2") {
      r.unsupported(act_key, "\"" + printable(act, 40) + "\": Nemotron-H's MLP is squared ReLU (relu2)");
    }
    m["activation"] = "squared_relu";
    r.record("activation", act_key, act.empty() ? json(nullptr) : json(act), "squared ReLU, two matrices");
  } else {
    if (!act.empty() && act.rfind("gelu", 0) != 0) {
      r.unsupported(act_key, "\"" + printable(act, 40) + "\": pplan's two-matrix MLP is GeLU");
    }
    m["activation"] = "gelu";
    r.record("activation", act_key, act.empty() ? json(nullptr) : json(act));
  }
  if (nemotron_h) {
    // Hybrid layers, one character each ('M' Mamba-2, '*' attention, '-' MLP), and the Mamba-2
    // mixer's shape (transformers configuration_nemotron_h.py).
    const std::string pattern = r.text("hybrid_override_pattern");
    if (pattern.empty()) r.unsupported("hybrid_override_pattern", "a Nemotron-H config without its layer pattern");
    m["hybrid_pattern"] = pattern;
    r.record("hybrid_pattern", "hybrid_override_pattern", pattern);
    const long long mamba_heads = r.count("mamba.heads", "mamba_num_heads");
    const long long mamba_head_dim = r.count("mamba.head_dim", "mamba_head_dim");
    const long long state = r.count("mamba.state", "ssm_state_size");
    const long long groups = r.count("mamba.groups", "n_groups");
    const long long conv = r.count_or("mamba.conv_kernel", "conv_kernel", 4, "NemotronHConfig");
    const long long chunk = r.count_or("mamba.chunk", "chunk_size", 128, "NemotronHConfig");
    m["mamba"] = {{"heads", mamba_heads}, {"head_dim", mamba_head_dim}, {"state", state},
                  {"groups", groups}, {"conv_kernel", conv}, {"chunk", chunk}};
    r.keep("use_conv_bias", "the conv's bias is counted");
    mapped["rope_theta"] = {{"from", nullptr}, {"value", nullptr},
                            {"note", "no positional embedding: pplan's rotary term (a few bytes per token) stays"}};
    if (is_true(r, "use_bias")) r.unsupported("use_bias", "biases on Nemotron-H's linear layers are not modelled");
  }

  // Untied by default everywhere but GPT-2 and Gemma, whose LM head is the input embedding
  // (GPT2Config and Gemma3TextConfig default tie_word_embeddings to true; the others' to false).
  m["tied_embeddings"] = r.flag("tied_embeddings", "tie_word_embeddings", gpt2 || family == Family::kGemma3);
  m["dropout"] = has_dropout(r, mapped, family);
  m["learned_positions"] = gpt2;
  mapped["learned_positions"] = {
      {"from", gpt2 ? json("n_positions") : json(nullptr)},
      {"value", gpt2 ? (r.has("n_positions") ? r.value("n_positions") : json(1024)) : json(false)},
      {"note", gpt2 ? "a learned position table, sized by the training seq_len"
                    : "rotary positions: no table"}};

  // Attention width.
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
  } else if (nemotron_h && r.has("attention_head_dim") &&
             r.optional_count("attention_head_dim").value_or(0) * heads != hidden) {
    m["head_dim"] = r.count("head_dim", "attention_head_dim");
  } else if (r.has("head_dim")) {
    const long long head_dim = r.optional_count("head_dim").value_or(0);
    if (head_dim * heads != hidden) {
      m["head_dim"] = r.count("head_dim", "head_dim");
      mapped["head_dim"]["note"] = "heads x head_dim = " + std::to_string(head_dim * heads) +
                                   " wide Q and attention output, decoupled from hidden_size";
    } else {
      r.keep("head_dim", "equals hidden / heads");
    }
  }
  // Per-head RMSNorms on the query and key: Qwen3's and Gemma 3's q_norm/k_norm (head_dim
  // weights each); Llama 4's use_qk_norm is a weightless L2 norm.
  if (family == Family::kQwen3 || family == Family::kQwen3Moe || family == Family::kGemma3) {
    m["qk_norm"] = true;
    mapped["qk_norm"] = {{"from", nullptr}, {"value", true}, {"note", "the architecture's q_norm and k_norm"}};
  }
  if (family == Family::kLlama4) r.keep("use_qk_norm", "an L2 norm without weights: nothing to count");
  if (family == Family::kGptOss) {
    // gpt-oss: biases on the attention projections (attention_bias), the experts and the
    // router; a learned sink logit per head (modeling_gpt_oss.py GptOssAttention.sinks).
    m["linear_bias"] = r.flag("linear_bias", "attention_bias", true);
    m["attention_sinks"] = true;
    mapped["attention_sinks"] = {{"from", nullptr}, {"value", true}, {"note", "one learned sink per head"}};
  }

  // Local attention: a per-layer list (layer_types: "sliding_attention" / "full_attention", or
  // Llama 4's no_rope_layers: 0 = a global NoPE layer), Gemma's sliding_window_pattern, or
  // Mistral's window on every layer. pplan's pattern: layer i global when (i + 1) % k == 0.
  const long long layers = m["layers"].get<long long>();
  auto global_every_of = [&](const char* key, const std::function<bool(const json&)>& is_global) -> long long {
    const json& list = r.value(key);
    if (!list.is_array() || static_cast<long long>(list.size()) != layers) {
      throw InputError("schema.wrong_type", r.at(key), r.at(key) + " must list one entry per layer");
    }
    long long every = 0;
    for (long long i = 0; i < layers; ++i) {
      if (is_global(list[i])) {
        every = i + 1;
        break;
      }
    }
    for (long long i = 0; i < layers; ++i) {
      const bool global = every > 0 && (i + 1) % every == 0;
      if (is_global(list[i]) != global) {
        r.unsupported(key, "global layers that do not recur every k-th layer; pplan's local "
                           "attention has one global layer in every k");
      }
    }
    r.record("local_attention.global_every", key, every, "layer i global when (i + 1) % " +
                                                             std::to_string(every) + " == 0");
    return every;
  };
  if (family == Family::kLlama4 && r.has("attention_chunk_size")) {
    long long every = 4;  // Llama4TextConfig: no_rope_layers default [(i + 1) % 4 != 0]
    if (r.has("no_rope_layers") && r.value("no_rope_layers").is_array() && !r.value("no_rope_layers").empty()) {
      every = global_every_of("no_rope_layers", [](const json& v) { return v == 0; });
    }
    m["local_attention"] = {{"tokens", r.count("local_attention.tokens", "attention_chunk_size")},
                            {"global_every", every},
                            {"chunked", true}};
  } else if ((family == Family::kGemma3 || family == Family::kGptOss) && r.has("sliding_window")) {
    long long every = 0;
    if (r.has("layer_types")) {
      every = global_every_of("layer_types", [](const json& v) { return v == "full_attention"; });
    } else if (family == Family::kGemma3) {
      // Gemma3TextConfig: sliding_window_pattern 6 unless given (layer_types default to
      // "full_attention" where (i + 1) % 6 == 0).
      every = r.count_or("local_attention.global_every", "sliding_window_pattern", 6, "Gemma3TextConfig");
    } else {
      r.unsupported("sliding_window", "a window without layer_types");
    }
    m["local_attention"] = {{"tokens", r.count("local_attention.tokens", "sliding_window")},
                            {"global_every", every},
                            {"chunked", false}};
  } else if (r.has("sliding_window") && (family == Family::kLlama || family == Family::kMixtral) &&
             (!r.has("use_sliding_window") || is_true(r, "use_sliding_window"))) {
    if (r.text("model_type") == "qwen2" || r.has("max_window_layers")) {
      r.unsupported("use_sliding_window", "Qwen's windows on the layers past max_window_layers; "
                                          "pplan's local attention recurs every k-th layer");
    }
    m["local_attention"] = {{"tokens", r.count("local_attention.tokens", "sliding_window")},
                            {"global_every", 0},
                            {"chunked", false}};
    mapped["local_attention.global_every"] = {{"from", nullptr}, {"value", 0}, {"note", "every layer sliding"}};
  } else if (r.has("use_sliding_window") && is_true(r, "use_sliding_window")) {
    r.unsupported("use_sliding_window", "Qwen's windows on the layers past max_window_layers; "
                                        "pplan's local attention recurs every k-th layer");
  }

  // Mixture of experts.
  ordered_json moe = nullptr;
  auto moe_block = [&](long long experts, long long top_k, long long shared, long long width,
                       long long dense, long long every) {
    ordered_json block{{"experts", experts},
                       {"top_k", top_k},
                       {"shared_experts", shared},
                       {"expert_ffn_hidden", width},
                       {"dense_layers", dense}};
    if (every > 1) block["every"] = every;
    return block;
  };
  auto leading_dense_layers = [&](const char* key) -> long long {
    if (!r.has(key)) return 0;
    const json& list = r.value(key);
    if (!list.is_array())
      throw InputError("schema.wrong_type", r.at(key), r.at(key) + " must be an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_number_integer() || list[i].get<long long>() != static_cast<long long>(i)) {
        r.unsupported(key,
                      "dense layers other than the leading ones; pplan's MoE models have the "
                      "dense layers first (dense_layers)");
      }
    }
    r.record("moe.dense_layers", key, list);
    return static_cast<long long>(list.size());
  };
  if (family == Family::kMixtral) {
    const long long width = m["ffn_hidden"].get<long long>();
    // One statement per read: mapped_from keeps the order of the reads, which an argument list
    // leaves to the compiler (the wasm and native builds must answer byte for byte the same).
    const long long experts = r.count("moe.experts", "num_local_experts");
    const long long top_k = r.count("moe.top_k", "num_experts_per_tok");
    moe = moe_block(experts, top_k, 0, width, 0, 1);
    mapped["moe.expert_ffn_hidden"] = {{"from", "intermediate_size"}, {"value", width}};
    mapped["moe.dense_layers"] = {
        {"from", nullptr}, {"value", 0}, {"note", "every Mixtral layer is sparse"}};
  } else if (family == Family::kGptOss) {
    const long long width = m["ffn_hidden"].get<long long>();
    const long long experts = r.count("moe.experts", "num_local_experts");
    const long long top_k = r.count("moe.top_k", r.has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token");
    moe = moe_block(experts, top_k, 0, width, 0, 1);
    mapped["moe.expert_ffn_hidden"] = {{"from", "intermediate_size"}, {"value", width}};
    if (r.real("swiglu_limit", 7.0) != 7.0) {
      r.unsupported("swiglu_limit", "pplan's clamped_swiglu is gpt-oss's, clamped at 7.0");
    }
    r.keep("swiglu_limit", "the clamped SwiGLU (activation clamped_swiglu): the same matrices and FLOPs");
  } else if (family == Family::kLlama4) {
    // Llama4TextMoe: routed experts and one shared expert, each intermediate_size wide; MoE
    // every interleave_moe_layer_step-th layer ((i + 1) % step == 0), dense layers between.
    const long long every = r.has("interleave_moe_layer_step")
                                ? r.count("moe.every", "interleave_moe_layer_step")
                                : 1;
    if (r.has("moe_layers") && r.value("moe_layers").is_array()) {
      const json& list = r.value("moe_layers");
      bool matches = true;
      long long count = 0;
      for (long long i = 0; i < layers; ++i) {
        const bool expected = every > 0 && (i + 1) % every == 0;
        const bool listed = std::find(list.begin(), list.end(), json(i)) != list.end();
        matches = matches && expected == listed;
        count += listed;
      }
      if (!matches) r.unsupported("moe_layers", "expert layers that do not recur every interleave_moe_layer_step-th layer");
      r.keep("moe_layers", "the layers (i + 1) % interleave_moe_layer_step == 0: " + std::to_string(count));
    }
    const long long experts = r.count("moe.experts", "num_local_experts");
    const long long top_k = r.count("moe.top_k", "num_experts_per_tok");
    const long long width = r.count("moe.expert_ffn_hidden", "intermediate_size");
    moe = moe_block(experts, top_k, 1, width, 0, std::max(1LL, every));
    mapped["moe.shared_experts"] = {{"from", nullptr}, {"value", 1}, {"note", "Llama4TextMoe's shared expert"}};
  } else if (family == Family::kQwen2Moe || family == Family::kQwen3Moe) {
    const long long every = r.has("decoder_sparse_step") ? r.count("moe.every", "decoder_sparse_step") : 1;
    if (every < 1) r.unsupported("decoder_sparse_step", "0: no sparse layers");
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
    const long long experts = r.count("moe.experts", "num_experts");
    const long long top_k = r.count("moe.top_k", "num_experts_per_tok");
    moe = moe_block(experts, top_k, shared, width, dense, every);
  } else if (family == Family::kDeepseekV3) {
    // DeepSeek's own phase (layer_idx % moe_layer_freq == 0) differs from pplan's; its
    // released configs use 1 (every layer past first_k_dense_replace).
    if (r.has("moe_layer_freq") && r.optional_count("moe_layer_freq").value_or(1) != 1) {
      r.unsupported("moe_layer_freq", "MoE every " + r.value("moe_layer_freq").dump() +
                                          " layers in DeepSeek's phase; pplan's recur at (i + 1) % k == 0");
    }
    r.keep("moe_layer_freq", "1: every layer after the dense ones is sparse");
    const long long experts = r.count("moe.experts", "n_routed_experts");
    const long long top_k = r.count("moe.top_k", "num_experts_per_tok");
    const long long shared = r.count("moe.shared_experts", "n_shared_experts");
    const long long width = r.count("moe.expert_ffn_hidden", "moe_intermediate_size");
    const long long dense = r.count("moe.dense_layers", "first_k_dense_replace");
    moe = moe_block(experts, top_k, shared, width, dense, 1);
    // Node-limited routing (DeepSeek-V3 §2.1.2): n_group groups, a token's experts from its
    // topk_group best. One group is no limit.
    if (r.has("n_group") && r.optional_count("n_group").value_or(1) > 1) {
      moe["groups"] = r.count("moe.groups", "n_group");
      moe["group_top_k"] = r.count("moe.group_top_k", "topk_group");
    } else {
      r.keep("n_group", "one expert group: routing is not group-limited");
      r.keep("topk_group", "one expert group: routing is not group-limited");
    }
    // Multi-token prediction (DeepSeek-V3 §2.2): trained with the model, sharing its embedding
    // and head (the checkpoint's 685B counts those twice).
    if (r.has("num_nextn_predict_layers") && r.optional_count("num_nextn_predict_layers").value_or(0) > 0) {
      m["mtp_layers"] = r.count("mtp_layers", "num_nextn_predict_layers");
    } else {
      r.keep("num_nextn_predict_layers", "no multi-token prediction module");
    }
  }
  m["moe"] = moe;

  // What the config says that pplan's ModelSpec does not hold.
  const auto is = [&](const char* key, const json& v) { return r.has(key) && r.value(key) == v; };
  // The rotary base: Megatron's --rotary-base in the launch (RoFormer, Su et al. 2021).
  if (!m.value("learned_positions", false) && r.has("rope_theta")) {
    m["rope_theta"] = r.value("rope_theta");
    r.record("rope_theta", "rope_theta", r.value("rope_theta"));
  } else if (family == Family::kGemma3) {
    m["rope_theta"] = 1000000;  // Gemma3TextConfig's, on the global layers
    mapped["rope_theta"] = {{"from", nullptr}, {"value", 1000000}, {"note", "rope_theta absent: Gemma3TextConfig's default"}};
  }
  r.keep("rope_local_base_freq", "the local layers' RoPE base: no weights, no FLOPs");
  r.keep("max_position_embeddings", "the training seq_len is the scenario's, not the model's");
  if (family == Family::kGpt2)
    r.keep("n_positions", "the position table pplan counts is seq_len long");
  if (family == Family::kGptNeox) {
    r.keep("rotary_pct", "partial rotary embedding: no weights");
    r.keep("use_parallel_residual", "attention and MLP in parallel: same weights and FLOPs");
  }
  if (family == Family::kGemma3) {
    out.notes.push_back("Gemma 3's norms after attention and after the MLP (2 x hidden per layer) "
                        "are not counted (under 0.01% of the weights).");
  }
  if (family == Family::kGpt2 || family == Family::kGptNeox ||
      (family != Family::kGptOss && is("attention_bias", true)) || is("model_type", "qwen2") ||
      is("model_type", "qwen2_moe")) {
    out.notes.push_back(
        "Linear-layer and norm biases are not counted (a few hidden-sized vectors per "
        "layer, under 0.1% of the weights).");
  }
  m["source"] = "imported from a Hugging Face config.json (" +
                printable(architecture.value_or(config.contains("model_type") && config["model_type"].is_string()
                                                    ? config["model_type"].get<std::string>()
                                                    : std::string()),
                          64) +
                ")";

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
