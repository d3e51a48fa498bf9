// Importing Hugging Face config.json files (tests/data/hf-configs/, sources in
// tests/data/README.md): each import's parameter count, by pplan's own architecture.h, against the
// count its publisher states, within 0.5%; the mapped fields; the errors; the CLI's --model FILE.
#include "pplan/io/hf_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../support/scenario_files.h"
#include "cli.h"
#include "pplan/io/api.h"
#include "pplan/io/json_io.h"
#include "pplan/model/architecture.h"

namespace pplan {
namespace {

using nlohmann::json;

std::string config_path(const std::string& name) {
  return std::string(PPLAN_DATA_DIR) + "/hf-configs/" + name;
}

ImportedModel import_file(const std::string& name) {
  return import_hf_config(parse_document(testing::read_text(config_path(name))), "/config");
}

struct Published {
  std::string file;
  double params;       ///< the count its publisher states
  const char* source;  ///< where
  int seq_len = 2048;  ///< only GPT-2's learned position table depends on it
};

// Counts: the publishers' own figures. Llama 3.1, Mistral 7B v0.3, Mixtral and NeoX-20B: the
// safetensors totals of their Hugging Face repositories (meta-llama/Llama-3.1-8B's index:
// total_size 16,060,522,496 bytes of bf16 = 8,030,261,248 parameters; 70B 141,107,412,992 bytes;
// 405B 405,853,388,800 parameters) and model cards (Mixtral "46.7B"; NeoX-20B 20,554,567,680;
// GPT-2 "124M", 124,439,808 counted from its checkpoint); Qwen2.5-7B and Qwen3-8B: their model
// cards ("7.61B", "8.2B"); DeepSeek-V3: 671B (report §4.2; 671,026,419,200 with MLA counted).
const std::vector<Published>& published() {
  static const std::vector<Published> list = {
      {"meta-llama--Llama-3.1-8B.json", 8030261248.0, "meta-llama/Llama-3.1-8B safetensors total"},
      {"meta-llama--Llama-3.1-70B-Instruct.json", 70553706496.0,
       "meta-llama/Llama-3.1-70B safetensors total"},
      {"meta-llama--Llama-3.1-405B.json", 405853388800.0,
       "meta-llama/Llama-3.1-405B safetensors total"},
      {"mistralai--Mistral-7B-Instruct-v0.3.json", 7248023552.0,
       "mistralai/Mistral-7B-v0.3 safetensors total"},
      {"mistralai--Mixtral-8x7B-v0.1.json", 46.7e9,
       "Mistral AI, 'Mixtral of experts' (2023): 46.7B"},
      {"Qwen--Qwen2.5-7B.json", 7.61e9, "Qwen/Qwen2.5-7B model card: 7.61B"},
      {"Qwen--Qwen3-8B.json", 8.2e9, "Qwen/Qwen3-8B model card: 8.2B"},
      // With its MTP module (num_nextn_predict_layers 1), sharing the embedding and head as it
      // trains; the card's 685B counts the checkpoint's separate copies of those (1.9B).
      {"deepseek-ai--DeepSeek-V3.json", 685e9,
       "deepseek-ai/DeepSeek-V3 model card: 685B = 671B main model + 14B MTP module"},
      {"Qwen--Qwen3-30B-A3B.json", 30.5e9, "Qwen/Qwen3-30B-A3B model card: 30.5B"},
      {"Qwen--Qwen3-235B-A22B.json", 235e9, "Qwen3 report Table 2: 235B"},
      {"openai--gpt-oss-120b.json", 116.83e9, "gpt-oss model card Table 1: 116.83B"},
      {"openai--gpt-oss-20b.json", 20.91e9, "gpt-oss model card Table 1: 20.91B"},
      {"google--gemma-3-27b.json", 27.016e9,
       "Gemma 3 report Table 1 (27B): 1,416M embedding + 25,600M non-embedding; the language model"},
      {"meta-llama--Llama-4-Maverick-17B-128E.json", 400e9, "Meta, The Llama 4 herd: 400B total"},
      {"moonshotai--Kimi-K2.json", 1.03e12, "Kimi K2: about 1.03T total"},
      {"openai-community--gpt2.json", 124439808.0, "openai-community/gpt2: 124M (124,439,808)",
       1024},
      {"EleutherAI--gpt-neox-20b.json", 20554567680.0, "EleutherAI/gpt-neox-20b model card"},
  };
  return list;
}

TEST(HfConfig, ImportsGiveThePublishedParameterCounts) {
  for (const Published& p : published()) {
    SCOPED_TRACE(p.file + " vs " + p.source);
    const ImportedModel imported = import_file(p.file);
    const double total = total_params(imported.model, p.seq_len);
    EXPECT_NEAR(total / p.params - 1.0, 0.0, 0.005) << "pplan counts " << total;
    std::printf("[ hf-import ] %-42s pplan %16.0f  published %16.0f  %+.3f%%\n", p.file.c_str(),
                total, p.params, 100.0 * (total / p.params - 1.0));
  }
}

// DeepSeek-V3 is imported with its multi-head latent attention, as the deepseek-v3 preset holds
// it (config.json: q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128): the
// report's 671B total (§4.2: 671B without the 14B multi-token-prediction module) and 37B active.
TEST(HfConfig, DeepSeekV3ImportsItsLatentAttention) {
  const ImportedModel imported = import_file("deepseek-ai--DeepSeek-V3.json");
  ASSERT_TRUE(imported.model.mla);
  EXPECT_EQ(imported.model.mla->q_lora_rank, 1536);
  EXPECT_EQ(imported.model.mla->kv_lora_rank, 512);
  EXPECT_EQ(imported.model.mla->qk_nope_head_dim, 128);
  EXPECT_EQ(imported.model.mla->qk_rope_head_dim, 64);
  EXPECT_EQ(imported.model.mla->v_head_dim, 128);
  // The main model, its MTP module (§2.2) apart: 671B, and "37B activated" (rounded to the
  // billion: within 0.75B).
  ASSERT_EQ(imported.model.mtp_layers, 1);
  const double mtp_total = mtp_params_per_module(imported.model, false);
  const double mtp_active = mtp_params_per_module(imported.model, true);
  EXPECT_NEAR((total_params(imported.model, 4096) - mtp_total) / 671e9 - 1.0, 0.0, 0.005);
  EXPECT_NEAR((active_params(imported.model, 4096) - mtp_active) / 37e9 - 1.0, 0.0, 0.02);
  // One MTP module: a MoE layer (11.5B: 256 experts of 3·7168·2048 = 44.0M, a shared one, the
  // router, MLA 187.1M) plus the 2h x h projection (102.8M) and three norms: 11.61B.
  EXPECT_NEAR(mtp_total / 1e9, (257 * 3.0 * 7168 * 2048 + 7168.0 * 256 + 187107328.0 +
                                2.0 * 7168 * 7168 + 5 * 7168.0 + 1536 + 512) / 1e9, 0.01);
  ASSERT_TRUE(imported.model.moe);
  EXPECT_EQ(imported.model.moe->experts, 256);
  EXPECT_EQ(imported.model.moe->top_k, 8);
  EXPECT_EQ(imported.model.moe->shared_experts, 1);
  EXPECT_EQ(imported.model.moe->expert_ffn_hidden, 2048);
  EXPECT_EQ(imported.model.moe->dense_layers, 3);
  EXPECT_EQ(imported.model.ffn_hidden, 18432);
  EXPECT_EQ(imported.mapped_from["mla"]["value"]["kv_lora_rank"], 512);
}

// The architecture the presets hold (from the papers) is what the configs import to.
TEST(HfConfig, ImportsAgreeWithThePresets) {
  const PresetCatalog presets = load_presets();
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"meta-llama--Llama-3.1-8B.json", "llama3-8b"},
      {"meta-llama--Llama-3.1-70B-Instruct.json", "llama3-70b"},
      {"meta-llama--Llama-3.1-405B.json", "llama3-405b"},
      {"mistralai--Mixtral-8x7B-v0.1.json", "mixtral-8x7b"},
      {"deepseek-ai--DeepSeek-V3.json", "deepseek-v3"},
      {"Qwen--Qwen3-30B-A3B.json", "qwen3-30b-a3b"},
      {"Qwen--Qwen3-235B-A22B.json", "qwen3-235b-a22b"},
      {"openai--gpt-oss-120b.json", "gpt-oss-120b"},
      {"openai--gpt-oss-20b.json", "gpt-oss-20b"},
      {"google--gemma-3-27b.json", "gemma3-27b"},
      {"meta-llama--Llama-4-Scout-17B-16E.json", "llama4-scout"},
      {"meta-llama--Llama-4-Maverick-17B-128E.json", "llama4-maverick"},
      {"moonshotai--Kimi-K2.json", "kimi-k2"},
  };
  for (const auto& [file, preset] : pairs) {
    SCOPED_TRACE(file);
    const ModelSpec a = import_file(file).model;
    const ModelSpec& b = presets.models.at(preset);
    EXPECT_EQ(a.layers, b.layers);
    EXPECT_EQ(a.hidden, b.hidden);
    EXPECT_EQ(a.heads, b.heads);
    EXPECT_EQ(a.kv_heads, b.kv_heads);
    EXPECT_EQ(a.ffn_hidden, b.ffn_hidden);
    EXPECT_EQ(a.vocab, b.vocab);
    EXPECT_EQ(a.activation, b.activation);
    EXPECT_EQ(a.tied_embeddings, b.tied_embeddings);
    EXPECT_EQ(a.learned_positions, b.learned_positions);
    EXPECT_EQ(a.head_dim, b.head_dim);
    EXPECT_EQ(a.qk_norm, b.qk_norm);
    EXPECT_EQ(a.linear_bias, b.linear_bias);
    EXPECT_EQ(a.attention_sinks, b.attention_sinks);
    EXPECT_EQ(a.rope_theta, b.rope_theta);
    EXPECT_EQ(a.local_attention.has_value(), b.local_attention.has_value());
    if (a.local_attention && b.local_attention) {
      EXPECT_EQ(a.local_attention->tokens, b.local_attention->tokens);
      EXPECT_EQ(a.local_attention->global_every, b.local_attention->global_every);
      EXPECT_EQ(a.local_attention->chunked, b.local_attention->chunked);
    }
    // DeepSeek-V3's config carries its MTP module; the preset prices the main model.
    EXPECT_EQ(a.mtp_layers, preset == "deepseek-v3" ? 1 : b.mtp_layers);
    EXPECT_EQ(a.moe.has_value(), b.moe.has_value());
    if (a.moe && b.moe) {
      EXPECT_EQ(a.moe->every, b.moe->every);
      EXPECT_EQ(a.moe->experts, b.moe->experts);
      EXPECT_EQ(a.moe->top_k, b.moe->top_k);
      EXPECT_EQ(a.moe->shared_experts, b.moe->shared_experts);
      EXPECT_EQ(a.moe->expert_ffn_hidden, b.moe->expert_ffn_hidden);
      EXPECT_EQ(a.moe->dense_layers, b.moe->dense_layers);
    }
    EXPECT_EQ(a.mla.has_value(), b.mla.has_value());
    if (a.mla && b.mla) {
      EXPECT_EQ(a.mla->q_lora_rank, b.mla->q_lora_rank);
      EXPECT_EQ(a.mla->kv_lora_rank, b.mla->kv_lora_rank);
      EXPECT_EQ(a.mla->qk_nope_head_dim, b.mla->qk_nope_head_dim);
      EXPECT_EQ(a.mla->qk_rope_head_dim, b.mla->qk_rope_head_dim);
      EXPECT_EQ(a.mla->v_head_dim, b.mla->v_head_dim);
    }
  }
}

