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
#include "../support/scenario_files.h"
#include "pplan/framework/rules.h"
#include "pplan/search/search.h"
#include "pplan/specs.h"

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

/// A pinned scenario: model preset (or object), GPU preset, the parallel fields and the
/// training framework (empty: the GPU's default, framework/framework.h), whose switch defaults
/// apply. torchtitan's FP8 is current scaling, so FP8 plans for it say so.
json pinned(const json& model, const std::string& gpu, int gpus, int seq, int batch,
            const std::string& precision, const json& parallel,
            const std::string& framework = "") {
  json s = {{"schema_version", 1},
            {"model", model},
            {"cluster", {{"gpu", gpu}, {"gpus", gpus}, {"gpus_per_node", 8}}},
            {"training", {{"seq_len", seq}, {"global_batch", batch}, {"precision", precision}}},
            {"parallel", parallel}};
  if (!framework.empty()) s["training"]["framework"] = framework;
  if (framework == "torchtitan" && precision == "fp8") s["training"]["fp8_recipe"] = "current";
  return s;
}

/// `scenario` priced for `framework` instead.
json priced_for(json scenario, const std::string& framework) {
  scenario["training"]["framework"] = framework;
  return scenario;
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
  const json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(1, 2, 8, 3), "torchtitan");
  const std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "t.disable_cuda_graphs = True")) << text;
  // torchtitan configs.py TrainingConfig.disable_cuda_graphs: EP > 1 with the standard
  // token dispatcher synchronises with the host, so CUDA graphs refuse it too.
  const json moe =
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "bf16", grid(1, 1, 64, 3, "full", 1, 8), "torchtitan");
  EXPECT_TRUE(contains(text_of(moe, "torchtitan"), "t.disable_cuda_graphs = True"));
  // Without PP or EP torchtitan would capture CUDA graphs by default (trainer.py wraps
  // forward+backward unless disable_cuda_graphs), while pplan prices the host's launches unless
  // training.cuda_graphs: off as priced, on only when asked for.
  json plain = pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 3), "torchtitan");
  EXPECT_TRUE(contains(text_of(plain, "torchtitan"), "t.disable_cuda_graphs = True"));
  plain["training"]["cuda_graphs"] = true;
  EXPECT_TRUE(contains(text_of(plain, "torchtitan"), "t.disable_cuda_graphs = False"));
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
  // pplan itself: exit 3 (docs/launch.md) and the reason on stderr.
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
  const json s = pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "fp8", grid(1, 1, 8, 3), "torchtitan");
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
  const json s = pinned("llama3-405b", "h100-sxm", 64, 8192, 64, "bf16", grid(8, 1, 8, 3), "torchtitan");
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
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "fp8", grid(1, 1, 64, 3, "full", 1, 8), "torchtitan");
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
      pinned("deepseek-v3", "h100-sxm", 64, 4096, 64, "bf16", grid(2, 1, 32, 3, "full", 1, 8), "torchtitan");
  EXPECT_TRUE(refused_with(s, "torchtitan", "torchtitan.no_expert_tp"));
  // TOML era: expert_tensor_parallel_degree = tp is supported (parallel_dims.py: ETP = TP or 1).
  EXPECT_TRUE(contains(text_of(s, "torchtitan-toml"), "expert_tensor_parallel_degree = 2"));
  // Expert TP 1 under TP 2 is what current torchtitan runs: EP over dp_shard·cp·tp = 64 ranks
  // (b5bcd76c parallel_dims.py:187), and TOML-era torchtitan as expert_tensor_parallel_degree 1.
  json folded = s;
  folded["parallel"]["etp"] = 1;
  EXPECT_FALSE(refused_with(folded, "torchtitan", "torchtitan.no_expert_tp"));
  EXPECT_TRUE(contains(text_of(folded, "torchtitan"), "p.expert_parallel_degree = 8"));
  EXPECT_TRUE(contains(text_of(folded, "torchtitan-toml"), "expert_tensor_parallel_degree = 1"));
  // Megatron and NeMo carry it as --expert-tensor-parallel-size / expert_tensor_parallel_size.
  folded["training"]["framework"] = "megatron-core";
  EXPECT_TRUE(contains(text_of(folded, "megatron"), "--expert-tensor-parallel-size 1")) << text_of(folded, "megatron");
  EXPECT_TRUE(contains(text_of(folded, "nemo"), "trainer.strategy.expert_tensor_parallel_size = 1"));
}

TEST(TorchtitanLaunch, ContextParallelExchangesKvInARing) {
  const json s = priced_for(example("launch-llama3-8b-8-b200-fsdp"), "torchtitan");  // cp 2
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
      pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 3, "selective"), "torchtitan"),
      "torchtitan", "torchtitan.selective_recompute"));
  // torchtitan has no ZeRO-1: FSDP2 shards gradients as well.
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "bf16", grid(1, 1, 8, 1), "torchtitan"),
                           "torchtitan", "torchtitan.no_zero1"));
  // A model torchtitan has no config for would train a different architecture.
  json custom = pinned("llama3-8b", "h100-sxm", 8, 4096, 64, "bf16", grid(1, 1, 8, 3), "torchtitan");
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
      pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(8, 2, 1, 3, "full", 1, 1, 2), "torchtitan");
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

// CUDA_DEVICE_MAX_CONNECTIONS=1 keeps kernels in order for Megatron-DeepSpeed's async TP
// all-reduce; with tp 1 there is none, and one hardware queue would serialise the ZeRO-3
// collectives the plan prices as overlapped (issue #27).
TEST(DeepSpeedLaunch, OneConnectionOnlyWhereTensorParallelNeedsIt) {
  const json tp2 = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1), "deepspeed");
  EXPECT_TRUE(contains(text_of(tp2, "deepspeed"), "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
  const json tp1 = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(1, 1, 16, 3), "deepspeed");
  ASSERT_TRUE(problem_codes(tp1, "deepspeed").empty());
  EXPECT_FALSE(contains(text_of(tp1, "deepspeed"), "CUDA_DEVICE_MAX_CONNECTIONS"));
}

TEST(DeepSpeedLaunch, FlashAttentionFlagFollowsThePricedAttention) {
  // Megatron-DeepSpeed 4efb479d megatron/arguments.py: --use-flash-attn-v2; without it the
  // core attention materialises the scores, which pplan prices only with flash_attention off.
  // DeepSpeed's own default is off (framework/framework.h [5]); a scenario may turn it on.
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1), "deepspeed");
  EXPECT_FALSE(contains(text_of(s, "deepspeed"), "--use-flash-attn-v2"));
  s["training"]["flash_attention"] = true;
  EXPECT_TRUE(contains(text_of(s, "deepspeed"), "--use-flash-attn-v2"));
}

TEST(DeepSpeedLaunch, PipelineEngineCannotOverlapGradientReduction) {
  // DeepSpeed edaa7221 deepspeed/runtime/engine.py _configure_zero_optimizer: "Pipeline
  // parallelism does not support overlapped communication, will be disabled."
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 1), "deepspeed");
  s["training"]["overlap_grad_reduce"] = true;
  EXPECT_TRUE(refused_with(s, "deepspeed", "deepspeed.pipeline_no_overlap"));
  json no_overlap = s;
  no_overlap["training"]["overlap_grad_reduce"] = false;
  EXPECT_TRUE(problem_codes(no_overlap, "deepspeed").empty());
  EXPECT_TRUE(contains(text_of(no_overlap, "deepspeed"), "\"overlap_comm\": false"));
}

