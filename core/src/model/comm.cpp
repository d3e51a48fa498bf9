#include "pplan/model/comm.h"

#include <algorithm>

#include "pplan/model/architecture.h"

namespace pplan {

static double micro_batch_tokens(const Scenario& scenario, const ParallelConfig& parallel) {
  return double(scenario.training.seq_len) / parallel.cp * parallel.micro_batch;
}

double expert_dispatch_bytes(const Scenario& scenario, const ParallelConfig& parallel) {
  const ModelSpec& model = scenario.model;
  if (!model.moe.has_value() || model.moe->experts <= 0) return 0.0;
  return micro_batch_tokens(scenario, parallel) * model.moe->top_k * double(model.hidden) * 2.0 / parallel.tp;
}

MessageSizes message_sizes(const Scenario& scenario, const ParallelConfig& parallel) {
  const ModelSpec& model = scenario.model;
  const double t = parallel.tp;
  const double h = model.hidden;
  double k_width = model.kv_heads * head_dim(model);
  double v_width = k_width;
  if (model.mla) {
    const AttentionDims dims = attention_dims(model);
    k_width = dims.heads * dims.qk_head_dim;
    v_width = dims.heads * dims.v_head_dim;
  }
  MessageSizes m;
  m.tokens = micro_batch_tokens(scenario, parallel);
  m.tp_bytes = m.tokens * h * 2.0;
  m.cp_kv_bytes = m.tokens * (k_width + v_width) / t * 2.0;
  m.ep_bytes = expert_dispatch_bytes(scenario, parallel);
  m.pp_bytes = m.tokens * h * 2.0 / t;
  return m;
}

double exposed_after_overlap_s(double comm_s, double window_s, double slowdown) {
  const double hidden = std::min(comm_s, std::max(0.0, window_s));
  return (comm_s - hidden) + slowdown * hidden;
}

Link nvlink(const GpuSpec& gpu) {
  return {gpu.nvlink_bytes_per_s * gpu.nvlink_efficiency, gpu.nvlink_latency_s};
}

Link network(const GpuSpec& gpu) {
  return {gpu.network_bytes_per_s * gpu.network_efficiency, gpu.network_latency_s};
}

/// ceil(log2(n)) without transcendental functions (bit-identical natively and in wasm).
static int ceil_log2(int n) {
  int steps = 0;
  for (long long v = 1; v < n; v *= 2) ++steps;
  return steps;
}

/// Time of a ring phase moving `fraction`·bytes per rank over `link`, with `steps` latencies.
static double phase_s(double bytes, double fraction, const Link& link, int steps) {
  // NCCL pipelines a message in chunks over its channels: small messages see a fraction
  // bytes / (bytes + half) of the large-message bandwidth.
  const double bandwidth = link.bytes_per_s * bytes / (bytes + kHalfBandwidthBytes);
  return fraction * bytes / bandwidth + steps * link.latency_s;
}

/// Reduce-scatter-shaped traffic ((n−1)/n of the data), hierarchical across nodes.
static double scatter_phase_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu) {
  const int n = group.size;
  if (n <= 1 || bytes <= 0) return 0.0;
  const int k = std::min(group.ranks_per_node, n);  // members per node
  const int nodes = std::max(1, (n + k - 1) / k);
  double t = 0;
  if (k > 1) t += phase_s(bytes, double(k - 1) / k, nvlink(gpu), ceil_log2(k));
  if (nodes > 1) {
    // Each of the k members carries 1/k of the data over its own NIC.
    t += phase_s(bytes / k, double(nodes - 1) / nodes, network(gpu), ceil_log2(nodes));
  }
  return t;
}

double all_reduce_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu) {
  return 2.0 * scatter_phase_s(bytes, group, gpu);
}

double reduce_scatter_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu) {
  return scatter_phase_s(bytes, group, gpu);
}

double all_to_all_s(double bytes, const GroupPlacement& group, const GpuSpec& gpu) {
  const int n = group.size;
  if (n <= 1 || bytes <= 0) return 0.0;
  const int k = std::min(group.ranks_per_node, n);
  const double on_node = double(k - 1) / n * bytes;
  const double off_node = double(n - k) / n * bytes;
  const double t_nvlink = on_node > 0 ? on_node / nvlink(gpu).bytes_per_s + nvlink(gpu).latency_s : 0.0;
  const double t_network =
      off_node > 0 ? off_node / network(gpu).bytes_per_s + network(gpu).latency_s : 0.0;
  return std::max(t_nvlink, t_network);
}

double remote_nodes_per_token(const MoeSpec& moe, int ep_nodes) {
  if (ep_nodes <= 1 || moe.top_k <= 0) return 0.0;
  double reachable = std::min(ep_nodes, moe.top_k);
  if (moe.groups > 0 && moe.group_top_k > 0) {
    const double group_nodes = std::max(1.0, double(ep_nodes) / moe.groups);
    reachable = std::min(reachable, std::max(1.0, moe.group_top_k * group_nodes));
  }
  // (1 − 1/R)^k by repeated multiplication: bit-identical natively and in wasm.
  double miss = 1.0;
  for (int i = 0; i < moe.top_k; ++i) miss *= 1.0 - 1.0 / reachable;
  const double distinct = reachable * (1.0 - miss);
  return distinct * (1.0 - 1.0 / ep_nodes);
}

double deduplicated_all_to_all_s(double tokens_bytes, double copies, double remote_nodes,
                                 const GroupPlacement& group, const GpuSpec& gpu) {
  const int n = group.size;
  if (n <= 1 || tokens_bytes <= 0) return 0.0;
  const double nvlink_bytes = tokens_bytes * copies * double(n - 1) / n;
  const double network_bytes = tokens_bytes * remote_nodes;
  const double t_nvlink = nvlink_bytes > 0 ? nvlink_bytes / nvlink(gpu).bytes_per_s + nvlink(gpu).latency_s : 0.0;
  const double t_network =
      network_bytes > 0 ? network_bytes / network(gpu).bytes_per_s + network(gpu).latency_s : 0.0;
  return std::max(t_nvlink, t_network);
}

double send_recv_s(double bytes, bool cross_node, const GpuSpec& gpu) {
  if (bytes <= 0) return 0.0;
  const Link link = cross_node ? network(gpu) : nvlink(gpu);
  return bytes / link.bytes_per_s + link.latency_s;
}

}  // namespace pplan
