"""pplan's torchtitan configs, loaded by stubs of torchtitan's config classes.

Usage: python3 check_torchtitan.py PPLAN_CLI REPO_ROOT

For each scenario below, `pplan launch --format torchtitan` (the current config registry) and
`--format torchtitan-toml` (the TOML job config) either refuse with the code the scenario
expects, or write a config that the stubs in tests/data (stub_torchtitan.py: torchtitan
b5bcd76c; stub_torchtitan_toml.py: torchtitan 238fa995) load and validate as torchtitan would,
and in which every key pplan changed from the base config has the value derived here from the
scenario, and no other key changed. Standard library only; exits 1 on any failure.
"""

import dataclasses
import json
import os
import re
import sys
import types

CLI, ROOT = sys.argv[1], sys.argv[2]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import stub_torchtitan  # noqa: E402
import stub_torchtitan_toml  # noqa: E402

stub_torchtitan.install()
failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def preset(model_id):
    with open(os.path.join(ROOT, "core", "presets", "models", model_id + ".json")) as f:
        return json.load(f)


def scenario(model, gpus, seq, batch, precision, tp, pp, dp, zero, recompute="full", cp=1, ep=1, vpp=1,
             sp=True, first=None, last=None, optimizer_state_dtype=None):
    parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep, "vpp": vpp, "micro_batch": 1,
                "sequence_parallel": sp and tp > 1, "recompute": recompute, "zero": zero}
    if first:
        parallel["first_stage_layers"] = first
        parallel["last_stage_layers"] = last
    return {"schema_version": 1, "model": model,
            "cluster": {"gpu": "h100-sxm", "gpus": gpus, "gpus_per_node": 8},
            "training": dict({"seq_len": seq, "global_batch": batch, "precision": precision,
                              "framework": "torchtitan"},  # priced as torchtitan runs it
                             **({"fp8_recipe": "current"} if precision == "fp8" else {}),
                             **({"optimizer_state_dtype": optimizer_state_dtype} if optimizer_state_dtype else {})),
            "parallel": parallel}


def example(name):
    """A shipped example with its parallel block completed by the plan pplan launches (the fields
    the example leaves to the search), so the checks below derive every value from it."""
    with open(os.path.join(ROOT, "examples", name + ".json")) as f:
        s = json.load(f)
    r = checks.run(CLI, s, "launch", "--format", "layout", "--json")
    s["parallel"] = dict(json.loads(r.stdout)["plan"]["parallel"])
    return s


