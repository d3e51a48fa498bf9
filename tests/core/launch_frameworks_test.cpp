// Issue 13: every launch format runs the plan pplan priced, or refuses it with a reason.
// One test per item of the issue's "Stops a run" and "Runs a different plan than the one
// priced" lists. Expected values are derived here by hand from the frameworks' sources (named
// next to each test) and the scenario, never read back from the generator.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/launch_requests.h"

namespace {

using nlohmann::json;

using pplan::testing::read_text;

json example(const std::string& name) { return pplan::testing::example_scenario(name); }

json launch(const json& scenario, const std::string& format) {
  return pplan::testing::launch_request(scenario, format);
}

/// The text of a launch that must not be refused.
std::string text_of(const json& scenario, const std::string& format) {
  const json r = launch(scenario, format);
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_FALSE(r.contains("problems")) << format << ": " << r["problems"].dump();
  return r.value("text", "");
}

std::vector<std::string> problem_codes(const json& scenario, const std::string& format) {
  const json r = launch(scenario, format);
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  std::vector<std::string> codes;
  if (r.contains("problems")) {
    for (const json& p : r["problems"]) codes.push_back(p["code"]);
  }
  return codes;
}

bool refused_with(const json& scenario, const std::string& format, const std::string& code) {
  const std::vector<std::string> codes = problem_codes(scenario, format);
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A pinned scenario: model preset (or object), GPU preset, and the parallel fields.
json pinned(const json& model, const std::string& gpu, int gpus, int seq, int batch,
            const std::string& precision, const json& parallel, bool overlap = false) {
  return {{"schema_version", 1},
          {"model", model},
          {"cluster", {{"gpu", gpu}, {"gpus", gpus}, {"gpus_per_node", 8}}},
          {"training",
           {{"seq_len", seq},
            {"global_batch", batch},
            {"precision", precision},
            {"overlap_grad_reduce", overlap}}},
          {"parallel", parallel}};
}

json grid(int tp, int pp, int dp, int zero, const std::string& recompute = "full", int cp = 1,
          int ep = 1, int vpp = 1) {
  return {{"tp", tp},
          {"pp", pp},
          {"dp", dp},
          {"cp", cp},
          {"ep", ep},
          {"vpp", vpp},
          {"micro_batch", 1},
          {"sequence_parallel", tp > 1},
          {"recompute", recompute},
          {"zero", zero}};
}

/// The JSON between `cat > NAME <<'DELIM'` and DELIM.
std::string heredoc(const std::string& text, const std::string& file_name) {
  const std::regex open("cat > [^\\n]*" + file_name + "\"? <<'([A-Z_]+)'\\n");
  std::smatch m;
  if (!std::regex_search(text, m, open)) {
    ADD_FAILURE() << "no heredoc for " << file_name;
    return "";
  }
  const std::size_t start = m.position(0) + m.length(0);
  const std::size_t end = text.find("\n" + m[1].str() + "\n", start);
  return text.substr(start, end - start);
}

// ---------------------------------------------------------------------------------------
// Stops a run.

TEST(TorchtitanLaunch, PipelineDisablesCudaGraphs) {
  // torchtitan b5bcd76c torchtitan/trainer.py _validate_cuda_graphs: "CUDA graphs do not
  // support pipeline parallelism yet. Set --training.disable_cuda_graphs."
  const json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(1, 2, 8, 3));
  const std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "t.disable_cuda_graphs = True")) << text;
  // torchtitan configs.py TrainingConfig.disable_cuda_graphs: EP > 1 with the standard
  // token dispatcher synchronises with the host, so CUDA graphs refuse it too.
  const json moe =
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "bf16", grid(1, 1, 64, 3, "full", 1, 8));
  EXPECT_TRUE(contains(text_of(moe, "torchtitan"), "t.disable_cuda_graphs = True"));
  // Without PP or EP torchtitan's default (graphs on) stays.
  const json plain = pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 3));
  EXPECT_FALSE(contains(text_of(plain, "torchtitan"), "disable_cuda_graphs"));
}

TEST(TorchtitanLaunch, RefusesTensorParallelAboveKvHeads) {
  // torchtitan b5bcd76c torchtitan/models/common/decoder.py update_from_config:
  // "tensor_parallel_degree (16) must divide n_kv_heads (8)". Megatron accepts it (TP % groups ==
  // 0).
  const json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(16, 1, 1, 0));
  EXPECT_TRUE(refused_with(s, "torchtitan", "torchtitan.tp_kv_heads"));
  EXPECT_TRUE(refused_with(s, "torchtitan-toml", "torchtitan.tp_kv_heads"));
  EXPECT_TRUE(problem_codes(s, "megatron").empty());
}

