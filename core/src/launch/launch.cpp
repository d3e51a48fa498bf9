// Launch configurations: the dispatcher, the facts and checks every format shares, the
// environment block and the comment header. The formats themselves live in
// launch_megatron.cpp (Megatron-LM, SLURM), launch_frameworks.cpp (torchtitan, DeepSpeed,
// NeMo) and launch_nccl_tests.cpp. Facts: the frameworks' own sources, cited where used.
#include "pplan/launch/launch.h"

#include <algorithm>
#include <sstream>

#include "detail_launch.h"
#include "pplan/io/json_io.h"
#include "pplan/launch/layout.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

using nlohmann::ordered_json;

namespace detail {

std::string num(long long value) { return std::to_string(value); }

LaunchFacts launch_facts(const Scenario& scenario, const Estimate& plan) {
  LaunchFacts f;
  const ParallelConfig& p = plan.parallel;
  f.parallel = p;
  f.world_size = 1LL * p.tp * p.pp * p.dp * p.cp;
  f.gpus_per_node = std::max(1, scenario.cluster.gpus_per_node);
  f.nproc_per_node = static_cast<int>(std::min<long long>(f.world_size, f.gpus_per_node));
  f.nodes = std::max(1LL, f.world_size / std::max(1, f.nproc_per_node));
  f.global_batch = scenario.training.global_batch;
  const long long per_step = 1LL * p.micro_batch * p.dp;
  f.microbatches = per_step > 0 ? f.global_batch / per_step : 0;
  f.seq_len = scenario.training.seq_len;
  f.tokens_per_step = 1LL * f.global_batch * f.seq_len;
  f.expert_dp = std::max(1, p.dp * p.cp / std::max(1, p.ep));
  if (scenario.training.token_budget > 0 && f.tokens_per_step > 0) {
    const double steps = scenario.training.token_budget / double(f.tokens_per_step);
    f.train_iters = static_cast<long long>(steps);
    if (double(f.train_iters) < steps) ++f.train_iters;
  }
  f.megatron_fsdp = p.zero >= 2;
  f.fp8 = scenario.training.precision == Precision::kFp8;
  f.moe = scenario.model.moe.has_value() && scenario.model.moe->experts > 0;
  f.architecture = scenario.cluster.gpu.architecture;
  return f;
}

std::vector<LaunchProblem> grid_problems(const Scenario& scenario, const LaunchFacts& f) {
  std::vector<LaunchProblem> out;
  const ParallelConfig& p = f.parallel;
  if (f.world_size != scenario.cluster.gpus) {
    out.push_back({"launch.world_size_mismatch",
                   "tp*pp*dp*cp = " + num(p.tp) + "*" + num(p.pp) + "*" + num(p.dp) + "*" +
                       num(p.cp) + " = " + num(f.world_size) + " ranks, but the cluster has " +
                       num(scenario.cluster.gpus) +
                       " GPUs (Megatron: world_size % (TP*PP*CP) == 0 and DP = world/(TP*PP*CP), "
                       "Megatron-LM d98e8a64 validate_args)"});
  }
  if (f.world_size > f.gpus_per_node && f.world_size % f.gpus_per_node != 0) {
    out.push_back({"launch.partial_node",
                   num(f.world_size) + " ranks do not fill whole nodes of " +
                       num(f.gpus_per_node) +
                       " GPUs: torchrun and SLURM start the same number of processes on every node"});
  }
  if (p.ep > 1) {
    if (!f.moe) {
      out.push_back({"launch.ep_without_moe",
                     "ep = " + num(p.ep) + " needs --num-experts: the model has no experts "
                     "(Megatron-LM d98e8a64 validate_args)"});
    } else if (scenario.model.moe->experts % p.ep != 0) {
      out.push_back({"launch.ep_not_divisible",
                     num(scenario.model.moe->experts) + " experts are not divisible by ep = " +
                         num(p.ep) + " (Megatron-LM d98e8a64 validate_args)"});
    }
    if ((1LL * p.dp * p.cp) % p.ep != 0) {
      out.push_back({"launch.expert_grid",
                     "the expert grid expert_tp*ep*pp = " + num(1LL * p.tp * p.ep * p.pp) +
                         " does not divide the world of " + num(f.world_size) +
                         " (ep must divide dp*cp; Megatron-LM d98e8a64 parallel_state.initialize_model_parallel)"});
    }
  }
  return out;
}

std::vector<LaunchProblem> megatron_problems(const Scenario& scenario, const Estimate& plan,
                                             const LaunchFacts& f) {
  std::vector<LaunchProblem> out = grid_problems(scenario, f);
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = scenario.model;
  const StageSplit& split = plan.split;
  // §1.3.4: GBS % (MBS·DP) == 0.
  const long long per_step = 1LL * p.micro_batch * p.dp;
  if (per_step <= 0 || f.global_batch % per_step != 0) {
    out.push_back({"megatron.batch_not_divisible",
                   "--global-batch-size " + num(f.global_batch) +
                       " is not a multiple of --micro-batch-size * DP = " + num(p.micro_batch) +
                       "*" + num(p.dp) + " (Megatron-LM d98e8a64 num_microbatches_calculator.py)"});
  }
  // §1.3.8: heads and query groups vs TP.
  if (model.heads % p.tp != 0) {
    out.push_back({"megatron.heads_not_divisible",
                   "--num-attention-heads " + num(model.heads) + " is not divisible by TP = " +
                       num(p.tp) + " (Megatron-LM d98e8a64 transformer_config.py)"});
  }
  if (model.kv_heads % p.tp != 0 && p.tp % model.kv_heads != 0) {
    out.push_back({"megatron.query_groups",
                   "--num-query-groups " + num(model.kv_heads) + " and TP = " + num(p.tp) +
                       " divide neither way (Megatron-LM d98e8a64 transformer_config.py)"});
  }
  // §1.3.5 / §1.3.6: layers vs pipeline stages and virtual stages.
  if (!split.valid) {
    out.push_back({"megatron.layers_not_divisible",
                   split.reason.empty() ? "the layers cannot be split over the pipeline stages"
                                        : split.reason + " (Megatron-LM d98e8a64 transformer_config.py)"});
  }
  if (p.vpp > 1) {
    if (p.pp <= 1) {
      out.push_back({"megatron.vpp_needs_pp",
                     "virtual pipeline stages (vpp = " + num(p.vpp) +
                         ") need PP > 1 (Megatron-LM d98e8a64 pipeline_parallel/schedules.py)"});
    } else if (split.valid) {
      const bool units_ok = split.units_per_stage > 0 && split.units_per_stage % p.vpp == 0;
      const bool stages_ok = split.units_per_stage == 0 && split.first_layers % p.vpp == 0 &&
                             split.last_layers % p.vpp == 0 &&
                             (p.pp <= 2 || split.middle_layers % p.vpp == 0);
      if (!units_ok && !stages_ok) {
        out.push_back({"megatron.vpp_not_divisible",
                       "layers per pipeline rank (" + num(split.first_layers) + "/" +
                           num(split.middle_layers) + "/" + num(split.last_layers) +
                           ") are not divisible by vpp = " + num(p.vpp) + " (Megatron-LM d98e8a64 transformer_config.py)"});
      }
    }
    // §1.3.7: with the default group size PP, m >= PP and m % PP == 0.
    if (p.pp > 1 && (f.microbatches < p.pp || f.microbatches % p.pp != 0)) {
      out.push_back({"megatron.vpp_microbatches",
                     "the interleaved schedule needs the " + num(f.microbatches) +
                         " micro-batches per step to be a multiple of PP = " + num(p.pp) +
                         " (Megatron-LM d98e8a64 pipeline_parallel/schedules.py)"});
    }
  }
  // §1.3.9: CP needs seq % (2·CP) == 0.
  if (p.cp > 1 && f.seq_len % (2 * p.cp) != 0) {
    out.push_back({"megatron.cp_seq_not_divisible",
                   "--seq-length " + num(f.seq_len) + " is not divisible by 2*CP = " +
                       num(2 * p.cp) + " (Megatron-LM d98e8a64 validate_args)"});
  }
  // FP8 needs Hopper or newer tensor cores (Transformer Engine refuses otherwise).
  if (f.fp8 && (scenario.cluster.gpu.fp8_flops_per_s <= 0 || f.architecture == "ampere")) {
    out.push_back({"megatron.fp8_unsupported",
                   scenario.cluster.gpu.name + " has no FP8 tensor cores: --fp8-format needs "
                   "Hopper or newer; use precision bf16"});
  }
  return out;
}

std::vector<EnvVar> environment(const Scenario& scenario, const LaunchFacts& f) {
  using K = EnvVar::Kind;
  std::vector<EnvVar> env;
  const ParallelConfig& p = f.parallel;
  const bool blackwell = f.architecture == "blackwell";
  const bool tp_or_cp = p.tp > 1 || p.cp > 1;
  // §1.3.12 / §2.1: Megatron asserts CUDA_DEVICE_MAX_CONNECTIONS=1 for TP/CP before Blackwell
  // (kernels must launch in issue order so async TP/CP collectives overlap the next GEMM);
  // FSDP asserts it is NOT 1; Blackwell dropped the requirement (NeMo sets 32 there).
  if (f.megatron_fsdp) {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "", std::string("Megatron-FSDP asserts it is not 1 (parallel streams for FSDP)") +
                   (tp_or_cp && !blackwell ? "; with TP/CP before Blackwell Megatron only warns (slower TP overlap)" : ""),
                   K::kUnset});
  } else if (blackwell) {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "32",
                   "Blackwell: no single-queue requirement; more queues let comm and compute overlap (NeMo PerfEnvPlugin)",
                   K::kExport});
  } else if (tp_or_cp) {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1",
                   "TP/CP before Blackwell: Megatron asserts 1 so async TP/CP collectives are scheduled before the next GEMM",
                   K::kExport});
  } else {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1",
                   "not required at tp = cp = 1 (Megatron checks it only for TP/CP); 1 keeps kernel order deterministic like Megatron's examples",
                   K::kSuggested});
  }
  env.push_back({"TORCH_NCCL_AVOID_RECORD_STREAMS", "1",
                 "stash instead of recordStream for async collectives: avoids allocator memory build-up (NeMo perf runs)",
                 K::kExport});
  env.push_back({"TORCH_NCCL_HIGH_PRIORITY", "1",
                 "high-priority NCCL streams so overlapped comm kernels are not starved by GEMMs (NeMo PerfEnvPlugin)",
                 K::kExport});
  if (1LL * p.dp * p.cp > 1) {
    env.push_back({"NVTE_FWD_LAYERNORM_SM_MARGIN", "16",
                   "leave SMs free during TE LayerNorm for the overlapped DP reduce-scatter/all-gather",
                   K::kExport});
    env.push_back({"NVTE_BWD_LAYERNORM_SM_MARGIN", "16", "same, backward", K::kExport});
  }
  if (!blackwell) {
    env.push_back({"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True",
                   "fewer fragmentation OOMs (NeMo sets it except on B200; drop it with CUDA graphs or NCCL user buffers)",
                   K::kExport});
  }
  if (p.pp > 1) {
    env.push_back({"NCCL_P2P_NET_CHUNKSIZE", "2097152",
                   "pipeline send/recv over the network in 2 MiB chunks instead of 128 KiB: less per-chunk overhead (NeMo/Megatron)",
                   K::kExport});
  }
  if (f.nodes > 1) {
    env.push_back({"NCCL_IB_TIMEOUT", "20",
                   "IB retransmit timeout 4.096us*2^20 = 4.3 s (NCCL >= 2.20 default; 2.19 used 18): raise if IBV_WC_RETRY_EXC_ERR",
                   K::kExport});
    env.push_back({"NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
                   "PLACEHOLDER: pin the compute NICs (one per GPU; leading = means exact names); exclude storage/management NICs (ibstat)",
                   K::kSuggested});
    env.push_back({"NCCL_SOCKET_IFNAME", "eth0",
                   "PLACEHOLDER: the IP interface for bootstrap when auto-pick is wrong (docker0, IPoIB)",
                   K::kSuggested});
    env.push_back({"NCCL_IB_GID_INDEX", "3",
                   "PLACEHOLDER, RoCE only: the RoCEv2 IPv4 GID; leave unset on InfiniBand",
                   K::kSuggested});
    env.push_back({"NCCL_CROSS_NIC", "0",
                   "rail-optimised fabric: keep rings on the same NIC index across nodes (default 2 = prefer)",
                   K::kSuggested});
  }
  env.push_back({"NCCL_DEBUG", "INFO",
                 "first run only: confirms NICs, GPUDirect RDMA and algorithms; debugging, not for production",
                 K::kSuggested});
  (void)scenario;
  return env;
}

