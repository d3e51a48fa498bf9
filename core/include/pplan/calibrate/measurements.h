#pragma once
/// Measurements pasted as printed, for `pplan calibrate`: NVIDIA nccl-tests tables and training
/// logs. Every figure and unit is read from the text, never assumed; a paste that cannot be
/// read is refused with an InputError at `path` whose message names the line and column.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pplan {

/// The nccl-tests programs pplan prices (each by the collective of model/comm.h it measures).
enum class NcclCollective { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };

/// "all_reduce_perf" ...
const char* nccl_program_name(NcclCollective collective);

/// One data row of a table, out-of-place (the in-place columns are kept when printed).
struct NcclTestsRow {
  int line = 0;  ///< 1-based line of the paste
  double size_bytes = 0;
  double count = 0;
  double time_us = 0;
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
  std::optional<double> in_place_time_us;
  std::optional<double> in_place_busbw_gbytes_per_s;
};

/// One nccl-tests run: the program, who ran it (from its "#  Rank …" lines) and its table.
struct NcclTestsTable {
  NcclCollective collective = NcclCollective::kAllReduce;
  bool collective_from_name = false;  ///< the paste names the program (else read from busbw/algbw)
  int ranks = 0;
  int nodes = 0;           ///< distinct hosts of the Rank lines
  int ranks_per_node = 0;  ///< ranks / nodes (refused when uneven)
  std::string device;      ///< as the Rank lines name it ("NVIDIA H100 80GB HBM3")
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbytes_per_s;  ///< the "# Avg bus bandwidth" footer
  int rows_wrong = 0;  ///< rows whose #wrong is neither 0 nor N/A
};

/// Parses one nccl-tests output (nccl-tests 2.x: the "# nThread … nGpus …" header, the
/// "#  Rank" lines, the column header with its units line, data rows and the footer). Noise
/// between them (NCCL INFO, MPI warnings, "NCCL version", srun's "0: " labels) is skipped.
NcclTestsTable parse_nccl_tests(std::string_view text, const std::string& path);

/// What a training log says of its step time.
struct LoggedSteps {
  double step_time_s = 0;  ///< the median over the iterations read (the first skipped when 3+)
  int iterations = 0;      ///< lines read
  int first_line = 0, last_line = 0;
  std::string source;  ///< "Megatron-LM elapsed time per iteration" | "torchtitan tps" | "DeepSpeed CurrSamplesPerSec"
};

/**
 * The step time a training log states. Megatron-LM and Megatron-Bridge: "elapsed time per
 * iteration (ms): X" (NVIDIA/Megatron-LM d98e8a64 megatron/training/training.py:3574).
 * torchtitan: "tps: N", tokens per second per GPU (pytorch/torchtitan b5bcd76c
 * torchtitan/components/metrics.py:481), so a step takes tokens_per_step / (N · gpus).
 * DeepSpeed: "CurrSamplesPerSec=X", samples of the global batch per second (deepspeedai/DeepSpeed
 * edaa7221 deepspeed/utils/timer.py:265, engine.py:371), so a step takes sequences / X.
 */
LoggedSteps step_time_from_log(std::string_view text, double tokens_per_step, double sequences_per_step,
                               int gpus, const std::string& path);

/// The first character a pasted text may not hold (anything first_forbidden_character
/// refuses except newline, carriage return and tab), as "line L, column C: U+XXXX".
std::optional<std::string> forbidden_in_pasted_text(std::string_view text);

}  // namespace pplan