TEST(NemoLaunch, MixtralStartsFromItsOwnRecipe) {
  // NeMo 8cfedd72 nemo/collections/llm/recipes/mixtral_8x7b.py exists (MixtralConfig8x7B:
  // num_moe_experts 8, top-2).
  const json s =
      pinned("mixtral-8x7b", "h100-sxm", 64, 4096, 256, "bf16", grid(1, 4, 16, 1, "full", 1, 8));
  const std::string text = text_of(s, "nemo");
  EXPECT_TRUE(contains(text, "llm.mixtral_8x7b.pretrain_recipe(")) << text;
  EXPECT_FALSE(contains(text, "has no NeMo recipe"));
  EXPECT_FALSE(contains(text, "llm.llama3_8b"));
}

TEST(NemoLaunch, CustomMoeModelSetsItsExperts) {
  // Without num_moe_experts Megatron-Core raises "num_moe_experts must be non None to use
  // expert-parallel" (Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py).
  const json model = {{"name", "custom MoE"},
                      {"layers", 16},
                      {"hidden", 2048},
                      {"heads", 16},
                      {"kv_heads", 4},
                      {"ffn_hidden", 5632},
                      {"vocab", 32000},
                      {"activation", "swiglu"},
                      {"moe",
                       {{"experts", 8},
                        {"top_k", 2},
                        {"shared_experts", 1},
                        {"expert_ffn_hidden", 1408},
                        {"dense_layers", 1}}}};
  const json s = pinned(model, "h100-sxm", 16, 4096, 64, "bf16", grid(1, 1, 16, 1, "full", 1, 4));
  const std::string text = text_of(s, "nemo");
  EXPECT_TRUE(contains(text, "recipe.model.config.num_moe_experts = 8")) << text;
  EXPECT_TRUE(contains(text, "recipe.model.config.moe_router_topk = 2"));
  EXPECT_TRUE(contains(text, "recipe.model.config.moe_ffn_hidden_size = 1408"));
  EXPECT_TRUE(contains(text, "recipe.model.config.moe_shared_expert_intermediate_size = 1408"));
  EXPECT_TRUE(contains(text, "recipe.model.config.moe_layer_freq = [0] * 1 + [1] * 15"));
  EXPECT_TRUE(contains(text, "recipe.trainer.strategy.expert_model_parallel_size = 4"));
}

TEST(NemoLaunch, SlurmExecutorCarriesATimeLimit) {
  // NeMo-Run 0c491271 nemo_run/core/execution/slurm.py: SlurmExecutor.time defaults to
  // "00:10:00", so a job without time= is killed after ten minutes.
  const std::string text = text_of(example("launch-llama3-70b-64-h100-fp8"), "nemo");
  const std::size_t executor = text.find("run.SlurmExecutor(");
  ASSERT_NE(executor, std::string::npos);
  EXPECT_TRUE(std::regex_search(text.substr(executor), std::regex(R"(\btime=\"\d\d:\d\d:\d\d\")")))
      << text;
}

TEST(LaunchCli, RefusalPipedIntoBashFailsLoudly) {
  if (std::system("bash -c true > /dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  json s = example("gpt3-175b-1024-a100");
  s["training"]["global_batch"] = 1537;  // not a multiple of micro_batch * dp = 16
  const std::string dir = ::testing::TempDir();
  const std::string scenario = dir + "pplan_refusal.json";
  std::ofstream(scenario) << s.dump();
  const std::string cli = PPLAN_CLI;
  const std::string err = dir + "pplan_refusal.err";
  // pplan itself: exit 3 (README "Launch") and the reason on stderr.
  const int status = std::system(
      ("'" + cli + "' launch '" + scenario + "' --format megatron > /dev/null 2> '" + err + "'")
          .c_str());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_TRUE(contains(read_text(err), "megatron.batch_not_divisible")) << read_text(err);
  // `pplan launch ... | bash` (no pipefail): bash itself exits 1 and prints the reason.
  const std::string bash_err = dir + "pplan_refusal_bash.err";
  const int piped = std::system(("'" + cli + "' launch '" + scenario +
                                 "' --format slurm 2> /dev/null | bash 2> '" + bash_err + "'")
                                    .c_str());
  EXPECT_TRUE(WIFEXITED(piped));
  EXPECT_EQ(WEXITSTATUS(piped), 1);
  EXPECT_TRUE(contains(read_text(bash_err), "megatron.batch_not_divisible")) << read_text(bash_err);
}

// ---------------------------------------------------------------------------------------
// Runs a different plan than the one priced: torchtitan.

TEST(TorchtitanLaunch, Fp8PlansConvertTheLinearLayers) {
  // torchtitan b5bcd76c torchtitan/models/llama3/config_registry.py llama3_405b: FP8 is the
  // model_registry converter Float8LinearConverter.Config(filter_fqns=["lm_head"], ...).
  const json s = pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "fp8", grid(1, 1, 8, 3));
  const std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "Float8LinearConverter.Config(")) << text;
  EXPECT_TRUE(contains(text, "filter_fqns=[\"lm_head\"]"));
  EXPECT_TRUE(contains(text, "model_registry(\"8B\""));
  // TOML era (torchtitan 238fa995, after #1763 renamed the converters):
  // [model] converters = ["quantize.linear.float8"] (torchtitan/components/quantization/float8.py).
  const std::string toml = text_of(s, "torchtitan-toml");
  EXPECT_TRUE(contains(toml, "converters = [\"quantize.linear.float8\"]")) << toml;
  EXPECT_TRUE(contains(toml, "filter_fqns = [\"output\"]"));
}

