// Megatron-LM pretrain_gpt.py arguments, the per-node torchrun script and the SLURM batch
// script. Flag spellings and choices: Megatron-LM's own parser at d98e8a64
// (tests/data/megatron-flags.tsv); constraints: Megatron-LM d98e8a64 megatron/training/arguments.py
// validate_args; launch idioms: §1.6, §6.
#include <vector>
#include <algorithm>
#include <sstream>

#include "detail_launch.h"
#include "pplan/model/architecture.h"

namespace pplan::detail {

namespace {

/// GPT-2 BPE has 50,257 tokens (Radford et al. 2019); Megatron pads any tokenizer's vocabulary
/// to a multiple of --make-vocab-size-divisible-by x TP (Megatron-LM d98e8a64
/// megatron/core/tokenizers/utils/build_tokenizer.py vocab_size_with_padding).
constexpr int kGpt2Vocab = 50257;

/// The --make-vocab-size-divisible-by that pads `tokenizer_vocab` to `priced` at `tp`
/// (Megatron's default 128 when it does), or 0 when no divisor does.
long long vocab_divisor(long long tokenizer_vocab, long long priced, int tp) {
  auto padded = [&](long long d) { return (tokenizer_vocab + d * tp - 1) / (d * tp) * (d * tp); };
  if (padded(128) == priced) return 128;
  // The smallest divisor d·tp of the padded size that pads the tokenizer's vocabulary to it:
  // walk the divisors of `priced` by trial up to its square root (a 10M vocabulary took 0.1 s
  // one multiple at a time, 5 s under the fuzzer's sanitizers).
  std::vector<long long> divisors;
  for (long long d = 1; d * d <= priced; ++d) {
    if (priced % d != 0) continue;
    divisors.push_back(d);
    if (d * d != priced) divisors.push_back(priced / d);
  }
  std::sort(divisors.begin(), divisors.end());
  for (long long multiple : divisors) {
    if (multiple % tp == 0 && padded(multiple / tp) == priced) return multiple / tp;
  }
  return 0;
}

long long priced_vocab(const ModelSpec& model, int tp) {
  return static_cast<long long>(padded_vocab(model, tp));
}

/// Llama-style blocks: rotary positions, RMSNorm, no linear biases. The model spec records
/// positions only, so the other two follow from them (true for every preset).
bool llama_style(const ModelSpec& model) { return !model.learned_positions; }

/// Megatron's --moe-layer-freq list form, one 0/1 per layer as pplan places experts:
/// "([0]*3+[1]*58)" for dense leading layers, "([0,1]*24)" for every other layer.
std::string moe_layer_pattern(const ModelSpec& model) {
  const int dense = model.moe->dense_layers;
  const int every = std::max(1, model.moe->every);
  if (every == 1) return "\"([0]*" + num(dense) + "+[1]*" + num(model.layers - dense) + ")\"";
  std::string period = "[";
  for (int i = 0; i < every; ++i) period += std::string(i ? "," : "") + (i == every - 1 ? "1" : "0");
  period += "]";
  if (dense == 0 && model.layers % every == 0) {
    return "\"(" + period + "*" + num(model.layers / every) + ")\"";
  }
  return "\"[" + per_layer_experts(model, "1", "0", ",") + "]\"";
}

/// The Megatron-Core release every generated script needs: core_v0.14 lacks --ckpt-format
/// fsdp_dtensor; 0.15 and older reject TP above the number of KV heads (measured by running
/// Megatron-LM's argument validation on the generated plans, issue 13).
constexpr const char* kMegatronCoreNote =
    "# Needs Megatron-Core core_v0.16 or newer (core_v0.14 lacks --ckpt-format fsdp_dtensor; 0.15 "
    "and older\n"
    "# reject TP above the number of KV heads); flags as Megatron-LM d98e8a64 spells them.\n";

}  // namespace

bool gpt2_tokenizer(const ModelSpec& model, int tp) {
  return model.learned_positions && vocab_divisor(kGpt2Vocab, priced_vocab(model, tp), tp) > 0;
}

long long megatron_vocab_divisor(const ModelSpec& model, int tp) {
  return gpt2_tokenizer(model, tp) ? vocab_divisor(kGpt2Vocab, priced_vocab(model, tp), tp) : 128;
}

std::vector<FlagGroup> megatron_flags(const Scenario& scenario, const Estimate& plan,
                                      const LaunchFacts& f) {
  const ModelSpec& model = scenario.model;
  const ParallelConfig& p = f.parallel;
  const StageSplit& split = plan.split;
  std::vector<FlagGroup> groups;

  FlagGroup m{"MODEL_ARGS", {}};
  m.flags.push_back({"--num-layers", num(model.layers), ""});
  m.flags.push_back({"--hidden-size", num(model.hidden), ""});
  m.flags.push_back({"--ffn-hidden-size", num(model.ffn_hidden), ""});
  m.flags.push_back({"--num-attention-heads", num(model.heads), ""});
  if (model.kv_heads < model.heads) {
    m.flags.push_back({"--group-query-attention", "", "GQA"});
    m.flags.push_back({"--num-query-groups", num(model.kv_heads), "key/value heads"});
  }
  if (model.head_dim > 0) {
    m.flags.push_back({"--kv-channels", num(model.head_dim), "the head width, decoupled from hidden / heads"});
  }
  if (model.qk_norm) m.flags.push_back({"--qk-layernorm", "", "norms on each head's query and key"});
  if (model.attention_sinks) m.flags.push_back({"--softmax-type", "learnable", "a learned sink logit per head"});
  if (model.local_attention) {
    // Transformer Engine's window (left, right) is inclusive: W keys are (W - 1, 0); layer i is
    // global when (i + 1) % freq == 0 (megatron/core/transformer/utils.py
    // is_layer_window_attention), pplan's convention.
    const LocalAttentionSpec& local = *model.local_attention;
    m.flags.push_back({"--window-size", num(local.tokens - 1) + ",0",
                       "sliding window of " + num(local.tokens) + " keys"});
    if (local.global_every > 0) {
      m.flags.push_back({"--window-attn-skip-freq", num(local.global_every),
                         "one global layer in every " + num(local.global_every)});
    }
  }
  if (model.mtp_layers > 0) {
    m.flags.push_back({"--mtp-num-layers", num(model.mtp_layers), "multi-token prediction"});
  }
  m.flags.push_back({"--seq-length", num(f.seq_len), ""});
  m.flags.push_back({"--max-position-embeddings", num(f.seq_len), "must be >= --seq-length"});
  if (llama_style(model)) {
    m.flags.push_back({"--position-embedding-type", "rope", ""});
    // Megatron's default is 10000 (RoFormer); the model's own theta (Llama 3: 500000).
    m.flags.push_back({"--rotary-base", num(static_cast<long long>(model.rope_theta)),
                       "RoPE theta of the model"});
    m.flags.push_back({"--normalization", "RMSNorm", ""});
    if (model.linear_bias) {
      m.flags.push_back({"--add-qkv-bias", "", "biases on every linear layer, QKV included"});
    } else {
      m.flags.push_back({"--disable-bias-linear", "", "Llama-style: no linear biases"});
    }
  } else {
    m.flags.push_back({"--position-embedding-type", "learned_absolute", ""});
    m.flags.push_back({"--normalization", "LayerNorm", ""});
  }
  if (model.activation == Activation::kSwiglu) m.flags.push_back({"--swiglu", "", ""});
  if (model.activation == Activation::kClampedSwiglu) {
    // gpt-oss's gated MLP: gate·sigmoid(1.702·gate)·(up + 1), both clamped at 7.
    m.flags.push_back({"--quick-geglu", "", "gpt-oss's gate, x·sigmoid(1.702x)"});
    m.flags.push_back({"--glu-linear-offset", "1.0", "(up + 1)"});
    m.flags.push_back({"--activation-func-clamp-value", "7.0", "gate and up clamped at 7"});
  }
  if (!model.tied_embeddings) m.flags.push_back({"--untie-embeddings-and-output-weights", "", ""});
  if (!model.dropout) {
    m.flags.push_back({"--hidden-dropout", "0.0", ""});
    m.flags.push_back({"--attention-dropout", "0.0", ""});
  }
  const long long priced = priced_vocab(model, p.tp);
  if (gpt2_tokenizer(model, p.tp)) {
    m.flags.push_back({"--make-vocab-size-divisible-by", num(megatron_vocab_divisor(model, p.tp)),
                       "GPT-2 BPE: " + num(kGpt2Vocab) + " tokens padded to " + num(priced) +
                           ", the vocabulary pplan prices at TP " + num(p.tp)});
  } else {
    m.flags.push_back({"--make-vocab-size-divisible-by", "128",
                       "a tokenizer of " + num(model.vocab) + " tokens, padded to " + num(priced) +
                           " at TP " + num(p.tp)});
  }
  const std::string backend = !f.flash_attention ? "unfused" : f.ampere ? "flash" : "fused";
  m.flags.push_back(
      {"--attention-backend", backend, backend == "fused" ? "cuDNN fused attention (TE)" : ""});
  groups.push_back(m);

  if (f.moe) {
    const MoeSpec& moe = *model.moe;
    FlagGroup e{"MOE_ARGS", {}};
    e.flags.push_back({"--num-experts", num(moe.experts), ""});
    e.flags.push_back({"--moe-router-topk", num(moe.top_k), ""});
    e.flags.push_back({"--moe-ffn-hidden-size", num(moe.expert_ffn_hidden), ""});
    if (moe.shared_experts > 0) {
      e.flags.push_back({"--moe-shared-expert-intermediate-size",
                         num(1LL * moe.shared_experts * moe.expert_ffn_hidden),
                         num(moe.shared_experts) + " shared expert(s)"});
    }
    if (moe.dense_layers > 0 || moe.every > 1) {
      e.flags.push_back({"--moe-layer-freq", moe_layer_pattern(model),
                         moe.every > 1 ? "experts every " + num(moe.every) + " layers"
                                       : num(moe.dense_layers) + " dense layers first"});
    }
    e.flags.push_back({"--moe-grouped-gemm", "", ""});
    const bool flex = scenario.training.moe_dispatcher == MoeDispatcher::kFlex;
    e.flags.push_back({"--moe-token-dispatcher-type", flex ? "flex" : "alltoall", ""});
    if (flex && scenario.training.cuda_graphs) {
      // The full-iteration graph (below) needs static shapes: HybridEP with a per-rank token
      // budget (Megatron-LM d98e8a64 transformer_config.py:1019), 1.5x a balanced share as
      // NVIDIA's recipes set it (Megatron-Bridge 067f987df perf_recipes/deepseek/common.py).
      e.flags.push_back({"--moe-flex-dispatcher-backend", "hybridep", "one network send per node (HybridEP)"});
      e.flags.push_back({"--moe-expert-rank-capacity-factor", "1.5",
                         "per-rank token budget the graph's static shapes need; HybridEP drops tokens beyond it: "
                         "raise it for unbalanced routing"});
    } else if (flex) {
      e.flags.push_back({"--moe-flex-dispatcher-backend", "deepep", "one network send per node (DeepEP)"});
    }
    if (moe.groups > 0) {
      e.flags.push_back({"--moe-router-num-groups", num(moe.groups), ""});
      e.flags.push_back({"--moe-router-group-topk", num(moe.group_top_k), "group-limited routing"});
    }
    if (scenario.training.overlap_moe_expert_parallel_comm) {
      e.flags.push_back({"--overlap-moe-expert-parallel-comm", "", "EP all-to-all hidden, as priced"});
    }
    e.flags.push_back({"--moe-router-load-balancing-type", "aux_loss", "hyperparameter"});
    e.flags.push_back({"--moe-aux-loss-coeff", "1e-2", "hyperparameter"});
    groups.push_back(e);
  }

  FlagGroup par{"PARALLEL_ARGS", {}};
  par.flags.push_back({"--tensor-model-parallel-size", num(p.tp), ""});
  par.flags.push_back({"--pipeline-model-parallel-size", num(p.pp), ""});
  par.flags.push_back({"--context-parallel-size", num(p.cp), ""});
  if (f.moe) {
    par.flags.push_back({"--expert-model-parallel-size", num(p.ep), ""});
    par.flags.push_back(
        {"--expert-tensor-parallel-size", num(expert_tp(p)),
         expert_tp(p) == p.tp ? "expert TP = TP" : "parallel folding: expert TP differs from TP"});
  }
  if (f.sequence_parallel) par.flags.push_back({"--sequence-parallel", "", ""});
  if (f.tp_overlap) {
    // Transformer Engine userbuffers pipeline the SP all-gather / reduce-scatter with the GEMMs
    // beside them; Megatron allows it only with --sequence-parallel (validate_args).
    par.flags.push_back({"--tp-comm-overlap", "", "TP collectives overlapped with GEMMs, as priced"});
  }
  if (p.pp > 1 && split.chunk_layers > 0) {
    // Megatron's pipeline layout sets the vpp itself and excludes every other split flag
    // (Megatron-LM core_v0.16.0 arguments.py validate_args, transformer_config.py).
    par.flags.push_back({"--pipeline-model-parallel-layout",
                         "\"" + pipeline_layout(split, p.pp, p.vpp, model.mtp_layers) + "\"",
                         "vpp = " + num(p.vpp) + ": chunks of " + num(split.chunk_layers) + " layers, the rest in the last"});
  } else if (p.pp > 1) {
    // Uneven split with explicit first/last counts (cannot combine with account-for, §1.2).
    const bool explicit_split = split.uneven && !split.embedding_counted && !split.loss_counted;
    if (explicit_split) {
      par.flags.push_back({"--decoder-first-pipeline-num-layers", num(split.first_layers), ""});
      par.flags.push_back({"--decoder-last-pipeline-num-layers", num(split.last_layers), ""});
    }
    if (split.embedding_counted) {
      par.flags.push_back({"--account-for-embedding-in-pipeline-split", "",
                           "embedding = one layer on the first stage"});
    }
    if (split.loss_counted) {
      par.flags.push_back(
          {"--account-for-loss-in-pipeline-split", "", "loss = one layer on the last stage"});
    }
    if (p.vpp > 1) {
      if (explicit_split) {
        // Uneven PP + VP must use the stages-per-rank form (validate_args, §1.3.6).
        par.flags.push_back({"--num-virtual-stages-per-pipeline-rank", num(p.vpp), ""});
      } else {
        const int units = split.units_per_stage > 0 ? split.units_per_stage : split.first_layers;
        par.flags.push_back(
            {"--num-layers-per-virtual-pipeline-stage", num(units / p.vpp), "vpp = " + num(p.vpp)});
      }
    }
  }
  if (f.megatron_fsdp) {
    // ZeRO-2/3 in Megatron terms: Megatron-FSDP (Megatron-LM d98e8a64 arguments.py). v1 requires
    // the distributed optimizer; needs --ckpt-format fsdp_dtensor and CUDA_DEVICE_MAX_CONNECTIONS
    // != 1.
    par.flags.push_back({"--use-megatron-fsdp", "", "ZeRO-" + num(p.zero) + " = Megatron-FSDP"});
    par.flags.push_back(
        {"--data-parallel-sharding-strategy", p.zero == 2 ? "optim_grads" : "optim_grads_params",
         p.zero == 2 ? "shard optimizer + gradients" : "shard optimizer + gradients + weights"});
    par.flags.push_back({"--use-distributed-optimizer", "", "Megatron-FSDP v1 runs on it"});
    // As examples/megatron_fsdp/train_llama3_8b_fsdp_h100_fp8.sh; validate_args warns that fused
    // gradient accumulation may not be supported by TE for optim_grads(_params).
    par.flags.push_back({"--no-gradient-accumulation-fusion", "", "as Megatron-FSDP's examples"});
  } else if (p.zero == 1) {
    par.flags.push_back(
        {"--use-distributed-optimizer", "", "ZeRO-1: optimizer state sharded over DP*CP"});
  }
  // As the resolved training switches price them (Megatron's own default is off for both).
  if (f.grad_overlap) {
    par.flags.push_back({"--overlap-grad-reduce", "", "gradient reduction behind the backward"});
  }
  if (f.param_overlap) {
    par.flags.push_back({"--overlap-param-gather", "", "weight all-gather behind the forward"});
  }
  groups.push_back(par);

  FlagGroup t{"TRAINING_ARGS", {}};
  t.flags.push_back({"--micro-batch-size", num(p.micro_batch), ""});
  t.flags.push_back({"--global-batch-size", num(f.global_batch),
                     num(f.microbatches) + " micro-batches per step"});
  t.flags.push_back({"--train-iters", "\"$TRAIN_ITERS\"", ""});
  if (p.recompute == Recompute::kSelective) {
    t.flags.push_back({"--recompute-granularity", "selective", ""});
    t.flags.push_back({"--recompute-modules", recompute_module_list(p, scenario.model, "", " "), "modules rerun, as priced"});
  } else if (p.recompute == Recompute::kFull) {
    t.flags.push_back({"--recompute-granularity", "full", ""});
    if (f.recompute_layers > 0) {
      // Block method: the first N layers of every model chunk recompute, the rest keep their
      // activations (Megatron-LM d98e8a64 megatron/core/recompute.py, method "block").
      t.flags.push_back({"--recompute-method", "block", ""});
      t.flags.push_back({"--recompute-num-layers", num(f.recompute_layers),
                         "layers recomputed per model chunk"});
    } else {
      t.flags.push_back({"--recompute-method", "uniform", ""});
      t.flags.push_back({"--recompute-num-layers", "1", "every layer keeps only its input"});
    }
  }
  t.flags.push_back({"--bf16", "", ""});
  // With --bf16 Megatron accumulates and reduces gradients in fp32 unless told otherwise
  // (validate_args); say which, as priced.
  if (f.grad_fp32) {
    t.flags.push_back({"--accumulate-allreduce-grads-in-fp32", "", "fp32 main gradients"});
  } else {
    t.flags.push_back({"--grad-reduce-in-bf16", "", "bf16 gradients, as NVIDIA's recipes"});
  }
  if (f.bf16_optimizer_state) {
    // Megatron-LM d98e8a64 optimizer_config.py: bf16 moments; the fp32 main params keep only
    // the 16 bits the bf16 weights lack (store_param_remainders, on by default): 6 bytes.
    t.flags.push_back({"--use-precision-aware-optimizer", "", "bf16 Adam state, as priced"});
    t.flags.push_back({"--exp-avg-dtype", "bf16", ""});
    t.flags.push_back({"--exp-avg-sq-dtype", "bf16", ""});
  }
  if (f.fp8 && f.fp8_recipe == Fp8Recipe::kNvfp4) {
    // NVFP4 replaces FP8 (arguments.py: fp4 and fp8 are exclusive): Transformer Engine's
    // NVFP4BlockScaling (megatron/core/fp4_utils.py), with NVFP4 weights gathered as priced.
    t.flags.push_back({"--fp4-format", "e2m1", "4-bit E2M1 GEMM inputs, an E4M3 scale per 16"});
    t.flags.push_back({"--fp4-recipe", "nvfp4", "Transformer Engine NVFP4BlockScaling"});
    if (f.fp8_params) t.flags.push_back({"--fp4-param-gather", "", "NVFP4 weights, gathered in NVFP4, as priced"});
  } else if (f.fp8) {
    // Megatron-LM d98e8a64 megatron/core/fp8_utils.py: delayed -> DelayedScaling, tensorwise ->
    // Float8CurrentScaling (pplan's "current"), blockwise -> Float8BlockScaling, mxfp8 ->
    // MXFP8BlockScaling. Weights as priced (memory.h): FP8 parameters with --fp8-param-gather,
    // else bf16 beside Transformer Engine's FP8 copies.
    const bool blockwise = f.fp8_recipe == Fp8Recipe::kBlockwise;
    t.flags.push_back({"--fp8-format", blockwise ? "e4m3" : "hybrid",
                       blockwise ? "as Megatron's blockwise example (nemotron5p5_12b_H.sh)"
                                 : "e4m3 forward, e5m2 gradients"});
    switch (f.fp8_recipe) {
      case Fp8Recipe::kDelayed:
        t.flags.push_back({"--fp8-recipe", "delayed", "scales from an amax history"});
        t.flags.push_back({"--fp8-amax-history-len", "1024", "as Megatron's Llama 3 FP8 example"});
        t.flags.push_back({"--fp8-amax-compute-algo", "max", ""});
        break;
      case Fp8Recipe::kCurrent:
        t.flags.push_back({"--fp8-recipe", "tensorwise", "current scaling, one scale per tensor"});
        break;
      case Fp8Recipe::kBlockwise:
        t.flags.push_back({"--fp8-recipe", "blockwise", "128x128 weights, 1x128 activations"});
        break;
      case Fp8Recipe::kMxfp8:
        t.flags.push_back({"--fp8-recipe", "mxfp8", "Blackwell block scaling, 1x32"});
        break;
      case Fp8Recipe::kNvfp4: break;  // above
    }
    if (f.fp8_params) t.flags.push_back({"--fp8-param-gather", "", "FP8 weights, gathered in FP8, as priced"});
  }
  if (p.offload_layers > 0) {
    // Megatron-LM d98e8a64 arguments.py:1950: a layer count sets cpu_offloading; activations
    // are offloaded and weights are not by default (model_parallel_config.py:471, :474), as priced.
    t.flags.push_back({"--cpu-offloading-num-layers", std::to_string(p.offload_layers),
                       "the first layers' activations kept in host memory, as priced"});
  }
  if (f.cuda_graphs) {
    // Megatron's per-layer graphs (--cuda-graph-impl local, the successor of --enable-cuda-graph
    // that NeMo's performance scripts set), which need Transformer Engine's RNG tracker; a MoE
    // model's experts are captured only by the full-iteration graph (framework/rules.cpp).
    if (f.moe) {
      t.flags.push_back({"--cuda-graph-impl", "full_iteration", "forward and backward replayed from one CUDA graph"});
    } else {
      t.flags.push_back({"--cuda-graph-impl", "local", "layers replayed from CUDA graphs"});
    }
    t.flags.push_back({"--te-rng-tracker", "", "required by CUDA graphs"});
  }
  t.flags.push_back({"--lr", "1.5e-4", "hyperparameter: typical value, tune"});
  t.flags.push_back({"--min-lr", "1.5e-5", "hyperparameter"});
  t.flags.push_back({"--lr-decay-style", "cosine", "hyperparameter"});
  t.flags.push_back({"--lr-warmup-fraction", "0.01", "hyperparameter"});
  t.flags.push_back({"--weight-decay", "0.1", "hyperparameter"});
  t.flags.push_back({"--clip-grad", "1.0", ""});
  t.flags.push_back({"--adam-beta1", "0.9", ""});
  t.flags.push_back({"--adam-beta2", "0.95", ""});
  groups.push_back(t);

  FlagGroup d{"DATA_ARGS", {}};
  d.flags.push_back({"--data-path", "\"$DATA_PATH\"", "PLACEHOLDER (set above)"});
  d.flags.push_back({"--split", "99,1,0", ""});
  if (gpt2_tokenizer(model, p.tp)) {
    d.flags.push_back({"--tokenizer-type", "GPT2BPETokenizer", ""});
    d.flags.push_back({"--vocab-file", "\"$VOCAB_FILE\"", "PLACEHOLDER"});
    d.flags.push_back({"--merge-file", "\"$MERGE_FILE\"", "PLACEHOLDER"});
  } else {
    d.flags.push_back({"--tokenizer-type", "HuggingFaceTokenizer", ""});
    d.flags.push_back({"--tokenizer-model", "\"$TOKENIZER_MODEL\"", "PLACEHOLDER"});
  }
  groups.push_back(d);

  FlagGroup c{"CHECKPOINT_ARGS", {}};
  c.flags.push_back({"--save", "\"$CHECKPOINT_DIR\"", "PLACEHOLDER"});
  c.flags.push_back({"--load", "\"$CHECKPOINT_DIR\"", ""});
  c.flags.push_back({"--save-interval", "1000", ""});
  c.flags.push_back({"--ckpt-format", f.megatron_fsdp ? "fsdp_dtensor" : "torch_dist",
                     f.megatron_fsdp ? "required by Megatron-FSDP" : ""});
  c.flags.push_back({"--log-interval", "10", ""});
  c.flags.push_back({"--log-throughput", "", ""});
  c.flags.push_back({"--eval-interval", "1000", ""});
  c.flags.push_back({"--eval-iters", "10", ""});
  c.flags.push_back({"--tensorboard-dir", "\"$CHECKPOINT_DIR/tensorboard\"", ""});
  groups.push_back(c);
  return groups;
}

std::string megatron_placeholders(const Scenario& scenario, const LaunchFacts& f) {
  std::ostringstream out;
  out << "# ---- PLACEHOLDERS: site-specific values, edit before running ----\n";
  out << "MEGATRON_DIR=${MEGATRON_DIR:-/path/to/Megatron-LM}             # PLACEHOLDER: "
         "Megatron-LM checkout\n";
  out << "DATA_PATH=${DATA_PATH:-/path/to/corpus_text_document}          # PLACEHOLDER: .bin/.idx "
         "prefix from preprocess_data.py\n";
  if (gpt2_tokenizer(scenario.model, f.parallel.tp)) {
    out << "VOCAB_FILE=${VOCAB_FILE:-/path/to/gpt2-vocab.json}              # PLACEHOLDER\n";
    out << "MERGE_FILE=${MERGE_FILE:-/path/to/gpt2-merges.txt}              # PLACEHOLDER\n";
  } else {
    out << "TOKENIZER_MODEL=${TOKENIZER_MODEL:-/path/to/tokenizer}         # PLACEHOLDER: HF "
           "tokenizer of "
        << scenario.model.vocab << " tokens, id or path\n";
  }
  out << "CHECKPOINT_DIR=${CHECKPOINT_DIR:-/path/to/checkpoints}          # PLACEHOLDER\n";
  if (f.train_iters > 0) {
    out << "TRAIN_ITERS=" << f.train_iters << "  # token budget / " << f.tokens_per_step
        << " tokens per step\n";
  } else {
    out << "TRAIN_ITERS=${TRAIN_ITERS:-1000}  # PLACEHOLDER: no token_budget in the scenario\n";
  }
  out << "# Smoke test without data: replace DATA_ARGS with (--mock-data --tokenizer-type "
         "NullTokenizer --vocab-size "
      << priced_vocab(scenario.model, f.parallel.tp) << ")\n";
  return out.str();
}

/// Why ZeRO-2/3 become Megatron-FSDP, said once in every Megatron-based script.
std::string zero_note(const LaunchFacts& f) {
  if (!f.megatron_fsdp) return "";
  const ParallelConfig& p = f.parallel;
  std::string note = "# ZeRO-" + num(p.zero) +
                     ": Megatron-LM has no ZeRO-2/3 switch; the equivalent is Megatron-FSDP "
                     "(--use-megatron-fsdp, --data-parallel-sharding-strategy " +
                     std::string(p.zero == 2 ? "optim_grads" : "optim_grads_params") +
                     "), which needs --ckpt-format fsdp_dtensor\n"
                     "# and CUDA_DEVICE_MAX_CONNECTIONS != 1 (Megatron asserts both; Megatron-LM "
                     "d98e8a64 arguments.py, §1.3.12).\n";
  if ((p.tp > 1 || p.cp > 1) && !f.blackwell) {
    note +=
        "# With TP/CP before Blackwell Megatron only warns: TP overlap prefers 1, FSDP prefers "
        "more queues.\n";
  }
  return note;
}

std::string slurm_segment_line(const LaunchFacts& f) {
  // SchedMD/slurm 6b48b165 (24.05) doc/man/man1/sbatch.1 --segment: with topology/block, the
  // allocation is made of segments of this many nodes, each inside one base block; the node
  // count must be a multiple of it, and a job within one segment is unaffected.
  if (!f.mnnvl || f.nodes <= f.nodes_per_domain || f.nodes % f.nodes_per_domain != 0) return "";
  return "#SBATCH --segment=" + num(f.nodes_per_domain) + "\n";
}

std::string domain_note(const LaunchFacts& f) {
  if (!f.mnnvl) return "";
  const long long domains = (f.nodes + f.nodes_per_domain - 1) / f.nodes_per_domain;
  std::string note = "# NVLink domains of " + num(f.nvlink_domain_gpus) + " GPUs = " +
                     num(f.nodes_per_domain) + " nodes of " + num(f.gpus_per_node) +
                     " GPUs: the job's " + num(f.nodes) + " nodes fill " + num(domains) +
                     " domain" + (domains == 1 ? "" : "s") +
                     "; pplan prices ranks [k*" + num(f.nvlink_domain_gpus) + ", (k+1)*" +
                     num(f.nvlink_domain_gpus) + ") in domain k (rank order = node order).\n";
  if (f.nodes <= f.nodes_per_domain) {
    note +=
        "# The job fits one domain: Slurm's topology/block places it in one base block (one "
        "NVL rack) when the\n# site defines a block per rack (topology.conf BlockName=...).\n";
  } else if (f.nodes % f.nodes_per_domain == 0) {
    note += "# --segment=" + num(f.nodes_per_domain) +
            " keeps every domain's nodes in one base block (Slurm >= 24.05, "
            "TopologyPlugin=topology/block\n# with one block per rack).\n";
  } else {
    note += "# WARNING: " + num(f.nodes) + " nodes are not a whole number of " +
            num(f.nodes_per_domain) +
            "-node domains: Slurm cannot be asked for the partial last domain pplan prices;\n"
            "# prefer a world of whole domains.\n";
  }
  return note;
}

std::string megatron_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const std::vector<FlagGroup> groups = megatron_flags(scenario, plan, f);
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << plan_header(scenario, plan, f, "Megatron-LM pretrain_gpt.py launch");
  out << kMegatronCoreNote;
  if (f.nodes > 1) {
    out << "# Run this script once on every node with NODE_RANK = 0.." << (f.nodes - 1)
        << " (static rendezvous, as Megatron's examples do);\n";
  } else {
    out << "# One node: run this script once;\n";
  }
  out << "# --format slurm wraps the same arguments in an sbatch script.\n";
  out << domain_note(f);
  out << zero_note(f);
  out << "set -euo pipefail\n\n";
  out << megatron_placeholders(scenario, f);
  out << "MASTER_ADDR=${MASTER_ADDR:-localhost}  # node 0's address (PLACEHOLDER on multi-node "
         "runs)\n";
  out << "MASTER_PORT=${MASTER_PORT:-29500}\n";
  out << "NODE_RANK=${NODE_RANK:-0}\n\n";
  out << "# ---- environment (--format env explains each line) ----\n";
  out << environment_block(f) << "\n";
  out << "DISTRIBUTED_ARGS=(\n";
  out << "    --nproc_per_node " << f.nproc_per_node << "\n";
  out << "    --nnodes " << f.nodes << "\n";
  out << "    --node_rank \"$NODE_RANK\"\n";
  out << "    --master_addr \"$MASTER_ADDR\"\n";
  out << "    --master_port \"$MASTER_PORT\"\n";
  out << ")\n";
  out << render_flag_arrays(groups) << "\n";
  out << "torchrun \"${DISTRIBUTED_ARGS[@]}\" \"$MEGATRON_DIR/pretrain_gpt.py\" \\\n";
  out << array_references(groups, "    ");
  return out.str();
}

