#include "pplan/calibrate/measurements.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "pplan/diagnostics.h"
#include "pplan/text.h"

namespace pplan {

namespace {

struct Line {
  int number = 0;  ///< 1-based
  std::string text;
};

/// The paste's lines, each without srun's "N: " label (srun --label) and its trailing "\r".
std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  for (int number = 1; start <= text.size(); ++number) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t at = line.find_first_not_of(' ');
    std::size_t digits = at;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (at != std::string::npos && digits > at && digits < line.size() && line[digits] == ':' &&
        (digits + 1 == line.size() || line[digits + 1] == ' ')) {
      line = line.substr(std::min(line.size(), digits + 2));
    }
    lines.push_back({number, line});
    start = end + 1;
  }
  return lines;
}

/// Whitespace-separated tokens with their 1-based columns.
struct Token {
  std::string text;
  int column = 0;
};
std::vector<Token> tokens_of(const std::string& line) {
  std::vector<Token> out;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (at >= line.size()) break;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    out.push_back({line.substr(at, end - at), static_cast<int>(at) + 1});
    at = end;
  }
  return out;
}

std::optional<double> number_of(const std::string& token) {
  if (token.empty()) return std::nullopt;
  std::string plain;
  for (char c : token) if (c != ',') plain += c;  // "6,542" (torchtitan's tps)
  char* end = nullptr;
  const double v = std::strtod(plain.c_str(), &end);
  if (end != plain.c_str() + plain.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool all_digits(const std::string& token) {
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void refuse(const std::string& path, int line, int column, const std::string& message) {
  throw InputError("input.measurement", path,
                   "line " + std::to_string(line) + (column > 0 ? ", column " + std::to_string(column) : "") +
                       ": " + message);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// busbw / algbw of a collective on n ranks (nccl-tests doc/PERFORMANCE.md).
double bus_factor(NcclCollective c, int n) {
  switch (c) {
    case NcclCollective::kAllReduce: return 2.0 * (n - 1) / n;
    case NcclCollective::kSendRecv: return 1.0;
    default: return double(n - 1) / n;
  }
}

}  // namespace

const char* nccl_program_name(NcclCollective collective) {
  switch (collective) {
    case NcclCollective::kAllReduce: return "all_reduce_perf";
    case NcclCollective::kAllGather: return "all_gather_perf";
    case NcclCollective::kReduceScatter: return "reduce_scatter_perf";
    case NcclCollective::kAllToAll: return "alltoall_perf";
    case NcclCollective::kSendRecv: return "sendrecv_perf";
  }
  return "";
}

NcclTestsTable parse_nccl_tests(std::string_view text, const std::string& path) {
  const std::vector<Line> lines = lines_of(text);
  NcclTestsTable table;
  // The program, where the paste names it (its command line, or nccl-tests 2.17's
  // "# Collective test starting: all_reduce_perf").
  std::set<NcclCollective> named;
  for (NcclCollective c : {NcclCollective::kAllReduce, NcclCollective::kAllGather, NcclCollective::kReduceScatter,
                           NcclCollective::kAllToAll, NcclCollective::kSendRecv}) {
    if (text.find(nccl_program_name(c)) != std::string_view::npos) named.insert(c);
  }
  if (named.size() > 1) {
    refuse(path, 1, 0, "the paste names more than one nccl-tests program; paste one run per entry");
  }

  int header_line = 0;
  std::vector<std::string> columns;  // the column names, '#' dropped
  bool units_seen = false;
  std::set<std::string> hosts;
  std::set<int> ranks;
  std::string redop;
  for (const Line& line : lines) {
    const std::vector<Token> tokens = tokens_of(line.text);
    if (tokens.empty()) continue;
    if (tokens[0].text == "#" || tokens[0].text[0] == '#') {
      // "#  Rank  0 Group  0 Pid 295203 on node005 device  0 [0x18] NVIDIA H100 80GB HBM3"
      const std::size_t first = tokens[0].text == "#" ? 1 : 0;
      if (tokens.size() > first + 1 && tokens[first].text == "Rank" && all_digits(tokens[first + 1].text)) {
        ranks.insert(std::atoi(tokens[first + 1].text.c_str()));
        for (std::size_t i = first + 2; i + 1 < tokens.size(); ++i) {
          if (tokens[i].text == "on") hosts.insert(tokens[i + 1].text);
          if (tokens[i].text == "device" && table.device.empty()) {
            // the name follows the device index and its PCI bus id
            std::size_t name = i + 2;
            if (name < tokens.size() && tokens[name].text.front() == '[') ++name;
            if (name < tokens.size()) table.device = line.text.substr(tokens[name].column - 1);
          }
        }
        continue;
      }
      if (tokens.size() > first + 2 && tokens[first].text == "size" && tokens[first + 1].text == "count") {
        if (header_line) refuse(path, line.number, tokens[first].column, "a second column header: paste one run per entry");
        header_line = line.number;
        for (std::size_t i = first; i < tokens.size(); ++i) columns.push_back(tokens[i].text);
        continue;
      }
      if (header_line && !units_seen && tokens.size() > first && tokens[first].text.front() == '(') {
        // "#        (B)    (elements)   (us)  (GB/s)  (GB/s) ..." : the units the rows are read in
        const std::vector<std::string> expected = {"(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)"};
        for (std::size_t i = 0; i < expected.size(); ++i) {
          if (first + i >= tokens.size() || tokens[first + i].text != expected[i]) {
            const int column = first + i < tokens.size() ? tokens[first + i].column : 0;
            refuse(path, line.number, column,
                   "the units line reads \"" + printable(line.text, 120) +
                       "\"; pplan reads nccl-tests' own units, (B) (elements) (us) (GB/s) (GB/s)");
          }
        }
        units_seen = true;
        continue;
      }
      if (line.text.find("Avg bus bandwidth") != std::string::npos) {
        const std::size_t colon = line.text.find(':');
        const std::vector<Token> value = colon == std::string::npos ? std::vector<Token>{}
                                                                    : tokens_of(line.text.substr(colon + 1));
        const std::optional<double> v = value.empty() ? std::nullopt : number_of(value[0].text);
        if (!v) refuse(path, line.number, 0, "the \"Avg bus bandwidth\" footer has no number");
        table.avg_busbw_gbytes_per_s = *v;
      }
      continue;
    }
    if (!header_line || !all_digits(tokens[0].text)) continue;  // NCCL INFO, MPI, "NCCL version" lines
    if (!units_seen) refuse(path, line.number, 1, "a data row before the units line \"(B) (elements) (us) (GB/s)\"");
    if (tokens.size() != columns.size()) {
      refuse(path, line.number, tokens.back().column,
             "a data row of " + std::to_string(tokens.size()) + " fields under a header of " +
                 std::to_string(columns.size()) + " (line " + std::to_string(header_line) + ")");
    }
    auto column_value = [&](const char* name, int occurrence) -> std::optional<double> {
      int seen = 0;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] != name || seen++ != occurrence) continue;
        if (tokens[i].text == "N/A") return std::nullopt;
        const std::optional<double> v = number_of(tokens[i].text);
        if (!v || *v < 0) {
          refuse(path, line.number, tokens[i].column,
                 std::string("\"") + printable(tokens[i].text, 40) + "\" is not a " + name + " figure");
        }
        return v;
      }
      return std::nullopt;
    };
    NcclTestsRow row;
    row.line = line.number;
    const auto size = column_value("size", 0);
    const auto time = column_value("time", 0);
    const auto algbw = column_value("algbw", 0);
    const auto busbw = column_value("busbw", 0);
    if (!size || !time || !algbw || !busbw) {
      refuse(path, line.number, 1, "a data row without its size, time, algbw and busbw");
    }
    row.size_bytes = *size;
    row.count = column_value("count", 0).value_or(0);
    row.time_us = *time;
    row.algbw_gbytes_per_s = *algbw;
    row.busbw_gbytes_per_s = *busbw;
    row.in_place_time_us = column_value("time", 1);
    row.in_place_busbw_gbytes_per_s = column_value("busbw", 1);
    for (const char* wrong : {"#wrong", "error"}) {
      const auto w = column_value(wrong, 0);
      if (w && *w > (std::string(wrong) == "error" ? 1e-2 : 0)) ++table.rows_wrong;
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == "redop") redop = tokens[i].text;
    }
    table.rows.push_back(row);
  }

  if (!std::any_of(lines.begin(), lines.end(), [](const Line& l) { return l.text.find("nThread") != std::string::npos; })) {
    refuse(path, 1, 0, "not nccl-tests output: no \"# nThread … nGpus …\" header line");
  }
  if (ranks.empty()) {
    refuse(path, 1, 0,
           "no \"#  Rank N … on HOST device …\" lines: the GPU count and the hosts are read from them, so "
           "paste the output from its \"# nThread\" line");
  }
  if (!header_line) refuse(path, lines.back().number, 0, "no column header (\"#  size  count  type …\")");
  if (table.rows.empty()) refuse(path, header_line, 0, "no data rows under the column header");
  table.ranks = static_cast<int>(ranks.size());
  table.nodes = std::max<int>(1, static_cast<int>(hosts.size()));
  if (table.ranks % table.nodes != 0) {
    refuse(path, 1, 0,
           std::to_string(table.ranks) + " ranks over " + std::to_string(table.nodes) +
               " hosts: pplan prices groups with the same number of GPUs on every host");
  }
  table.ranks_per_node = table.ranks / table.nodes;

  // The collective: named, else told by busbw/algbw (and the reduction, for the (n-1)/n family).
  std::vector<double> ratios;
  for (const NcclTestsRow& r : table.rows) {
    if (r.algbw_gbytes_per_s >= 1) ratios.push_back(r.busbw_gbytes_per_s / r.algbw_gbytes_per_s);
  }
  const int n = table.ranks;
  if (!named.empty()) {
    table.collective = *named.begin();
    table.collective_from_name = true;
    if (!ratios.empty() && n > 1 && std::fabs(median(ratios) / bus_factor(table.collective, n) - 1) > 0.03) {
      refuse(path, header_line, 0,
             "busbw/algbw is " + format_significant(median(ratios), 4) + ", not the " +
                 format_significant(bus_factor(table.collective, n), 4) + " of " +
                 nccl_program_name(table.collective) + " on " + std::to_string(n) +
                 " ranks: is every \"#  Rank\" line pasted?");
    }
  } else {
    if (ratios.empty() || n < 2) {
      refuse(path, 1, 0, "cannot tell which nccl-tests program printed this: paste its command line too");
    }
    const double r = median(ratios);
    std::vector<NcclCollective> fits;
    for (NcclCollective c : {NcclCollective::kAllReduce, NcclCollective::kReduceScatter, NcclCollective::kSendRecv}) {
      if (std::fabs(r / bus_factor(c, n) - 1) <= 0.03) fits.push_back(c);
    }
    const bool gather_family = !fits.empty() && fits.front() == NcclCollective::kReduceScatter;
    if (gather_family && redop == "none") {
      refuse(path, 1, 0,
             "all_gather_perf and alltoall_perf print alike (busbw = algbw·(n−1)/n, no reduction): paste the "
             "command line too, so the program is named");
    }
    if (fits.size() != 1) {
      refuse(path, 1, 0,
             "cannot tell which nccl-tests program printed this (busbw/algbw " + format_significant(r, 4) +
                 " on " + std::to_string(n) + " ranks): paste its command line too");
    }
    table.collective = fits.front();
  }
  return table;
}