TEST(TorchtitanLaunch, Bf16PlansOnThe405bConfigDropItsFloat8AndAsyncTp) {
  // llama3_405b() converts to Float8 and compiles with async TP (config_registry.py).
  const json s = pinned("llama3-405b", "h100-sxm", 64, 8192, 64, "bf16", grid(8, 1, 8, 3));
  const std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "config.model_spec = model_registry(\"405B\", attn_backend=\"flex\")"))
      << text;
  EXPECT_FALSE(contains(text, "Float8"));
  EXPECT_TRUE(contains(text, "config.compile.enable_async_tensor_parallel = False"));
}

TEST(TorchtitanLaunch, DeepSeekFp8FiltersTheRouterAndConvertsGroupedExperts) {
  // deepseek_v3_671b_float8 (config_registry.py): filter ["lm_head", "router.gate"] and
  // Float8GroupedExpertsConverter; TOML era deepseek_v3_671b.toml: filter ["output",
  // "router.gate"], [quantize.grouped_mm.float8] fqns = ["experts"].
  const json s =
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "fp8", grid(1, 1, 64, 3, "full", 1, 8));
  const std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "filter_fqns=[\"lm_head\", \"router.gate\"]")) << text;
  EXPECT_TRUE(contains(text, "Float8GroupedExpertsConverter.Config("));
  const std::string toml = text_of(s, "torchtitan-toml");
  EXPECT_TRUE(
      contains(toml, "converters = [\"quantize.linear.float8\", \"quantize.grouped_mm.float8\"]"))
      << toml;
  EXPECT_TRUE(contains(toml, "filter_fqns = [\"output\", \"router.gate\"]"));
  EXPECT_TRUE(contains(toml, "[quantize.grouped_mm.float8]\nfqns = [\"experts\"]"));
}

TEST(TorchtitanLaunch, CurrentTorchtitanHasNoExpertTensorParallel) {
  // torchtitan b5bcd76c configs.py expert_parallel_degree: "EP borrows ranks from FSDP and
  // TP"; there is no expert_tensor_parallel_degree, while pplan prices expert TP = TP.
  const json s =
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "bf16", grid(2, 1, 32, 3, "full", 1, 8));
  EXPECT_TRUE(refused_with(s, "torchtitan", "torchtitan.no_expert_tp"));
  // TOML era: expert_tensor_parallel_degree = tp is supported (parallel_dims.py: ETP = TP or 1).
  EXPECT_TRUE(contains(text_of(s, "torchtitan-toml"), "expert_tensor_parallel_degree = 2"));
}

TEST(TorchtitanLaunch, ContextParallelExchangesKvInARing) {
  const json s = example("launch-llama3-8b-8-b200-fsdp");  // cp 2
  // TOML era: context_parallel_rotate_method "allgather" by default; "alltoall" passes the
  // KV shards around the ring (torchtitan 238fa995 torchtitan/config/job_config.py).
  EXPECT_TRUE(
      contains(text_of(s, "torchtitan-toml"), "context_parallel_rotate_method = \"alltoall\""));
  // Current torchtitan all-gathers K and V (b5bcd76c torchtitan/models/common/attention.py).
  EXPECT_TRUE(refused_with(s, "torchtitan", "torchtitan.cp_allgather"));
}

