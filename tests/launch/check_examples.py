"""Every shipped example x every launch format (issue #27's matrix).

Usage: python3 check_examples.py PPLAN_CLI REPO_ROOT

Each cell launches the example priced for the format's framework: as the example is when it
names that framework (or Megatron-LM for the Megatron formats), else with
--set training.framework=<the format's framework>, as a user re-prices a plan for the stack
they run. A cell is then either
  - emitted: the configuration carries the plan's parallel sizes, micro-batch,
    recompute and precision, read back from the text in the format's own syntax; or
  - refused ("problems"): every problem names the framework's source line that makes the rule
    ("<Project> <commit> <path>:<line>") or says it is pplan's own ("pplan: ...").
Fewer than 10% of cells may be refused without a framework-source reason, and every example
must launch in its own framework and in Megatron-Core. Standard library only; exits 1 on any
failure and prints the matrix.
"""

import json
import os
import re
import subprocess
import sys
import tomllib

CLI, ROOT = sys.argv[1], sys.argv[2]
FORMATS = ["megatron", "slurm", "env", "nccl-tests", "layout", "nemo", "torchtitan",
           "torchtitan-toml", "deepspeed"]
FRAMEWORK_OF_FORMAT = {"torchtitan": "torchtitan", "torchtitan-toml": "torchtitan",
                       "deepspeed": "deepspeed"}  # every other format runs Megatron-Core
SOURCE = re.compile(r"^(Megatron-LM|torchtitan|DeepSpeed|Megatron-DeepSpeed|NeMo|NeMo-Run|"
                    r"TransformerEngine|NCCL) [0-9a-f]{8} \S+:\d+(-\d+)?$")
failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


def launch(path, fmt, framework, schedule=None):
    args = [CLI, "launch", path, "--format", fmt, "--json"]
    if framework:
        args += ["--set", f"training.framework={framework}"]
    if schedule:
        args += ["--set", f"parallel.schedule={schedule}"]
    done = subprocess.run(args, capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout)


def flag(text, name, default=None):
    m = re.search(r"(?m)^\s*" + re.escape(name) + r"(?:[ =]+(\S+))?", text)
    if not m:
        return default
    return m.group(1) if m.group(1) is not None else True


def megatron_values(text):
    granularity = flag(text, "--recompute-granularity", "none")
    return {"tp": int(flag(text, "--tensor-model-parallel-size", 1)),
            "pp": int(flag(text, "--pipeline-model-parallel-size", 1)),
            "cp": int(flag(text, "--context-parallel-size", 1)),
            "ep": int(flag(text, "--expert-model-parallel-size", 1)),
            "micro_batch": int(flag(text, "--micro-batch-size")),
            "recompute": granularity,
            # NVFP4 (--fp4-format) is pplan's low-precision plan too (training.precision fp8).
            "fp8": bool(flag(text, "--fp8-format", False) or flag(text, "--fp4-format", False))}


def deepspeed_values(text):
    config = json.loads(re.search(r"cat > ds_config.json <<'PPLAN_EOF'\n(.*?)\nPPLAN_EOF", text,
                                  re.S).group(1))
    if config["train_micro_batch_size_per_gpu"] != int(flag(text, "--micro-batch-size")):
        fail("deepspeed", "ds_config.json and --micro-batch-size disagree")
    return {"tp": int(flag(text, "--tensor-model-parallel-size", 1)),
            "pp": int(flag(text, "--pipeline-model-parallel-size", 1)),
            "cp": 1,  # the rules refuse CP: Megatron-DeepSpeed has no ring CP
            "ep": int(flag(text, "--moe-expert-parallel-size", 1)),
            "micro_batch": config["train_micro_batch_size_per_gpu"],
            "recompute": flag(text, "--recompute-granularity", "none"),
            "fp8": bool(flag(text, "--transformer-impl transformer_engine --fp8-hybrid", False)),
            "zero": config["zero_optimization"]["stage"]}


def assignment(text, name, default=None):
    m = re.search(r"(?m)^\s*" + re.escape(name) + r" = ([^#\n]+?)\s*(#.*)?$", text)
    return m.group(1) if m else default


def nemo_values(text):
    s = "recipe.trainer.strategy."
    plugins = assignment(text, "recipe.trainer.plugins", "")
    return {"tp": int(assignment(text, s + "tensor_model_parallel_size")),
            "pp": int(assignment(text, s + "pipeline_model_parallel_size")),
            "cp": int(assignment(text, s + "context_parallel_size")),
            "ep": int(assignment(text, s + "expert_model_parallel_size", 1)),
            "micro_batch": int(assignment(text, "recipe.data.micro_batch_size")),
            "recompute": json.loads(assignment(text, "recipe.model.config.recompute_granularity",
                                               '"none"').replace("None", '"none"')),
            "fp8": "fp8" in plugins}


def titan_values(text, seq_len):
    p = "    p."
    tokens = int(assignment(text, "    t.num_tokens_per_microbatch_per_dp_rank"))
    return {"tp": int(assignment(text, p + "tensor_parallel_degree")),
            "pp": int(assignment(text, p + "pipeline_parallel_degree")),
            "cp": int(assignment(text, p + "context_parallel_degree")),
            "ep": int(assignment(text, p + "expert_parallel_degree", 1)),
            "micro_batch": tokens // seq_len,
            "recompute": "full" if "FullAC.Config()" in text else "none",
            "fp8": "Float8LinearConverter" in text}