std::string environment_block(const Scenario& scenario, const LaunchFacts& f) {
  std::ostringstream out;
  for (const EnvVar& v : environment(scenario, f)) {
    switch (v.kind) {
      case EnvVar::Kind::kExport: out << "export " << v.name << "=" << v.value; break;
      case EnvVar::Kind::kUnset: out << "unset " << v.name; break;
      case EnvVar::Kind::kSuggested: out << "# export " << v.name << "=\"" << v.value << "\""; break;
    }
    out << "  # " << v.why << "\n";
  }
  out << "# Do not set NVTE_FLASH_ATTN / NVTE_FUSED_ATTN: --attention-backend sets them and Megatron "
         "asserts on conflicts.\n";
  return out.str();
}

std::string render_flag_arrays(const std::vector<FlagGroup>& groups) {
  std::ostringstream out;
  for (const FlagGroup& g : groups) {
    out << g.array_name << "=(\n";
    for (const Flag& flag : g.flags) {
      std::string line = "    " + flag.name + (flag.value.empty() ? "" : " " + flag.value);
      if (!flag.comment.empty()) {
        if (line.size() < 56) line.append(56 - line.size(), ' ');
        line += "  # " + flag.comment;
      }
      out << line << "\n";
    }
    out << ")\n";
  }
  return out.str();
}