TEST(DeepSpeedLaunch, ZeroZeroWithPipelinePartitionsTheOptimizer) {
  // engine.py _do_optimizer_sanity_check: bf16 + pipeline + no ZeRO -> BF16_Optimizer, which
  // partitions the fp32 optimizer state over DP (ZeRO-1 memory, not the priced ZeRO-0).
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 0), "deepspeed"),
                           "deepspeed", "deepspeed.zero0_pipeline"));
}

TEST(DeepSpeedLaunch, GradientDtypeFollowsGradReduceInFp32) {
  // engine.py get_data_types: grad_accum_dtype defaults to the model dtype (bf16);
  // communication_data_type defaults to bf16 with bf16 on. DeepSpeed's framework default is
  // bf16 gradients (framework/framework.h [6]); a scenario may ask for fp32.
  for (int zero : {1, 2, 3}) {
    json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, zero), "deepspeed");
    json config = ds_config(text_of(s, "deepspeed"));
    EXPECT_EQ(config["data_types"]["grad_accum_dtype"], "bf16") << zero;
    EXPECT_EQ(config["communication_data_type"], "bf16") << zero;
    s["training"]["grad_reduce_in_fp32"] = true;
    config = ds_config(text_of(s, "deepspeed"));
    EXPECT_EQ(config["data_types"]["grad_accum_dtype"], "fp32") << zero;
    EXPECT_EQ(config["communication_data_type"], "fp32") << zero;
  }
  // ZeRO-0 without a pipeline: a bf16 model accumulates in bf16; fp32 accumulation is an
  // "unsupported mix" (NotImplementedError), so fp32 gradients are refused.
  json zero0 = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 0), "deepspeed");
  const json config = ds_config(text_of(zero0, "deepspeed"));
  EXPECT_FALSE(config.contains("data_types"));
  EXPECT_EQ(config["communication_data_type"], "bf16");
  zero0["training"]["grad_reduce_in_fp32"] = true;
  EXPECT_TRUE(refused_with(zero0, "deepspeed", "deepspeed.zero0_fp32_grads"));
}

TEST(DeepSpeedLaunch, OverlapCommFollowsThePricedOverlap) {
  // zero/config.py: overlap_comm defaults to true only for stage 3, as DeepSpeed's pricing does
  // (framework/framework.h overlaps_grad_reduce); ZeRO-1/2 overlap only when the scenario asks.
  const auto overlap_comm = [](const json& s) {
    return ds_config(text_of(s, "deepspeed"))["zero_optimization"]["overlap_comm"].get<bool>();
  };
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1), "deepspeed");
  EXPECT_FALSE(overlap_comm(s));
  s["parallel"]["zero"] = 3;
  EXPECT_TRUE(overlap_comm(s));
  s["parallel"]["zero"] = 2;
  s["training"]["overlap_grad_reduce"] = true;
  EXPECT_TRUE(overlap_comm(s));
  // ZeRO-2 gathers the updated weights after the step: an overlapped gather cannot run.
  s["training"]["overlap_param_gather"] = true;
  EXPECT_TRUE(refused_with(s, "deepspeed", "deepspeed.no_param_gather_overlap"));
  // Without ZeRO the all-reduce follows the backward pass (engine.py allreduce_gradients).
  json zero0 = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 0), "deepspeed");
  zero0["training"]["overlap_grad_reduce"] = true;
  EXPECT_TRUE(refused_with(zero0, "deepspeed", "deepspeed.zero0_no_overlap"));
}

TEST(DeepSpeedLaunch, RunsOnlyWhatItCanAsPriced) {
  // A plan priced for Megatron-Core (12 fused kernels per layer, NVIDIA's overlap defaults)
  // would run with DeepSpeed's eager kernels: priced for another framework.
  const json core = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1));
  EXPECT_TRUE(refused_with(core, "deepspeed", "deepspeed.priced_for_another_framework"));
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1), "deepspeed");
  json tp_overlap = s;
  tp_overlap["training"]["tp_comm_overlap"] = true;  // no TE userbuffers in Megatron-DeepSpeed
  EXPECT_TRUE(refused_with(tp_overlap, "deepspeed", "deepspeed.no_tp_overlap"));
  json graphs = s;
  graphs["training"]["cuda_graphs"] = true;  // config-json.md: enable_cuda_graph is inference
  EXPECT_TRUE(refused_with(graphs, "deepspeed", "deepspeed.no_cuda_graphs"));
  // Partial recompute: Megatron's block method at pp 1; the pipeline engine has none
  // (Megatron-DeepSpeed 4efb479d gpt_model.py).
  s["parallel"]["recompute_layers"] = 4;
  EXPECT_TRUE(contains(text_of(s, "deepspeed"),
                       "--recompute-granularity full --recompute-method block "
                       "--recompute-num-layers 4"));
  s["parallel"]["pp"] = 2;
  s["parallel"]["dp"] = 4;
  EXPECT_TRUE(refused_with(s, "deepspeed", "deepspeed.partial_recompute_pipeline"));
}

TEST(DeepSpeedLaunch, FullRecomputeWithPipelineUsesDeepSpeedCheckpointing) {
  // Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py GPTModelPipe: the pipeline
  // checkpoints with activation_checkpoint_interval; --deepspeed-activation-checkpointing
  // sets up deepspeed.checkpointing (megatron/initialize.py).
  const std::string text =
      text_of(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 2, 4, 1), "deepspeed"), "deepspeed");
  EXPECT_TRUE(contains(text, "--deepspeed-activation-checkpointing")) << text;
}

TEST(DeepSpeedLaunch, Fp8RunsThroughTransformerEngineWithoutThePipeline) {
  // Megatron-DeepSpeed 4efb479d megatron/arguments.py: --fp8-hybrid needs --transformer-impl
  // transformer_engine; megatron/model/transformer.py builds te.pytorch.TransformerLayer
  // (LayerNorm, GELU, no GQA) only outside the pipeline model.
  const json gpt = pinned("gpt3-175b", "h100-sxm", 64, 2048, 64, "fp8", grid(8, 1, 8, 1), "deepspeed");
  const std::string text = text_of(gpt, "deepspeed");
  EXPECT_TRUE(contains(text, "--transformer-impl transformer_engine --fp8-hybrid")) << text;
  EXPECT_FALSE(contains(text, "--use-flash-attn-v2")) << "TE runs its own attention";
  // The pipeline model is built from the local layers: no FP8 there.
  EXPECT_TRUE(refused_with(pinned("gpt3-175b", "h100-sxm", 64, 2048, 64, "fp8", grid(8, 2, 4, 1), "deepspeed"),
                           "deepspeed", "deepspeed.fp8_pipeline"));
  // Llama's GQA, SwiGLU and RMSNorm are not what the TE layer builds.
  EXPECT_TRUE(refused_with(pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "fp8", grid(2, 1, 8, 1), "deepspeed"),
                           "deepspeed", "deepspeed.fp8_model"));
  // DelayedScaling only.
  json current = gpt;
  current["training"]["fp8_recipe"] = "current";
  EXPECT_TRUE(refused_with(current, "deepspeed", "deepspeed.fp8_recipe"));
}

