#include "human.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "pplan/text.h"

namespace pplan::cli {

namespace {

using nlohmann::json;

double number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::string fixed(double v, int decimals) { return format_fixed(v, decimals); }
std::string pct(double fraction) { return fixed(fraction * 100.0, 1) + "%"; }
std::string seconds(double s) { return s < 1 ? fixed(s * 1000.0, 0) + " ms" : fixed(s, 2) + " s"; }

std::string grouped(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return (v < 0 ? "-" : "") + digits;
}

/// Columns padded to their widest cell; the first row is the header. A column whose cells all
/// start with a digit is aligned right, the others left.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  std::vector<bool> numeric;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      if (width.size() <= c) {
        width.push_back(0);
        numeric.push_back(true);
      }
      width[c] = std::max(width[c], utf8_length(rows[r][c]));
      const std::string& cell = rows[r][c];
      if (r > 0 && (cell.empty() || cell[0] < '0' || cell[0] > '9')) numeric[c] = false;
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::size_t pad = width[c] - utf8_length(row[c]);
      line += (c ? "  " : "") +
              (numeric[c] ? std::string(pad, ' ') + row[c] : row[c] + std::string(pad, ' '));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

/// Whether a plan's schedule is one its vpp does not already say (zero bubble, DualPipe).
bool special_schedule(const json& p) {
  if (!p.contains("schedule") || !p["schedule"].is_string()) return false;
  const std::string schedule = p["schedule"].get<std::string>();
  return schedule != "1f1b" && schedule != "interleaved";
}

std::string layout_of(const json& p) {
  std::string s = "tp " + p["tp"].dump() + " · pp " + p["pp"].dump() + " · dp " + p["dp"].dump();
  if (p["cp"] != 1) s += " · cp " + p["cp"].dump();
  if (p["ep"] != 1) s += " · ep " + p["ep"].dump();
  if (p["vpp"] != 1) s += " · vpp " + p["vpp"].dump();
  if (special_schedule(p)) s += ", " + p["schedule"].get<std::string>() + " schedule";
  s += ", micro-batch " + p["micro_batch"].dump();
  s += p["sequence_parallel"] == true ? ", sequence parallel" : "";
  s += ", recompute " + p["recompute"].get<std::string>();
  if (p.contains("offload_layers")) s += ", " + p["offload_layers"].dump() + " layers offloaded";
  s += ", ZeRO-" + p["zero"].dump();
  return s;
}

std::string diagnostics_of(const json& e) {
  std::string out;
  for (const json& d : e["diagnostics"]) {
    out += "  " + d["severity"].get<std::string>() + " " + d["code"].get<std::string>() + ": " +
           d["message"].get<std::string>() + "\n";
  }
  return out;
}

std::string estimate_text(const json& e) {
  const json& m = e["memory_gb"];
  const json& t = e["time_s"];
  std::string out;
  out += std::string(e["fits"] == true ? "fits" : "does not fit") + ": " +
         layout_of(e["parallel"]) + "\n";
  std::vector<std::vector<std::string>> rows = {{"", ""}};
  rows.push_back({"memory per GPU",
                  fixed(number(m, "total"), 2) + " of " + fixed(number(m, "capacity"), 2) + " GB"});
  rows.push_back({"  weights / gradients / optimizer",
                  fixed(number(m, "weights"), 2) + " / " + fixed(number(m, "gradients"), 2) +
                      " / " + fixed(number(m, "optimizer"), 2) + " GB"});
  rows.push_back({"  activations / reserved", fixed(number(m, "activations"), 2) + " / " +
                                                  fixed(number(m, "reserved"), 2) + " GB"});
  const json& p = e["pipeline"];
  rows.push_back({"pipeline", p["schedule"].get<std::string>() + ", " +
                                  fixed(number(p, "microbatches"), 0) + " micro-batches, bubble " +
                                  pct(number(p, "bubble_fraction"))});
  rows.push_back({"step time", seconds(number(e, "step_time_s"))});
  rows.push_back({"  compute / recompute / bubble", seconds(number(t, "compute")) + " / " +
                                                        seconds(number(t, "recompute")) + " / " +
                                                        seconds(number(t, "bubble"))});
  rows.push_back({"  exposed tp / cp / ep / pp / dp",
                  seconds(number(t, "tp_comm")) + " / " + seconds(number(t, "cp_comm")) + " / " +
                      seconds(number(t, "ep_comm")) + " / " + seconds(number(t, "pp_comm")) +
                      " / " + seconds(number(t, "dp_comm"))});
  if (number(t, "offload") > 0 || e["parallel"].contains("offload_layers")) {
    rows.push_back({"  exposed activation offload", seconds(number(t, "offload"))});
  }
  // The rest of time_s, so the rows add up to the step.
  rows.push_back({"  host stalls / optimizer / slowest GPU", seconds(number(t, "host")) + " / " +
                                                                 seconds(number(t, "optimizer")) + " / " +
                                                                 seconds(number(t, "straggler"))});
  rows.push_back({"MFU / HFU", pct(number(e, "mfu")) + " / " + pct(number(e, "hfu"))});
  rows.push_back({"TFLOP/s per GPU", fixed(number(e, "tflops_per_gpu"), 1)});
  rows.push_back({"tokens per second", grouped(static_cast<long long>(number(e, "tokens_per_s")))});
  if (e.contains("days_to_train"))
    rows.push_back({"days to train", fixed(number(e, "days_to_train"), 1)});
  out += table(rows);
  const std::string diagnostics = diagnostics_of(e);
  if (!diagnostics.empty()) out += "diagnostics:\n" + diagnostics;
  return out;
}

std::string plan_text(const json& a) {
  std::string out;
  const json& plans = a["plans"];
  if (plans.empty()) {
    out += "No configuration fits.\n";
    if (a.contains("nearest_infeasible") && !a["nearest_infeasible"].empty()) {
      out += "Closest: " + estimate_text(a["nearest_infeasible"][0]);
    }
  } else {
    std::vector<std::vector<std::string>> rows = {{"#", "tp", "pp", "dp", "cp", "ep", "vpp", "mb",
                                                   "sp", "recompute", "zero", "memory GB", "step",
                                                   "MFU", "tokens/s"}};
    // A schedule column only where a plan runs one its vpp does not say (zero bubble, DualPipe).
    const bool schedules = std::any_of(plans.begin(), plans.end(),
                                       [](const json& e) { return special_schedule(e["parallel"]); });
    if (schedules) rows[0].insert(rows[0].begin() + 7, "schedule");
    int rank = 0;
    for (const json& e : plans) {
      const json& p = e["parallel"];
      rows.push_back({std::to_string(++rank), p["tp"].dump(), p["pp"].dump(), p["dp"].dump(),
                      p["cp"].dump(), p["ep"].dump(), p["vpp"].dump(), p["micro_batch"].dump(),
                      p["sequence_parallel"] == true ? "on" : "off",
                      p["recompute"].get<std::string>() +
                          (p.contains("offload_layers") ? "+off" + p["offload_layers"].dump() : ""),
                      p["zero"].dump(),
                      fixed(number(e["memory_gb"], "total"), 1) + "/" +
                          fixed(number(e["memory_gb"], "capacity"), 1),
                      seconds(number(e, "step_time_s")), pct(number(e, "mfu")),
                      grouped(static_cast<long long>(number(e, "tokens_per_s")))});
      if (schedules) rows.back().insert(rows.back().begin() + 7, p.value("schedule", std::string("1f1b")));
    }
    out += table(rows);
  }
  const json& s = a["search"];
  const long long configs = s.value("configs_evaluated", 0LL);
  out += "\nsearched " + grouped(configs) + (configs == 1 ? " configuration" : " configurations") +
         (a.contains("timing")
              ? " in " + format_significant(number(a["timing"], "elapsed_ms"), 3) + " ms"
              : "") +
         (s.value("configs_pruned", 0LL) > 0
              ? ", " + grouped(s.value("configs_pruned", 0LL)) + " ruled out by a step-time floor"
              : "") +
         ", " + grouped(s.value("feasible", 0LL)) + " feasible" +
         (s.value("capped", false) ? " (capped: " + s.value("capped_reason", std::string()) + ")"
                                   : "") +
         "\n";
  if (!plans.empty()) {
    const std::string diagnostics = diagnostics_of(plans[0]);
    if (!diagnostics.empty()) out += "plan 1:\n" + diagnostics;
  }
  out +=
      "\n30-second answer: " + a["explanation"]["thirty_second_answer"].get<std::string>() + "\n";
  return out;
}

std::string presets_text(const json& a) {
  std::vector<std::vector<std::string>> models = {
      {"model", "name", "layers", "hidden", "heads", "kv", "experts"}};
  for (auto it = a["models"].begin(); it != a["models"].end(); ++it) {
    const json& m = it.value();
    models.push_back({it.key(), m["name"].get<std::string>(), m["layers"].dump(),
                      m["hidden"].dump(), m["heads"].dump(), m["kv_heads"].dump(),
                      m["moe"].is_object() ? m["moe"]["experts"].dump() : "-"});
  }
  std::vector<std::vector<std::string>> gpus = {
      {"gpu", "name", "memory GB", "bf16 TFLOP/s", "NVLink GB/s", "network GB/s"}};
  for (auto it = a["gpus"].begin(); it != a["gpus"].end(); ++it) {
    const json& g = it.value();
    gpus.push_back({it.key(), g["name"].get<std::string>(), fixed(number(g, "memory_gb"), 0),
                    fixed(number(g, "bf16_tflops"), 1), fixed(number(g, "nvlink_gbytes_per_s"), 0),
                    fixed(number(g, "network_gbytes_per_s"), 0)});
  }
  return table(models) + "\n" + table(gpus);
}

std::string import_text(const json& a) {
  const json& m = a["model"];
  std::vector<std::vector<std::string>> rows = {{"field", "value", "from the config"}};
  const json& mapped = a["mapped_from"];
  auto from = [&](const std::string& field) {
    if (!mapped.contains(field) || !mapped[field].is_object()) return std::string();
    const json& f = mapped[field];
    return f["from"].is_string() ? f["from"].get<std::string>() + " = " + f["value"].dump()
                                 : "(default)";
  };
  for (const char* field : {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab",
                            "activation", "tied_embeddings", "dropout", "learned_positions"}) {
    rows.push_back(
        {field, m[field].is_string() ? m[field].get<std::string>() : m[field].dump(), from(field)});
  }
  if (m["moe"].is_object()) {
    for (auto it = m["moe"].begin(); it != m["moe"].end(); ++it) {
      rows.push_back({"moe." + it.key(), it.value().dump(), from("moe." + it.key())});
    }
  }
  std::string out = m["name"].get<std::string>() + "\n" + table(rows);
  for (const json& note : a["notes"]) out += "note: " + note.get<std::string>() + "\n";
  return out;
}

/// calibrate: the constants before and after, the fitted measurements, the plan's change.
std::string calibrate_text(const json& a) {
  std::string out;
  const json& err = a["rms_log_error"];
  int fitted = 0;
  for (const json& c : a["constants"]) fitted += c["fitted"].get<bool>() ? 1 : 0;
  out += "Calibrated: " + std::to_string(fitted) + " constant" + (fitted == 1 ? "" : "s") +
         " fitted; the measurements' rms error " + pct(std::exp(number(err, "before")) - 1) + " -> " +
         pct(std::exp(number(err, "after")) - 1) + "\n\n";
  std::vector<std::vector<std::string>> rows = {{"constant", "before", "after", "change", ""}};
  for (const json& c : a["constants"]) {
    const double before = number(c, "before"), after = number(c, "after");
    rows.push_back({c["label"].get<std::string>(), format_significant(before, 4), format_significant(after, 4),
                    before > 0 ? (after >= before ? "+" : "") + pct(after / before - 1) : "",
                    c["fitted"].get<bool>() ? "fitted" : "kept"});
  }
  out += table(rows) + "\n";
  rows = {{"measurement", "measured", "pplan before", "pplan after"}};
  for (const json& m : a["measurements"]) {
    if (!m["fitted"].get<bool>()) continue;
    const std::string unit = " " + m["unit"].get<std::string>();
    rows.push_back({m["what"].get<std::string>(), format_significant(number(m, "measured"), 4) + unit,
                    format_significant(number(m, "before"), 4) + unit, format_significant(number(m, "after"), 4) + unit});
  }
  out += table(rows);
  for (const json& note : a["notes"]) out += "note: " + note.get<std::string>() + "\n";
  if (a["plan_before"].is_object() && a["plan_after"].is_object()) {
    const json& before = a["plan_before"];
    const json& after = a["plan_after"];
    out += "\nplan before: " + layout_of(before["parallel"]) + ", " + seconds(number(before, "step_time_s")) + "\n";
    if (a["plan_changed"].get<bool>()) {
      out += "plan after:  " + layout_of(after["parallel"]) + ", " + seconds(number(after, "step_time_s")) +
             "; the earlier plan now takes " + seconds(number(a, "previous_plan_step_time_s")) + ": the new one wins by " +
             pct(number(a, "wins_by")) + "\n";
    } else {
      out += "plan after:  the same layout, " + seconds(number(after, "step_time_s")) + "\n";
    }
  }
  out += "\ncalibrated GPU (cluster.gpu): " + a["gpu"].dump() + "\n";
  return out;
}

}  // namespace

std::string human_answer(const std::string& command, const json& answer) {
  if (command == "calibrate") return calibrate_text(answer);
  if (command == "evaluate") return estimate_text(answer);
  if (command == "plan") return plan_text(answer);
  if (command == "presets") return presets_text(answer);
  if (command == "import_model") return import_text(answer);
  if (command == "version") {
    return "pplan " + answer["engine_version"].get<std::string>() + " (scenario schema " +
           answer["schema_version"].dump() + ")\n";
  }
  return "";
}

}  // namespace pplan::cli