TEST(HfConfig, FieldsAreMappedAndRecorded) {
  const ImportedModel llama = import_file("meta-llama--Llama-3.1-8B.json");
  EXPECT_EQ(llama.model.kv_heads, 8);
  EXPECT_EQ(llama.model.activation, Activation::kSwiglu);
  EXPECT_FALSE(llama.model.tied_embeddings);
  EXPECT_FALSE(llama.model.dropout);
  EXPECT_EQ(llama.mapped_from["layers"]["from"], "num_hidden_layers");
  EXPECT_EQ(llama.mapped_from["kv_heads"]["from"], "num_key_value_heads");
  // rope_theta: Llama 3.1's 500,000 (config.json), the launch's --rotary-base.
  EXPECT_EQ(llama.mapped_from["rope_theta"]["value"], 500000.0);
  EXPECT_EQ(llama.model.rope_theta, 500000.0);
  const ImportedModel gpt2 = import_file("openai-community--gpt2.json");
  EXPECT_TRUE(gpt2.model.tied_embeddings);  // GPT-2's default, no key in the config
  EXPECT_EQ(gpt2.mapped_from["tied_embeddings"]["from"], nullptr);
  EXPECT_TRUE(gpt2.model.learned_positions);
  EXPECT_TRUE(gpt2.model.dropout);  // resid_pdrop 0.1
  EXPECT_EQ(gpt2.model.activation, Activation::kGelu);
  EXPECT_EQ(gpt2.model.ffn_hidden, 3072);  // n_inner null: 4 · 768
  EXPECT_EQ(gpt2.model.name, "openai-community/gpt2 (imported)");
  const ImportedModel neox = import_file("EleutherAI--gpt-neox-20b.json");
  EXPECT_EQ(neox.model.kv_heads, 64);
  EXPECT_FALSE(neox.model.tied_embeddings);
  EXPECT_EQ(neox.model.activation, Activation::kGelu);
  const ImportedModel mixtral = import_file("mistralai--Mixtral-8x7B-v0.1.json");
  ASSERT_TRUE(mixtral.model.moe);
  EXPECT_EQ(mixtral.model.moe->experts, 8);
  EXPECT_EQ(mixtral.model.moe->top_k, 2);
  EXPECT_EQ(mixtral.model.moe->expert_ffn_hidden, 14336);
  EXPECT_EQ(mixtral.model.moe->dense_layers, 0);
  // Mixtral's active count: 12.9B (Mistral AI), pplan 12.88B.
  EXPECT_NEAR(active_params(mixtral.model, 4096) / 12.9e9 - 1.0, 0.0, 0.005);
}