TEST(DeepSpeedLaunch, RefusesItsOwnPipelineSplit) {
  // GPTModelPipe partitions with partition_method='type:transformer' (balanced layer counts):
  // 126 layers over pp 16 cannot follow pplan's 7/8/7 split with the embedding counted.
  EXPECT_TRUE(
      refused_with(pinned("llama3-405b", "h100-sxm", 256, 8192, 64, "bf16", grid(8, 16, 2, 1), "deepspeed"),
                   "deepspeed", "deepspeed.pipeline_split"));
}

TEST(DeepSpeedLaunch, MoeRunsAsDeepSpeedMoe) {
  // Mixtral 8x7B: 8 experts, top-2, experts as wide as the dense MLP, no shared experts.
  // Megatron-DeepSpeed: --num-experts/--expert-interval/--topk, --moe-expert-parallel-size;
  // ZeRO needs the MoE param group (DeepSpeed zero/stage_1_and_2.py).
  const std::string text =
      text_of(pinned("mixtral-8x7b", "h100-sxm", 32, 4096, 64, "bf16", grid(1, 1, 32, 1, "full", 1, 8), "deepspeed"),
              "deepspeed");
  EXPECT_TRUE(contains(text, "--num-experts 8 --expert-interval 1 --topk 2")) << text;
  EXPECT_TRUE(contains(text, "--moe-expert-parallel-size 8")) << text;
  EXPECT_TRUE(contains(text, "--disable-moe-token-dropping")) << text;
  EXPECT_TRUE(contains(text, "--create-moe-param-group")) << text;
  // engine.py: "MoE not supported with Stage 3".
  EXPECT_TRUE(refused_with(pinned("mixtral-8x7b", "h100-sxm", 32, 4096, 64, "bf16", grid(1, 1, 32, 3, "full", 1, 8), "deepspeed"),
                           "deepspeed", "deepspeed.moe_zero3"));
  // sharded_moe.py treats the TP ranks' tokens as copies.
  EXPECT_TRUE(refused_with(pinned("mixtral-8x7b", "h100-sxm", 32, 4096, 64, "bf16", grid(2, 1, 16, 1, "full", 1, 8), "deepspeed"),
                           "deepspeed", "deepspeed.moe_tp"));
  // DeepSeek-V3: latent attention, shared experts, experts narrower than the dense MLP.
  const std::vector<std::string> codes =
      problem_codes(pinned("deepseek-v3", "h100-sxm", 1024, 4096, 1024, "bf16", grid(1, 1, 1024, 1, "full", 1, 64), "deepspeed"),
                    "deepspeed");
  EXPECT_NE(std::find(codes.begin(), codes.end(), "deepspeed.no_mla"), codes.end());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "deepspeed.moe_shared_experts"), codes.end());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "deepspeed.moe_expert_width"), codes.end());
}

// ---------------------------------------------------------------------------------------
// NeMo.