# (name, scenario, expected outcome per format: "ok" or the first problem code)
CASES = [
    # The shipped torchtitan examples (issue #27): the 405B one with the llama3-405b preset.
    ("llama3-405b 8k example", example("llama3-405b-8k-16384-h100"), {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b fsdp example", example("launch-llama3-8b-64-h100-torchtitan"),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-70b fsdp+tp example", example("launch-llama3-70b-256-h100-torchtitan"),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b fsdp", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 8, 3),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b fp8 zero2 tp2", scenario("llama3-8b", 16, 8192, 64, "fp8", 2, 1, 8, 2),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b ddp", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 8, 0, recompute="none"),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b ddp + tp (HSDP at HEAD, 1-D only in TOML)", scenario("llama3-8b", 16, 8192, 64, "bf16", 2, 1, 8, 0),
     {"torchtitan": "ok", "torchtitan-toml": "torchtitan.zero0_sharded"}),
    ("llama3-70b tp8 pp4 vpp5 fsdp", scenario("llama3-70b", 64, 8192, 128, "bf16", 8, 4, 2, 3, vpp=5),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-8b uneven pp2 vpp2", scenario("llama3-8b", 16, 8192, 64, "bf16", 8, 2, 1, 3, vpp=2, first=14, last=18),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-405b pp16 embedding and loss counted", scenario("llama3-405b", 256, 8192, 64, "bf16", 8, 16, 2, 2, vpp=2),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-405b bf16 on the 405B config", scenario("llama3-405b", 64, 8192, 64, "bf16", 8, 1, 8, 3),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("llama3-405b fp8", scenario("llama3-405b", 64, 8192, 64, "fp8", 8, 1, 8, 3),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("deepseek-v3 fp8 ep8", scenario("deepseek-v3", 64, 4096, 64, "fp8", 1, 1, 64, 3, ep=8),
     {"torchtitan": "ok", "torchtitan-toml": "ok"}),
    ("deepseek-v3 tp2 ep8 (expert TP)", scenario("deepseek-v3", 64, 4096, 64, "bf16", 2, 1, 32, 3, ep=8),
     {"torchtitan": "torchtitan.no_expert_tp", "torchtitan-toml": "ok"}),
    ("llama3-8b cp2", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 4, 3, cp=2),
     {"torchtitan": "torchtitan.cp_allgather", "torchtitan-toml": "ok"}),
    ("llama3-8b tp2 without SP", scenario("llama3-8b", 16, 8192, 64, "bf16", 2, 1, 8, 3, sp=False),
     {"torchtitan": "ok", "torchtitan-toml": "torchtitan.tp_without_sp"}),
    ("llama3-8b tp16 > kv heads", scenario("llama3-8b", 16, 8192, 64, "bf16", 16, 1, 1, 3),
     {"torchtitan": "torchtitan.tp_kv_heads", "torchtitan-toml": "torchtitan.tp_kv_heads"}),
    ("llama3-8b selective", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 8, 3, recompute="selective"),
     {"torchtitan": "torchtitan.selective_recompute", "torchtitan-toml": "torchtitan.selective_recompute"}),
    # bf16 Adam state: b5bcd76c optimizer.implementation "fused_opt_states_bf16"; 238fa995 has none.
    ("llama3-8b fsdp bf16 state", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 8, 3, optimizer_state_dtype="bf16"),
     {"torchtitan": "ok", "torchtitan-toml": "torchtitan.optimizer_state_dtype"}),
    ("llama3-8b zero1", scenario("llama3-8b", 8, 8192, 64, "bf16", 1, 1, 8, 1),
     {"torchtitan": "torchtitan.no_zero1", "torchtitan-toml": "torchtitan.no_zero1"}),
    ("gpt3-175b (no torchtitan config)", scenario("gpt3-175b", 64, 2048, 64, "bf16", 8, 1, 8, 3),
     {"torchtitan": "torchtitan.no_model", "torchtitan-toml": "torchtitan.no_model"}),
]

TITAN = {"llama3-8b": ("llama3", "llama3_8b", "8B"), "llama3-70b": ("llama3", "llama3_70b", "70B"),
         "llama3-405b": ("llama3", "llama3_405b", "405B"), "deepseek-v3": ("deepseek_v3", "deepseek_v3_671b", "671B")}