TEST(TorchtitanLaunch, RefusesWhatItWouldRunDifferently) {
  // Selective AC is torchtitan's per-op policy (recomputes every second matmul), not the
  // attention-core recompute pplan prices (torchtitan b5bcd76c activation_checkpoint.py).
  EXPECT_TRUE(refused_with(
      pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 3, "selective")),
      "torchtitan", "torchtitan.selective_recompute"));
  // torchtitan has no ZeRO-1: FSDP2 shards gradients as well.
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 1)),
                           "torchtitan", "torchtitan.no_zero1"));
  // A model torchtitan has no config for would train a different architecture.
  json custom = pinned("llama3-8b", "h100-sxm", 8, 4096, 64, "bf16", grid(1, 1, 8, 3));
  custom["model"] = {{"name", "custom"}, {"layers", 24},          {"hidden", 2048},
                     {"heads", 16},      {"kv_heads", 8},         {"ffn_hidden", 8192},
                     {"vocab", 32000},   {"activation", "swiglu"}};
  EXPECT_TRUE(refused_with(custom, "torchtitan", "torchtitan.no_model"));
  EXPECT_TRUE(refused_with(custom, "torchtitan-toml", "torchtitan.no_model"));
  // A model that borrows a preset id but not its shape is not that preset.
  custom["model"]["id"] = "llama3-8b";
  EXPECT_TRUE(refused_with(custom, "torchtitan", "torchtitan.no_model"));
}

TEST(TorchtitanLaunch, UnevenVirtualStagesAreExpressedExactly) {
  // 64 layers, pp 4, first = last = 14 -> middle 18; vpp 2. torchtitan's split
  // (pipeline_parallel.py): stages = ceil((64 + 4 + 4) / 9) = 8 = pp * vpp, 9 effective layers
  // each, first and last virtual stage 9 - 4 = 5 -> ranks hold 5+9, 9+9, 9+9, 9+5.
  // Custom models have no torchtitan config, so check the split on the TOML of a preset shape:
  // Llama 3 8B has 32 layers; pp 2, first 14 / last 18, vpp 2 -> k = 9, first_less 4, last_less 0.
  json l8 =
      pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(8, 2, 1, 3, "full", 1, 1, 2));
  l8["parallel"]["first_stage_layers"] = 14;
  l8["parallel"]["last_stage_layers"] = 18;
  const std::string toml = text_of(l8, "torchtitan-toml");
  EXPECT_TRUE(contains(toml, "pipeline_parallel_layers_per_stage = 9")) << toml;
  EXPECT_TRUE(contains(toml, "pipeline_parallel_first_stage_less_layers = 4"));
  EXPECT_TRUE(contains(toml, "pipeline_parallel_last_stage_less_layers = 0"));
  EXPECT_TRUE(contains(toml, "pipeline_parallel_schedule = \"Interleaved1F1B\""));
}

// ---------------------------------------------------------------------------------------
// DeepSpeed / Megatron-DeepSpeed.

json ds_config(const std::string& text) { return json::parse(heredoc(text, "ds_config.json")); }

TEST(DeepSpeedLaunch, FlashAttentionFlagFollowsThePricedAttention) {
  // Megatron-DeepSpeed 4efb479d megatron/arguments.py: --use-flash-attn-v2; without it the
  // core attention materialises the scores, which pplan prices only with flash_attention off.
  const json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1));
  EXPECT_TRUE(contains(text_of(s, "deepspeed"), "--use-flash-attn-v2"));
  json off = s;
  off["training"]["flash_attention"] = false;
  EXPECT_FALSE(contains(text_of(off, "deepspeed"), "--use-flash-attn-v2"));
}

TEST(DeepSpeedLaunch, PipelineEngineCannotOverlapGradientReduction) {
  // DeepSpeed edaa7221 deepspeed/runtime/engine.py _configure_zero_optimizer: "Pipeline
  // parallelism does not support overlapped communication, will be disabled."
  const json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 1), true);
  EXPECT_TRUE(refused_with(s, "deepspeed", "deepspeed.pipeline_no_overlap"));
  json no_overlap = s;
  no_overlap["training"]["overlap_grad_reduce"] = false;
  EXPECT_TRUE(problem_codes(no_overlap, "deepspeed").empty());
  EXPECT_TRUE(contains(text_of(no_overlap, "deepspeed"), "\"overlap_comm\": false"));
}

