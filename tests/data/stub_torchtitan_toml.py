"""Stub of torchtitan's TOML job config at pytorch/torchtitan 238fa9953e4a (2026-02-23), the
parent of #2386, which replaced TOML with Python config functions.

Written from torchtitan's sources (not copied): the sections, keys, types and defaults of the
JobConfig sections pplan writes, and the checks a run makes on them. Python standard library
only. Sources, all at 238fa995:
  torchtitan/config/job_config.py        Model, Training, Parallelism, ActivationCheckpoint,
                                         Compile, Float8Linear, Float8GroupedMM
  torchtitan/protocols/model_converter.py + components/quantization/{float8,mx}.py
                                         converter names (since #1763, 2025-09-30)
  torchtitan/distributed/parallel_dims.py  world size, ETP = TP or 1, the EP region
  torchtitan/models/llama3/infra/parallelize.py  seq_len % (tp * 2 * cp), DDP only 1-D,
                                         TP always with SequenceParallel
  torchtitan/distributed/pipeline_parallel.py  stages and the split (as in stub_torchtitan.py)
  torchtitan/models/{llama3,deepseek_v3}/__init__.py  flavors
"""

import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from typing import Optional, get_type_hints

import stub_torchtitan

COMMIT = "238fa9953e4a"


class TorchtitanError(ValueError):
    pass


@dataclass
class Model:
    name: str = "llama3"
    flavor: str = "debugmodel"
    hf_assets_path: str = "./tests/assets/tokenizer"
    tokenizer_path: Optional[str] = None
    converters: list = field(default_factory=list)
    print_after_conversion: bool = False


@dataclass
class Training:
    dataset: str = "c4_test"
    dataset_path: Optional[str] = None
    local_batch_size: int = 8
    global_batch_size: int = -1
    seq_len: int = 2048
    max_norm: float = 1.0
    steps: int = 10000
    enable_cpu_offload: bool = False
    dtype: str = "float32"
    mixed_precision_param: str = "bfloat16"
    mixed_precision_reduce: str = "float32"
    gc_freq: int = 50
    gc_debug: bool = False


@dataclass
class Parallelism:
    data_parallel_replicate_degree: int = 1
    data_parallel_shard_degree: int = -1
    fsdp_reshard_after_forward: str = "default"
    tensor_parallel_degree: int = 1
    disable_loss_parallel: bool = False
    enable_async_tensor_parallel: bool = False
    pipeline_parallel_degree: int = 1
    module_fqns_per_model_part: Optional[list] = None
    pipeline_parallel_first_stage_less_layers: int = 1
    pipeline_parallel_last_stage_less_layers: int = 1
    pipeline_parallel_layers_per_stage: Optional[int] = None
    pipeline_parallel_schedule: str = "1F1B"
    pipeline_parallel_schedule_csv: Optional[str] = ""
    pipeline_parallel_microbatch_size: int = 1
    pipeline_parallel_expert_parallel_overlap: bool = True
    context_parallel_degree: int = 1
    context_parallel_load_balancer: Optional[str] = "headtail"
    context_parallel_rotate_method: str = "allgather"
    expert_parallel_degree: int = 1
    expert_tensor_parallel_degree: int = 1
    expert_parallel_comm_backend: str = "standard"


@dataclass
class ActivationCheckpoint:
    mode: str = "selective"
    selective_ac_option: str = "2"
    per_op_sac_force_recompute_mm_shapes_by_fqns: list = field(default_factory=lambda: ["moe.router.gate"])
    early_stop: bool = False
    memory_budget: float = 0.5
    visualize_memory_budget_pareto: bool = False
    preserve_rng_state: bool = True
    determinism_check: str = "default"
    debug: bool = False


@dataclass
class Compile:
    enable: bool = False
    components: list = field(default_factory=lambda: ["model", "loss"])
    backend: str = "inductor"


@dataclass
class Float8Linear:
    enable_fsdp_float8_all_gather: bool = False
    precompute_float8_dynamic_scale_for_fsdp: bool = False
    recipe_name: Optional[str] = None
    filter_fqns: list = field(default_factory=list)
    emulate: bool = False


@dataclass
class Float8GroupedMM:
    fqns: list = field(default_factory=list)


@dataclass
class QuantizedLinear:
    float8: Float8Linear = field(default_factory=Float8Linear)


@dataclass
class QuantizedGroupedMM:
    float8: Float8GroupedMM = field(default_factory=Float8GroupedMM)


@dataclass
class Quantize:
    linear: QuantizedLinear = field(default_factory=QuantizedLinear)
    grouped_mm: QuantizedGroupedMM = field(default_factory=QuantizedGroupedMM)


@dataclass
class JobConfig:
    model: Model = field(default_factory=Model)
    training: Training = field(default_factory=Training)
    parallelism: Parallelism = field(default_factory=Parallelism)
    activation_checkpoint: ActivationCheckpoint = field(default_factory=ActivationCheckpoint)
    compile: Compile = field(default_factory=Compile)
    quantize: Quantize = field(default_factory=Quantize)


CONVERTERS = {"quantize.linear.float8", "quantize.grouped_mm.float8", "quantize.linear.mx", "quantize.grouped_mm.mx"}
FLAVORS = {"llama3": stub_torchtitan.LLAMA3_FLAVORS, "deepseek_v3": stub_torchtitan.DEEPSEEK_V3_FLAVORS}