// Qwen2-MoE's one shared expert of 20,480 is 8 experts of the routed 2,560 (same weights and
// FLOPs). Its count by hand from the config: embeddings 2 · 151,936 · 3,584 = 1,089,077,248;
// per layer attention 3,584 · (2 · 3,584 + 2 · 4 · 128) = 29,360,128, routed experts
// 64 · 3 · 3,584 · 2,560 = 1,761,607,680, shared 3 · 3,584 · 20,480 = 220,200,960, router
// 3,584 · 64 = 229,376, norms 7,168: 2,011,405,312 · 28 layers = 56,319,348,736; + final norm
// 3,584: 57,408,429,568 ("57B" in its name).
TEST(HfConfig, QwenMoeSharedExpertIsWholeExpertsOfTheRoutedWidth) {
  const ImportedModel qwen = import_file("Qwen--Qwen2-57B-A14B.json");
  ASSERT_TRUE(qwen.model.moe);
  EXPECT_EQ(qwen.model.moe->experts, 64);
  EXPECT_EQ(qwen.model.moe->top_k, 8);
  EXPECT_EQ(qwen.model.moe->shared_experts, 8);
  EXPECT_EQ(qwen.model.moe->expert_ffn_hidden, 2560);
  EXPECT_NEAR(total_params(qwen.model, 4096), 57408429568.0, 1.0);
}

