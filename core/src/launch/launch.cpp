// Launch configurations: the dispatcher, the environment block, the comment header and the
// refusal script. The formats live in launch_megatron.cpp (Megatron-LM, SLURM),
// launch_torchtitan.cpp, launch_deepspeed.cpp, launch_nemo.cpp and launch_nccl_tests.cpp; what
// each framework can run is decided in framework/rules.cpp. Facts: the frameworks' own
// sources, cited where used.
#include "pplan/launch/launch.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "detail_launch.h"
#include "pplan/model/architecture.h"
#include "pplan/diagnostics.h"
#include "pplan/launch/layout.h"
#include "pplan/framework/framework.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {


namespace detail {

std::string num(long long value) { return std::to_string(value); }

std::string per_layer_experts(const ModelSpec& model, std::string_view expert, std::string_view dense,
                              std::string_view separator) {
  std::string out;
  for (int layer = 0; layer < model.layers; ++layer) {
    if (layer > 0) out += separator;
    out += is_moe_layer(model, layer) ? expert : dense;
  }
  return out;
}

std::string recompute_module_list(const ParallelConfig& p, const ModelSpec& model, std::string_view quote,
                                  std::string_view separator) {
  std::string out;
  for (const char* name : recompute_module_names(recompute_modules(p, model.mla.has_value()))) {
    if (!out.empty()) out += separator;
    out += std::string(quote) + name + std::string(quote);
  }
  return out;
}

std::vector<EnvVar> environment(const LaunchFacts& f) {
  using K = EnvVar::Kind;
  std::vector<EnvVar> env;
  const ParallelConfig& p = f.parallel;
  const bool tp_or_cp = p.tp > 1 || p.cp > 1;
  // §1.3.12 / §2.1: Megatron asserts CUDA_DEVICE_MAX_CONNECTIONS=1 for TP/CP before Blackwell
  // (kernels must launch in issue order so async TP/CP collectives overlap the next GEMM);
  // FSDP asserts it is NOT 1; Blackwell dropped the requirement (NeMo sets 32 there).
  if (f.megatron_fsdp) {
    env.push_back(
        {"CUDA_DEVICE_MAX_CONNECTIONS", "",
         tp_or_cp && !f.blackwell
             ? "Megatron-FSDP asserts it is not 1 (parallel streams for FSDP); with TP/CP "
               "before Blackwell Megatron only warns (slower TP overlap)"
             : "Megatron-FSDP asserts it is not 1 (parallel streams for FSDP)",
         K::kUnset});
  } else if (f.blackwell) {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "32",
                   "Blackwell: no single-queue requirement; more queues let comm and compute "
                   "overlap (NeMo PerfEnvPlugin)",
                   K::kExport});
  } else if (tp_or_cp) {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1",
                   "TP/CP before Blackwell: Megatron asserts 1 so async TP/CP collectives are "
                   "scheduled before the next GEMM",
                   K::kExport});
  } else {
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1",
                   "not required at tp = cp = 1 (Megatron checks it only for TP/CP); 1 keeps "
                   "kernel order deterministic like Megatron's examples",
                   K::kSuggested});
  }
  // Megatron-LM d98e8a64 megatron/core/models/common/language_module/language_module.py sets
  // these from --attention-backend and asserts when an inherited value disagrees.
  env.push_back(
      {"NVTE_FLASH_ATTN NVTE_FUSED_ATTN NVTE_UNFUSED_ATTN", "",
       "--attention-backend sets them; Megatron asserts when an inherited value disagrees",
       K::kUnset});
  env.push_back({"TORCH_NCCL_AVOID_RECORD_STREAMS", "1",
                 "stash instead of recordStream for async collectives: avoids allocator memory "
                 "build-up (NeMo perf runs)",
                 K::kExport});
  env.push_back({"TORCH_NCCL_HIGH_PRIORITY", "1",
                 "high-priority NCCL streams so overlapped comm kernels are not starved by GEMMs "
                 "(NeMo PerfEnvPlugin)",
                 K::kExport});
  if (f.data_parallel) {
    env.push_back(
        {"NVTE_FWD_LAYERNORM_SM_MARGIN", "16",
         "leave SMs free during TE LayerNorm for the overlapped DP reduce-scatter/all-gather",
         K::kExport});
    env.push_back({"NVTE_BWD_LAYERNORM_SM_MARGIN", "16", "same, backward", K::kExport});
  }
  if (!f.blackwell && !f.cuda_graphs) {
    env.push_back({"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True",
                   "fewer fragmentation OOMs (NeMo sets it except on B200; not with CUDA graphs "
                   "or NCCL user buffers)",
                   K::kExport});
  }
  if (p.pp > 1) {
    env.push_back({"NCCL_P2P_NET_CHUNKSIZE", "2097152",
                   "pipeline send/recv over the network in 2 MiB chunks instead of 128 KiB: less "
                   "per-chunk overhead (NeMo/Megatron)",
                   K::kExport});
  }
  if (f.mnnvl) {
    // Multi-node NVLink (GB200/GB300 NVL72): NVIDIA/nccl 5067397c src/init.cc
    // NCCL_PARAM(MNNVLEnable, "MNNVL_ENABLE", 2) (auto when the job spans hosts), src/mnnvl.cc
    // ncclMnnvlCheck (needs cuMem and IMEX fabric handles, else the traffic between trays falls
    // back to the NICs), src/misc/cudawrap.cc NCCL_PARAM(CuMemEnable, ..., -2) (auto);
    // NVIDIA multi-node NVLink tuning guide, NCCL: MNNVL from NCCL 2.25.2.
    env.push_back({"NCCL_MNNVL_ENABLE", "1",
                   "multi-node NVLink: the plan prices traffic between trays of one NVLink domain "
                   "on NVLink (NCCL >= 2.25.2; an inherited 0 would send it over the NICs)",
                   K::kExport});
    env.push_back({"NCCL_CUMEM_ENABLE", "1",
                   "MNNVL shares memory through cuMem fabric handles; with cuMem off NCCL "
                   "silently drops MNNVL (some stacks export 0)",
                   K::kExport});
    env.push_back({"NCCL_NVLS_ENABLE", "1",
                   "NVLink SHARP: all-reduce in the NVLink switches of the domain (NCCL's default "
                   "2 = auto); 0 frees its buffers' GPU memory",
                   K::kSuggested});
  }
  if (f.nodes > 1) {
    // NVIDIA/nccl 68b54236 (v2.23.4-1) src/transport/net_ib.cc: NCCL_PARAM(IbTimeout, 18 -> 20).
    env.push_back({"NCCL_IB_TIMEOUT", "20",
                   "IB retransmit timeout 4.096us*2^20 = 4.3 s, NCCL's default since 2.23.4 (18 "
                   "before): raise if IBV_WC_RETRY_EXC_ERR",
                   K::kExport});
    std::string nics = "=";
    for (int i = 0; i < f.gpus_per_node; ++i) nics += (i ? ",mlx5_" : "mlx5_") + num(i);
    env.push_back({"NCCL_IB_HCA", nics,
                   "PLACEHOLDER: pin the compute NICs (one per GPU; leading = means exact names); "
                   "exclude storage/management NICs (ibstat)",
                   K::kSuggested});
    env.push_back(
        {"NCCL_SOCKET_IFNAME", "eth0",
         "PLACEHOLDER: the IP interface for bootstrap when auto-pick is wrong (docker0, IPoIB)",
         K::kSuggested});
    env.push_back({"NCCL_IB_GID_INDEX", "3",
                   "PLACEHOLDER, RoCE only: the RoCEv2 IPv4 GID; leave unset on InfiniBand",
                   K::kSuggested});
    // NCCL's environment-variable documentation, NCCL_CROSS_NIC: 0 = the same NIC index across
    // nodes (rails), 1 = any NIC (all of a node's NICs on one switch), 2 = prefer the same
    // (the default).
    if (f.rail_optimized) {
      env.push_back({"NCCL_CROSS_NIC", "0",
                     "rail-optimised fabric: keep rings on the same NIC index across nodes (default "
                     "2 = prefer)",
                     K::kSuggested});
    } else {
      env.push_back({"NCCL_CROSS_NIC", "1",
                     "not rail-optimised (cluster.network.rail_optimized): a node's NICs share "
                     "one leaf, so rings may use any NIC across nodes (default 2 = prefer the same)",
                     K::kSuggested});
    }
  }
  env.push_back({"NCCL_DEBUG", "INFO",
                 "first run only: confirms NICs, GPUDirect RDMA and algorithms; debugging, not for "
                 "production",
                 K::kSuggested});
  return env;
}