TEST(DeepSpeedLaunch, ZeroZeroWithPipelinePartitionsTheOptimizer) {
  // engine.py _do_optimizer_sanity_check: bf16 + pipeline + no ZeRO -> BF16_Optimizer, which
  // partitions the fp32 optimizer state over DP (ZeRO-1 memory, not the priced ZeRO-0).
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 0)),
                           "deepspeed", "deepspeed.zero0_pipeline"));
}

TEST(DeepSpeedLaunch, GradientsAccumulateAndReduceInFp32) {
  // engine.py get_data_types: grad_accum_dtype defaults to the model dtype (bf16);
  // communication_data_type defaults to bf16 with bf16 on. pplan prices fp32 reduction.
  for (int zero : {1, 2}) {
    const json config = ds_config(text_of(
        pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, zero)), "deepspeed"));
    EXPECT_EQ(config["data_types"]["grad_accum_dtype"], "fp32") << zero;
    EXPECT_EQ(config["communication_data_type"], "fp32") << zero;
  }
  // ZeRO-0 without a pipeline: bf16 model with fp32 accumulation is "unsupported mix"
  // (NotImplementedError), so only the reduction dtype is set.
  const json zero0 = ds_config(text_of(
      pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 0)), "deepspeed"));
  EXPECT_FALSE(zero0.contains("data_types"));
  EXPECT_EQ(zero0["communication_data_type"], "fp32");
}

TEST(DeepSpeedLaunch, FullRecomputeWithPipelineUsesDeepSpeedCheckpointing) {
  // Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py GPTModelPipe: the pipeline
  // checkpoints with activation_checkpoint_interval; --deepspeed-activation-checkpointing
  // sets up deepspeed.checkpointing (megatron/initialize.py).
  const std::string text =
      text_of(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 1)), "deepspeed");
  EXPECT_TRUE(contains(text, "--deepspeed-activation-checkpointing")) << text;
}

TEST(DeepSpeedLaunch, RefusesFp8AndItsOwnPipelineSplit) {
  // ds_config.json has no FP8 switch: the run would be bf16.
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "fp8", grid(2, 1, 8, 1)),
                           "deepspeed", "deepspeed.no_fp8"));
  // GPTModelPipe partitions with partition_method='type:transformer' (balanced layer counts):
  // 126 layers over pp 16 cannot follow pplan's 7/8/7 split with the embedding counted.
  EXPECT_TRUE(
      refused_with(pinned("llama3-405b", "h100-sxm", 256, 8192, 64, "bf16", grid(8, 16, 2, 1)),
                   "deepspeed", "deepspeed.pipeline_split"));
}

// ---------------------------------------------------------------------------------------
// NeMo.