def _typed(value, hint, where):
    """TOML value against the field's annotation (bool is not an int here)."""
    text = str(hint)
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, (int, float)) and not isinstance(value, bool),
        str: isinstance(value, str),
        list: isinstance(value, list),
    }
    if hint in ok:
        if not ok[hint]:
            raise TorchtitanError(f"{where}: {value!r} is not a {hint.__name__}")
    elif "Optional" in text or "None" in text:
        inner = [t for t in getattr(hint, "__args__", ()) if t is not type(None)]
        if inner and not any((t in ok and ok[t]) for t in inner):
            raise TorchtitanError(f"{where}: {value!r} is not a {text}")
    return value


def _fill(cls, table, where):
    obj = cls()
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    for key, value in table.items():
        if key not in names:
            raise TorchtitanError(f"unknown key {where}.{key}")
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            if not isinstance(value, dict):
                raise TorchtitanError(f"{where}.{key} must be a table")
            setattr(obj, key, _fill(hint, value, f"{where}.{key}"))
        else:
            setattr(obj, key, _typed(value, hint, f"{where}.{key}"))
    return obj


def load(text):
    """Parses a TOML job config the way torchtitan's ConfigManager fills JobConfig."""
    return _fill(JobConfig, tomllib.loads(text), "job")


def validate(job, world_size):
    """The checks a TOML-era run makes; returns derived facts."""
    if job.model.name not in FLAVORS or job.model.flavor not in FLAVORS[job.model.name]:
        raise TorchtitanError(f"unknown model {job.model.name} {job.model.flavor}")
    shape = FLAVORS[job.model.name][job.model.flavor]
    for c in job.model.converters:
        if c not in CONVERTERS:
            raise KeyError(f"model converter {c!r} is not registered")
    kinds = {c.split(".")[-1] for c in job.model.converters if "quantize" in c}
    if len(kinds) > 1:
        raise TorchtitanError("Cannot combine model converters with different quantization types")
    f8 = job.quantize.linear.float8
    if f8.recipe_name is not None and f8.enable_fsdp_float8_all_gather:
        raise TorchtitanError("enable_fsdp_float8_all_gather together with recipe_name is not supported")
    p, t = job.parallelism, job.training
    d = dict(dp_replicate=p.data_parallel_replicate_degree, dp_shard=p.data_parallel_shard_degree,
             cp=p.context_parallel_degree, tp=p.tensor_parallel_degree, pp=p.pipeline_parallel_degree,
             ep=p.expert_parallel_degree, etp=p.expert_tensor_parallel_degree)
    if d["dp_shard"] < 0:
        d["dp_shard"] = world_size // (d["dp_replicate"] * d["cp"] * d["tp"] * d["pp"])
    if d["dp_replicate"] * d["dp_shard"] * d["cp"] * d["tp"] * d["pp"] != world_size:
        raise TorchtitanError("Invalid parallel dims")
    if d["ep"] > 1 and d["etp"] not in (d["tp"], 1):
        raise TorchtitanError("Currently we only support ETP=TP or ETP=1")
    if d["ep"] > 1 and (d["dp_shard"] * d["cp"] * d["tp"]) % (d["etp"] * d["ep"]):
        raise TorchtitanError("efsdp = dp_shard * cp * tp / (etp * ep) is not whole")
    if t.seq_len % (d["tp"] * d["cp"] * 2):
        raise TorchtitanError("Sequence length must be divisible by the product of TP degree and 2 * CP degree")
    if shape.n_kv_heads % d["tp"] or shape.n_heads % d["tp"]:
        raise TorchtitanError("TP shards heads: the local K/V heads must be whole")
    fsdp = d["dp_shard"] * d["cp"] > 1 or d["ep"] > 1
    if not fsdp and d["dp_replicate"] > 1 and d["dp_replicate"] != world_size:
        raise TorchtitanError("DDP has not supported > 1D parallelism")
    if p.fsdp_reshard_after_forward not in ("default", "always", "never"):
        raise TorchtitanError("Invalid reshard_after_forward_policy")
    if p.context_parallel_rotate_method not in ("allgather", "alltoall"):
        raise TorchtitanError("unknown rotate method")
    if job.activation_checkpoint.mode not in ("selective", "full", "memory_budget", "none"):
        raise TorchtitanError("unknown activation checkpoint mode")
    facts = dict(degrees=d, fsdp=fsdp)
    dp = d["dp_replicate"] * d["dp_shard"]
    if t.global_batch_size % (t.local_batch_size * dp):
        raise TorchtitanError("global batch is not whole local batches")
    facts["gradient_accumulation"] = t.global_batch_size // (t.local_batch_size * dp)
    if d["pp"] > 1:
        if t.local_batch_size % p.pipeline_parallel_microbatch_size:
            raise TorchtitanError("Batch size must be divisible by microbatch_size")
        facts["microbatches"] = t.local_batch_size // p.pipeline_parallel_microbatch_size
        facts["stages"], facts["layers_per_rank"] = stub_torchtitan.pipeline_layers_per_rank(p, shape.layers)
    return facts