def expected_layers_per_rank(s):
    """pplan's split: pinned first/last, else even, else the embedding and loss counted."""
    layers, pp = preset(s["model"])["layers"], s["parallel"]["pp"]
    first = s["parallel"].get("first_stage_layers")
    if first:
        last = s["parallel"]["last_stage_layers"]
        middle = (layers - first - last) // (pp - 2) if pp > 2 else 0
        return [first] + [middle] * (pp - 2) + [last]
    if layers % pp == 0:
        return [layers // pp] * pp
    units = (layers + 2) // pp
    return [units - 1] + [units] * (pp - 2) + [units - 1]


def launch(s, fmt):
    return checks.run(CLI, s, "launch", "--format", fmt)


def flatten(obj, prefix=""):
    """Dataclass tree -> {dotted path: value}; other objects are leaves."""
    out = {}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            path = prefix + f.name
            leaf = isinstance(value, (stub_torchtitan.ModelSpec, stub_torchtitan.FullAC.Config,
                                      stub_torchtitan.SelectiveAC.Config, stub_torchtitan.MemoryBudgetAC.Config))
            if dataclasses.is_dataclass(value) and not leaf:
                out.update(flatten(value, path + "."))
            else:
                out[path] = value
    return out


def expect_pipeline(where, s, parallelism, facts, expected):
    """The pipeline keys of either era: the schedule, and the split torchtitan computes from
    pplan's layers_per_stage and first/last less layers must be pplan's layers per rank."""
    vpp = s["parallel"]["vpp"]
    expected["parallelism.pipeline_parallel_schedule"] = "Interleaved1F1B" if vpp > 1 else "1F1B"
    for key in ("layers_per_stage", "first_stage_less_layers", "last_stage_less_layers"):
        expected["parallelism.pipeline_parallel_" + key] = getattr(parallelism, "pipeline_parallel_" + key)
    if facts["layers_per_rank"] != expected_layers_per_rank(s):
        fail(where, f"layers per rank {facts['layers_per_rank']}, pplan prices {expected_layers_per_rank(s)}")
    if facts["stages"] != s["parallel"]["pp"] * vpp:
        fail(where, f"{facts['stages']} stages, pplan prices {s['parallel']['pp'] * vpp}")


def world_of(text):
    m = re.search(r"--nnodes (\d+) --nproc_per_node (\d+)", text)
    return int(m.group(1)) * int(m.group(2))


def check_current(name, s, text):
    where = f"{name} [torchtitan]"
    code = re.search(r"<<'PPLAN_EOF'\n(.*?)\nPPLAN_EOF\n", text, re.S).group(1)
    module = types.ModuleType("pplan_plan")
    exec(compile(code, "pplan_plan.py", "exec"), module.__dict__)
    config = module.pplan_plan()
    p, model = s["parallel"], preset(s["model"])
    module_name, function, flavor = TITAN[s["model"]]
    base = getattr(sys.modules[f"torchtitan.models.{module_name}.config_registry"], function)()
    try:
        facts = stub_torchtitan.validate(config, world_of(text))
    except ValueError as e:
        fail(where, f"torchtitan would refuse it: {e}")
        return
    tp, pp, dp, cp, ep, vpp = p["tp"], p["pp"], p["dp"], p["cp"], p["ep"], p["vpp"]
    seq, batch, zero = s["training"]["seq_len"], s["training"]["global_batch"], p["zero"]
    m = batch // (p["micro_batch"] * dp)
    expected = {
        "parallelism.tensor_parallel_degree": tp,
        "parallelism.enable_sequence_parallel": p["sequence_parallel"] and tp > 1,
        "parallelism.context_parallel_degree": cp,
        "parallelism.pipeline_parallel_degree": pp,
        "parallelism.data_parallel_replicate_degree": dp if zero == 0 else 1,
        "parallelism.data_parallel_shard_degree": 1 if zero == 0 else dp,
        "parallelism.fsdp_reshard_after_forward": {0: "default", 2: "never", 3: "always"}[zero],
        "training.num_tokens_per_microbatch_per_dp_rank": p["micro_batch"] * seq,
        "training.num_tokens_per_train_step": batch * seq,
        "training.max_context_length": seq,
        # pplan prices eager kernels launched by the host (training.cuda_graphs false for these).
        "training.disable_cuda_graphs": True,
        "training.mixed_precision_reduce": "float32",
        "compile.components": [c for c in base.compile.components if c != "model"],
        "compile.enable_async_tensor_parallel": False,
        "activation_checkpoint": stub_torchtitan.FullAC.Config() if p["recompute"] == "full" else None,
    }
    if s["training"].get("optimizer_state_dtype") == "bf16":
        expected["optimizer.implementation"] = "fused_opt_states_bf16"
    if model.get("moe"):
        expected["parallelism.expert_parallel_degree"] = ep
    if pp > 1:
        expected["parallelism.num_pp_microbatches"] = m
        expect_pipeline(where, s, config.parallelism, facts, expected)
    if facts["gradient_accumulation"] != (1 if pp > 1 else m):
        fail(where, f"gradient accumulation {facts['gradient_accumulation']}")
    result, before = flatten(config), flatten(base)
    result.pop("model_spec"), before.pop("model_spec")
    checks.compare(fail, where, result, before, expected)
    # The model: the registry flavor of the scenario's model, converted only for FP8.
    spec = config.model_spec
    shape = spec.shape
    if (spec.name, spec.flavor, spec.attn_backend) != (module_name, flavor, "flex"):
        fail(where, f"model {spec.name} {spec.flavor} {spec.attn_backend}")
    if (shape.layers, shape.dim, shape.n_heads, shape.ffn, shape.vocab, shape.rope_theta) != (
            model["layers"], model["hidden"], model["heads"], model["ffn_hidden"], model["vocab"], model["rope_theta"]):
        fail(where, f"torchtitan's {flavor} is not the priced model")
    compiled = config.compile.enable and "model" in config.compile.components
    if s["training"]["precision"] == "fp8":
        filters = ["lm_head", "router.gate"] if module_name == "deepseek_v3" else ["lm_head"]
        want = [stub_torchtitan.Float8LinearConverter.Config(filter_fqns=filters, model_compile_enabled=compiled)]
        if module_name == "deepseek_v3":
            want.append(stub_torchtitan.Float8GroupedExpertsConverter.Config(model_compile_enabled=compiled))
    else:
        want = []
    if spec.converters != want:
        fail(where, f"converters {spec.converters}, expected {want}")


def check_toml(name, s, text):
    where = f"{name} [torchtitan-toml]"
    try:
        job = stub_torchtitan_toml.load(text)
        facts = stub_torchtitan_toml.validate(job, world_of(text))
    except (ValueError, KeyError) as e:
        fail(where, f"torchtitan would refuse it: {e}")
        return
    p, model = s["parallel"], preset(s["model"])
    module_name, _, flavor = TITAN[s["model"]]
    tp, pp, dp, cp, ep, vpp = p["tp"], p["pp"], p["dp"], p["cp"], p["ep"], p["vpp"]
    seq, batch, zero, mb = s["training"]["seq_len"], s["training"]["global_batch"], p["zero"], p["micro_batch"]
    m = batch // (mb * dp)
    fp8 = s["training"]["precision"] == "fp8"
    deepseek = module_name == "deepseek_v3"
    # Real assets and a real dataset as placeholders, never the test tokenizer or c4_test.
    assets = "DeepSeek-V3" if deepseek else f"Llama-3.1-{flavor}"
    expected = {
        "model.name": module_name, "model.flavor": flavor,
        "model.hf_assets_path": f"./assets/hf/{assets}", "training.dataset": "c4",
        "training.local_batch_size": mb * m if pp > 1 else mb,
        "training.global_batch_size": batch, "training.seq_len": seq,
        "training.mixed_precision_param": "bfloat16", "training.mixed_precision_reduce": "float32",
        "parallelism.data_parallel_replicate_degree": dp if zero == 0 else 1,
        "parallelism.data_parallel_shard_degree": 1 if zero == 0 else dp,
        "parallelism.fsdp_reshard_after_forward": {0: "default", 2: "never", 3: "always"}[zero],
        "parallelism.tensor_parallel_degree": tp,
        "parallelism.enable_async_tensor_parallel": False,
        "parallelism.context_parallel_degree": cp,
        "parallelism.pipeline_parallel_degree": pp,
        "activation_checkpoint.mode": "full" if p["recompute"] == "full" else "none",
    }
    if cp > 1:
        expected["parallelism.context_parallel_rotate_method"] = "alltoall"
    if model.get("moe"):
        expected["parallelism.expert_parallel_degree"] = ep
        expected["parallelism.expert_tensor_parallel_degree"] = tp
    if pp > 1:
        expected["parallelism.pipeline_parallel_microbatch_size"] = mb
        expect_pipeline(where, s, job.parallelism, facts, expected)
        if facts["microbatches"] != m:
            fail(where, f"{facts['microbatches']} micro-batches, pplan prices {m}")
    if fp8:
        expected["model.converters"] = ["quantize.linear.float8"] + (["quantize.grouped_mm.float8"] if deepseek else [])
        expected["quantize.linear.float8.filter_fqns"] = ["output", "router.gate"] if deepseek else ["output"]
        expected["quantize.linear.float8.enable_fsdp_float8_all_gather"] = False
        expected["quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp"] = False
        if deepseek:
            expected["quantize.grouped_mm.float8.fqns"] = ["experts"]
    if tp > 1 and not p["sequence_parallel"]:
        fail(where, "TOML-era TP always runs sequence parallel; pplan priced it without")
    if facts["gradient_accumulation"] != (1 if pp > 1 else m):
        fail(where, f"gradient accumulation {facts['gradient_accumulation']}")
    result, before = flatten(job), flatten(stub_torchtitan_toml.JobConfig())
    # The TOML's steps follow the token budget; the cases above have none.
    checks.compare(fail, where, result, before, expected)


for name, s, outcomes in CASES:
    for fmt, outcome in outcomes.items():
        r = launch(s, fmt)
        if outcome != "ok":
            if r.returncode != 3 or outcome not in r.stderr:
                fail(f"{name} [{fmt}]", f"expected refusal {outcome}, got exit {r.returncode}: {r.stderr.strip()}")
            continue
        if r.returncode != 0:
            fail(f"{name} [{fmt}]", f"refused: {r.stderr.strip()}")
            continue
        try:
            (check_current if fmt == "torchtitan" else check_toml)(name, s, r.stdout)
        except Exception as e:  # a stub rejecting the config is a failure, with its reason
            fail(f"{name} [{fmt}]", f"{type(e).__name__}: {e}")

print(f"torchtitan stubs ({stub_torchtitan.COMMIT}, TOML {stub_torchtitan_toml.COMMIT}): "
      f"{len(CASES)} scenarios x 2 formats, {len(failures)} failure(s)")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