std::string environment_block(const LaunchFacts& f) {
  std::ostringstream out;
  if (f.mnnvl) {
    out << "# Multi-node NVLink: every job needs an IMEX channel (/dev/nvidia-caps-imex-channels/"
           "channel0; NVIDIA IMEX guide,\n"
           "# \"IMEX Channels\": not created by default, CUDA fails without). Slurm's "
           "SwitchType=switch/nvidia_imex gives\n"
           "# each job one (slurm.conf); containers see it with NVIDIA_IMEX_CHANNELS=0. NCCL says "
           "\"Check the IMEX channel\n"
           "# configuration\" when it is missing (src/mnnvl.cc).\n";
  }
  for (const EnvVar& v : environment(f)) {
    switch (v.kind) {
      case EnvVar::Kind::kExport:
        out << "export " << v.name << "=" << v.value;
        break;
      case EnvVar::Kind::kUnset:
        out << "unset " << v.name;
        break;
      case EnvVar::Kind::kSuggested:
        out << "# export " << v.name << "=\"" << v.value << "\"";
        break;
    }
    out << "  # " << v.why << "\n";
  }
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

std::string maybe_empty_array(const std::string& name) {
  return "${" + name + "[@]+\"${" + name + "[@]}\"}";
}

std::string plan_header(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f,
                        const std::string& title) {
  const ParallelConfig& p = f.parallel;
  std::ostringstream out;
  out << "# " << title << " (generated by pplan)\n";
  out << "# " << comment_text(scenario.model.name) << " on " << f.world_size << " x "
      << comment_text(scenario.cluster.gpu.name) << " (" << f.nodes << " node"
      << (f.nodes == 1 ? "" : "s") << " x " << f.nproc_per_node << " GPUs";
  if (f.mnnvl) {
    const long long domains = (f.world_size + f.nvlink_domain_gpus - 1) / f.nvlink_domain_gpus;
    out << " in " << domains << " NVLink domain" << (domains == 1 ? "" : "s") << " of "
        << f.nvlink_domain_gpus;
  }
  out << ")\n";
  out << "# plan: tp " << p.tp << ", pp " << p.pp << ", dp " << p.dp << ", cp " << p.cp << ", ep "
      << p.ep << ", vpp " << p.vpp << "; micro-batch " << p.micro_batch << "; sequence parallel "
      << (p.sequence_parallel && p.tp > 1 ? "on" : "off") << "; recompute "
      << recompute_name(p.recompute) << "; ZeRO " << p.zero << "; "
      << (f.fp8 && f.fp8_recipe == Fp8Recipe::kNvfp4 ? "nvfp4" : precision_name(scenario.training.precision))
      << "\n";
  const auto on = [](bool b) { return b ? "on" : "off"; };
  out << "# priced as " << framework_name(scenario.training.framework)
      << " runs it: DP overlap grads " << on(f.grad_overlap) << " / weights "
      << on(f.param_overlap) << "; TP overlap " << on(f.tp_overlap) << "; gradients "
      << (f.grad_fp32 ? "fp32" : "bf16") << "; CUDA graphs " << on(f.cuda_graphs)
      << "; attention " << (f.flash_attention ? "flash" : "unfused");
  if (f.fp8) {
    out << (f.fp8_recipe == Fp8Recipe::kNvfp4 ? "; low precision " : "; FP8 ") << fp8_recipe_name(f.fp8_recipe);
  }
  if (f.recompute_layers > 0) {
    out << "; " << f.recompute_layers << (f.recompute_layers == 1 ? " layer" : " layers")
        << " recomputed per chunk";
  }
  out << "\n";
  out << "# batch: global " << f.global_batch << " sequences = micro-batch " << p.micro_batch
      << " x dp " << p.dp << " x " << f.microbatches << " micro-batches; seq " << f.seq_len
      << " -> " << f.tokens_per_step << " tokens per step\n";
  if (p.pp > 1) {
    // Two stages have no middle one: "16/16", not "16/0/16".
    if (p.pp == 2) {
      out << "# pipeline: layers per stage first/last = " << plan.split.first_layers << "/"
          << plan.split.last_layers;
    } else {
      out << "# pipeline: layers per stage first/middle/last = " << plan.split.first_layers << "/"
          << plan.split.middle_layers << "/" << plan.split.last_layers;
    }
    out
        << (plan.split.embedding_counted ? "; embedding counted as a layer" : "")
        << (plan.split.loss_counted ? "; loss counted as a layer" : "") << "\n";
  }
  if (!plan.fits_in_memory) {
    out << "# WARNING: pplan estimates "
        << format_fixed(plan.memory.total_bytes / units::kBytesPerGB, 1) << " GB per GPU on stage "
        << plan.memory.peak_stage << " > "
        << format_fixed(plan.memory.capacity_bytes / units::kBytesPerGB, 1)
        << " GB: expect out-of-memory (see pplan evaluate)\n";
  }
  return out.str();
}

std::string env_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  // The block is Megatron-Core's (its asserts and NCCL settings, §2); a plan priced for another
  // framework says so in the title rather than pass for that framework's environment.
  const Framework framework = scenario.training.framework;
  const bool megatron = framework == Framework::kMegatronCore || framework == Framework::kMegatronLm;
  std::string out = plan_header(scenario, plan, f,
                                megatron ? "Environment for Megatron-LM / NeMo"
                                         : std::string("NCCL / CUDA environment as Megatron-Core needs it (the plan is priced for ") +
                                               framework_name(framework) + ")");
  out += "# Source this on every node before launching (lines starting '# export' are optional\n";
  out += "# or site-specific placeholders: uncomment and edit).\n";
  out += environment_block(f);
  return out;
}

}  // namespace detail