TEST(NemoLaunch, DeepSeekRecipeRunsThePricedModelAndOptimizer) {
  // NeMo 8cfedd72 nemo/collections/llm/recipes/deepseek_v3.py pretrain_recipe: use_mtp=True,
  // DeepEPCallback, bf16 exp_avg/exp_avg_sq, recompute_modules ["mla_up_proj", "layernorm"].
  const std::string text = text_of(example("launch-deepseek-v3-1024-h100"), "nemo");
  EXPECT_TRUE(contains(text, "use_mtp=False")) << text;
  EXPECT_FALSE(contains(text, "DeepEPCallback"));
  // The callbacks are replaced: timing, plus the TP-overlap callback the plan is priced with
  // (Megatron-Core on H100: tp_comm_overlap with SP, framework/framework.h [1]).
  EXPECT_TRUE(contains(text, "recipe.trainer.callbacks = [run.Config(TimingCallback), "
                             "run.Config(MegatronCommOverlapCallback, tp_comm_overlap=True"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.use_precision_aware_optimizer = False"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.exp_avg_dtype = torch.float32"));
  EXPECT_TRUE(contains(text, "recipe.optim.config.exp_avg_sq_dtype = torch.float32"));
  // NVIDIA's recipes reduce bf16 gradients (perf_recipes/_common.py grad_reduce_in_fp32 False).
  EXPECT_TRUE(contains(text, "recipe.trainer.strategy.ddp.grad_reduce_in_fp32 = False"));
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
  // (The example is priced as torchtitan, Meta's stack; the inline model is the point here.)
  EXPECT_EQ(megatron_flag(text_of(priced_for(example("llama3-405b-8k-16384-h100"), "megatron-core"),
                                  "megatron"),
                          "--rotary-base"),
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

TEST(NcclTestsLaunch, CollectivesMoveTheBytesPplanPrices) {
  // Gradients move in the priced dtype: bf16 (2 bytes) under Megatron-Core (NVIDIA's recipes:
  // grad_reduce_in_fp32 False, framework/framework.h [1]), fp32 (4) under Megatron-LM's
  // default. Weights: NVIDIA's recipes keep FP8 weights with the distributed optimizer
  // (keeps_fp8_params), gathered one byte per layer parameter, and every format says so; with
  // training.fp8_param_gather false they are gathered in bf16, 2 bytes each, beside Transformer
  // Engine's FP8 copies, and no format asks for --fp8-param-gather. Llama 3 8B over tp 8 x pp 2:
  // ~0.5e9 parameters per GPU, below the 8 GB cap of a benchmark.
  json s = pinned("llama3-8b", "h100-sxm", 32, 8192, 64, "fp8", grid(8, 2, 2, 1));
  std::string datatype, grad_type;
  const auto bytes = [&](const json& scenario) {
    const std::string text = text_of(scenario, "nccl-tests");
    const long long gather = bench_bytes(text, "weight all-gather", "all_gather_perf", &datatype);
    const long long scatter =
        bench_bytes(text, "gradient reduce-scatter", "reduce_scatter_perf", &grad_type);
    return std::make_pair(gather, scatter);
  };
  EXPECT_TRUE(contains(text_of(s, "megatron"), "--fp8-param-gather"));
  EXPECT_TRUE(contains(text_of(s, "nemo"), "recipe.trainer.plugins.fp8_param_gather = True"));
  auto [gather, scatter] = bytes(s);
  EXPECT_EQ(datatype, "uint8");
  EXPECT_EQ(grad_type, "bfloat16");
  // One byte per layer parameter against two per gradient; the embedding and head (0.5e9 of
  // 8e9 parameters, a sixteenth of this rank's share) still move in bf16.
  EXPECT_GT(double(gather), scatter / 2.0);
  EXPECT_LT(double(gather), scatter / 2.0 * 1.2);

  s["training"]["fp8_param_gather"] = false;
  EXPECT_FALSE(contains(text_of(s, "megatron"), "--fp8-param-gather"));
  EXPECT_TRUE(contains(text_of(s, "nemo"), "recipe.trainer.plugins.fp8_param_gather = False"));
  std::tie(gather, scatter) = bytes(s);
  EXPECT_EQ(datatype, "bfloat16");
  EXPECT_EQ(grad_type, "bfloat16");
  EXPECT_NEAR(double(gather), double(scatter), 16.0);
  std::tie(gather, scatter) = bytes(priced_for(s, "megatron-lm"));
  EXPECT_EQ(datatype, "bfloat16");
  EXPECT_EQ(grad_type, "float");
  EXPECT_NEAR(double(gather), scatter / 2.0, 16.0);
}

TEST(NcclTestsLaunch, ZeroThreeGathersOneLayerAtATime) {
  // Megatron-FSDP gathers and reduce-scatters each transformer layer (Megatron-LM d98e8a64
  // docs/user-guide/features/megatron_fsdp.md: weights are un-sharded per FSDP unit).
  // Llama 3 8B layer (Llama Team 2024, Table 3): attention 4096*(2*4096 + 2*8*128) =
  // 41,943,040, SwiGLU MLP 3*4096*14336 = 176,160,768, two norms 8192 -> 218,112,000 weights.
  // The example runs Megatron-Core on B200: bf16 gradients (NVIDIA's recipes), 2 bytes each.
  const std::string text = text_of(example("launch-llama3-8b-8-b200-fsdp"), "nccl-tests");
  EXPECT_EQ(bench_bytes(text, "weight all-gather", "all_gather_perf"), 218112000LL * 2) << text;
  EXPECT_EQ(bench_bytes(text, "gradient reduce-scatter", "reduce_scatter_perf"), 218112000LL * 2);
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

// ---------------------------------------------------------------------------------------
// Model v2 (issue 11): every format runs the training switches the engine resolved
// (training.framework defaults, framework/framework.h, plus the scenario's overrides).

/// Llama 3 8B on 16 H100s, TP 2 with SP, ZeRO-1: the workhorse of these tests.
json llama8b(const std::string& framework = "", int zero = 1) {
  return pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, zero, "selective"),
                framework);
}

/// True when the Megatron flag array of `text` holds `flag` as a whole word.
bool has_flag(const std::string& text, const std::string& flag) {
  return std::regex_search(text, std::regex("\\n    " + flag + "( |\\n)"));
}

TEST(SwitchesLaunch, MegatronOverlapFlagsFollowTheResolvedSwitches) {
  // Megatron-Core (NVIDIA's recipes, framework.h [1]): gradient reduction and weight gather
  // overlapped; TP overlap with SP; bf16 gradients. Megatron-LM's pretrain_gpt.py defaults ([2],
  // [3]): none of the overlaps, fp32 main gradients.
  const std::string core = text_of(llama8b(), "megatron");
  EXPECT_TRUE(has_flag(core, "--overlap-grad-reduce")) << core;
  EXPECT_TRUE(has_flag(core, "--overlap-param-gather"));
  EXPECT_TRUE(has_flag(core, "--use-distributed-optimizer"));  // --overlap-param-gather needs it
  EXPECT_TRUE(has_flag(core, "--tp-comm-overlap"));
  EXPECT_TRUE(has_flag(core, "--sequence-parallel"));  // --tp-comm-overlap needs it
  EXPECT_TRUE(has_flag(core, "--grad-reduce-in-bf16"));
  EXPECT_FALSE(has_flag(core, "--accumulate-allreduce-grads-in-fp32"));
  const std::string lm = text_of(llama8b("megatron-lm"), "megatron");
  EXPECT_FALSE(has_flag(lm, "--overlap-grad-reduce")) << lm;
  EXPECT_FALSE(has_flag(lm, "--overlap-param-gather"));
  EXPECT_FALSE(has_flag(lm, "--tp-comm-overlap"));
  EXPECT_TRUE(has_flag(lm, "--accumulate-allreduce-grads-in-fp32"));
  EXPECT_FALSE(has_flag(lm, "--grad-reduce-in-bf16"));
  // Without SP there is no TP overlap to run (compute.cpp prices it only with SP).
  json no_sp = llama8b();
  no_sp["parallel"]["sequence_parallel"] = false;
  EXPECT_FALSE(has_flag(text_of(no_sp, "megatron"), "--tp-comm-overlap"));
  // ZeRO-0: no weight gather, so no --overlap-param-gather (it needs the distributed optimizer).
  const std::string zero0 = text_of(llama8b("", 0), "megatron");
  EXPECT_TRUE(has_flag(zero0, "--overlap-grad-reduce"));
  EXPECT_FALSE(has_flag(zero0, "--overlap-param-gather"));
  // Megatron asserts --overlap-param-gather needs --overlap-grad-reduce (validate_args).
  json gather_only = llama8b();
  gather_only["training"]["overlap_grad_reduce"] = false;
  EXPECT_TRUE(refused_with(gather_only, "megatron", "megatron.param_gather_needs_grad_reduce"));
  EXPECT_TRUE(refused_with(gather_only, "nemo", "megatron.param_gather_needs_grad_reduce"));
  // Under --format nemo the same code says that NeMo runs Megatron-Core.
  const json nemo = launch(gather_only, "nemo");
  ASSERT_TRUE(nemo.contains("problems"));
  EXPECT_EQ(nemo["problems"][0]["message"].get<std::string>().rfind("NeMo runs Megatron-Core: ", 0), 0u)
      << nemo["problems"].dump();
}

TEST(SwitchesLaunch, MegatronFp8RecipeIsThePricedOne) {
  // Megatron-LM d98e8a64 --fp8-recipe choices (megatron-flags.tsv): tensorwise, delayed, mxfp8,
  // blockwise; pplan's "current" is Megatron's "tensorwise" (fp8_utils.py
  // Float8CurrentScaling). B200 used to get mxfp8 whatever the scenario priced.
  const std::vector<std::pair<std::string, std::string>> recipes = {
      {"delayed", "delayed"}, {"current", "tensorwise"}, {"blockwise", "blockwise"},
      {"mxfp8", "mxfp8"}};
  for (const auto& [priced, megatron] : recipes) {
    json s = pinned("llama3-8b", "b200", 16, 8192, 64, "fp8", grid(2, 1, 8, 1, "selective"));
    s["training"]["fp8_recipe"] = priced;
    const std::string text = text_of(s, "megatron");
    EXPECT_EQ(megatron_flag(text, "--fp8-recipe"), megatron) << priced;
    // FP8 weights: NVIDIA's recipes' default with the distributed optimizer, as priced.
    EXPECT_TRUE(has_flag(text, "--fp8-param-gather")) << priced;
  }
  json b200 = pinned("llama3-8b", "b200", 16, 8192, 64, "fp8", grid(2, 1, 8, 1, "selective"));
  EXPECT_EQ(megatron_flag(text_of(b200, "megatron"), "--fp8-recipe"), "delayed");
  // MXFP8 needs Blackwell's tensor cores (Transformer Engine docs, MXFP8).
  json hopper = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "fp8", grid(2, 1, 8, 1));
  hopper["training"]["fp8_recipe"] = "mxfp8";
  EXPECT_TRUE(refused_with(hopper, "megatron", "megatron.fp8_recipe_hardware"));
  // NeMo's plugin for each recipe (recipes/precision/mixed_precision.py).
  b200["training"]["fp8_recipe"] = "current";
  const std::string nemo = text_of(b200, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.trainer.plugins = bf16_with_fp8_current_scaling_mixed()"))
      << nemo;
  EXPECT_TRUE(contains(nemo, "recipe.trainer.plugins.first_last_layers_bf16 = False"));
  b200["training"]["fp8_recipe"] = "blockwise";
  EXPECT_TRUE(contains(text_of(b200, "nemo"),
                       "recipe.trainer.plugins = bf16_with_fp8_subchannel_scaling_mixed()"));
}

TEST(SwitchesLaunch, Nvfp4TrainsWithMegatronsFp4FlagsOnBlackwellOnly) {
  // Megatron-LM megatron-flags.tsv: --fp4-format (e2m1), --fp4-recipe (nvfp4), --fp4-param-gather;
  // arguments.py makes fp4 and fp8 exclusive, so no --fp8-* flag may appear.
  json s = pinned("llama3-8b", "b200", 16, 8192, 64, "fp8", grid(2, 1, 8, 1, "selective"));
  s["training"]["fp8_recipe"] = "nvfp4";
  const std::string text = text_of(s, "megatron");
  EXPECT_EQ(megatron_flag(text, "--fp4-format"), "e2m1") << text;
  EXPECT_EQ(megatron_flag(text, "--fp4-recipe"), "nvfp4");
  EXPECT_TRUE(has_flag(text, "--fp4-param-gather"));
  EXPECT_FALSE(has_flag(text, "--fp8-format"));
  EXPECT_FALSE(has_flag(text, "--fp8-recipe"));
  EXPECT_FALSE(has_flag(text, "--fp8-param-gather"));
  s["training"]["fp8_param_gather"] = false;
  EXPECT_FALSE(has_flag(text_of(s, "megatron"), "--fp4-param-gather"));
  // NeMo 2.0's precision factories have no NVFP4 one; Hopper has no FP4 tensor cores.
  EXPECT_TRUE(refused_with(s, "nemo", "nemo.no_nvfp4"));
  EXPECT_TRUE(refused_with(s, "torchtitan", "torchtitan.fp8_recipe"));
  json hopper = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "fp8", grid(2, 1, 8, 1));
  hopper["training"]["fp8_recipe"] = "nvfp4";
  EXPECT_TRUE(refused_with(hopper, "megatron", "megatron.fp8_recipe_hardware"));
}

