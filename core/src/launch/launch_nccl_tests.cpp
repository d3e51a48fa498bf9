// nccl-tests command lines for the collectives a plan relies on, at the plan's message sizes,
// each with the bus bandwidth pplan's communication model (comm.h) implies at that size.
// nccl-tests facts (flags, busbw factors, NCCL_TESTS_SPLIT): nccl-tests doc/PERFORMANCE.md.
#include <algorithm>
#include <sstream>

#include "detail_launch.h"
#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/memory.h"
#include "pplan/model/placement.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan::detail {

namespace {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };

const char* binary(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce_perf";
    case Collective::kAllGather:
      return "all_gather_perf";
    case Collective::kReduceScatter:
      return "reduce_scatter_perf";
    case Collective::kAllToAll:
      return "alltoall_perf";
    case Collective::kSendRecv:
      return "sendrecv_perf";
  }
  return "";
}

/// nccl-tests busbw = algbw x factor (doc/PERFORMANCE.md; nccl-tests doc/PERFORMANCE.md).
double busbw_factor(Collective c, int n) {
  if (n <= 1) return 1.0;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return double(n - 1) / n;
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

/// One benchmark: which collective, over which ranks, at what size, and pplan's modelled time.
struct Benchmark {
  std::string title;       ///< what the plan uses it for
  std::string derivation;  ///< how the size follows from the plan
  Collective collective = Collective::kAllReduce;
  std::string datatype;     ///< nccl-tests -d
  double bytes = 0;         ///< nccl-tests -b/-e (total buffer for gather/scatter/alltoall)
  int group_size = 1;       ///< ranks in one group
  long long ranks = 1;      ///< ranks the command runs on
  std::string split;        ///< NCCL_TESTS_SPLIT, empty when the command is one group
  double model_time_s = 0;  ///< pplan's time for this collective at this size
  std::string link;         ///< which link pplan prices it on
};

std::string gb(double bytes) { return format_fixed(bytes / units::kBytesPerGB, 3); }

long long round_bytes(double bytes) {
  // nccl-tests counts elements; keep sizes whole multiples of 16 bytes (bf16/fp32, 8 ranks).
  // Saturated below 2^62: a size past a long long would wrap in the cast.
  constexpr double kLargest = 4611686018427387904.0;  // 2^62
  const long long b = static_cast<long long>(std::clamp(bytes, 0.0, kLargest));
  return std::max(16LL, b - b % 16);
}

std::string render(const Benchmark& b, const LaunchFacts& f) {
  std::ostringstream out;
  const long long size = round_bytes(b.bytes);
  const int per_node = static_cast<int>(std::min<long long>(b.ranks, f.nproc_per_node));
  const long long nodes = (b.ranks + per_node - 1) / per_node;
  const double algbw = b.model_time_s > 0 ? b.bytes / b.model_time_s : 0;
  const double busbw = algbw * busbw_factor(b.collective, b.group_size);
  out << "# " << b.title << "\n";
  out << "#   size: " << b.derivation << " = " << size << " bytes ("
      << gb(static_cast<double>(size)) << " GB)\n";
  out << "#   groups of " << b.group_size << " ranks"
      << (b.split.empty() ? "" : ", run side by side as in training (NCCL_TESTS_SPLIT)")
      << "; priced on " << b.link << "\n";
  out << "#   pplan assumes: busbw " << format_fixed(busbw / units::kBytesPerSecPerGBps, 1)
      << " GB/s (algbw " << format_fixed(algbw / units::kBytesPerSecPerGBps, 1) << " GB/s, "
      << format_fixed(b.model_time_s * 1e3, 3) << " ms per call)\n";
  if (!b.split.empty()) out << "NCCL_TESTS_SPLIT=\"" << b.split << "\" ";
  out << "srun -N " << nodes << " -n " << b.ranks << " --ntasks-per-node=" << per_node
      << " --mpi=pmix \"$NCCL_TESTS/" << binary(b.collective) << "\" -b " << size << " -e " << size
      << " -g 1 -d " << b.datatype << " -n 50 -w 10 -c 0\n\n";
  return out.str();
}

/// A benchmark over groups of `placement`, run on the first `span` ranks of the world (the
/// ranks up to the group's slowest axis) so every group in that span runs at once. Groups of
/// consecutive ranks (stride 1) are widened to a whole node, as in training.
Benchmark over(const GroupPlacement& placement, long long span, const LaunchFacts& f) {
  Benchmark b;
  b.group_size = placement.size;
  if (placement.stride == 1) {
    const long long node = std::min<long long>(f.world_size, f.nproc_per_node);
    if (node > span && node % placement.size == 0) span = node;
  }
  b.ranks = span;
  if (span > placement.size) {
    b.split = placement.stride == 1 ? "DIV " + num(placement.size) : "MOD " + num(placement.stride);
  }
  return b;
}

/// nccl-tests allocates the whole buffer (twice for all-reduce): sizes above this are measured
/// at this size; busbw is flat well below it (nccl-tests doc/PERFORMANCE.md: >= 1-8 GB for peak
/// numbers).
constexpr double kMaxBenchmarkBytes = 8e9;

/// Caps `b.bytes` and says so in the derivation.
void cap_size(Benchmark& b) {
  if (b.bytes <= kMaxBenchmarkBytes) return;
  b.derivation += " = " + format_fixed(b.bytes / units::kBytesPerGB, 1) +
                  " GB in training; measured at 8 GB, where busbw has long been flat";
  b.bytes = kMaxBenchmarkBytes;
}

/// Which fabric pplan prices a group on, from its placement over NVLink domains (what
/// compute.cpp and estimate.cpp use); on multi-node NVLink the domain spans several hosts.
std::string link_name(const GroupPlacement& g, const LaunchFacts& f) {
  const bool hosts_are_domains = f.nodes_per_domain <= 1;
  if (g.crosses_nodes()) {
    return "the network (" + num(g.nodes) + (hosts_are_domains ? " nodes, " : " NVLink domains, ") +
           num(g.ranks_per_node) + (hosts_are_domains ? " rank(s) per node)" : " rank(s) per domain)");
  }
  if (hosts_are_domains) return "NVLink (inside one node)";
  const long long span = 1LL * (g.size - 1) * g.stride + 1;  // ranks from first to last member
  const long long hosts = std::min<long long>(g.size, (span + f.gpus_per_node - 1) / f.gpus_per_node);
  return "NVLink (one NVLink domain of " + num(f.nvlink_domain_gpus) + " GPUs" +
         (hosts > 1 ? ", across " + num(hosts) + " nodes: multi-node NVLink" : ", inside one node") +
         ")";
}

}  // namespace