namespace {

/// The framework whose rules a format's plan must pass; none for the formats that only need
/// a grid that tiles the cluster (layout, env, nccl-tests).
std::optional<LaunchFramework> framework_of(const std::string& format) {
  if (format == "megatron" || format == "slurm") return LaunchFramework::kMegatron;
  if (format == "torchtitan") return LaunchFramework::kTorchtitan;
  if (format == "torchtitan-toml") return LaunchFramework::kTorchtitanToml;
  if (format == "deepspeed") return LaunchFramework::kDeepSpeed;
  if (format == "nemo") return LaunchFramework::kNemo;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> launch_formats() {
  return {"megatron",  "slurm", "env",        "torchtitan", "torchtitan-toml",
          "deepspeed", "nemo",  "nccl-tests", "layout"};
}

std::string launch_refusal_script(const std::string& format,
                                  const std::vector<LaunchProblem>& problems) {
  using detail::bash_quote;
  using detail::comment_text;
  using detail::python_str;
  const bool python = format == "nemo";
  const bool bash = format == "megatron" || format == "slurm" || format == "env" ||
                    format == "torchtitan" || format == "deepspeed" || format == "nccl-tests";
  if (!python && !bash) return "";
  std::vector<std::string> lines = {"pplan: this plan cannot be launched as --format " +
                                    comment_text(format) + ":"};
  for (const LaunchProblem& p : problems) {
    lines.push_back("  " + comment_text(p.code) + ": " + comment_text(p.message));
    if (!p.source.empty()) lines.push_back("    (" + comment_text(p.source) + ")");
  }
  std::ostringstream out;
  if (bash) {
    out << "#!/bin/bash\n";
    out << "# pplan refused this plan; this script only prints why and fails (see pplan launch's "
           "stderr).\n";
    out << "printf '%s\\n'";
    for (const std::string& line : lines) out << " \\\n    " << bash_quote(line);
    out << " >&2\nexit 1\n";
  } else {
    out << "# pplan refused this plan; this script only prints why and fails (see pplan launch's "
           "stderr).\n";
    out << "import sys\n\n";
    out << "sys.stderr.write(\"\\n\".join([\n";
    for (const std::string& line : lines) out << "    " << python_str(line) << ",\n";
    out << "]) + \"\\n\")\n";
    out << "sys.exit(1)\n";
  }
  return out.str();
}

LaunchResult launch_configuration(const Scenario& scenario, const Estimate& plan,
                                  const std::string& format) {
  const std::vector<std::string> formats = launch_formats();
  if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
    std::string list;
    for (const std::string& f : formats) list += (list.empty() ? "" : ", ") + f;
    throw InputError("request.bad_option", "/format",
                     (format.empty() ? std::string("missing /format")
                                     : "unknown launch format \"" + printable(format, 40) + "\"") +
                         " (formats: " + list + ")");
  }
  using namespace detail;
  const LaunchFacts facts = launch_facts(scenario, plan.parallel);
  const std::optional<LaunchFramework> framework = framework_of(format);
  LaunchResult r;
  r.format = format;
  r.problems = framework ? framework_problems(*framework, scenario, plan.parallel)
                         : grid_problems(scenario, plan.parallel);
  // NeMo trains through Megatron-Core, so Megatron's own validation is what refuses there: say
  // so, keeping the stable megatron.* codes.
  if (format == "nemo") {
    for (LaunchProblem& p : r.problems) {
      if (p.code.rfind("megatron.", 0) == 0) p.message = "NeMo runs Megatron-Core: " + p.message;
    }
    // NeMo 2.0's precision factories have FP8 (delayed, tensorwise) and MXFP8, no NVFP4: a
    // limit of this launch format, not of Megatron-Core, so evaluate does not warn of it.
    if (facts.fp8 && facts.fp8_recipe == Fp8Recipe::kNvfp4) {
      r.problems.push_back({"nemo.no_nvfp4",
                            "NeMo 2.0's precision plugins (recipes/precision/mixed_precision.py) have no "
                            "NVFP4 recipe: use --format megatron (--fp4-format e2m1 --fp4-recipe nvfp4)",
                            std::string(problem_source("nemo.no_nvfp4"))});
    }
  }
  for (const Diagnostic& d : plan.diagnostics) {
    if (d.code == "plan.out_of_memory") r.warnings.push_back(d);
  }
  if (!r.problems.empty()) return r;
  if (format == "layout") {
    r.layout = rank_layout(plan.parallel, facts.gpus_per_node, facts.nvlink_domain_gpus);
  } else if (format == "megatron") {
    r.text = megatron_script(scenario, plan, facts);
  } else if (format == "slurm") {
    r.text = slurm_script(scenario, plan, facts);
  } else if (format == "env") {
    r.text = env_script(scenario, plan, facts);
  } else if (format == "torchtitan") {
    r.text = torchtitan_script(scenario, plan, facts);
    if (auto warning = titan_attention_warning(scenario, facts, /*toml=*/false))
      r.warnings.push_back(*warning);
  } else if (format == "torchtitan-toml") {
    r.text = torchtitan_toml(scenario, plan, facts);
    if (auto warning = titan_attention_warning(scenario, facts, /*toml=*/true))
      r.warnings.push_back(*warning);
  } else if (format == "deepspeed") {
    r.text = deepspeed_script(scenario, plan, facts);
  } else if (format == "nemo") {
    r.text = nemo_script(scenario, plan, facts);
  } else if (format == "nccl-tests") {
    r.text = nccl_tests_script(scenario, plan, facts);
  }
  return r;
}

}  // namespace pplan