TEST(SwitchesLaunch, CudaGraphsRunWherePerLayerGraphsCan) {
  // Megatron-LM d98e8a64: --cuda-graph-impl local (per-layer graphs, the successor of
  // --enable-cuda-graph) with --te-rng-tracker; expandable segments off (NeMo PerfEnvPlugin).
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1, "selective"));
  EXPECT_FALSE(has_flag(text_of(s, "megatron"), "--cuda-graph-impl"));
  s["training"]["cuda_graphs"] = true;
  const std::string text = text_of(s, "megatron");
  EXPECT_EQ(megatron_flag(text, "--cuda-graph-impl"), "local") << text;
  EXPECT_TRUE(has_flag(text, "--te-rng-tracker"));
  EXPECT_FALSE(contains(text, "expandable_segments"));
  const std::string nemo = text_of(s, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.model.config.enable_cuda_graph = True")) << nemo;
  EXPECT_TRUE(contains(nemo, "recipe.trainer.strategy.use_te_rng_tracker = True"));
  // transformer_config.py: per-layer graphs reject full recompute and dropless MoE experts.
  json full = s;
  full["parallel"]["recompute"] = "full";
  EXPECT_TRUE(refused_with(full, "megatron", "megatron.cuda_graphs_full_recompute"));
  json fsdp = s;
  fsdp["parallel"]["zero"] = 3;
  // Megatron-FSDP runs graphs in its graph-safe mode (training.py megatron_fsdp_cuda_graph_mode).
  const std::string fsdp_text = text_of(fsdp, "megatron");
  EXPECT_EQ(megatron_flag(fsdp_text, "--cuda-graph-impl"), "local") << fsdp_text;
  EXPECT_TRUE(has_flag(fsdp_text, "--use-megatron-fsdp")) << fsdp_text;
  json moe = pinned("mixtral-8x7b", "h100-sxm", 64, 4096, 256, "bf16",
                    grid(1, 4, 16, 1, "selective", 1, 8));
  moe["training"]["cuda_graphs"] = true;
  EXPECT_TRUE(refused_with(moe, "megatron", "megatron.cuda_graphs_moe"));
  // A MoE layer's experts are graphed only by the full-iteration graph, whose static shapes
  // come from the flex dispatcher's per-rank token budget (transformer_config.py:1019, :1075):
  // with flex the plan runs, as HybridEP with a budget, and full recompute is allowed there.
  moe["training"]["moe_dispatcher"] = "flex";
  const std::string moe_text = text_of(moe, "megatron");
  EXPECT_EQ(megatron_flag(moe_text, "--cuda-graph-impl"), "full_iteration") << moe_text;
  EXPECT_EQ(megatron_flag(moe_text, "--moe-flex-dispatcher-backend"), "hybridep");
  EXPECT_EQ(megatron_flag(moe_text, "--moe-expert-rank-capacity-factor"), "1.5");
  const std::string moe_nemo = text_of(moe, "nemo");
  EXPECT_TRUE(contains(moe_nemo, "recipe.model.config.cuda_graph_impl = \"full_iteration\"")) << moe_nemo;
  EXPECT_TRUE(contains(moe_nemo, "recipe.model.config.moe_flex_dispatcher_backend = \"hybridep\""));
  EXPECT_FALSE(contains(moe_nemo, "enable_cuda_graph"));
  json moe_full = moe;
  moe_full["parallel"]["recompute"] = "full";
  EXPECT_EQ(megatron_flag(text_of(moe_full, "megatron"), "--cuda-graph-impl"), "full_iteration");
}

TEST(SwitchesLaunch, Fp8AttentionIsNeMosSwitchAndNoMegatronFlag) {
  // TransformerConfig.fp8_dot_product_attention (transformer_config.py:640) has no command-line
  // flag (arguments.py:2333, "no CLI argument exists"); NeMo's MegatronMixedPrecision takes it.
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "fp8", grid(2, 1, 8, 1, "selective"));
  s["training"]["fp8_dot_product_attention"] = true;
  EXPECT_TRUE(refused_with(s, "megatron", "megatron.fp8_attention_no_flag"));
  const std::string nemo = text_of(s, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.trainer.plugins.fp8_dot_product_attention = True")) << nemo;
  json ds = priced_for(s, "deepspeed");
  ds["training"]["flash_attention"] = true;  // Megatron-DeepSpeed's default is off
  EXPECT_TRUE(refused_with(ds, "deepspeed", "deepspeed.fp8_attention"));
  json titan = priced_for(s, "torchtitan");
  titan["training"]["fp8_recipe"] = "current";
  EXPECT_TRUE(refused_with(titan, "torchtitan-toml", "torchtitan.fp8_attention"));
  // Off: nothing refused, nothing written.
  s["training"]["fp8_dot_product_attention"] = false;
  EXPECT_FALSE(contains(text_of(s, "megatron"), "fp8_dot_product_attention"));
  EXPECT_FALSE(contains(text_of(s, "nemo"), "fp8_dot_product_attention"));
}