TEST(NemoLaunch, DeepSeekRecipeRunsThePricedModelAndOptimizer) {
  // NeMo 8cfedd72 nemo/collections/llm/recipes/deepseek_v3.py pretrain_recipe: use_mtp=True,
  // DeepEPCallback, bf16 exp_avg/exp_avg_sq, recompute_modules ["mla_up_proj", "layernorm"].
  const std::string text = text_of(example("launch-deepseek-v3-1024-h100"), "nemo");
  EXPECT_TRUE(contains(text, "use_mtp=False")) << text;
  EXPECT_FALSE(contains(text, "DeepEPCallback"));
  EXPECT_TRUE(contains(text, "recipe.trainer.callbacks = [run.Config(TimingCallback)]"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.use_precision_aware_optimizer = False"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.exp_avg_dtype = torch.float32"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.exp_avg_sq_dtype = torch.float32"));
  EXPECT_TRUE(contains(text, "recipe.trainer.strategy.ddp.grad_reduce_in_fp32 = True"));
  EXPECT_TRUE(contains(text, "recipe.model.config.recompute_granularity = \"full\""));
  EXPECT_TRUE(contains(text, "recipe.model.config.recompute_modules = None"));
}

TEST(NemoLaunch, NoPartialCliAlternative) {
  // Every override the Python sets must reach the run; an `nemo llm pretrain` line that carries
  // only some of them (it lacked expert TP, the uneven split and FSDP) runs another plan.
  for (const std::string name : {"launch-deepseek-v3-1024-h100", "launch-llama3-8b-8-b200-fsdp"}) {
    const std::string text = text_of(example(name), "nemo");
    const std::size_t cli = text.find("nemo llm pretrain");
    if (cli == std::string::npos) continue;
    // Strategy overrides, written as recipe.trainer.strategy.X or through a `strategy` alias.
    const std::regex assignment(R"(\n(?:recipe\.trainer\.)?(strategy\.[a-z_.]+) = )");
    const std::string cli_text = text.substr(cli);
    for (auto it = std::sregex_iterator(text.begin(), text.begin() + cli, assignment);
         it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(contains(cli_text, "trainer." + (*it)[1].str() + "="))
          << name << ": " << (*it)[1];
    }
  }
}

TEST(NemoLaunch, VocabularyIsThePricedOne) {
  // MockDataModule's default tokenizer is GPT-2 BPE (NeMo 8cfedd72 gpt/data/mock.py), so
  // without vocab_size the model trains a 50257-token vocabulary (gpt/model/base.py).
  const std::string text = text_of(example("launch-llama3-70b-64-h100-fp8"), "nemo");
  // Llama 3: 128256 = 1002 * 128, already a multiple of 128 * tp 4 = 512? 128256 / 512 = 250.5 ->
  // 128512.
  EXPECT_TRUE(contains(text, "recipe.model.config.vocab_size = 128512")) << text;
}

// ---------------------------------------------------------------------------------------
// Megatron-LM.

std::string megatron_flag(const std::string& text, const std::string& flag) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\\n    " + flag + " ([^ \\n]+)"))) return "";
  return m[1];
}

TEST(MegatronLaunch, RotaryBaseComesFromTheModel) {
  // Megatron-LM d98e8a64 --rotary-base defaults to 10000. Llama 3: theta 500000 (Llama Team
  // 2024, Table 3); Mixtral: 1e6 (mistralai/Mixtral-8x7B-v0.1 config.json rope_theta).
  EXPECT_EQ(
      megatron_flag(text_of(example("llama3-405b-8k-16384-h100"), "megatron"), "--rotary-base"),
      "500000");
  const json mixtral =
      pinned("mixtral-8x7b", "h100-sxm", 64, 4096, 256, "bf16", grid(1, 4, 16, 1, "full", 1, 8));
  EXPECT_EQ(megatron_flag(text_of(mixtral, "megatron"), "--rotary-base"), "1000000");
  // DeepSpeed's spelling (Megatron-DeepSpeed 4efb479d arguments.py).
  EXPECT_TRUE(contains(
      text_of(pinned("mixtral-8x7b", "h100-sxm", 64, 4096, 256, "bf16", grid(1, 1, 64, 1)), "nemo"),
      "recipe.model.config.rotary_base = 1000000"));
  // GPT (learned positions): no rotary flag at all.
  EXPECT_EQ(megatron_flag(text_of(example("gpt3-175b-1024-a100"), "megatron"), "--rotary-base"),
            "");
}

TEST(MegatronLaunch, RopeThetaIsPartOfTheModelSpec) {
  json model = {{"name", "custom"}, {"layers", 16},          {"hidden", 2048},
                {"heads", 16},      {"kv_heads", 8},         {"ffn_hidden", 5632},
                {"vocab", 32000},   {"activation", "swiglu"}};
  json s = pinned(model, "h100-sxm", 8, 4096, 64, "bf16", grid(1, 1, 8, 1));
  // Not given: RoFormer's and Megatron's 10000 (Su et al. 2021; --rotary-base default).
  EXPECT_EQ(megatron_flag(text_of(s, "megatron"), "--rotary-base"), "10000");
  s["model"]["rope_theta"] = 250000;
  EXPECT_EQ(megatron_flag(text_of(s, "megatron"), "--rotary-base"), "250000");
  // Megatron takes an int: a fractional base cannot be launched as priced.
  s["model"]["rope_theta"] = 12345.5;
  EXPECT_TRUE(refused_with(s, "megatron", "megatron.rope_theta_not_integer"));
  EXPECT_TRUE(refused_with(s, "deepspeed", "megatron.rope_theta_not_integer"));
  // Bad input names the field: not positive, or given to a model with learned positions.
  s["model"]["rope_theta"] = 0;
  json r = launch(s, "megatron");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["path"], "/model/rope_theta");
  s["model"]["rope_theta"] = 10000;
  s["model"]["learned_positions"] = true;
  r = launch(s, "megatron");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["code"], "input.inconsistent");
  EXPECT_EQ(r["error"]["path"], "/model/rope_theta");
  // The presets carry their own (the presets response shows it).
  const json presets = json::parse(pplan::handle_request(R"({"command": "presets"})"));
  EXPECT_EQ(presets["models"]["llama3-8b"]["rope_theta"], 500000);
  EXPECT_EQ(presets["models"]["mixtral-8x7b"]["rope_theta"], 1e6);
  EXPECT_EQ(presets["models"]["deepseek-v3"]["rope_theta"], 10000);
  EXPECT_FALSE(presets["models"]["gpt3-175b"].contains("rope_theta"));
}

