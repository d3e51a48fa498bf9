#pragma once
/// The trillion-parameter design report: for one plan, the memory budget and why this
/// layout, communication per step by link type, step time and days to train, checkpoint size
/// and write time, the Young/Daly checkpoint interval, goodput after failures and the network
/// it needs. Every figure carries the number of the formula that produced it; one structure
/// feeds both the Markdown (`pplan report FILE`) and the JSON (`{"command":"report"}`).

#include <string>
#include <vector>

#include "pplan/model/estimate.h"
#include "pplan/model/memory.h"
#include "pplan/report/explain.h"
#include "pplan/specs.h"

namespace pplan {

/// Llama 3's failure record: 419 unexpected interruptions in a 54-day snapshot of pre-training
/// on 16,384 H100s (Llama Team 2024, "The Llama 3 Herd of Models" §3.3.4, Table 5).
inline constexpr double kLlama3Interruptions = 419.0;
inline constexpr double kLlama3SnapshotDays = 54.0;
inline constexpr double kLlama3Gpus = 16384.0;
/// Llama 3's storage: Tectonic sustains 2 TB/s (7 TB/s peak) for the 16K-GPU cluster (Llama
/// Team 2024 §3.3.1 "Storage"). The default checkpoint bandwidth scales it by GPU count.
inline constexpr double kLlama3StorageBytesPerS = 2e12;
/// Time to notice a failure, replace the node and relaunch the job, before the checkpoint is
/// read back. An assumption (stated in every report): 10 minutes with automated recovery.
inline constexpr double kRestartOverheadS = 600.0;
/// Bytes per parameter in a checkpoint: bf16 weights (2) + fp32 master weights, Adam momentum
/// and variance (12). Gradients are not saved (they are recomputed after a restart).
inline constexpr double kCheckpointBytesPerParam = kWeightBytesPerParam + kOptimizerBytesPerParam;

/**
 * Failures per GPU-hour from Llama 3's record: 419 / (54 days · 24 h · 16,384 GPUs).
 * Example: 419 / 21,233,664 = 1.973e-5 per GPU-hour (one failure every 3.09 h at 16K GPUs).
 */
double llama3_failures_per_gpu_hour();

/// Default aggregate checkpoint write bandwidth for `gpus` GPUs: 2 TB/s · gpus / 16,384
/// (Llama 3's storage per GPU, 122 MB/s). Example: 2048 GPUs -> 250 GB/s.
double default_storage_bytes_per_s(int gpus);

/// Checkpoint bytes: the bf16 weights and the optimizer state, 14 bytes per parameter with fp32
/// Adam state (kCheckpointBytesPerParam; 175e9 -> 2.45e12), 8 with bf16 state (memory.h).
double checkpoint_bytes(double params, double optimizer_bytes_per_param = kOptimizerBytesPerParam);

/// Mean time between failures of the whole job: 1 / (λ · gpus), seconds, for λ per GPU-hour.
/// Example: λ = 1.973e-5, 16,384 GPUs -> 3.09 h = 11,134 s.
double job_mtbf_s(double failures_per_gpu_hour, int gpus);

/**
 * Young's optimal checkpoint interval τ = sqrt(2·δ·M), the first-order optimum that Daly
 * refines (Young 1974, "A first order approximation to the optimum checkpoint interval";
 * Daly 2006, "A higher order estimate of the optimum checkpoint interval for restart dumps").
 * δ: checkpoint write time, M: job MTBF. Example: δ = 60 s, M = 3 h -> sqrt(2·60·10800) = 1138 s.
 */
double young_daly_interval_s(double checkpoint_write_s, double mtbf_s);

/**
 * Daly's higher-order optimum: sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + (1/9)·δ/(2M)] − δ for
 * δ < 2M, else M (Daly 2006, the higher-order estimate). Example: δ = 60 s, M = 10800 s:
 * 1138.42 · (1 + 0.017568 + 0.000309) − 60 = 1098.77 s.
 */
double daly_interval_s(double checkpoint_write_s, double mtbf_s);

/**
 * Goodput: the share of wall-clock time that advances training, in Daly's (2006) first-order
 * model: τ/(τ + δ) · (1 − (R + (τ + δ)/2) / M). Checkpointing costs δ every τ of work; each
 * failure (one per M) loses half an interval on average plus the restart time R.
 * Example: τ = 1138 s, δ = 60 s, R = 660 s, M = 10800 s: 0.9499 · (1 − 1259/10800) = 0.8392.
 * A checkpoint falls between steps, so τ is at least one step (`step_s`); when M is no longer
 * than a step, a failure comes on average before any step ends and goodput is 0.
 */
double goodput_fraction(double interval_s, double checkpoint_write_s, double restart_s,
                        double mtbf_s, double step_s = 0.0);

/// Bytes one GPU sends per optimizer step for one parallel axis, split by link.
struct AxisTraffic {
  std::string axis;           ///< "TP", "CP", "EP", "PP", "DP"
  double nvlink_bytes = 0;    ///< inside the node
  double network_bytes = 0;   ///< over the GPU's NIC
  double exposed_s = 0;       ///< the part the estimate could not hide (TimeBreakdown)
  int formula = 0;            ///< the formula number in the report
};

/**
 * Per-GPU bytes sent per step on the busiest stage, by axis and link (formulas [3]–[7] of the
 * report). Collective volumes are the ring algorithms' (n−1)/n factors (nccl-tests busbw,
 * nccl-tests doc/PERFORMANCE.md); groups that span nodes move the intra-node share over NVLink and the rest,
 * 1/k of the data per GPU, over its NIC, as comm.h models them.
 * EP: each MoE layer does 4 all-to-alls per micro-batch (dispatch and combine, forward and
 * backward; 6 with full recompute) of tokens·k·h·2/t bytes; (n − k_node)/n leaves the node.
 * Example: DeepSeek-V3, 4096 tokens, k = 8, h = 7168: 470 MB per all-to-all, 56/64 off-node
 * at ep = 64 with 8 GPUs per node.
 */
std::vector<AxisTraffic> communication_per_step(const Scenario& scenario, const Estimate& estimate);

/// One number of the report, with the formula that produced it.
struct ReportFigure {
  std::string key;    ///< stable JSON key with its unit ("checkpoint_gb")
  std::string label;  ///< human label
  double value = 0;
  std::string unit;   ///< "GB", "s", "days", "fraction" (0..1, shown as a percentage), "" ...
  int formula = 0;    ///< formula number; 0 = an input or a stated assumption
  std::string note;   ///< short qualifier shown after the number
};

/// A titled group of figures, with prose around them.
struct ReportSection {
  std::string id;
  std::string title;
  std::string text;  ///< prose before the figures (Markdown)
  std::vector<ReportFigure> figures;
};

/// A formula of the report: what it computes, how, and from which source.
struct ReportFormula {
  int number = 0;
  std::string name;
  std::string expression;
  std::string source;
};

/// The whole report.
struct DesignReport {
  std::string title;
  std::string summary;  ///< the 30-second answer
  Estimate plan;
  Explanation explanation;
  std::vector<AxisTraffic> traffic;
  std::vector<ReportSection> sections;
  std::vector<ReportFormula> formulas;
  std::vector<std::string> assumptions;
};

/// Builds the report of `plan` (the search's winner, or the pinned configuration).
DesignReport design_report(const Scenario& scenario, const Estimate& plan,
                           const Explanation& explanation);

/// The report as Markdown: sections, a figure table each, then the numbered formulas with
/// anchors (`#f-N`) that every figure links to.
std::string report_markdown(const DesignReport& report);

}  // namespace pplan