// Qwen3-30B-A3B's 32 heads of 128 make 4,096-wide query and output projections on a 2,048
// hidden state: the head width is imported (head_dim), with Qwen3's per-head q/k norms. Per
// layer: attention 2048·(2·4096 + 2·512) = 18,874,368, 128 experts of 3·2048·768 = 4,718,592,
// router 262,144, norms 2·2048 + 2·128: 623,120,640; x 48 + 2 x 151,936·2048 + the final norm
// = 30,532,122,624. Active (8 experts: 56,889,600 a layer): 3,353,032,704. The card: 30.5B
// total, 3.3B activated.
TEST(HfConfig, DecoupledHeadWidthIsImported) {
  const ImportedModel qwen = import_file("Qwen--Qwen3-30B-A3B.json");
  EXPECT_EQ(qwen.model.head_dim, 128);
  EXPECT_TRUE(qwen.model.qk_norm);
  EXPECT_EQ(qwen.mapped_from["head_dim"]["from"], "head_dim");
  EXPECT_DOUBLE_EQ(total_params(qwen.model, 4096), 30532122624.0);
  EXPECT_DOUBLE_EQ(active_params(qwen.model, 4096), 3353032704.0);
}

// Mistral NeMo: 32 heads of 128 on a 5,120 hidden state (hidden / heads would be 160).
TEST(HfConfig, MistralNemoKeepsItsHeadWidth) {
  const ImportedModel nemo = import_file("mistralai--Mistral-Nemo-Base-2407.json");
  EXPECT_EQ(nemo.model.head_dim, 128);
  EXPECT_DOUBLE_EQ(attention_params_per_layer(nemo.model), 5120.0 * (2 * 4096 + 2 * 1024));
  EXPECT_FALSE(nemo.model.local_attention);  // sliding_window null
}