std::string array_references(const std::vector<FlagGroup>& groups, const std::string& indent) {
  std::string out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    out += indent + "\"${" + groups[i].array_name + "[@]}\"";
    out += i + 1 < groups.size() ? " \\\n" : "\n";
  }
  return out;
}

std::string plan_header(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f,
                        const std::string& title) {
  const ParallelConfig& p = f.parallel;
  std::ostringstream out;
  out << "# " << title << " (generated by pplan)\n";
  out << "# " << scenario.model.name << " on " << f.world_size << " x " << scenario.cluster.gpu.name
      << " (" << f.nodes << " node" << (f.nodes == 1 ? "" : "s") << " x " << f.nproc_per_node
      << " GPUs)\n";
  out << "# plan: tp " << p.tp << ", pp " << p.pp << ", dp " << p.dp << ", cp " << p.cp << ", ep "
      << p.ep << ", vpp " << p.vpp << "; micro-batch " << p.micro_batch << "; sequence parallel "
      << (p.sequence_parallel && p.tp > 1 ? "on" : "off") << "; recompute "
      << recompute_name(p.recompute) << "; ZeRO " << p.zero << "; "
      << precision_name(scenario.training.precision) << "\n";
  out << "# batch: global " << f.global_batch << " sequences = micro-batch " << p.micro_batch
      << " x dp " << p.dp << " x " << f.microbatches << " micro-batches; seq " << f.seq_len
      << " -> " << f.tokens_per_step << " tokens per step\n";
  if (p.pp > 1) {
    out << "# pipeline: layers per stage first/middle/last = " << plan.split.first_layers << "/"
        << plan.split.middle_layers << "/" << plan.split.last_layers
        << (plan.split.embedding_counted ? "; embedding counted as a layer" : "")
        << (plan.split.loss_counted ? "; loss counted as a layer" : "") << "\n";
  }
  if (!plan.fits_in_memory) {
    out << "# WARNING: pplan estimates " << format_fixed(plan.memory.total_bytes / units::kBytesPerGB, 1)
        << " GB per GPU on stage " << plan.memory.peak_stage << " > "
        << format_fixed(plan.memory.capacity_bytes / units::kBytesPerGB, 1)
        << " GB: expect out-of-memory (see pplan evaluate)\n";
  }
  return out.str();
}