std::string slurm_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const std::vector<FlagGroup> groups = megatron_flags(scenario, plan, f);
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << "#SBATCH --job-name=pplan-" << safe_id(scenario.model.id) << "\n";
  out << "#SBATCH --nodes=" << f.nodes << "\n";
  out << "#SBATCH --ntasks-per-node=1\n";
  out << "#SBATCH --gpus-per-node=" << f.nproc_per_node << "\n";
  out << slurm_segment_line(f);
  out << "#SBATCH --cpus-per-task=64\n";
  out << "#SBATCH --exclusive\n";
  out << "#SBATCH --mem=0\n";
  out << "#SBATCH --time=04:00:00\n";
  out << "#SBATCH --account=PLACEHOLDER_ACCOUNT\n";
  out << "#SBATCH --partition=PLACEHOLDER_PARTITION\n";
  out << plan_header(scenario, plan, f, "SLURM batch script for Megatron-LM");
  out << kMegatronCoreNote;
  out << "# Pattern A (default): one SLURM task per node, each running torchrun for its "
      << f.nproc_per_node << " GPUs (c10d rendezvous).\n";
  out << "# Pattern B (one task per GPU, no torchrun) is at the end of this file.\n";
  out << "# PLACEHOLDERS in the header: --account, --partition, --time, --cpus-per-task (cores per "
         "node).\n";
  out << domain_note(f);
  out << zero_note(f);
  out << "set -euo pipefail\n\n";
  out << megatron_placeholders(scenario, f);
  out << "# PLACEHOLDER (pyxis/enroot sites): container image and mounts for srun, or leave "
         "empty.\n";
  out << "SRUN_CONTAINER_ARGS=()  # e.g. (--container-image=nvcr.io/nvidia/pytorch:YY.MM-py3 "
         "--container-mounts=/data:/data)\n";
  // SchedMD/slurm d848512f (22.05): srun stopped reading SLURM_CPUS_PER_TASK and reads
  // SRUN_CPUS_PER_TASK instead (until 9807bafa, 23.02.5); harmless on other versions.
  out << "# Slurm 22.05 to 23.02.4: srun no longer inherits --cpus-per-task, so the torchrun "
         "workers would share one core.\n";
  out << "export SRUN_CPUS_PER_TASK=\"$SLURM_CPUS_PER_TASK\"\n\n";
  out << "# Rendezvous on the first node of the allocation.\n";
  out << "head_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";
  out << "export MASTER_ADDR=$(srun --nodes=1 --ntasks=1 -w \"$head_node\" hostname --ip-address | "
         "awk '{print $1}')\n";
  out << "export MASTER_PORT=29500\n\n";
  out << "# ---- environment (--format env explains each line) ----\n";
  out << environment_block(f) << "\n";
  out << render_flag_arrays(groups) << "\n";
  out << "srun --kill-on-bad-exit=1 " << maybe_empty_array("SRUN_CONTAINER_ARGS") << " \\\n";
  out << "    torchrun --nnodes " << f.nodes << " --nproc_per_node " << f.nproc_per_node
      << " --rdzv_id \"$SLURM_JOB_ID\" --rdzv_backend c10d --rdzv_endpoint "
         "\"$MASTER_ADDR:$MASTER_PORT\" \\\n";
  out << "    \"$MEGATRON_DIR/pretrain_gpt.py\" \\\n";
  out << array_references(groups, "    ");
  out << "\n# ---- Pattern B (alternative): one SLURM task per GPU, no torchrun ----\n";
  out << "# In the header use --ntasks-per-node=" << f.nproc_per_node
      << " and drop --cpus-per-task, then replace the srun above with:\n";
  out << "# srun --mpi=pmix --kill-on-bad-exit=1 " << maybe_empty_array("SRUN_CONTAINER_ARGS")
      << " bash -c \\\n";
  out << "#     'export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID; "
         "exec python \"$0\" \"$@\"' \\\n";
  out << "#     \"$MEGATRON_DIR/pretrain_gpt.py\" \\\n";
  std::string refs = array_references(groups, "#     ");
  out << refs;
  out << "# (pyxis with a PyTorch image exports RANK/WORLD_SIZE/LOCAL_RANK itself: enroot hook "
         "50-slurm-pytorch.sh.)\n";
  return out.str();
}

}  // namespace pplan::detail