TEST(SwitchesLaunch, PartialRecomputeIsMegatronsBlockMethod) {
  // ParallelConfig::recompute_layers N (specs.h): Megatron --recompute-method block
  // --recompute-num-layers N (megatron/core/recompute.py); 0 = uniform, 1 (every layer).
  json s = pinned("llama3-70b", "h100-sxm", 64, 8192, 128, "bf16", grid(8, 4, 2, 1));
  const std::string uniform = text_of(s, "megatron");
  EXPECT_EQ(megatron_flag(uniform, "--recompute-method"), "uniform");
  EXPECT_EQ(megatron_flag(uniform, "--recompute-num-layers"), "1");
  s["parallel"]["recompute_layers"] = 5;
  const std::string block = text_of(s, "megatron");
  EXPECT_EQ(megatron_flag(block, "--recompute-granularity"), "full");
  EXPECT_EQ(megatron_flag(block, "--recompute-method"), "block") << block;
  EXPECT_EQ(megatron_flag(block, "--recompute-num-layers"), "5");
  const std::string nemo = text_of(s, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.model.config.recompute_method = \"block\"")) << nemo;
  EXPECT_TRUE(contains(nemo, "recipe.model.config.recompute_num_layers = 5"));
  // torchtitan recomputes every layer (FullAC) or every k-th: it cannot run this.
  EXPECT_TRUE(refused_with(priced_for(s, "torchtitan"), "torchtitan",
                           "torchtitan.partial_recompute"));
}

TEST(SwitchesLaunch, NemoFollowsTheResolvedSwitches) {
  // NeMo: ddp.grad_reduce_in_fp32 and the plugin's, the DP overlaps, and TP overlap through
  // MegatronCommOverlapCallback (NeMo 8cfedd72 megatron_comm_overlap.py initialises TE's
  // userbuffers) with its DP overlap pinned to the priced values.
  const std::string core = text_of(llama8b(), "nemo");
  EXPECT_TRUE(contains(core, "recipe.trainer.strategy.ddp.grad_reduce_in_fp32 = False")) << core;
  EXPECT_TRUE(contains(core, "recipe.trainer.plugins.grad_reduce_in_fp32 = False"));
  EXPECT_TRUE(contains(core, "recipe.trainer.strategy.ddp.overlap_grad_reduce = True"));
  EXPECT_TRUE(contains(core, "recipe.trainer.strategy.ddp.overlap_param_gather = True"));
  EXPECT_TRUE(contains(core, "run.Config(MegatronCommOverlapCallback, tp_comm_overlap=True, "
                             "overlap_grad_reduce=True, overlap_param_gather=True)"));
  const std::string lm = text_of(llama8b("megatron-lm"), "nemo");
  EXPECT_TRUE(contains(lm, "recipe.trainer.strategy.ddp.grad_reduce_in_fp32 = True")) << lm;
  EXPECT_TRUE(contains(lm, "recipe.trainer.plugins.grad_reduce_in_fp32 = True"));
  EXPECT_TRUE(contains(lm, "recipe.trainer.strategy.ddp.overlap_grad_reduce = False"));
  EXPECT_TRUE(contains(lm, "recipe.trainer.strategy.ddp.overlap_param_gather = False"));
  EXPECT_FALSE(contains(lm, "MegatronCommOverlapCallback"));
}

TEST(SwitchesLaunch, TorchtitanRunsOnlyItsOwnSwitches) {
  // A plan priced for Megatron-Core (fused kernels, bf16 gradients) is not torchtitan's.
  EXPECT_TRUE(refused_with(llama8b("", 3), "torchtitan", "torchtitan.priced_for_another_framework"));
  // mixed_precision_reduce is Literal["float32"] (b5bcd76c and 238fa995 configs).
  json bf16_grads = llama8b("torchtitan", 3);
  bf16_grads["training"]["grad_reduce_in_fp32"] = false;
  EXPECT_TRUE(refused_with(bf16_grads, "torchtitan", "torchtitan.reduce_dtype"));
  EXPECT_TRUE(refused_with(bf16_grads, "torchtitan-toml", "torchtitan.reduce_dtype"));
  // FSDP2 always overlaps; a plan priced with exposed DP communication is not what runs.
  json exposed = llama8b("torchtitan", 3);
  exposed["training"]["overlap_grad_reduce"] = false;
  exposed["training"]["overlap_param_gather"] = false;
  EXPECT_TRUE(refused_with(exposed, "torchtitan", "torchtitan.overlap_always"));
  // Async TP only when priced (framework default off, [7]); it needs the model compiled.
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 3), "torchtitan");
  std::string text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "config.compile.enable_async_tensor_parallel = False")) << text;
  EXPECT_TRUE(contains(text, "t.mixed_precision_reduce = \"float32\""));
  EXPECT_TRUE(contains(text_of(s, "torchtitan-toml"), "enable_async_tensor_parallel = false"));
  s["training"]["tp_comm_overlap"] = true;
  text = text_of(s, "torchtitan");
  EXPECT_TRUE(contains(text, "config.compile.enable_async_tensor_parallel = True")) << text;
  EXPECT_TRUE(contains(text, "config.compile.enable = True"));
  const std::string toml = text_of(s, "torchtitan-toml");
  EXPECT_TRUE(contains(toml, "enable_async_tensor_parallel = true")) << toml;
  EXPECT_TRUE(contains(toml, "[compile]\nenable = true"));
  // FP8: torchtitan scales from the tensor itself (rowwise / tensorwise): "current" only.
  json fp8 = pinned("llama3-8b", "h100-sxm", 8, 8192, 64, "fp8", grid(1, 1, 8, 3), "torchtitan");
  fp8["training"]["fp8_recipe"] = "delayed";
  EXPECT_TRUE(refused_with(fp8, "torchtitan", "torchtitan.fp8_recipe"));
  // CUDA graphs: not in the TOML era, not with PP in the current one.
  json graphs = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(1, 2, 8, 3),
                       "torchtitan");
  graphs["training"]["cuda_graphs"] = true;
  EXPECT_TRUE(refused_with(graphs, "torchtitan", "torchtitan.cuda_graphs_pipeline"));
  EXPECT_TRUE(refused_with(graphs, "torchtitan-toml", "torchtitan.no_cuda_graphs"));
}

TEST(SwitchesLaunch, SearchMapsEachFrameworkToItsLaunchRules) {
  // megatron-core's defaults are NVIDIA's NeMo / Megatron-Bridge recipes (framework.h [1]).
  EXPECT_EQ(pplan::launch_framework_of(pplan::Framework::kMegatronCore),
            pplan::LaunchFramework::kNemo);
  EXPECT_EQ(pplan::launch_framework_of(pplan::Framework::kMegatronLm),
            pplan::LaunchFramework::kMegatron);
  EXPECT_EQ(pplan::launch_framework_of(pplan::Framework::kDeepSpeed),
            pplan::LaunchFramework::kDeepSpeed);
  EXPECT_EQ(pplan::launch_framework_of(pplan::Framework::kTorchtitan),
            pplan::LaunchFramework::kTorchtitan);
}

// ---------------------------------------------------------------------------------------
// Rack-scale NVLink (issue 15): hosts apart from NVLink domains.

/// Llama 3 70B on `gpus` GB200s (4-GPU trays in 72-GPU NVL72 domains, the preset's system).
json gb200(int gpus, const json& parallel) {
  return {{"schema_version", 1},
          {"model", "llama3-70b"},
          {"cluster", {{"gpu", "gb200"}, {"gpus", gpus}}},
          {"training", {{"seq_len", 8192}, {"global_batch", 144}, {"precision", "bf16"}}},
          {"parallel", parallel}};
}

