// Importing Hugging Face config.json files (tests/data/hf-configs/, sources in
// tests/data/README.md): each import's parameter count, by pplan's own architecture.h, against the
// count its publisher states, within 0.5%; the mapped fields; the errors; the CLI's --model FILE.
#include "pplan/io/hf_config.h"

#include <gtest/gtest.h>

#include <cstdio>
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
      {"deepseek-ai--DeepSeek-V3.json", 671e9, "DeepSeek-V3 report §4.2: 671B"},
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
  EXPECT_NEAR(total_params(imported.model, 4096) / 671e9 - 1.0, 0.0, 0.005);
  // "37B activated" is rounded to the billion: within 0.75B.
  EXPECT_NEAR(active_params(imported.model, 4096) / 37e9 - 1.0, 0.0, 0.02);
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
    EXPECT_EQ(a.moe.has_value(), b.moe.has_value());
    if (a.moe && b.moe) {
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

// What pplan's model cannot express is refused, not mispriced: Qwen3-30B-A3B's 32 heads of 128
// make 4,096-wide projections on a 2,048 hidden state; pplan's head dim is hidden / heads.
TEST(HfConfig, AHeadDimThatIsNotHiddenOverHeadsIsRefused) {
  const json config = parse_document(testing::read_text(config_path("Qwen--Qwen3-30B-A3B.json")));
  try {
    import_hf_config(config, "/config");
    FAIL() << "imported";
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), "import.unsupported");
    EXPECT_EQ(e.path(), "/config/head_dim");
    EXPECT_NE(std::string(e.what()).find("4096 is not hidden_size 2048"), std::string::npos)
        << e.what();
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
  // A config pplan cannot map, through the CLI: exit 2 with the error object.
  std::tie(status, out) =
      run({"plan", "--model", config_path("Qwen--Qwen3-30B-A3B.json"), "--gpu", "h100-sxm"});
  EXPECT_EQ(status, 2);
  EXPECT_EQ(json::parse(out)["error"]["code"], "import.unsupported");
}

}  // namespace
}  // namespace pplan