LoggedSteps step_time_from_log(std::string_view text, double tokens_per_step, double sequences_per_step, int gpus,
                               const std::string& path) {
  struct Kind {
    const char* marker;
    const char* source;
  };
  const Kind kinds[] = {{"elapsed time per iteration (ms):", "Megatron-LM elapsed time per iteration"},
                        {"tps:", "torchtitan tps"},
                        {"CurrSamplesPerSec=", "DeepSpeed CurrSamplesPerSec"}};
  LoggedSteps out;
  std::vector<double> seconds;
  const Kind* used = nullptr;
  for (const Line& line : lines_of(text)) {
    for (const Kind& kind : kinds) {
      const std::size_t at = line.text.find(kind.marker);
      if (at == std::string::npos) continue;
      if (used && used != &kind) {
        refuse(path, line.number, static_cast<int>(at) + 1,
               std::string("the log mixes ") + used->source + " with " + kind.source + ": paste one run");
      }
      used = &kind;
      const std::size_t from = at + std::string(kind.marker).size();
      std::size_t end = from;
      while (end < line.text.size() && line.text[end] == ' ') ++end;
      std::size_t stop = end;
      while (stop < line.text.size() && line.text[stop] != ' ' && line.text[stop] != '|' && line.text[stop] != ',') ++stop;
      // "6,542" is one number in torchtitan's tps; DeepSpeed's fields end at a comma.
      if (&kind == &kinds[1]) {
        while (stop < line.text.size() && line.text[stop] == ',' && stop + 1 < line.text.size() &&
               line.text[stop + 1] >= '0' && line.text[stop + 1] <= '9') {
          ++stop;
          while (stop < line.text.size() && line.text[stop] >= '0' && line.text[stop] <= '9') ++stop;
        }
      }
      const std::string token = line.text.substr(end, stop - end);
      const std::optional<double> v = number_of(token);
      if (!v || *v <= 0) {
        refuse(path, line.number, static_cast<int>(end) + 1,
               "\"" + printable(token, 40) + "\" after \"" + kind.marker + "\" is not a positive number");
      }
      double step_s = 0;
      if (&kind == &kinds[0]) step_s = *v / 1000.0;
      else if (&kind == &kinds[1]) step_s = tokens_per_step / (*v * gpus);
      else step_s = sequences_per_step / *v;
      seconds.push_back(step_s);
      if (!out.first_line) out.first_line = line.number;
      out.last_line = line.number;
      break;
    }
  }
  if (!used) {
    throw InputError("input.measurement", path,
                     "no iteration line: pplan reads Megatron-LM's \"elapsed time per iteration (ms): X\", "
                     "torchtitan's \"tps: N\" or DeepSpeed's \"CurrSamplesPerSec=X\" (a throughput in TFLOP/s "
                     "alone depends on the framework's FLOP count, so it is not read)");
  }
  out.iterations = static_cast<int>(seconds.size());
  // The first logged iteration carries warm-up (allocations, compilation): dropped when 3+.
  if (seconds.size() >= 3) seconds.erase(seconds.begin());
  out.step_time_s = median(seconds);
  out.source = used->source;
  return out;
}

std::optional<std::string> forbidden_in_pasted_text(std::string_view text) {
  const std::vector<Line> lines = lines_of(text);
  for (const Line& line : lines) {
    std::string plain = line.text;
    for (char& c : plain) if (c == '\t' || c == '\r') c = ' ';
    if (const auto bad = first_forbidden_character(plain)) {
      return "line " + std::to_string(line.number) + ", column " + std::to_string(bad->character_index + 1) +
             ": " + code_point_name(bad->code_point);
    }
  }
  return std::nullopt;
}

}  // namespace pplan