TEST(MegatronLaunch, MegatronFsdpDisablesGradientAccumulationFusion) {
  // Megatron-LM d98e8a64 examples/megatron_fsdp/train_llama3_8b_fsdp_h100_fp8.sh passes
  // --no-gradient-accumulation-fusion; validate_args warns for optim_grads(_params) without it.
  const std::string text = text_of(example("launch-llama3-8b-8-b200-fsdp"), "megatron");
  EXPECT_TRUE(contains(text, "\n    --no-gradient-accumulation-fusion")) << text;
  EXPECT_FALSE(contains(text_of(example("gpt3-175b-1024-a100"), "megatron"),
                        "--no-gradient-accumulation-fusion"));
}

TEST(MegatronLaunch, Gpt2VocabularyPadsToThePricedSize) {
  // GPT-2 BPE has 50257 tokens; Megatron pads them to a multiple of
  // --make-vocab-size-divisible-by * TP (vocab_size_with_padding). pplan prices the model's
  // vocab 51200 padded by 128 * TP; at TP 2 that is 51200, which 50257 reaches only with a
  // divisor d where ceil(50257 / (2d)) * 2d = 51200.
  json s = example("megatron2021-t1-18.4b-256-a100");
  s["parallel"]["tp"] = 2;
  s["parallel"]["dp"] = 128;
  const std::string text = text_of(s, "megatron");
  const long long d = std::stoll(megatron_flag(text, "--make-vocab-size-divisible-by"));
  const long long multiple = d * 2;
  EXPECT_EQ((50257 + multiple - 1) / multiple * multiple, 51200) << "divisor " << d;
}

TEST(MegatronLaunch, UnsetsInheritedAttentionBackendVariables) {
  // Megatron-LM d98e8a64 megatron/core/models/common/language_module/language_module.py asserts
  // when NVTE_FLASH_ATTN / NVTE_FUSED_ATTN / NVTE_UNFUSED_ATTN disagree with --attention-backend.
  for (const std::string format : {"megatron", "slurm", "env"}) {
    EXPECT_TRUE(contains(text_of(example("gpt3-175b-1024-a100"), format),
                         "\nunset NVTE_FLASH_ATTN NVTE_FUSED_ATTN NVTE_UNFUSED_ATTN"))
        << format;
  }
}

TEST(MegatronLaunch, HeaderStatesTheMinimumMegatronCore) {
  for (const std::string format : {"megatron", "slurm"}) {
    EXPECT_TRUE(
        contains(text_of(example("gpt3-175b-1024-a100"), format), "Megatron-Core core_v0.16"))
        << format;
  }
}

// ---------------------------------------------------------------------------------------
// nccl-tests.

/// -b of the first benchmark line running `binary` after a comment containing `title`.
long long bench_bytes(const std::string& text, const std::string& title, const std::string& binary,
                      std::string* datatype = nullptr) {
  const std::size_t at = text.find(title);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no benchmark titled " << title << "\n" << text;
    return -1;
  }
  std::smatch m;
  const std::string rest = text.substr(at);
  if (!std::regex_search(rest, m, std::regex(binary + R"(\" -b (\d+) -e \d+ -g 1 -d (\w+))"))) {
    ADD_FAILURE() << "no " << binary << " after " << title;
    return -1;
  }
  if (datatype) *datatype = m[2];
  return std::stoll(m[1]);
}

TEST(NcclTestsLaunch, Fp8ParamGatherIsBenchmarkedAtOneBytePerWeight) {
  // ZeRO-1 + FP8 on Hopper -> --fp8-param-gather (Megatron-LM d98e8a64 arguments.py): the
  // weights are all-gathered in FP8, 1 byte each; gradients are reduce-scattered in fp32, 4
  // bytes each, over the same parameters (Llama 3 8B over tp 8 x pp 2: ~0.5e9 per GPU, below
  // the 8 GB cap of a benchmark).
  const json s = pinned("llama3-8b", "h100-sxm", 32, 8192, 64, "fp8", grid(8, 2, 2, 1));
  ASSERT_TRUE(contains(text_of(s, "megatron"), "--fp8-param-gather"));
  const std::string text = text_of(s, "nccl-tests");
  std::string datatype;
  const long long gather = bench_bytes(text, "weight all-gather", "all_gather_perf", &datatype);
  const long long scatter = bench_bytes(text, "gradient reduce-scatter", "reduce_scatter_perf");
  EXPECT_EQ(datatype, "uint8");
  EXPECT_NEAR(double(gather), scatter / 4.0, 16.0) << text;
  // bf16 ZeRO-1: 2 bytes per weight.
  json bf16 = s;
  bf16["training"]["precision"] = "bf16";
  const std::string bf16_text = text_of(bf16, "nccl-tests");
  EXPECT_NEAR(double(bench_bytes(bf16_text, "weight all-gather", "all_gather_perf", &datatype)),
              bench_bytes(bf16_text, "gradient reduce-scatter", "reduce_scatter_perf") / 2.0, 16.0);
  EXPECT_EQ(datatype, "bfloat16");
}