TEST(TopologyLaunch, Gb200JobOf144GpusIs36NodesOf4In2Domains) {
  // 144 GPUs / 4 per tray = 36 nodes; / 72 per NVL72 domain = 2 domains of 18 trays.
  const json s = gb200(144, grid(8, 2, 9, 1));
  const json layout = launch(s, "layout")["layout"];
  EXPECT_EQ(layout["nodes"], 36);
  EXPECT_EQ(layout["gpus_per_node"], 4);
  EXPECT_EQ(layout["nvlink_domain_gpus"], 72);
  EXPECT_EQ(layout["nvlink_domains"], 2);
  const json& ranks = layout["ranks"];
  ASSERT_EQ(ranks.size(), 144u);
  EXPECT_EQ(ranks[71]["node"], 17);
  EXPECT_EQ(ranks[71]["nvlink_domain"], 0);
  EXPECT_EQ(ranks[72]["node"], 18);
  EXPECT_EQ(ranks[72]["local_gpu"], 0);
  EXPECT_EQ(ranks[72]["nvlink_domain"], 1);
  // TP 8 spans two trays of one domain: NVLink (multi-node NVLink), not the network. PP's
  // stride is tp*dp = 72: its two stages sit in different domains.
  EXPECT_EQ(layout["placement"]["tp"]["nodes"], 2);
  EXPECT_EQ(layout["placement"]["tp"]["link"], "nvlink");
  EXPECT_EQ(layout["placement"]["pp"]["link"], "network");
  for (const json& link : layout["group_links"]["tp"]) EXPECT_EQ(link, "nvlink");
  for (const json& link : layout["group_links"]["pp"]) EXPECT_EQ(link, "network");
  // SLURM: 36 nodes of 4 GPUs, segments of 18 nodes (one domain each), torchrun per tray.
  const std::string slurm = text_of(s, "slurm");
  EXPECT_TRUE(contains(slurm, "\n#SBATCH --nodes=36\n")) << slurm;
  EXPECT_TRUE(contains(slurm, "\n#SBATCH --gpus-per-node=4\n"));
  EXPECT_TRUE(contains(slurm, "\n#SBATCH --segment=18\n"));
  EXPECT_TRUE(contains(slurm, "torchrun --nnodes 36 --nproc_per_node 4 "));
  EXPECT_TRUE(contains(slurm, "in 2 NVLink domains of 72"));
  EXPECT_TRUE(contains(text_of(s, "megatron"), "--nproc_per_node 4\n"));
  // NeMo-Run's SlurmExecutor writes #SBATCH --segment from `segment` (0c491271 slurm.py).
  EXPECT_TRUE(contains(text_of(s, "nemo"), "segment=18,"));
}

TEST(TopologyLaunch, MultiNodeNvlinkNeedsItsNcclVariables) {
  // NCCL 5067397c: MNNVL (NCCL_MNNVL_ENABLE, default auto) needs cuMem (NCCL_CUMEM_ENABLE) and
  // IMEX fabric handles (src/mnnvl.cc); NVLS (NCCL_NVLS_ENABLE) reduces in the NVLink switches.
  const std::string rack = text_of(gb200(144, grid(8, 2, 9, 1)), "env");
  EXPECT_TRUE(contains(rack, "\nexport NCCL_MNNVL_ENABLE=1  # ")) << rack;
  EXPECT_TRUE(contains(rack, "\nexport NCCL_CUMEM_ENABLE=1  # "));
  EXPECT_TRUE(contains(rack, "NCCL_NVLS_ENABLE"));
  EXPECT_TRUE(contains(rack, "/dev/nvidia-caps-imex-channels"));
  EXPECT_TRUE(contains(rack, "=mlx5_0,mlx5_1,mlx5_2,mlx5_3\""));  // one NIC per GPU of a tray
  // DGX H100: one host is one domain, no MNNVL.
  const std::string dgx = text_of(example("launch-llama3-70b-64-h100-fp8"), "env");
  EXPECT_FALSE(contains(dgx, "NCCL_MNNVL_ENABLE"));
  EXPECT_FALSE(contains(dgx, "imex"));
  // One GB200 tray alone has no multi-node NVLink either.
  EXPECT_FALSE(contains(text_of(gb200(4, grid(4, 1, 1, 1)), "env"), "NCCL_MNNVL_ENABLE"));
}

TEST(TopologyLaunch, NcclTestsMeasureAnEpAllToAllInsideTheDomainOnNvlink) {
  // DeepSeek-V3 on 1,152 GPUs (16 NVL72 racks), EP 64 at stride tp = 1: the benchmarked EP
  // group (ranks 0-63) is 16 trays of one domain, an NVLink measurement; on DGX H100 the same
  // group is 8 nodes over the network.
  json s = {{"schema_version", 1},
            {"model", "deepseek-v3"},
            {"cluster", {{"gpu", "gb200"}, {"gpus", 1152}}},
            {"training", {{"seq_len", 4096}, {"global_batch", 4608}, {"precision", "bf16"}}},
            {"parallel", grid(1, 2, 576, 1, "full", 1, 64)}};
  const std::string rack = text_of(s, "nccl-tests");
  const std::size_t ep = rack.find("# EP: all-to-all");
  ASSERT_NE(ep, std::string::npos) << rack;
  const std::string ep_rack = rack.substr(ep, rack.find("\n\n", ep) - ep);
  EXPECT_TRUE(contains(ep_rack, "priced on NVLink (one NVLink domain of 72 GPUs, across 16 nodes"))
      << ep_rack;
  EXPECT_TRUE(contains(ep_rack, "srun -N 16 -n 64 --ntasks-per-node=4 "));
  EXPECT_TRUE(contains(rack, "salloc -N 288 --segment=18"));
  s["cluster"] = {{"gpu", "h100-sxm"}, {"gpus", 1152}};
  const std::string dgx = text_of(s, "nccl-tests");
  const std::size_t ep_at = dgx.find("# EP: all-to-all");
  ASSERT_NE(ep_at, std::string::npos);
  const std::string ep_dgx = dgx.substr(ep_at, dgx.find("\n\n", ep_at) - ep_at);
  EXPECT_TRUE(contains(ep_dgx, "priced on the network (8 nodes, 8 rank(s) per node)")) << ep_dgx;
  EXPECT_TRUE(contains(ep_dgx, "srun -N 8 -n 64 --ntasks-per-node=8 "));
}

// ---------------------------------------------------------------------------------------
// bf16 optimizer state (training.optimizer_state_dtype), 6 bytes per parameter (memory.h).

