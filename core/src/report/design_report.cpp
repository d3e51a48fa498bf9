#include "pplan/report/design_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/compute.h"
#include "pplan/model/memory.h"
#include "pplan/model/placement.h"
#include "pplan/text.h"
#include "pplan/units.h"

namespace pplan {

double llama3_failures_per_gpu_hour() {
  return kLlama3Interruptions / (kLlama3SnapshotDays * 24.0 * kLlama3Gpus);
}

double default_storage_bytes_per_s(int gpus) { return kLlama3StorageBytesPerS * gpus / kLlama3Gpus; }

double checkpoint_bytes(double params, double optimizer_bytes_per_param) {
  return (kWeightBytesPerParam + optimizer_bytes_per_param) * params;
}

double job_mtbf_s(double failures_per_gpu_hour, int gpus) {
  const double per_hour = failures_per_gpu_hour * gpus;
  return per_hour > 0 ? units::kSecondsPerHour / per_hour : 0.0;
}

double young_daly_interval_s(double checkpoint_write_s, double mtbf_s) {
  return std::sqrt(2.0 * checkpoint_write_s * mtbf_s);
}

double daly_interval_s(double checkpoint_write_s, double mtbf_s) {
  if (checkpoint_write_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = checkpoint_write_s / (2.0 * mtbf_s);
  return young_daly_interval_s(checkpoint_write_s, mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) -
         checkpoint_write_s;
}

double goodput_fraction(double interval_s, double checkpoint_write_s, double restart_s,
                        double mtbf_s, double step_s) {
  // A failure on average before one step ends: no step is ever kept.
  if (interval_s <= 0 || mtbf_s <= 0 || mtbf_s <= step_s) return 0.0;
  interval_s = std::max(interval_s, step_s);  // a checkpoint is taken between steps
  const double cycle_s = interval_s + checkpoint_write_s;
  const double lost = (restart_s + cycle_s / 2.0) / mtbf_s;
  return std::max(0.0, interval_s / cycle_s * (1.0 - lost));
}

namespace {

/// The stage whose traffic the report shows: the one with the most layers (MoE layers break
/// ties, since they add the all-to-all).
int busiest_stage(const Scenario& scenario, const Estimate& e) {
  const int pp = e.parallel.pp;
  int best = 0;
  auto weight = [&](int stage) {
    return 1000 * e.split.layers_on_stage(stage, pp) +
           moe_layers_on_stage(scenario.model, e.split, stage, pp);
  };
  for (int stage : candidate_stages(scenario.model, e.split, pp)) {
    if (weight(stage) > weight(best)) best = stage;
  }
  return best;
}

/// Bytes of a reduce-scatter-shaped collective of `bytes` over `group`, per GPU, by link
/// (hierarchical across nodes, as comm.cpp times it).
void add_scatter(AxisTraffic& t, double bytes, const GroupPlacement& group) {
  const int n = group.size;
  if (n <= 1 || bytes <= 0) return;
  const int k = std::min(group.ranks_per_node, n);
  const int nodes = std::max(1, (n + k - 1) / k);
  if (k > 1) t.nvlink_bytes += bytes * (k - 1.0) / k;
  if (nodes > 1) t.network_bytes += bytes / k * (nodes - 1.0) / nodes;
}

/// Point-to-point or ring-neighbour traffic: all on one link.
void add_flat(AxisTraffic& t, double bytes, bool cross_node) {
  (cross_node ? t.network_bytes : t.nvlink_bytes) += bytes;
}

}  // namespace

std::vector<AxisTraffic> communication_per_step(const Scenario& scenario, const Estimate& e) {
  const ModelSpec& model = scenario.model;
  const ParallelConfig& p = e.parallel;
  const int gpn = scenario.cluster.gpus_per_node;
  const int stage = busiest_stage(scenario, e);
  const double layers = e.split.layers_on_stage(stage, p.pp);
  const double moe_layers = moe_layers_on_stage(model, e.split, stage, p.pp);
  const double m = e.microbatches;
  const MessageSizes messages = message_sizes(scenario, p);
  const bool full = p.recompute == Recompute::kFull;
  std::vector<AxisTraffic> out;

  // [3] TP: 2 collectives per pass on tokens·h·2 bytes (all-reduce, or all-gather +
  // reduce-scatter with SP: the same bytes), forward and backward (+ forward again when fully
  // recomputed); a ring all-reduce sends 2(t−1)/t of the message.
  AxisTraffic tp{"TP"};
  tp.formula = 3;
  if (p.tp > 1) {
    const double collectives_per_block = full ? 3.0 : 2.0;
    // An MoE layer without shared experts gathers its MLP's tokens through the dispatcher (EP).
    const bool routed_only = model.moe && model.moe->shared_experts == 0;
    const double blocks = 2.0 * layers - (routed_only ? moe_layers : 0.0);
    const GroupPlacement g = place_group(p, gpn, Axis::kTp);
    add_scatter(tp, m * blocks * collectives_per_block * 2.0 * messages.tp_bytes, g);
  }
  tp.exposed_s = e.time.tp_comm_s;
  out.push_back(tp);

  // [4] CP: the ring passes K and V chunks (tokens·2·kv_width/t · 2 bytes) cp−1 times forward
  // and twice that backward (K, V and their gradients).
  AxisTraffic cp{"CP"};
  cp.formula = 4;
  if (p.cp > 1) {
    const GroupPlacement g = place_group(p, gpn, Axis::kCp);
    add_flat(cp, m * layers * 3.0 * (p.cp - 1.0) * messages.cp_kv_bytes, g.crosses_nodes());
  }
  cp.exposed_s = e.time.cp_comm_s;
  out.push_back(cp);

  // [5] EP: dispatch and combine all-to-alls of tokens·k·h·2/t bytes per MoE layer, forward
  // and backward (and the forward pair again under full recompute).
  AxisTraffic ep{"EP"};
  ep.formula = 5;
  if (p.ep > 1 && model.moe && model.moe->experts > 0) {
    const GroupPlacement g = place_group(p, gpn, Axis::kEp);
    const double n = g.size;
    const double k = std::min(g.ranks_per_node, g.size);
    const double per_a2a = messages.ep_bytes;
    const double count = m * moe_layers * (full ? 6.0 : 4.0);
    ep.nvlink_bytes = count * per_a2a * (k - 1.0) / n;
    ep.network_bytes = count * per_a2a * (n - k) / n;
  }
  // Expert TP gathers the received copies before the experts and reduce-scatters them after.
  const int etp = expert_tp(p);
  if (etp > 1 && model.moe && model.moe->experts > 0) {
    const GroupPlacement g = place_group(p, gpn, Axis::kEtp);
    const double moved = m * moe_layers * (full ? 6.0 : 4.0) * messages.ep_bytes * (etp - 1.0);
    (g.crosses_nodes() ? ep.network_bytes : ep.nvlink_bytes) += moved;
  }
  ep.exposed_s = e.time.ep_comm_s;
  out.push_back(ep);

  // [6] PP: each micro-batch sends its activation (tokens·h·2/t bytes per TP rank) forward and
  // its gradient backward across each stage boundary.
  AxisTraffic pp{"PP"};
  pp.formula = 6;
  if (p.pp > 1) {
    const GroupPlacement g = place_group(p, gpn, Axis::kPp);
    add_flat(pp, 2.0 * m * messages.pp_bytes, g.crosses_nodes());
  }
  pp.exposed_s = e.time.pp_comm_s;
  out.push_back(pp);

  // [7] DP: fp32 gradients reduce-scattered (4 bytes/param) and bf16 weights all-gathered
  // (2 bytes/param) once per step with ZeRO 1–2; a 4-byte all-reduce (= 2 reduce-scatters)
  // without ZeRO; ZeRO-3 gathers weights twice and scatters gradients every micro-batch.
  // Dense parameters over dp·cp, experts over the expert-data-parallel group dp·cp/ep.
  AxisTraffic dp{"DP"};
  dp.formula = 7;
  const StageParams params = rank_params(scenario, p, e.split, stage).params;
  const GroupPlacement dense_group = place_dp_cp_group(p, gpn);
  const GroupPlacement expert_group = place_expert_dp_group(p, gpn);
  double bytes_per_param = 0;
  if (p.zero == 0) {
    bytes_per_param = 8.0;
  } else if (p.zero <= 2) {
    bytes_per_param = 6.0;
  } else {
    bytes_per_param = m * (2.0 * 2.0 + 4.0);
  }
  add_scatter(dp, bytes_per_param * params.dense, dense_group);
  add_scatter(dp, bytes_per_param * params.expert, expert_group);
  dp.exposed_s = e.time.dp_comm_s;
  out.push_back(dp);
  return out;
}

namespace {

std::string num(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e12) return format_fixed(v / 1e12, 2) + "T";
  if (a >= 1e9) return format_fixed(v / 1e9, 2) + "B";
  if (a >= 1e6) return format_fixed(v / 1e6, 2) + "M";
  if (a < 1e6 && v == std::floor(v)) return format_fixed(v, 0);
  if (a >= 1000) return format_fixed(v, 0);
  if (a >= 100) return format_fixed(v, 1);
  if (a >= 10) return format_fixed(v, 2);
  if (a >= 0.01) return format_fixed(v, 3);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", v);
  return buffer;
}

std::string pct(double fraction) { return format_fixed(fraction * 100.0, 1) + "%"; }

std::string ref(int formula) {
  return formula > 0 ? " [[" + std::to_string(formula) + "]](#f-" + std::to_string(formula) + ")"
                     : "";
}

std::string params_text(double params) {
  if (params >= 1e12) return format_fixed(params / 1e12, 2) + "T";
  if (params >= 1e9) return format_fixed(params / 1e9, 1) + "B";
  return format_fixed(params / 1e6, 0) + "M";
}

std::string value_text(const ReportFigure& f) {
  if (f.unit == "fraction") return pct(f.value);
  if (f.unit.empty()) return num(f.value);
  return num(f.value) + " " + f.unit;
}

ReportFigure fig(std::string key, std::string label, double value, std::string unit, int formula,
                 std::string note = "") {
  return {std::move(key), std::move(label), value, std::move(unit), formula, std::move(note)};
}

const char* zero_name(int zero) {
  switch (zero) {
    case 0: return "none (plain DP)";
    case 1: return "ZeRO-1 (distributed optimizer)";
    case 2: return "ZeRO-2";
    default: return "ZeRO-3 / FSDP";
  }
}

std::vector<ReportFormula> formulas() {
  return {
      {1, "Model states per GPU",
       "weights 2·Ψ_g, gradients 2·Ψ_g, Adam 12·Ψ_g, where Ψ_g = dense/t + experts/(ep·t) on the "
       "stage; ZeRO-1 divides Adam, ZeRO-2 also gradients, ZeRO-3 also weights, by dp·cp for "
       "dense and dp·cp/ep for expert parameters",
       "Rajbhandari et al. 2020 (ZeRO) §3.1, §5; Megatron-Core distributed optimizer"},
      {2, "Activations per GPU",
       "per layer s/c·b·h·(10 + 24/t + …) bytes (Korthikanti Table 2, generalised to GQA/SwiGLU; "
       "all /t with SP; 2·s·b·h/c with full recompute) + 2·k·h per token on MoE layers (+ the k "
       "expert outputs where the framework scales after the experts), times the layer-micro-batches "
       "in flight (1F1B and ZB-H1: p on stage 0, interleaved ×(1 + (p−1)/(p·v)), ZB-V p, DualPipe "
       "p + 1 of a stage)",
       "Korthikanti et al. 2022 §4, eq. 1–2; Narayanan et al. 2021 §2.2; DeepSeek-AI 2024 Table 2"},
      {3, "TP bytes per GPU per step",
       "m · L_stage · 4 (6 with full recompute) collectives · 2(t−1)/t · (b·s/c·h·2)",
       "Narayanan et al. 2021 §3.2 (2 all-reduces per pass); Korthikanti et al. 2022 §4.2.2 (SP)"},
      {4, "CP bytes per GPU per step",
       "m · L_stage · 3(c−1) · (b·s/c · 2·kv_heads·d/t · 2): K and V chunks round the ring, "
       "forward once, backward twice (K, V and their gradients)",
       "Liu et al. 2023 (Ring Attention); Megatron-Core context parallelism"},
      {5, "EP all-to-all bytes per GPU per step",
       "m · L_moe · 4 (6 with full recompute) · (b·s/c · k · h · 2/t); the share (n−k_node)/n "
       "leaves the node, (k_node−1)/n stays on NVLink",
       "Lepikhin et al. 2021 (GShard) §2; Fedus et al. 2022 (Switch); DeepSeek-AI 2024 §3.2.2"},
      {6, "PP bytes per GPU per step", "2 · m · (b·s/c · h · 2/t): activation forward, gradient back",
       "Narayanan et al. 2021 §4.1 (scatter/gather across TP ranks)"},
      {7, "DP bytes per GPU per step",
       "(n−1)/n · (4 + 2)·Ψ_g with ZeRO 1–2 (fp32 reduce-scatter + bf16 all-gather), 8·Ψ_g "
       "without ZeRO, m·(2·2 + 4)·Ψ_g with ZeRO-3; across nodes each GPU's NIC carries 1/k_node",
       "Rajbhandari et al. 2020 §7; nccl-tests busbw factors (nccl-tests doc/PERFORMANCE.md)"},
      {8, "Transfer time at link rate",
       "bytes / (line rate × NCCL efficiency): NVLink × 0.8, network × 0.92",
       "NVIDIA/nccl-tests#212, #290"},
      {9, "Step time",
       "m·(t_f + t_b) + recompute + exposed TP/CP/EP/PP/DP communication + bubble + optimizer, on "
       "the slowest stage; the bubble (p−1)/v·(t_f+t_b) for 1F1B, (p−1)(F+B−2W)/v for ZB-H1, "
       "(p/2−1)(F&B+B−3W) for DualPipe (pipeline.h); plus the wait for the slowest of N GPUs, "
       "σ·E[max of N standard normals]·(compute + recompute + bubble), σ = 1.4% the measured speed spread",
       "Narayanan et al. 2021 §2.2; Qi et al. 2023; DeepSeek-AI 2024 Table 2; Sinha et al. 2022 "
       "(SC'22, GPU speed variability); pplan compute.h / estimate.h"},
      {10, "MFU", "model FLOPs per step / (step time · GPUs · dense peak)",
       "Chowdhery et al. 2022 (PaLM) App. B; Narayanan et al. 2021 eq. 3"},
      {11, "Tokens per day", "global batch · seq_len / step time · 86,400", "definition"},
      {12, "Days to train", "token budget / tokens per day (no failures)", "definition"},
      {13, "Checkpoint size",
       "14 bytes × Ψ: bf16 weights (2) + fp32 master, momentum, variance (12); with bf16 optimizer "
       "state 2 + 6 (2 + 8 with fp32 master weights: torchtitan, Megatron-FSDP)",
       "Rajbhandari et al. 2020 §3.1 (mixed-precision Adam states)"},
      {14, "Checkpoint write time δ", "checkpoint size / aggregate storage write bandwidth",
       "definition (all ranks write their shards in parallel)"},
      {15, "Failure rate per GPU-hour λ", "419 / (54 days · 24 h · 16,384 GPUs) = 1.973e-5",
       "Llama Team 2024 §3.3.4, Table 5"},
      {16, "Job MTBF M", "1 / (λ · GPUs)", "independent failures, exponential model"},
      {17, "Optimal checkpoint interval τ", "sqrt(2 · δ · M)",
       "Young 1974; Daly 2006 (first-order term)"},
      {18, "Goodput", "τ/(τ+δ) · (1 − (R + (τ+δ)/2) / M)", "Daly 2006 first-order wall-time model"},
      {19, "Wall-clock days", "days to train / goodput", "definition"},
      {20, "Network bandwidth used per GPU", "network bytes per step / step time (average)",
       "definition"},
      {21, "Default storage bandwidth", "2 TB/s · GPUs / 16,384 (122 MB/s per GPU)",
       "Llama Team 2024 §3.3.1 (Tectonic: 2 TB/s sustained)"},
      {22, "Restart time R", "600 s (detect, replace, relaunch; an assumption, `report.restart_s` "
       "overrides it) + checkpoint size / storage bandwidth (read back)", "assumption, stated"},
      {23, "Daly's higher-order interval",
       "sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + (1/9)·δ/(2M)] − δ (δ < 2M)", "Daly 2006 (higher-order estimate)"},
      {24, "Parameters",
       "L·(h·(2h + 2·kv_heads·d) + 2h) + dense layers · 2 or 3·h·f + MoE layers · ((E + shared)·2 or "
       "3·h·f_e + h·E) + V·h (embedding) + V·h (untied head) + h; active: top_k + shared experts instead "
       "of E + shared", "architecture tables of each model's paper; pplan architecture.h"},
  };
}

}  // namespace

DesignReport design_report(const Scenario& scenario, const Estimate& plan,
                           const Explanation& explanation) {
  DesignReport r;
  r.plan = plan;
  r.explanation = explanation;
  r.formulas = formulas();
  const ModelSpec& model = scenario.model;
  const ClusterSpec& cluster = scenario.cluster;
  const ParallelConfig& p = plan.parallel;
  const int gpus = cluster.gpus;
  const double gb = units::kBytesPerGB;
  r.title = "Design report: " + model.name + " on " + std::to_string(gpus) + " × " +
            cluster.gpu.name;
  r.summary = explanation.thirty_second_answer;

  // 1. Layout.
  {
    ReportSection s;
    s.id = "layout";
    s.title = "Layout and why";
    s.text = "TP " + std::to_string(p.tp) + " · CP " + std::to_string(p.cp) + " · PP " +
             std::to_string(p.pp) + " · DP " + std::to_string(p.dp) +
             (p.ep > 1 ? " (EP " + std::to_string(p.ep) + " inside DP·CP)" : "") + " = " +
             std::to_string(1LL * p.tp * p.cp * p.pp * p.dp) + " GPUs; vpp " +
             std::to_string(p.vpp) + ", micro-batch " + std::to_string(p.micro_batch) + ", " +
             (p.recompute == Recompute::kNone ? std::string("no") : recompute_name(p.recompute)) + " recompute" +
             (p.sequence_parallel ? ", sequence parallel" : "") + ", optimizer sharding " +
             zero_name(p.zero) + ". One model replica spans " +
             std::to_string(1LL * p.tp * p.cp * p.pp) + " GPUs on " + [&] {
               // Megatron's rank order (tp-cp-ep-dp-pp) spreads a replica's stages dp·tp·cp apart.
               const long long hosts = replica_hosts(p, cluster.gpus_per_node);
               const long long domains = replica_hosts(p, cluster.nvlink_domain_gpus);
               std::string where = std::to_string(hosts) + (hosts == 1 ? " node" : " nodes") + " of " +
                                   std::to_string(cluster.gpus_per_node);
               if (cluster.nvlink_domain_gpus > cluster.gpus_per_node) {
                 where += " in " + std::to_string(domains) + " NVLink domain" + (domains == 1 ? "" : "s") +
                          " of " + std::to_string(cluster.nvlink_domain_gpus);
               }
               return where;
             }() + " (Megatron's rank order tp-cp-ep-dp-pp).";
    if (!plan.feasible) s.text += " **This configuration is not feasible** (see diagnostics).";
    r.sections.push_back(s);
  }

  // 2. Memory.
  {
    ReportSection s;
    s.id = "memory";
    s.title = "Memory budget per GPU (fullest stage)";
    const double total = total_params(model, scenario.training.seq_len);
    const double active = active_params(model, scenario.training.seq_len);
    const MemoryEstimate& m = plan.memory;
    const double other = m.total_bytes - m.weights_bytes - m.gradients_bytes - m.optimizer_bytes -
                         m.activations_bytes;
    s.text = "Stage " + std::to_string(m.peak_stage) + " of " + std::to_string(p.pp) +
             " holds the most. " + params_text(total) + " parameters in total" +
             (model.moe && model.moe->experts > 0 ? ", " + params_text(active) + " active per token" : "") +
             ".";
    s.figures = {fig("params_total", "parameters (counted)", total, "", 24),
                 fig("params_active", "parameters active per token", active, "", 24),
                 fig("weights_gb", "weights", m.weights_bytes / gb, "GB", 1),
                 fig("gradients_gb", "gradients", m.gradients_bytes / gb, "GB", 1),
                 fig("optimizer_gb", "optimizer (Adam, fp32)", m.optimizer_bytes / gb, "GB", 1),
                 fig("activations_gb", "activations", m.activations_bytes / gb, "GB", 2)};
    if (other > 0) s.figures.push_back(fig("reserved_gb", "reserved (context, workspaces)", other / gb, "GB", 0));
    s.figures.push_back(fig("total_gb", "total", m.total_bytes / gb, "GB", 1));
    s.figures.push_back(fig("capacity_gb", "capacity", m.capacity_bytes / gb, "GB", 0,
                            plan.fits_in_memory ? "fits" : "does not fit"));
    r.sections.push_back(s);
  }

  // 3. Communication.
  r.traffic = communication_per_step(scenario, plan);
  const Link nv = nvlink(cluster.gpu);
  const Link net = network(cluster.gpu);
  double nvlink_total = 0, network_total = 0;
  {
    ReportSection s;
    s.id = "communication";
    s.title = "Communication per step, per GPU, by link";
    s.text = "Bytes each GPU sends per optimizer step on the busiest stage; transfer time at the "
             "achievable link rate" + ref(8) + " (NVLink " + num(nv.bytes_per_s / gb) +
             " GB/s, network " + num(net.bytes_per_s / gb) +
             " GB/s per GPU), and the part the step could not hide behind compute.";
    for (const AxisTraffic& t : r.traffic) {
      if (t.nvlink_bytes <= 0 && t.network_bytes <= 0) continue;
      std::string axis = t.axis;
      std::transform(axis.begin(), axis.end(), axis.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (t.nvlink_bytes > 0) {
        s.figures.push_back(fig(axis + "_nvlink_gb", t.axis + " over NVLink", t.nvlink_bytes / gb, "GB", t.formula,
                                num(t.nvlink_bytes / nv.bytes_per_s) + " s at link rate"));
      }
      if (t.network_bytes > 0) {
        s.figures.push_back(fig(axis + "_network_gb", t.axis + " over the network", t.network_bytes / gb, "GB",
                                t.formula, num(t.network_bytes / net.bytes_per_s) + " s at link rate"));
      }
      s.figures.push_back(fig(axis + "_exposed_s", t.axis + " exposed in the step", t.exposed_s, "s", 9));
      nvlink_total += t.nvlink_bytes;
      network_total += t.network_bytes;
    }
    s.figures.push_back(fig("nvlink_total_gb", "total over NVLink", nvlink_total / gb, "GB", 0,
                            "sum of the rows; " + num(nvlink_total / nv.bytes_per_s) + " s at link rate"));
    s.figures.push_back(fig("network_total_gb", "total over the network", network_total / gb, "GB", 0,
                            "sum of the rows; " + num(network_total / net.bytes_per_s) + " s at link rate"));
    r.sections.push_back(s);
  }

  // 4. Time and throughput.
  const double tokens_per_day = plan.tokens_per_s * units::kSecondsPerDay;
  const double budget = scenario.training.token_budget;
  const double days = budget > 0 && tokens_per_day > 0 ? budget / tokens_per_day : 0.0;
  {
    ReportSection s;
    s.id = "throughput";
    s.title = "Step time, MFU and time to train";
    const TimeBreakdown& t = plan.time;
    s.text = "Slowest stage, " + format_fixed(plan.microbatches, 0) + " micro-batches per step" +
             (p.pp > 1 ? std::string(" under the ") + schedule_name(p.schedule) + " schedule" : std::string()) +
             ", bubble " + pct(plan.bubble_fraction) + ".";
    if (!plan.timed) {
      // A grid that is not the cluster has no step time: only the reason (estimate.cpp).
      s.text = "Not timed: tp·pp·dp·cp = " + std::to_string(1LL * p.tp * p.pp * p.dp * p.cp) +
               " GPUs is not the cluster's " + std::to_string(gpus) + ", so no step time, MFU or days.";
      r.sections.push_back(s);
    } else {
    s.figures = {fig("step_time_s", "step time", plan.step_time_s, "s", 9),
                 fig("compute_s", "compute (forward + backward)", t.compute_s, "s", 9),
                 fig("recompute_s", "recomputation", t.recompute_s, "s", 9),
                 fig("bubble_s", "pipeline bubble", t.bubble_s, "s", 9),
                 fig("comm_exposed_s", "exposed communication",
                     t.tp_comm_s + t.cp_comm_s + t.ep_comm_s + t.pp_comm_s + t.dp_comm_s, "s", 9),
                 fig("straggler_s", "wait for the slowest GPU", t.straggler_s, "s", 9),
                 fig("mfu", "MFU", plan.mfu, "fraction", 10),
                 fig("tflops_per_gpu", "model TFLOP/s per GPU", plan.tflops_per_gpu, "", 10),
                 fig("tokens_per_day", "tokens per day", tokens_per_day, "", 11)};
    if (budget > 0) {
      s.figures.push_back(fig("token_budget", "token budget", budget, "", 0));
      s.figures.push_back(fig("days_to_train", "days to train (no failures)", days, "days", 12));
      s.figures.push_back(fig("gpu_hours", "GPU-hours (no failures)", days * 24.0 * gpus, "", 12));
    }
    r.sections.push_back(s);
    }
  }

  // 5. Checkpoints and failures.
  const double params = total_params(model, scenario.training.seq_len);
  const double optimizer_bytes_per_param = model_state_bytes(scenario, p.zero).optimizer;
  const double ckpt = checkpoint_bytes(params, optimizer_bytes_per_param);
  const bool storage_given = scenario.report.storage_bytes_per_s > 0;
  const double storage = storage_given ? scenario.report.storage_bytes_per_s : default_storage_bytes_per_s(gpus);
  const double write_s = ckpt / storage;
  const bool rate_given = scenario.report.failures_per_gpu_hour > 0;
  const double lambda = rate_given ? scenario.report.failures_per_gpu_hour : llama3_failures_per_gpu_hour();
  const double mtbf = job_mtbf_s(lambda, gpus);
  // At least one step between checkpoints: a checkpoint is taken between steps.
  const double step_s = plan.timed ? plan.step_time_s : 0.0;
  const double interval = std::max(young_daly_interval_s(write_s, mtbf), step_s);
  const bool restart_given = scenario.report.restart_overhead_s.has_value();
  const double restart = scenario.report.restart_overhead_s.value_or(kRestartOverheadS) + write_s;
  const double goodput = goodput_fraction(interval, write_s, restart, mtbf, step_s);
  {
    ReportSection s;
    s.id = "reliability";
    s.title = "Checkpoints, failures and goodput";
    s.text = "A checkpoint holds the weights and the Adam states, not the gradients. Failures are "
             "independent and arrive at Llama 3's observed rate unless the scenario sets "
             "`report.failures_per_gpu_hour`; storage bandwidth is " +
             std::string(storage_given ? "the scenario's `report.storage_gbytes_per_s`"
                                       : "Llama 3's 2 TB/s scaled to this cluster") + ".";
    s.figures = {fig("checkpoint_gb", "checkpoint size", ckpt / gb, "GB", 13),
                 fig("storage_gbytes_per_s", "storage write bandwidth", storage / gb, "GB/s",
                     storage_given ? 0 : 21),
                 fig("checkpoint_write_s", "checkpoint write time δ", write_s, "s", 14),
                 fig("failures_per_gpu_hour", "failures per GPU-hour λ", lambda, "", rate_given ? 0 : 15),
                 fig("mtbf_h", "job MTBF M", mtbf / units::kSecondsPerHour, "h", 16),
                 fig("checkpoint_interval_min", "checkpoint interval τ", interval / 60.0, "min", 17),
                 fig("daly_interval_min", "Daly's higher-order interval", daly_interval_s(write_s, mtbf) / 60.0,
                     "min", 23, "the first-order τ is used below"),
                 fig("restart_s", "restart time R", restart, "s", 22,
                     restart_given ? "the scenario's report.restart_s + read-back" : ""),
                 fig("goodput", "goodput", goodput, "fraction", 18)};
    if (budget > 0 && goodput > 0 && plan.timed) {
      const double wall_days = days / goodput;
      s.figures.push_back(fig("wall_clock_days", "wall-clock days with failures", wall_days, "days", 19));
      s.figures.push_back(fig("expected_failures", "failures expected during training",
                              lambda * gpus * wall_days * 24.0, "", 16));
    }
    r.sections.push_back(s);
  }

  // 6. Network.
  {
    ReportSection s;
    s.id = "network";
    s.title = "The network this needs";
    // NVLink groups are what the domain holds (72 GPUs on an NVL72 rack, one host on DGX); the
    // rails are the host's NICs, one per GPU position.
    const int gpn = cluster.gpus_per_node;
    const int domain = cluster.nvlink_domain_gpus;
    const int nodes = (gpus + gpn - 1) / gpn;
    std::vector<std::string> inside, across;
    auto classify = [&](const char* name, int size, Axis axis) {
      if (size <= 1) return;
      (place_group(p, cluster, axis).crosses_nodes() ? across : inside).push_back(name);
    };
    classify("TP", p.tp, Axis::kTp);
    classify("CP", p.cp, Axis::kCp);
    classify("EP", p.ep, Axis::kEp);
    classify("DP", p.dp, Axis::kDp);
    classify("PP", p.pp, Axis::kPp);
    auto join = [](const std::vector<std::string>& v) {
      std::string out;
      for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
      return out.empty() ? std::string("none") : out;
    };
    const double used = plan.step_time_s > 0 ? network_total / plan.step_time_s : 0.0;
    const std::string domain_text =
        domain > gpn ? std::to_string(domain) + " GPUs (" + std::to_string(domain / gpn) +
                           " hosts of " + std::to_string(gpn) + ")"
                     : std::to_string(domain) + " GPUs per node";
    const std::string fabric_text =
        cluster.rail_optimized
            ? "a rail-optimised fabric of " + std::to_string(gpn) +
                  " rails (GPU i of every node on leaf switch group i), one "
            : "a fabric that is not rail-optimised (cluster.network.rail_optimized: each node's "
              "NICs share its leaf, so traffic between nodes may cross NIC indices and the "
              "spine), one ";
    const std::string oversubscribed =
        cluster.oversubscription > 1
            ? " The uplinks are " + num(cluster.oversubscription) +
                  ":1 oversubscribed: the per-GPU figure above is the NIC's share after it."
            : "";
    const GroupPlacement ep_group = place_group(p, cluster, Axis::kEp);
    s.text = "NVLink domain: " + domain_text + " (" + num(cluster.gpu.nvlink_bytes_per_s / gb) +
             " GB/s per GPU each way); groups inside it: " + join(inside) + ". Scale-out: " +
             fabric_text + num(cluster.gpu.network_bytes_per_s / gb) + " GB/s NIC per GPU, " +
             std::to_string(nodes) + " nodes; groups across it: " + join(across) + "." +
             oversubscribed +
             (p.ep > 1 && ep_group.crosses_nodes()
                  ? " The EP all-to-all sends to every node of its group, not only along a rail: the "
                    "fabric needs full bisection bandwidth (a non-blocking fat tree) or PXN routing "
                    "through NVLink to the right rail."
                  : "");
    s.figures = {fig("nvlink_domain_gpus", "NVLink domain", domain, "GPUs", 0),
                 fig("nvlink_gbytes_per_s", "NVLink per GPU, each way", cluster.gpu.nvlink_bytes_per_s / gb, "GB/s", 0),
                 fig("nodes", "nodes", nodes, "", 0),
                 fig("rails", "rails", cluster.rail_optimized ? gpn : 0, "", 0,
                     cluster.rail_optimized ? "" : "not rail-optimised"),
                 fig("nic_gbytes_per_s", "NIC per GPU, each way", cluster.gpu.network_bytes_per_s / gb, "GB/s", 0),
                 fig("network_used_gbytes_per_s", "network used per GPU (step average)", used / gb, "GB/s", 20,
                     pct(cluster.gpu.network_bytes_per_s > 0 ? used / cluster.gpu.network_bytes_per_s : 0) +
                         " of the NIC")};
    r.sections.push_back(s);
  }

  r.assumptions = {
      scenario.training.optimizer_state_dtype == OptimizerStateDtype::kFp32
          ? "Mixed-precision Adam: 16 bytes per parameter in memory, 14 in a checkpoint (gradients are not saved)."
          : "Adam with bf16 state (training.optimizer_state_dtype): " + format_fixed(optimizer_bytes_per_param, 0) +
                " bytes of optimizer state per parameter, " +
                format_fixed(kWeightBytesPerParam + optimizer_bytes_per_param, 0) +
                " in a checkpoint with the bf16 weights (gradients are not saved).",
      "Checkpoints are written synchronously by all ranks in parallel; the write stalls training for δ.",
      "Failures are independent with a constant rate (exponential); the default is Llama 3's 419 "
      "interruptions in 54 days on 16,384 GPUs, scaled linearly to this GPU count.",
      "Restart: 600 s to detect, replace and relaunch (an assumption; `report.restart_s` sets it), plus "
      "reading the checkpoint back at the write bandwidth.",
      "MoE routing is balanced: every expert receives tokens·k/E tokens. Imbalance stretches the expert "
      "GEMMs and the all-to-all by the max/mean load ratio (up to the capacity factor when tokens are "
      "dropped, e.g. 1.25 in Switch Transformer) and is not modelled.",
      "The MoE all-to-all is not overlapped with compute (Megatron's default); DualPipe-style overlap "
      "(DeepSeek-V3) would hide most of it.",
  };
  return r;
}

std::string report_markdown(const DesignReport& r) {
  // The title, summary, steps, alternatives and diagnostics are plain text that carries the
  // scenario's names (model, GPU): escaped for Markdown and HTML (text.h escape_markdown), so
  // a name renders as written and never as a tag, link, image or heading (issue #14). The
  // section texts, labels and notes are pplan's own Markdown.
  const auto text = [](const std::string& plain) { return escape_markdown(plain); };
  std::string md = "# " + text(r.title) + "\n\n";
  if (!r.summary.empty()) md += text(r.summary) + "\n\n";
  int n = 0;
  for (const ReportSection& s : r.sections) {
    md += "## " + std::to_string(++n) + ". " + s.title + "\n\n";
    if (!s.text.empty()) md += s.text + "\n\n";
    if (s.id == "layout") {
      for (const ExplanationStep& step : r.explanation.steps) {
        md += std::to_string(step.number) + ". **" + text(step.title) + "**: " + text(step.text) + "\n";
      }
      if (!r.explanation.steps.empty()) md += "\n";
      for (const Alternative& a : r.explanation.alternatives) {
        md += "- " + text(a.label) + " " + text(a.verdict) + "\n";
      }
      if (!r.explanation.alternatives.empty()) md += "\n";
      for (const Diagnostic& d : r.plan.diagnostics) {
        md += "- " + std::string(severity_name(d.severity)) + " `" + d.code + "`: " + text(d.message) + "\n";
      }
      if (!r.plan.diagnostics.empty()) md += "\n";
      continue;
    }
    if (s.figures.empty()) continue;
    md += "| | value |\n|---|---|\n";
    for (const ReportFigure& f : s.figures) {
      md += "| " + f.label + " | " + value_text(f) + ref(f.formula) + (f.note.empty() ? "" : " (" + f.note + ")") +
            " |\n";
    }
    md += "\n";
  }
  md += "## Assumptions\n\n";
  for (const std::string& a : r.assumptions) md += "- " + a + "\n";
  md += "\n## Formulas\n\n";
  for (const ReportFormula& f : r.formulas) {
    md += "<a id=\"f-" + std::to_string(f.number) + "\"></a>" + std::to_string(f.number) + ". **" + f.name +
          "** = " + f.expression + ". *Source: " + f.source + ".*\n";
  }
  return md;
}

}  // namespace pplan
