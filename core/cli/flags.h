#pragma once
// Scenario flags: `pplan plan --model llama3-70b --gpu h100-sxm --gpus 256 --seq 8k --batch 512`
// builds the same scenario a file would hold, and `--set parallel.tp=8` sets any field.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pplan::cli {

/// How a human number's suffix reads.
enum class Units {
  kCount,   ///< GPUs, tokens per sequence, sequences, degrees: K = 1,024, M = 1,048,576
  kAmount,  ///< token budgets, parameters: K = 10^3, M = 10^6, B = G = 10^9, T = 10^12, P = 10^15
};

/**
 * "8k", "128K", "4,096", "1.5K", "15T", "300B", "2048", "14.8e12" as a number; commas must
 * group the digits in threes. Counts must come out whole. On failure, `error` says why.
 */
std::optional<double> parse_human_number(std::string_view text, Units units, std::string& error);

/// A flag that sets one scenario field.
struct ScenarioFlag {
  const char* flag;     ///< "--seq"
  const char* pointer;  ///< "/training/seq_len"
  enum Kind { kCount, kAmount, kText } kind;
  const char* value;  ///< for --help: "N"
  const char* help;
  const char* example;  ///< for --help: "8k"
};

/// Every field flag, in --help order (--model, --gpu and --set are handled apart).
const std::vector<ScenarioFlag>& scenario_flags();

/// The scenario fields' unit system for `--set POINTER=VALUE` ("/training/token_budget" reads
/// amounts; everything else counts).
Units units_of(std::string_view pointer);

/// "parallel.tp" or "/parallel/tp" as a JSON pointer; empty when malformed.
std::string to_pointer(std::string_view path);

}  // namespace pplan::cli
