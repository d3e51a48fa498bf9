#include "flags.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace pplan::cli {

std::optional<double> parse_human_number(std::string_view text, Units units, std::string& error) {
  std::string s(text);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  if (s.empty()) {
    error = "empty";
    return std::nullopt;
  }
  double scale = 1;
  const char suffix = s.back();
  if (std::isalpha(static_cast<unsigned char>(suffix)) && suffix != 'e' && suffix != 'E') {
    const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix)));
    if (units == Units::kCount) {
      if (up == 'K')
        scale = 1024.0;
      else if (up == 'M')
        scale = 1048576.0;
    } else {
      if (up == 'K')
        scale = 1e3;
      else if (up == 'M')
        scale = 1e6;
      else if (up == 'B' || up == 'G')
        scale = 1e9;
      else if (up == 'T')
        scale = 1e12;
      else if (up == 'P')
        scale = 1e15;
    }
    if (scale == 1) {
      error = std::string("unknown suffix '") + suffix + "' (" +
              (units == Units::kCount ? "K = 1,024 or M = 1,048,576"
                                      : "K, M, B, T or P, powers of 1,000") +
              ")";
      return std::nullopt;
    }
    s.pop_back();
  }
  // Thousands separators: "4,096", "1,048,576"; never "40,96" or "4,0960".
  if (s.find(',') != std::string::npos) {
    const std::size_t point = s.find_first_of(".eE");
    const std::string whole = s.substr(0, point);
    const std::string rest = point == std::string::npos ? "" : s.substr(point);
    std::vector<std::size_t> groups(1, 0);
    for (char c : whole) {
      if (c == ',')
        groups.push_back(0);
      else
        ++groups.back();
    }
    bool threes = rest.find(',') == std::string::npos && groups.front() >= 1 && groups.front() <= 3;
    for (std::size_t i = 1; i < groups.size(); ++i) threes = threes && groups[i] == 3;
    if (!threes) {
      error = "commas must group the digits in threes (4,096)";
      return std::nullopt;
    }
    std::string plain;
    for (char c : whole)
      if (c != ',') plain += c;
    s = plain + rest;
  }
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.' || s[0] == '-' ||
                     s[0] == '+')) {
    error = "not a number";
    return std::nullopt;
  }
  if (s.find_first_not_of("0123456789.eE+-") != std::string::npos) {  // no hex, inf or nan
    error = "not a number";
    return std::nullopt;
  }
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(x)) {
    error = "not a number";
    return std::nullopt;
  }
  const double value = x * scale;
  if (!std::isfinite(value)) {
    error = "too large";
    return std::nullopt;
  }
  if (units == Units::kCount && value != std::floor(value)) {
    error = "not a whole number";
    return std::nullopt;
  }
  return value;
}

const std::vector<ScenarioFlag>& scenario_flags() {
  static const std::vector<ScenarioFlag> flags = {
      {"--gpus", "/cluster/gpus", ScenarioFlag::kCount, "N", "GPUs in the cluster (256, 16k)",
       "256"},
      {"--gpus-per-node", "/cluster/gpus_per_node", ScenarioFlag::kCount, "N",
       "GPUs per NVLink domain (default 8)", "8"},
      {"--seq", "/training/seq_len", ScenarioFlag::kCount, "N",
       "tokens per sequence (8k = 8,192; 128K)", "8k"},
      {"--batch", "/training/global_batch", ScenarioFlag::kCount, "N",
       "sequences per optimizer step (512; 4,096)", "4,096"},
      {"--precision", "/training/precision", ScenarioFlag::kText, "bf16|fp8",
       "GEMM precision (default bf16)", "fp8"},
      {"--tokens", "/training/token_budget", ScenarioFlag::kAmount, "N",
       "tokens to train (15T, 300B): adds days to train", "15T"},
      {"--tp", "/parallel/tp", ScenarioFlag::kCount, "N", "pin tensor parallelism", "8"},
      {"--pp", "/parallel/pp", ScenarioFlag::kCount, "N", "pin pipeline parallelism", "8"},
      {"--dp", "/parallel/dp", ScenarioFlag::kCount, "N", "pin data parallelism", "16"},
      {"--cp", "/parallel/cp", ScenarioFlag::kCount, "N", "pin context parallelism", "2"},
      {"--ep", "/parallel/ep", ScenarioFlag::kCount, "N", "pin expert parallelism", "8"},
      {"--etp", "/parallel/etp", ScenarioFlag::kCount, "N", "pin expert tensor parallelism (default: tp)", "1"},
      {"--vpp", "/parallel/vpp", ScenarioFlag::kCount, "N", "pin virtual pipeline stages per rank",
       "2"},
      {"--schedule", "/parallel/schedule", ScenarioFlag::kText, "1f1b|interleaved|zb-h1|zb-v|dualpipe|dualpipev",
       "pin the pipeline schedule", "dualpipe"},
      {"--micro-batch", "/parallel/micro_batch", ScenarioFlag::kCount, "N",
       "pin the micro-batch size", "1"},
      {"--zero", "/parallel/zero", ScenarioFlag::kCount, "0-3", "pin ZeRO / optimizer sharding",
       "1"},
      {"--recompute", "/parallel/recompute", ScenarioFlag::kText, "none|selective|full",
       "pin recomputation", "selective"},
  };
  return flags;
}

Units units_of(std::string_view pointer) {
  return pointer == "/training/token_budget" || pointer == "/model/nominal_params" ? Units::kAmount
                                                                                   : Units::kCount;
}

std::string to_pointer(std::string_view path) {
  if (path.empty()) return "";
  std::string out;
  if (path[0] == '/') {
    out = std::string(path);
  } else {
    out = "/";
    for (char c : path) out += c == '.' ? '/' : c;
  }
  if (out.size() < 2 || out.back() == '/' || out.find("//") != std::string::npos) return "";
  return out;
}

}  // namespace pplan::cli
