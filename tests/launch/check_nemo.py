"""pplan's NeMo scripts, run against a stub of NeMo's recipes and NeMo-Run (tests/data/stub_nemo.py).

Usage: python3 check_nemo.py PPLAN_CLI REPO_ROOT

Each scenario's `pplan launch --format nemo` script is executed with the stub modules; the
recipe it hands to run.run must have, for every plan-relevant key (architecture, vocabulary,
recompute, parallelism, DDP, optimizer, precision, data, steps, callbacks), the value derived
here from the scenario, and no other key of the recipe may differ from what NeMo's recipe
builds; the SlurmExecutor must carry a time limit. Standard library only; exits 1 on failure.
"""

import json
import math
import os
import re
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import stub_nemo  # noqa: E402

stub_nemo.install()
torch = stub_nemo.torch
failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def example(name):
    with open(os.path.join(ROOT, "examples", name + ".json")) as f:
        return json.load(f)


def preset(model_id):
    with open(os.path.join(ROOT, "core", "presets", "models", model_id + ".json")) as f:
        return json.load(f)


def scenario(model, gpu, gpus, seq, batch, precision, tp, pp, dp, zero, recompute="full", cp=1, ep=1, vpp=1,
             overlap=False, first=None, last=None, budget=None, optimizer_state_dtype=None):
    parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep, "vpp": vpp, "micro_batch": 1,
                "sequence_parallel": tp > 1, "recompute": recompute, "zero": zero}
    if first:
        parallel["first_stage_layers"], parallel["last_stage_layers"] = first, last
    training = {"seq_len": seq, "global_batch": batch, "precision": precision, "overlap_grad_reduce": overlap,
                "overlap_param_gather": overlap}
    if budget:
        training["token_budget"] = budget
    if optimizer_state_dtype:
        training["optimizer_state_dtype"] = optimizer_state_dtype
    return {"schema_version": 1, "model": model, "cluster": {"gpu": gpu, "gpus": gpus, "gpus_per_node": 8},
            "training": training, "parallel": parallel}


CUSTOM_MOE = {"name": "custom MoE", "layers": 16, "hidden": 2048, "heads": 16, "kv_heads": 4, "ffn_hidden": 5632,
              "vocab": 32000, "activation": "swiglu", "rope_theta": 1000000,
              "moe": {"experts": 8, "top_k": 2, "shared_experts": 1, "expert_ffn_hidden": 1408, "dense_layers": 1}}
CUSTOM_GPT = {"name": "GPT 18.4B", "layers": 40, "hidden": 6144, "heads": 48, "kv_heads": 48, "ffn_hidden": 24576,
              "vocab": 51200, "activation": "gelu"}
CASES = [
    ("gpt3-175b example", example("gpt3-175b-1024-a100")),
    ("llama3-70b fp8 example", example("launch-llama3-70b-64-h100-fp8")),
    ("deepseek-v3 example", example("launch-deepseek-v3-1024-h100")),
    ("llama3-8b b200 fsdp example", example("launch-llama3-8b-8-b200-fsdp")),
    ("llama3-405b 8k example (the llama3-405b preset)", example("llama3-405b-8k-16384-h100")),
    ("mixtral", scenario("mixtral-8x7b", "h100-sxm", 64, 4096, 256, "bf16", 1, 4, 16, 1, ep=8, vpp=8)),
    ("custom MoE", scenario(CUSTOM_MOE, "h100-sxm", 16, 4096, 64, "bf16", 1, 1, 16, 1, ep=4, recompute="selective")),
    ("custom GPT", scenario(CUSTOM_GPT, "a100-80gb", 256, 2048, 1024, "bf16", 8, 4, 8, 0, overlap=True)),
    ("llama3-405b pp16", scenario("llama3-405b", "h100-sxm", 256, 8192, 64, "bf16", 8, 16, 2, 1, vpp=2)),
    ("llama3-8b fp8 on b200", scenario("llama3-8b", "b200", 16, 8192, 64, "fp8", 2, 2, 4, 1, budget=1e9)),
    ("llama3-70b bf16 adam state", scenario("llama3-70b", "h100-sxm", 64, 8192, 128, "bf16", 8, 2, 4, 1,
                                            optimizer_state_dtype="bf16")),
    ("llama3-8b uneven", scenario("llama3-8b", "h100-sxm", 32, 8192, 64, "bf16", 8, 4, 1, 2, first=6, last=6,
                                  recompute="none")),
]
RECIPE_OF = {"llama3-8b": "llama3_8b", "llama3-70b": "llama3_70b", "llama3-405b": "llama31_405b",
             "gpt3-175b": "gpt3_175b", "mixtral-8x7b": "mixtral_8x7b", "deepseek-v3": "deepseek_v3"}


def launch(s):
    return checks.run(CLI, s, "launch", "--format", "nemo")