def titan_toml_values(text):
    config = tomllib.loads(text)
    par = config["parallelism"]
    mode = config.get("activation_checkpoint", {}).get("mode", "none")
    return {"tp": par["tensor_parallel_degree"], "pp": par["pipeline_parallel_degree"],
            "cp": par["context_parallel_degree"], "ep": par.get("expert_parallel_degree", 1),
            # with a pipeline local_batch_size is the DP rank's whole step
            "micro_batch": par["pipeline_parallel_microbatch_size"]
            if par["pipeline_parallel_degree"] > 1 else config["training"]["local_batch_size"],
            "recompute": mode,
            "fp8": "quantize.linear.float8" in config["model"].get("converters", [])}


def layout_values(layout):
    sizes = layout["sizes"]
    return {k: sizes[k] for k in ("tp", "pp", "dp", "cp", "ep")}


def check_emitted(where, fmt, response):
    plan = response["plan"]
    parallel, training = plan["parallel"], plan["training"]
    text = response.get("text", "")
    expected = {"tp": parallel["tp"], "pp": parallel["pp"], "cp": parallel["cp"],
                "ep": parallel["ep"], "micro_batch": parallel["micro_batch"],
                "recompute": parallel["recompute"], "fp8": training["precision"] == "fp8"}
    if fmt in ("megatron", "slurm"):
        got = megatron_values(text)
    elif fmt == "deepspeed":
        got = deepspeed_values(text)
        expected["zero"] = parallel["zero"]
    elif fmt == "nemo":
        got = nemo_values(text)
    elif fmt == "torchtitan":
        got = titan_values(text, training["seq_len"])
    elif fmt == "torchtitan-toml":
        got = titan_toml_values(text)
    elif fmt == "layout":
        got = layout_values(response["layout"])
        expected = {k: parallel[k] for k in ("tp", "pp", "dp", "cp", "ep")}
    else:
        return  # env and nccl-tests set no parallel sizes (launch_test.cpp checks their contents)
    for key, value in expected.items():
        if got.get(key) != value:
            fail(where, f"{key} = {got.get(key)!r} in the configuration, the plan has {value!r}")


def main():
    examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".json"))
    cells = refused = unsourced = 0
    rows = []
    for name in examples:
        path = os.path.join(ROOT, "examples", name)
        with open(path) as f:
            own = json.load(f).get("training", {}).get("framework", "megatron-core")
        row = []
        launched_in = set()
        for fmt in FORMATS:
            framework = FRAMEWORK_OF_FORMAT.get(fmt, "megatron-core")
            if own == "megatron-lm" and framework == "megatron-core" and fmt != "nemo":
                framework = "megatron-lm"  # Megatron-LM's own pretrain_gpt.py runs it
            where = f"{name} --format {fmt} ({framework})"
            rc, response = launch(path, fmt, None if framework == own else framework)
            cells += 1
            # --json answers a refusal with exit 0 and "problems" (the bash refusal exits 3)
            if rc == 0 and "problems" not in response:
                check_emitted(where, fmt, response)
                launched_in.add(framework)
                row.append("ok")
            elif rc == 0 and response.get("problems") and all(
                    p["code"].endswith(".schedule_unsupported") for p in response["problems"]):
                # A schedule the framework does not run (DualPipe): the fix the page offers,
                # re-priced with the framework's 1F1B, must launch.
                rc, response = launch(path, fmt, None if framework == own else framework, "1f1b")
                if rc == 0 and "problems" not in response:
                    check_emitted(where + " with 1f1b", fmt, response)
                    launched_in.add(framework)
                    row.append("1f1b-fix")
                else:
                    fail(where, f"refused for its schedule, and again with 1f1b: {json.dumps(response)[:300]}")
                    row.append("refused")
            elif rc == 0 and response.get("problems"):
                refused += 1
                row.append("refused")
                framework_reason = False
                for problem in response["problems"]:
                    source = problem.get("source", "")
                    if SOURCE.match(source):
                        framework_reason = True
                    elif not source.startswith("pplan: "):
                        fail(where, f"{problem['code']} cites no source line: {source!r}")
                    if problem["code"].endswith("priced_for_another_framework"):
                        fail(where, "re-priced for the format's framework, yet refused as "
                                    "priced for another")
                if not framework_reason:
                    unsourced += 1
            else:
                fail(where, f"exit {rc} without problems: {json.dumps(response)[:300]}")
                row.append(f"exit {rc}")
        if own not in launched_in and not (own == "megatron-core" and "megatron-lm" in launched_in):
            fail(name, f"does not launch in its own framework ({own})")
        if not launched_in & {"megatron-core", "megatron-lm"}:
            fail(name, "does not launch in Megatron-Core")
        rows.append((name, own, row))
    print(f"{'example':48} {'framework':14} " + " ".join(f"{f[:10]:10}" for f in FORMATS))
    for name, own, row in rows:
        print(f"{name[:-5]:48} {own:14} " + " ".join(f"{c:10}" for c in row))
    print(f"\n{cells} cells: {cells - refused} emitted, {refused} refused "
          f"({unsourced} without a framework-source reason, {100.0 * unsourced / cells:.1f}%)")
    if unsourced * 10 >= cells:
        fail("matrix", f"{unsourced} of {cells} cells refused without a framework-source reason "
                       "(at most 10%)")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


sys.exit(main())