TEST(OptimizerStateLaunch, EveryFrameworkRunsBf16AdamStateAsPriced) {
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(2, 1, 8, 1));
  s["training"]["optimizer_state_dtype"] = "bf16";
  // Megatron-LM d98e8a64: --exp-avg-dtype and --exp-avg-sq-dtype need
  // --use-precision-aware-optimizer (optimizer_config.py), which needs the distributed optimizer.
  const std::string megatron = text_of(s, "megatron");
  EXPECT_TRUE(contains(megatron, "--use-precision-aware-optimizer")) << megatron;
  EXPECT_TRUE(contains(megatron, "--exp-avg-dtype bf16"));
  EXPECT_TRUE(contains(megatron, "--exp-avg-sq-dtype bf16"));
  EXPECT_TRUE(contains(megatron, "--use-distributed-optimizer"));
  const std::string nemo = text_of(s, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.optim.config.use_precision_aware_optimizer = True")) << nemo;
  EXPECT_TRUE(contains(nemo, "recipe.optim.config.exp_avg_dtype = torch.bfloat16"));
  EXPECT_TRUE(contains(nemo, "recipe.optim.config.exp_avg_sq_dtype = torch.bfloat16"));
  json zero0 = s;
  zero0["parallel"]["zero"] = 0;
  EXPECT_TRUE(refused_with(zero0, "megatron", "megatron.optimizer_state_needs_zero"));
  EXPECT_TRUE(refused_with(zero0, "nemo", "megatron.optimizer_state_needs_zero"));
  // fp32 state: none of it.
  json fp32 = s;
  fp32["training"]["optimizer_state_dtype"] = "fp32";
  EXPECT_FALSE(contains(text_of(fp32, "megatron"), "--use-precision-aware-optimizer"));
  EXPECT_TRUE(contains(text_of(fp32, "nemo"), "recipe.optim.config.exp_avg_dtype = torch.float32"));

  // DeepSpeed edaa7221 docs/_pages/config-json.md: bf16 master weights, gradients and optimizer
  // states, ZeRO 1-3 only; the gradients are then bf16.
  json ds = priced_for(s, "deepspeed");
  const json config = ds_config(text_of(ds, "deepspeed"));
  EXPECT_EQ(config["bf16"]["bf16_master_weights_and_grads"], true) << config.dump();
  EXPECT_EQ(config["bf16"]["bf16_optimizer_states"], true);
  json ds_zero0 = ds;
  ds_zero0["parallel"]["zero"] = 0;
  EXPECT_TRUE(refused_with(ds_zero0, "deepspeed", "deepspeed.optimizer_state_needs_zero"));
  json ds_fp32_grads = ds;
  ds_fp32_grads["training"]["grad_reduce_in_fp32"] = true;
  EXPECT_TRUE(refused_with(ds_fp32_grads, "deepspeed", "deepspeed.optimizer_state_fp32_grads"));

  // torchtitan b5bcd76c optimizer.implementation "fused_opt_states_bf16"; the TOML job config
  // at 238fa995 has no such choice.
  json titan = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", grid(1, 1, 16, 3), "torchtitan");
  titan["training"]["optimizer_state_dtype"] = "bf16";
  EXPECT_TRUE(contains(text_of(titan, "torchtitan"),
                       "config.optimizer.implementation = \"fused_opt_states_bf16\""));
  EXPECT_TRUE(refused_with(titan, "torchtitan-toml", "torchtitan.optimizer_state_dtype"));
}

TEST(OptimizerStateLaunch, TheSearchKeepsBf16StateOnTheDistributedOptimizer) {
  // megatron.optimizer_state_needs_zero depends on the plan: the search avoids ZeRO-0, which
  // its 50 best plans with fp32 state include.
  json s = pinned("llama3-8b", "h100-sxm", 16, 8192, 64, "bf16", json::object());
  s.erase("parallel");
  const auto zero_stages = [](const json& scenario) {
    pplan::SearchOptions options;
    options.top = 50;
    options.time_budget_s = 1e9;
    std::set<int> stages;
    for (const pplan::Estimate& plan : pplan::search(pplan::testing::scenario_from(scenario.dump()), options).plans)
      stages.insert(plan.parallel.zero);
    return stages;
  };
  EXPECT_EQ(zero_stages(s).count(0), 1u);
  s["training"]["optimizer_state_dtype"] = "bf16";
  const std::set<int> bf16 = zero_stages(s);
  EXPECT_FALSE(bf16.empty());
  EXPECT_EQ(bf16.count(0), 0u);
}

}  // namespace

namespace {

// The MoE dispatch the plan was priced with reaches every launch, or is refused with its source.
TEST(MoeDispatchLaunch, FlexGroupsAndOverlapAreCarriedOrRefused) {
  // DeepSeek-V3 (8 groups, top-4) on 256 H100: tp 1, pp 8, ep 32, flex dispatcher.
  json s = pinned("deepseek-v3", "h100-sxm", 256, 4096, 1024, "fp8", grid(1, 8, 32, 1, "selective", 1, 32));
  s["training"]["moe_dispatcher"] = "flex";
  const std::string text = text_of(s, "megatron");
  EXPECT_TRUE(contains(text, "--moe-token-dispatcher-type flex")) << text;
  EXPECT_TRUE(contains(text, "--moe-flex-dispatcher-backend deepep"));
  EXPECT_TRUE(contains(text, "--moe-router-num-groups 8"));
  EXPECT_TRUE(contains(text, "--moe-router-group-topk 4"));
  const std::string nemo = text_of(s, "nemo");
  EXPECT_TRUE(contains(nemo, "recipe.model.config.moe_token_dispatcher_type = \"flex\"")) << nemo;
  EXPECT_TRUE(contains(nemo, "recipe.model.config.moe_router_group_topk = 4"));
  // Megatron's combined-1F1B overlap needs a virtual pipeline when pp > 1
  // (transformer_config.py:3008) and no full recompute (:3022).
  s["training"]["overlap_moe_expert_parallel_comm"] = true;
  EXPECT_TRUE(refused_with(s, "megatron", "megatron.moe_overlap_needs_vpp"));
  json full = s;
  full["parallel"]["pp"] = 1;
  full["parallel"]["dp"] = 256;
  full["parallel"]["recompute"] = "full";
  EXPECT_TRUE(refused_with(full, "megatron", "megatron.moe_overlap_full_recompute"));
  json flat = full;
  flat["parallel"]["recompute"] = "selective";
  EXPECT_TRUE(contains(text_of(flat, "megatron"), "--overlap-moe-expert-parallel-comm"));
  // DeepSpeed-MoE has one all-to-all and no group-limited gating; torchtitan's launch runs the
  // all-to-all.
  EXPECT_TRUE(refused_with(priced_for(s, "deepspeed"), "deepspeed", "deepspeed.moe_dispatch"));
  EXPECT_TRUE(refused_with(priced_for(s, "torchtitan"), "torchtitan", "torchtitan.moe_dispatch"));
}

}  // namespace

namespace {

TEST(RecomputeModulesLaunch, TheModulesPricedAreTheModulesLaunched) {
  // MLA's default selective recomputation reruns the attention core and the up-projections
  // (their outputs are not kept: memory.cpp), so the launch names both.
  const json ds = pinned("deepseek-v3", "h100-sxm", 256, 4096, 1024, "fp8", grid(1, 8, 32, 1, "selective", 1, 32));
  EXPECT_TRUE(contains(text_of(ds, "megatron"), "--recompute-modules core_attn mla_up_proj")) << text_of(ds, "megatron");
  EXPECT_TRUE(contains(text_of(ds, "nemo"), "recompute_modules = [\"core_attn\", \"mla_up_proj\"]"));
  json mixtral = pinned("mixtral-8x7b", "h100-sxm", 64, 4096, 512, "bf16", grid(1, 1, 64, 1, "selective", 1, 8));
  mixtral["parallel"]["recompute_modules"] = {"layernorm", "moe_act"};
  EXPECT_TRUE(contains(text_of(mixtral, "megatron"), "--recompute-modules layernorm moe_act"));
  // Megatron-DeepSpeed's selective granularity is the attention core alone.
  EXPECT_TRUE(refused_with(priced_for(mixtral, "deepspeed"), "deepspeed", "deepspeed.recompute_modules"));
}

}  // namespace