def flatten(value, prefix=""):
    """A recipe as {dotted path: value}; callbacks and plugins compared whole."""
    out = {}
    if isinstance(value, stub_nemo.Config):
        for key, v in value.resolved().items():
            path = prefix + key
            if isinstance(v, stub_nemo.Config) and key not in ("plugins",):
                out.update(flatten(v, path + "."))
            else:
                out[path] = v
    return out


def expected_split(s, model):
    layers, pp = model["layers"], s["parallel"]["pp"]
    first = s["parallel"].get("first_stage_layers")
    if pp == 1:
        return None, None, False, False
    if first:
        return first, s["parallel"]["last_stage_layers"], False, False
    if layers % pp == 0:
        return None, None, False, False
    if (layers + 2) % pp == 0:
        return None, None, True, True
    if (layers + 1) % pp == 0:
        return None, None, True, False
    per = -(-layers // pp)
    rest = layers - (pp - 2) * per
    return rest // 2, rest - rest // 2, False, False


def resolved(s):
    """The plan and training switches the engine resolves (pinned fields, the framework's
    defaults), from `pplan evaluate`."""
    r = checks.run(CLI, s, "evaluate")
    out = json.loads(r.stdout)
    return out["parallel"], dict(s["training"], **out["training"])


def check(name, s):
    if s["training"].get("framework", "megatron-core") not in ("megatron-core", "megatron-lm"):
        s = dict(s, training=dict(s["training"], framework="megatron-core"))  # NeMo runs Megatron-Core
    parallel, training = resolved(s)
    s = dict(s, parallel=parallel, training=training)
    stub_nemo.calls.clear()
    stub_nemo.runs.clear()
    r = launch(s)
    if r.returncode != 0:
        fail(name, f"refused: {r.stderr.strip()}")
        return
    exec(compile(r.stdout, "pplan_nemo.py", "exec"), {"__name__": "__main__"})
    if len(stub_nemo.runs) != 1 or len(stub_nemo.calls) != 1:
        fail(name, "the script must build one recipe and run it once")
        return
    recipe, executor, _ = stub_nemo.runs[0]
    recipe_name, kwargs = stub_nemo.calls[0]
    inline = isinstance(s["model"], dict)
    model = dict(s["model"]) if inline else preset(s["model"])
    if inline:  # json_io's defaults by activation
        gpt = model["activation"] == "gelu"
        for key in ("tied_embeddings", "dropout", "learned_positions"):
            model.setdefault(key, gpt)
        model.setdefault("rope_theta", None if gpt else 10000)
    exact = not inline and s["model"] in RECIPE_OF
    want_recipe = RECIPE_OF[s["model"]] if exact else ("gpt3_175b" if model["learned_positions"] else "llama3_8b")
    if recipe_name != want_recipe:
        fail(name, f"recipe {recipe_name}, expected {want_recipe}")
    p, t = s["parallel"], s["training"]
    tp, pp, dp, cp, ep, vpp, zero, mb = (p["tp"], p["pp"], p["dp"], p["cp"], p["ep"], p.get("vpp", 1), p["zero"],
                                         p.get("micro_batch", 1))
    gpus, gpn = s["cluster"]["gpus"], s["cluster"].get("gpus_per_node", 8)
    nodes, per_node = (gpus // gpn, gpn) if gpus > gpn else (1, gpus)
    deepseek = recipe_name == "deepseek_v3"
    want_kwargs = dict(dir="/path/to/checkpoints", name="pplan", num_nodes=nodes, num_gpus_per_node=per_node)
    if deepseek:
        want_kwargs["use_mtp"] = False
    if kwargs != want_kwargs:
        fail(name, f"pretrain_recipe{kwargs}, expected {want_kwargs}")
    base = stub_nemo.base_recipe(recipe_name, nodes, per_node, **({"use_mtp": False} if deepseek else {}))

    moe = model.get("moe")
    multiple = 128 * tp
    # The resolved switches as priced: DP overlap only with DP, TP overlap only with SP.
    grad_overlap = t["overlap_grad_reduce"] and dp * cp > 1
    param_overlap = t["overlap_param_gather"] and zero >= 1 and dp * cp > 1
    tp_overlap = t["tp_comm_overlap"] and p["sequence_parallel"] and tp > 1
    bf16_state = t.get("optimizer_state_dtype") == "bf16"
    moments = torch.bfloat16 if bf16_state else torch.float32
    e = {  # expected values of every key the plan decides
        "model.config.seq_length": t["seq_len"],
        "model.config.vocab_size": math.ceil(model["vocab"] / multiple) * multiple,
        "model.config.hidden_dropout": 0.1 if model["dropout"] else 0.0,
        "model.config.attention_dropout": 0.1 if model["dropout"] else 0.0,
        "data.seq_length": t["seq_len"], "data.global_batch_size": t["global_batch"], "data.micro_batch_size": mb,
        "trainer.max_steps": math.ceil(t["token_budget"] / (t["global_batch"] * t["seq_len"])) if t.get("token_budget") else 1000,
        "trainer.strategy.tensor_model_parallel_size": tp,
        "trainer.strategy.pipeline_model_parallel_size": pp,
        "trainer.strategy.virtual_pipeline_model_parallel_size": vpp if vpp > 1 else None,
        "trainer.strategy.context_parallel_size": cp,
        "trainer.strategy.sequence_parallel": p["sequence_parallel"] and tp > 1,
        "trainer.strategy.expert_model_parallel_size": ep,
        "trainer.strategy.expert_tensor_parallel_size": tp if moe else None,
        "trainer.strategy.ddp.overlap_grad_reduce": grad_overlap,
        "trainer.strategy.ddp.overlap_param_gather": param_overlap,
        "trainer.strategy.ddp.grad_reduce_in_fp32": t["grad_reduce_in_fp32"],
        "optim.config.use_distributed_optimizer": zero >= 1,
        # Megatron-Core's precision-aware optimizer for bf16 Adam state; fp32 main params (kept as
        # 16-bit remainders beside the bf16 weights, optimizer_config.py) either way.
        "optim.config.use_precision_aware_optimizer": bf16_state,
        "optim.config.main_params_dtype": torch.float32, "optim.config.main_grads_dtype": torch.float32,
        "optim.config.exp_avg_dtype": moments, "optim.config.exp_avg_sq_dtype": moments,
    }
    first, last, emb, loss = expected_split(s, model)
    e["trainer.strategy.num_layers_in_first_pipeline_stage"] = first
    e["trainer.strategy.num_layers_in_last_pipeline_stage"] = last
    e["trainer.strategy.account_for_embedding_in_pipeline_split"] = emb
    e["trainer.strategy.account_for_loss_in_pipeline_split"] = loss
    if pp > 1:
        e["trainer.strategy.pipeline_dtype"] = torch.bfloat16
    if zero >= 2:
        e["trainer.strategy.fsdp"] = "megatron"
        e["trainer.strategy.ddp.data_parallel_sharding_strategy"] = "optim_grads" if zero == 2 else "optim_grads_params"
        e["trainer.strategy.ddp.average_in_collective"] = False
        e["trainer.strategy.save_ckpt_format"] = "fsdp_dtensor"
    recompute = p["recompute"]
    e["model.config.recompute_granularity"] = None if recompute == "none" else recompute
    partial = recompute == "full" and p.get("recompute_layers", 0) > 0  # Megatron's block method
    e["model.config.recompute_method"] = ("block" if partial else "uniform") if recompute == "full" else None
    e["model.config.recompute_num_layers"] = (p["recompute_layers"] if partial else 1) if recompute == "full" else None
    e["model.config.recompute_modules"] = ["core_attn"] if recompute == "selective" else None
    if not model["learned_positions"]:
        e["model.config.rotary_base"] = model["rope_theta"]
    if not exact:
        llama = not model["learned_positions"]
        swiglu = model["activation"] == "swiglu"
        e.update({
            "model.config.num_layers": model["layers"], "model.config.hidden_size": model["hidden"],
            "model.config.ffn_hidden_size": model["ffn_hidden"], "model.config.num_attention_heads": model["heads"],
            "model.config.num_query_groups": model["kv_heads"],
            "model.config.position_embedding_type": "rope" if llama else "learned_absolute",
            "model.config.normalization": "RMSNorm" if llama else "LayerNorm",
            "model.config.add_bias_linear": not llama, "model.config.gated_linear_unit": swiglu,
            "model.config.activation_func": stub_nemo.silu if swiglu else stub_nemo.gelu,
            "model.config.share_embeddings_and_output_weights": model["tied_embeddings"],
        })
    if moe:
        e["model.config.moe_grouped_gemm"] = True
        e["model.config.moe_token_dispatcher_type"] = "alltoall"
        if not exact:
            d = moe["dense_layers"]
            e.update({
                "model.config.num_moe_experts": moe["experts"], "model.config.moe_router_topk": moe["top_k"],
                "model.config.moe_ffn_hidden_size": moe["expert_ffn_hidden"],
                "model.config.moe_shared_expert_intermediate_size":
                    moe["shared_experts"] * moe["expert_ffn_hidden"] if moe["shared_experts"] else None,
                "model.config.moe_layer_freq": [0] * d + [1] * (model["layers"] - d) if d else 1,
                "model.config.moe_router_load_balancing_type": "aux_loss", "model.config.moe_aux_loss_coeff": 1e-2,
            })
    if deepseek:
        e["model.config.mtp_num_layers"] = None
    if deepseek or tp_overlap:
        callbacks = [stub_nemo.Config(stub_nemo.TimingCallback)]
        if tp_overlap:
            callbacks.append(stub_nemo.Config(stub_nemo.MegatronCommOverlapCallback, tp_comm_overlap=True,
                                              overlap_grad_reduce=grad_overlap, overlap_param_gather=param_overlap))
        e["trainer.callbacks"] = callbacks
    # Precision: NeMo's plugin for the priced FP8 recipe; weights gathered in FP8 or bf16 as priced
    # (the engine's resolved training.fp8_param_gather).
    fp8 = t["precision"] == "fp8"
    plugins = {"delayed": stub_nemo.bf16_with_fp8_mixed, "current": stub_nemo.bf16_with_fp8_current_scaling_mixed,
               "blockwise": stub_nemo.bf16_with_fp8_subchannel_scaling_mixed, "mxfp8": stub_nemo.bf16_with_mxfp8_mixed}
    plugin = plugins[t["fp8_recipe"]]() if fp8 else stub_nemo.bf16_mixed()
    plugin.grad_reduce_in_fp32 = t["grad_reduce_in_fp32"]
    if fp8:
        plugin.fp8_param_gather = t["fp8_param_gather"]
        if t["fp8_recipe"] == "current":
            plugin.first_last_layers_bf16 = False
        if t["fp8_recipe"] == "mxfp8":
            plugin.reuse_grad_buf_for_mxfp8_param_ag = False
    e["trainer.plugins"] = plugin

    # Real data: PreTrainingDataModule over placeholder paths with a placeholder tokenizer, its
    # other parameters NeMo's defaults (never the recipe's MockDataModule of random tokens).
    if recipe.data._target is not stub_nemo.PreTrainingDataModule:
        fail(name, f"trains on {recipe.data._target.name}, not PreTrainingDataModule")
    real_data = stub_nemo.Config(stub_nemo.PreTrainingDataModule, paths=["/path/to/corpus_text_document"],
                                 tokenizer=stub_nemo.Config(stub_nemo.AutoTokenizer,
                                                            pretrained_model_name="PLACEHOLDER_HF_TOKENIZER"))
    base.data = real_data
    result, before = flatten(recipe), flatten(base)
    checks.compare(fail, name, result, before, e)
    # The architecture that trains is the priced one (the recipe's own for exact presets).
    c = recipe.model.config
    arch_now = (c.num_layers, c.hidden_size, c.ffn_hidden_size, c.num_attention_heads)
    if arch_now != (model["layers"], model["hidden"], model["ffn_hidden"], model["heads"]):
        fail(name, f"NeMo trains {arch_now}, pplan prices {model['layers'], model['hidden'], model['ffn_hidden'], model['heads']}")
    if not deepseek and (c.num_query_groups or c.num_attention_heads) != model["kv_heads"]:
        fail(name, f"{c.num_query_groups} query groups, pplan prices {model['kv_heads']}")
    if moe:
        layout = [0] * moe["dense_layers"] + [1] * (model["layers"] - moe["dense_layers"])
        freq = c.moe_layer_freq if isinstance(c.moe_layer_freq, list) else [1] * model["layers"]
        if (c.num_moe_experts, c.moe_router_topk, c.moe_ffn_hidden_size or c.ffn_hidden_size, freq) != (
                moe["experts"], moe["top_k"], moe["expert_ffn_hidden"], layout):
            fail(name, "the MoE block is not the priced one")
    # The executor.
    x = executor.fields
    if x["time"] == stub_nemo.SLURM_EXECUTOR_FIELDS["time"] or not re.fullmatch(r"\d+:\d\d:\d\d", x["time"]):
        fail(name, f"SlurmExecutor time {x['time']!r}: NeMo-Run's default kills the job after 10 minutes")
    if (x["nodes"], x["ntasks_per_node"], x["gpus_per_node"]) != (nodes, per_node, per_node):
        fail(name, f"executor {x['nodes']} nodes x {x['ntasks_per_node']} tasks")
    # NeMo-Run packages with git unless told otherwise and stops outside a checkout (slurm.py:638).
    if not isinstance(x["packager"], stub_nemo.Packager):
        fail(name, f"SlurmExecutor packager {x['packager']!r}: the default git packaging needs a git checkout")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in (x["env_vars"] or {}).items()):
        fail(name, "env_vars must map strings to strings")


for name, s in CASES:
    try:
        check(name, s)
    except Exception as e:  # a stub rejecting the script is a failure, with its reason
        fail(name, f"{type(e).__name__}: {e}")

print(f"NeMo stub ({stub_nemo.NEMO_COMMIT}, NeMo-Run {stub_nemo.NEMO_RUN_COMMIT}): {len(CASES)} scenarios, "
      f"{len(failures)} failure(s)")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