// Nemotron-H 56B: its hybrid pattern (54 Mamba-2, 10 attention, 54 MLP layers of 118), the
// Mamba-2 mixer's shape and squared-ReLU MLPs, as the nemotron-h-56b preset holds them; 56.32B
// against the paper's "56B" (rounded to the billion).
TEST(HfConfig, NemotronHImportsItsHybridPattern) {
  const ImportedModel h = import_file("nvidia--Nemotron-H.json");
  EXPECT_EQ(h.model.hybrid_pattern.size(), 118u);
  ASSERT_TRUE(h.model.mamba);
  EXPECT_EQ(h.model.mamba->heads, 256);
  EXPECT_EQ(h.model.mamba->state, 256);
  EXPECT_EQ(h.model.activation, Activation::kSquaredRelu);
  EXPECT_EQ(h.mapped_from["hybrid_pattern"]["from"], "hybrid_override_pattern");
  EXPECT_NEAR(total_params(h.model, 8192) / 56e9 - 1.0, 0.0, 0.5 / 56);
  const ModelSpec preset = load_presets().models.at("nemotron-h-56b");
  EXPECT_EQ(h.model.hybrid_pattern, preset.hybrid_pattern);
  EXPECT_DOUBLE_EQ(total_params(h.model, 8192), total_params(preset, 8192));
}

// Vision-language checkpoints: the language model under text_config, Gemma3TextConfig's
// defaults where the released file leaves keys out, the vision tower reported apart.
TEST(HfConfig, GemmaImportsItsTextConfigWithTheClassDefaults) {
  const ImportedModel gemma = import_file("google--gemma-3-27b.json");
  EXPECT_EQ(gemma.model.vocab, 262208);
  EXPECT_EQ(gemma.mapped_from["vocab"]["from"], nullptr);
  EXPECT_EQ(gemma.model.activation, Activation::kGeglu);
  ASSERT_TRUE(gemma.model.local_attention);
  EXPECT_EQ(gemma.model.local_attention->tokens, 1024);
  EXPECT_EQ(gemma.model.local_attention->global_every, 6);
  EXPECT_TRUE(gemma.model.tied_embeddings);
  EXPECT_TRUE(gemma.mapped_from.contains("text_config"));
  // gpt-oss's layer_types alternate sliding / full: global every 2nd layer.
  const ImportedModel oss = import_file("openai--gpt-oss-120b.json");
  ASSERT_TRUE(oss.model.local_attention);
  EXPECT_EQ(oss.model.local_attention->global_every, 2);
  EXPECT_EQ(oss.mapped_from["local_attention.global_every"]["from"], "layer_types");
  // Its SwiGLU is clamped at swiglu_limit 7.0 (modeling_gpt_oss.py); another limit is refused.
  EXPECT_EQ(oss.model.activation, Activation::kClampedSwiglu);
  EXPECT_EQ(oss.mapped_from["swiglu_limit"]["value"], 7.0);
  json other = parse_document(testing::read_text(config_path("openai--gpt-oss-120b.json")));
  other["swiglu_limit"] = 5.0;
  try {
    import_hf_config(other, "/config");
    ADD_FAILURE() << "swiglu_limit 5.0 imported";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.code()), "import.unsupported");
    EXPECT_EQ(std::string(e.path()), "/config/swiglu_limit");
  }
}

json answer(const json& request) { return json::parse(handle_request(request.dump())); }