std::string nccl_tests_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = scenario.model;
  const GpuSpec& gpu = scenario.cluster.gpu;
  // Placements as priced: over the cluster's NVLink domains.
  const MessageSizes messages = message_sizes(scenario, p);
  const double tokens = messages.tokens;  // per GPU, before TP
  std::vector<Benchmark> benches;

  if (p.tp > 1) {
    const GroupPlacement g = place_group(p, scenario.cluster, Axis::kTp);
    const double bytes = messages.tp_bytes;
    const std::string derivation = "micro_batch " + num(p.micro_batch) + " x seq " +
                                   num(f.seq_len) + "/cp " + num(p.cp) + " x hidden " +
                                   num(model.hidden) + " x 2 bytes";
    const long long span = g.size;
    if (p.sequence_parallel) {
      for (Collective c : {Collective::kAllGather, Collective::kReduceScatter}) {
        Benchmark b = over(g, span, f);
        b.title = std::string("TP (sequence parallel): ") +
                  (c == Collective::kAllGather ? "all-gather" : "reduce-scatter") +
                  " of the layer activations, 2 per layer forward and 2 backward";
        b.derivation = derivation;
        b.collective = c;
        b.datatype = "bfloat16";
        b.bytes = bytes;
        b.model_time_s = reduce_scatter_s(bytes, g, gpu);
        b.link = link_name(g, f);
        benches.push_back(b);
      }
    } else {
      Benchmark b = over(g, span, f);
      b.title = "TP: all-reduce of the layer activations, 2 per layer forward and 2 backward";
      b.derivation = derivation;
      b.collective = Collective::kAllReduce;
      b.datatype = "bfloat16";
      b.bytes = bytes;
      b.model_time_s = all_reduce_s(bytes, g, gpu);
      b.link = link_name(g, f);
      benches.push_back(b);
    }
  }

  if (p.cp > 1) {
    const GroupPlacement g = place_group(p, scenario.cluster, Axis::kCp);
    const double kv_width = double(model.kv_heads) * head_dim(model);
    const double bytes = messages.cp_kv_bytes;
    Benchmark b = over(g, 1LL * p.tp * p.cp, f);
    b.title = "CP: ring exchange of K and V chunks (cp-1 steps forward, 2(cp-1) backward)";
    b.derivation = "tokens " + format_count(tokens) + " x (K+V) 2 x kv width " +
                   format_count(kv_width) + "/tp " + num(p.tp) + " x 2 bytes";
    b.collective = Collective::kSendRecv;
    b.datatype = "bfloat16";
    b.bytes = bytes;
    b.model_time_s = send_recv_s(bytes, g.crosses_nodes(), gpu);
    b.link = link_name(g, f);
    benches.push_back(b);
  }

  if (p.ep > 1 && f.moe) {
    const GroupPlacement g = place_group(p, scenario.cluster, Axis::kEp);
    const double bytes = messages.ep_bytes;
    Benchmark b = over(g, 1LL * expert_tp(p) * p.ep, f);
    b.title =
        "EP: all-to-all token dispatch (and combine), forward and backward of every MoE layer";
    b.derivation = "tokens " + format_count(tokens) + " x top_k " +
                   num(model.moe->top_k) + " x hidden " + num(model.hidden) + "/tp " + num(p.tp) +
                   " x 2 bytes";
    b.collective = Collective::kAllToAll;
    b.datatype = "bfloat16";
    b.bytes = bytes;
    b.model_time_s = all_to_all_s(bytes, g, gpu);
    b.link = link_name(g, f);
    benches.push_back(b);
  }

  if (p.pp > 1) {
    const GroupPlacement g = place_group(p, scenario.cluster, Axis::kPp);
    const double bytes = messages.pp_bytes;
    // Two neighbouring stages: every rank of stage s talks to its peer in stage s+1.
    Benchmark b;
    b.group_size = 2;
    b.ranks = 2LL * g.stride;
    if (g.stride > 1) b.split = "MOD " + num(g.stride);
    b.title =
        "PP: send/recv of one micro-batch's activations across a stage boundary (each way, every "
        "micro-batch)";
    b.derivation = "micro_batch " + num(p.micro_batch) + " x seq " + num(f.seq_len) + "/cp " +
                   num(p.cp) + " x hidden " + num(model.hidden) + "/tp " + num(p.tp) + " x 2 bytes";
    b.collective = Collective::kSendRecv;
    b.datatype = "bfloat16";
    b.bytes = bytes;
    b.model_time_s = send_recv_s(bytes, g.crosses_nodes(), gpu);
    b.link = g.crosses_nodes() ? (f.nodes_per_domain > 1
                                      ? "the network (stages in different NVLink domains)"
                                      : "the network (stages on different nodes)")
                               : (f.nodes_per_domain > 1 ? "NVLink (stages share an NVLink domain)"
                                                         : "NVLink (stages share a node)");
    benches.push_back(b);
  }

  if (1LL * p.dp * p.cp > 1) {
    const StageParams params = rank_params(scenario, p, plan.split, plan.memory.peak_stage).params;
    const GroupPlacement g = place_dp_cp_group(p, scenario.cluster);
    const long long span = 1LL * p.tp * p.cp * p.dp;  // one pipeline stage
    const std::string grads = format_count(params.dense) +
                              " dense parameters per GPU (stage " + num(plan.memory.peak_stage) +
                              ")";
    // Gradients move in the dtype pplan prices (training.grad_reduce_in_fp32, memory.h).
    const double grad_bytes = model_state_bytes(scenario, p.zero).gradients;
    const std::string grad_name = grad_bytes == 4.0 ? "fp32" : "bf16";
    const std::string grad_type = grad_bytes == 4.0 ? "float" : "bfloat16";
    const std::string grad_times = " x " + format_count(grad_bytes) + " bytes";
    if (p.zero == 0) {
      Benchmark b = over(g, span, f);
      b.title = "DP: gradient all-reduce over dp x cp, once per step (" + grad_name +
                " gradients)";
      b.derivation = grads + grad_times;
      b.collective = Collective::kAllReduce;
      b.datatype = grad_type;
      b.bytes = params.dense * grad_bytes;
      cap_size(b);
      b.model_time_s = all_reduce_s(b.bytes, g, gpu);
      b.link = link_name(g, f);
      benches.push_back(b);
    } else {
      // Megatron-FSDP (ZeRO-3) gathers and reduce-scatters one transformer layer at a time
      // (Megatron-LM d98e8a64 docs/user-guide/features/megatron_fsdp.md: weights un-sharded per
      // FSDP unit); ZeRO-1/2 move the whole stage once per step.
      const bool per_layer = p.zero >= 3;
      const int stage_layers =
          std::max(1, plan.split.layers_on_stage(plan.memory.peak_stage, p.pp));
      const double layer_params = (params.dense - params.embedding_and_head) / stage_layers;
      const double moved = per_layer ? layer_params : params.dense;
      const std::string what =
          per_layer ? "(" + format_count(params.dense) + " dense - " +
                          format_count(params.embedding_and_head) +
                          " embedding/head parameters) / " + num(stage_layers) +
                          " layers of stage " + num(plan.memory.peak_stage) + " = one layer's " +
                          format_count(layer_params)
                    : grads;
      Benchmark rs = over(g, span, f);
      rs.title = "DP (ZeRO-" + num(p.zero) +
                 "): gradient reduce-scatter over dp x cp (" + grad_name + " gradients" +
                 std::string(per_layer ? ", one layer at a time, every micro-batch)" : ")");
      rs.derivation = what + grad_times;
      rs.collective = Collective::kReduceScatter;
      rs.datatype = grad_type;
      rs.bytes = moved * grad_bytes;
      cap_size(rs);
      rs.model_time_s = reduce_scatter_s(rs.bytes, g, gpu);
      rs.link = link_name(g, f);
      benches.push_back(rs);
      // Weights are gathered as priced (memory.h): bf16 (kWeightBytesPerParam), or with FP8
      // parameters one byte per layer parameter and bf16 for the embedding and head.
      const double embedding_moved = per_layer ? 0.0 : params.embedding_and_head;
      Benchmark ag = over(g, span, f);
      ag.title =
          "DP (ZeRO-" + num(p.zero) + "): " + (f.fp8_params ? "FP8" : "bf16") + " weight all-gather over dp x cp" +
          std::string(per_layer ? " (one layer at a time, every micro-batch, forward and backward)"
                                : " (after the optimizer step)");
      ag.derivation = f.fp8_params ? what + ": " + format_count(moved - embedding_moved) + " layer parameters x 1 byte + " +
                                         format_count(embedding_moved) + " embedding/head x 2 bytes"
                                   : what + " x 2 bytes";
      ag.collective = Collective::kAllGather;
      // An all-gather only copies bytes: FP8 weights move as uint8.
      ag.datatype = f.fp8_params ? "uint8" : "bfloat16";
      ag.bytes = f.fp8_params ? (moved - embedding_moved) * 1.0 + embedding_moved * kWeightBytesPerParam
                              : moved * kWeightBytesPerParam;
      cap_size(ag);
      ag.model_time_s = reduce_scatter_s(ag.bytes, g, gpu);
      ag.link = link_name(g, f);
      benches.push_back(ag);
    }
    if (params.expert > 0 && f.expert_dp > 1) {
      const GroupPlacement eg = place_expert_dp_group(p, scenario.cluster);
      Benchmark b = over(eg, span, f);
      b.title = "Expert DP: gradient " +
                std::string(p.zero == 0 ? "all-reduce" : "reduce-scatter") +
                " of the experts over expert-dp = tp*cp*dp/(etp*ep)";
      b.derivation =
          format_count(params.expert) + " expert parameters per GPU" + grad_times;
      b.collective = p.zero == 0 ? Collective::kAllReduce : Collective::kReduceScatter;
      b.datatype = grad_type;
      b.bytes = params.expert * grad_bytes;
      cap_size(b);
      b.model_time_s =
          p.zero == 0 ? all_reduce_s(b.bytes, eg, gpu) : reduce_scatter_s(b.bytes, eg, gpu);
      b.link = link_name(eg, f);
      benches.push_back(b);
    }
  }

  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << plan_header(scenario, plan, f, "nccl-tests for the collectives this plan relies on");
  const std::string segment = slurm_segment_line(f);
  out << "# Build nccl-tests with MPI (make MPI=1) and run these inside an allocation (salloc -N "
      << f.nodes << (segment.empty() ? "" : " --segment=" + num(f.nodes_per_domain)) << ").\n";
  if (f.mnnvl) {
    out << "# Multi-node NVLink: a group priced on NVLink spans several nodes of one domain; "
           "srun takes the\n";
    out << "# allocation's first nodes, which --segment keeps in one domain (--format env: "
           "NCCL_MNNVL_ENABLE, IMEX).\n";
  }
  out << "# One task per GPU (-g 1); compare the busbw column with \"pplan assumes\". pplan "
         "prices\n";
  out << "# NVLink at " << format_fixed(nvlink(gpu).bytes_per_s / units::kBytesPerSecPerGBps, 1)
      << " GB/s and the network at "
      << format_fixed(network(gpu).bytes_per_s / units::kBytesPerSecPerGBps, 1)
      << " GB/s per GPU (achievable, each direction), plus per-step latency.\n";
  out << "# On 2 nodes add NCCL_ALGO=RING to measure the network itself (tree algorithms inflate "
         "busbw).\n";
  out << "set -euo pipefail\n";
  out << "NCCL_TESTS=${NCCL_TESTS:-/path/to/nccl-tests/build}  # PLACEHOLDER\n\n";
  if (benches.empty()) {
    out << "# This plan has no collectives across GPUs (a single GPU without parallelism).\n";
  }
  for (const Benchmark& b : benches) out << render(b, f);
  return out.str();
}

}  // namespace pplan::detail