std::string env_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  std::string out = plan_header(scenario, plan, f, "Environment for Megatron-LM / NeMo");
  out += "# Source this on every node before launching (lines starting '# export' are optional\n";
  out += "# or site-specific placeholders: uncomment and edit).\n";
  out += environment_block(scenario, f);
  return out;
}

}  // namespace detail

std::vector<std::string> launch_formats() {
  return {"megatron", "slurm", "env", "torchtitan", "torchtitan-toml", "deepspeed", "nemo",
          "nccl-tests", "layout"};
}

ordered_json launch_response(const Scenario& scenario, const Estimate& plan,
                             const std::string& format) {
  const std::vector<std::string> formats = launch_formats();
  if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
    std::string list;
    for (const std::string& f : formats) list += (list.empty() ? "" : ", ") + f;
    throw InputError("request.bad_option", "/format",
                     (format.empty() ? std::string("missing /format")
                                     : "unknown launch format \"" + format.substr(0, 40) + "\"") +
                         " (formats: " + list + ")");
  }
  using namespace detail;
  const LaunchFacts facts = launch_facts(scenario, plan);
  std::vector<LaunchProblem> problems;
  if (format == "layout" || format == "nccl-tests" || format == "env") {
    problems = grid_problems(scenario, facts);
  } else {
    problems = megatron_problems(scenario, plan, facts);
    std::vector<LaunchProblem> more;
    if (format == "deepspeed") more = deepspeed_problems(scenario, facts);
    if (format == "torchtitan" || format == "torchtitan-toml") {
      more = torchtitan_problems(plan, facts, format == "torchtitan-toml");
    }
    problems.insert(problems.end(), more.begin(), more.end());
  }
  ordered_json j;
  j["format"] = format;
  ordered_json warnings = ordered_json::array();
  for (const Diagnostic& d : plan.diagnostics) {
    if (d.code == "plan.out_of_memory") warnings.push_back({{"code", d.code}, {"message", d.message}});
  }
  if (!warnings.empty()) j["warnings"] = warnings;
  if (!problems.empty()) {
    ordered_json list = ordered_json::array();
    for (const LaunchProblem& p : problems) list.push_back({{"code", p.code}, {"message", p.message}});
    j["text"] = "";
    j["problems"] = list;
    return j;
  }
  if (format == "layout") {
    j["layout"] = layout_to_json(plan.parallel, facts.gpus_per_node);
    return j;
  }
  std::string text;
  if (format == "megatron") text = megatron_script(scenario, plan, facts);
  else if (format == "slurm") text = slurm_script(scenario, plan, facts);
  else if (format == "env") text = env_script(scenario, plan, facts);
  else if (format == "torchtitan") text = torchtitan_script(scenario, plan, facts);
  else if (format == "torchtitan-toml") text = torchtitan_toml(scenario, plan, facts);
  else if (format == "deepspeed") text = deepspeed_script(scenario, plan, facts);
  else if (format == "nemo") text = nemo_script(scenario, plan, facts);
  else if (format == "nccl-tests") text = nccl_tests_script(scenario, plan, facts);
  j["text"] = text;
  return j;
}

}  // namespace pplan