TEST(HfConfig, TheEngineRequestAndItsErrors) {
  const json config =
      parse_document(testing::read_text(config_path("meta-llama--Llama-3.1-8B.json")));
  json r = answer({{"command", "import_model"}, {"config", config}, {"name", "Llama 3.1 8B"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_EQ(r["model"]["layers"], 32);
  EXPECT_EQ(r["model"]["name"], "Llama 3.1 8B (imported)");
  EXPECT_EQ(r["mapped_from"]["hidden"]["from"], "hidden_size");
  EXPECT_TRUE(r["notes"].is_array());
  // The model object goes straight into a scenario.
  const json plan = answer({{"command", "evaluate"},
                            {"scenario",
                             {{"model", r["model"]},
                              {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 8}}},
                              {"training", {{"seq_len", 8192}, {"global_batch", 64}}},
                              {"parallel", {{"tp", 8}, {"pp", 1}}}}}});
  EXPECT_TRUE(plan["ok"].get<bool>()) << plan.dump().substr(0, 300);

  // An unknown architecture: the error lists the fields found.
  r = answer(
      {{"command", "import_model"},
       {"config",
        {{"architectures", {"BertForMaskedLM"}}, {"model_type", "bert"}, {"hidden_size", 768}}}});
  EXPECT_EQ(r["error"]["code"], "import.unknown_architecture");
  EXPECT_EQ(r["error"]["path"], "/config/architectures");
  const std::string message = r["error"]["message"];
  EXPECT_NE(message.find("BertForMaskedLM"), std::string::npos) << message;
  EXPECT_NE(message.find("fields: architectures, hidden_size, model_type"), std::string::npos)
      << message;
  EXPECT_NE(message.find("LlamaForCausalLM"), std::string::npos) << message;  // what it maps

  json broken = config;
  broken.erase("hidden_size");
  r = answer({{"command", "import_model"}, {"config", broken}});
  EXPECT_EQ(r["error"]["code"], "import.missing_field");
  EXPECT_EQ(r["error"]["path"], "/config/hidden_size");
  broken = config;
  broken["hidden_size"] = "4096";
  EXPECT_EQ(answer({{"command", "import_model"}, {"config", broken}})["error"]["path"],
            "/config/hidden_size");
  broken = config;
  broken["hidden_size"] =
      4100;  // not divisible by 32 heads: the model's own check, at the config key
  r = answer({{"command", "import_model"}, {"config", broken}});
  EXPECT_EQ(r["error"]["code"], "input.inconsistent");
  EXPECT_EQ(r["error"]["path"], "/config/hidden_size");
  broken = config;
  broken["num_hidden_layers"] = 1000000;
  EXPECT_EQ(answer({{"command", "import_model"}, {"config", broken}})["error"]["path"],
            "/config/num_hidden_layers");
  EXPECT_EQ(answer({{"command", "import_model"}, {"config", 5}})["error"]["code"],
            "schema.not_an_object");
  EXPECT_EQ(answer({{"command", "import_model"}, {"scenario", config}})["error"]["code"],
            "request.bad_option");
  EXPECT_EQ(answer({{"command", "plan"}, {"config", config}})["error"]["code"],
            "request.bad_option");
}

TEST(HfConfig, TheCliImportsAConfigFileAsTheModel) {
  const auto run = [](const std::vector<std::string>& args) {
    std::istringstream in;
    std::ostringstream out, err;
    const int status = cli::run(args, in, out, err);
    return std::make_pair(status, out.str());
  };
  const std::string file = config_path("meta-llama--Llama-3.1-8B.json");
  auto [status, out] = run({"plan", "--model", file, "--gpu", "h100-sxm", "--gpus", "8", "--seq",
                            "8k", "--batch", "64", "--top", "1", "--json"});
  ASSERT_EQ(status, 0) << out;
  const json plan = json::parse(out);
  EXPECT_EQ(plan["plans"].size(), 1u);
  std::tie(status, out) = run({"plan", "--model", file, "--gpu", "h100-sxm", "--gpus", "8", "--seq",
                               "8k", "--batch", "64", "--print-scenario"});
  ASSERT_EQ(status, 0) << out;
  const json scenario = json::parse(out);
  EXPECT_EQ(scenario["model"]["hidden"], 4096);
  EXPECT_EQ(scenario["model"]["name"], "meta-llama--Llama-3.1-8B (imported)");
  // The pplan model is the same as the preset's: same plan, byte for byte, apart from names.
  std::tie(status, out) = run({"import_model", file, "--json"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(json::parse(out)["model"]["kv_heads"], 8);
  std::tie(status, out) = run({"import_model", file, "--table"});
  EXPECT_NE(out.find("num_key_value_heads = 8"), std::string::npos) << out;
  // A config pplan cannot map, through the CLI: exit 2 with the error object. Qwen's windows on
  // the layers past max_window_layers do not recur every k-th layer.
  const std::string windowed = ::testing::TempDir() + "/qwen-windows.json";
  {
    json config = parse_document(testing::read_text(config_path("Qwen--Qwen3-8B.json")));
    config["use_sliding_window"] = true;
    config["sliding_window"] = 4096;
    std::ofstream(windowed) << config.dump();
  }
  std::tie(status, out) = run({"plan", "--model", windowed, "--gpu", "h100-sxm"});
  EXPECT_EQ(status, 2);
  EXPECT_EQ(json::parse(out)["error"]["code"], "import.unsupported");
  EXPECT_NE(json::parse(out)["error"]["message"].get<std::string>().find("use_sliding_window"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace pplan