TEST(NcclTestsLaunch, ZeroThreeGathersOneLayerAtATime) {
  // Megatron-FSDP gathers and reduce-scatters each transformer layer (Megatron-LM d98e8a64
  // docs/user-guide/features/megatron_fsdp.md: weights are un-sharded per FSDP unit).
  // Llama 3 8B layer (Llama Team 2024, Table 3): attention 4096*(2*4096 + 2*8*128) =
  // 41,943,040, SwiGLU MLP 3*4096*14336 = 176,160,768, two norms 8192 -> 218,112,000 weights.
  const std::string text = text_of(example("launch-llama3-8b-8-b200-fsdp"), "nccl-tests");
  EXPECT_EQ(bench_bytes(text, "weight all-gather", "all_gather_perf"), 218112000LL * 2) << text;
  EXPECT_EQ(bench_bytes(text, "gradient reduce-scatter", "reduce_scatter_perf"), 218112000LL * 4);
}

// ---------------------------------------------------------------------------------------
// SLURM and the environment.

TEST(SlurmLaunch, SrunTorchrunGetsTheCpusPerTask) {
  // Slurm 22.05 (SchedMD/slurm d848512f) made srun stop reading SLURM_CPUS_PER_TASK; it reads
  // SRUN_CPUS_PER_TASK (until 23.02.5, 9807bafa). Without it the workers share one core.
  const std::string text = text_of(example("gpt3-175b-1024-a100"), "slurm");
  const std::size_t exported = text.find("\nexport SRUN_CPUS_PER_TASK=\"$SLURM_CPUS_PER_TASK\"");
  const std::size_t launched = text.find("\nsrun --kill-on-bad-exit=1");
  ASSERT_NE(exported, std::string::npos) << text;
  EXPECT_LT(exported, launched);
}

TEST(EnvLaunch, IbTimeoutCommentNamesTheVersionThatChangedIt) {
  // NVIDIA/nccl 68b54236 (v2.23.4-1) src/transport/net_ib.cc: NCCL_PARAM(IbTimeout, ..., 18 -> 20).
  const std::string text = text_of(example("gpt3-175b-1024-a100"), "env");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("export NCCL_IB_TIMEOUT=20  # ([^\\n]*)")));
  EXPECT_TRUE(contains(m[1], "2.23.4")) << m[1];
  EXPECT_TRUE(contains(m[1], "18")) << m[1];
  EXPECT_FALSE(contains(m[1], "2.20")) << m[1];
}

TEST(LaunchScripts, EmptyArraysExpandSafelyUnderSetU) {
  // bash < 4.4 treats "${A[@]}" of an empty array as unbound under set -u; ${A[@]+"${A[@]}"}
  // expands to nothing in every version.
  for (const std::string name : {"gpt3-175b-1024-a100", "launch-llama3-8b-8-b200-fsdp"}) {
    for (const std::string format :
         {"megatron", "slurm", "torchtitan", "deepspeed", "nccl-tests"}) {
      const json r = launch(example(name), format);
      if (r.contains("problems")) continue;
      const std::string text = r["text"];
      const std::regex empty(R"(\n([A-Za-z_][A-Za-z0-9_]*)=\(\))");
      for (auto it = std::sregex_iterator(text.begin(), text.end(), empty);
           it != std::sregex_iterator(); ++it) {
        const std::string array = (*it)[1];
        const std::string bare = "\"${" + array + "[@]}\"";
        const std::string guarded = "${" + array + "[@]+\"${" + array + "[@]}\"}";
        std::string rest = text;
        for (std::size_t at; (at = rest.find(guarded)) != std::string::npos;)
          rest.erase(at, guarded.size());
        EXPECT_FALSE(contains(rest, bare)) << name << " " << format << ": " << array;
      }
    }
  }
}

}  // namespace
