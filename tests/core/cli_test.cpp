// The CLI through its run() entry point (what main() and the fuzzer call): every error prints
// the error object on stdout and exits 2 (issue #14's CLI envelope), the flag form builds
// byte-identical requests to the file form for every example (issue #10), human units,
// tables on a terminal, and --help listing every option.
#include "cli.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../support/scenario_files.h"
#include "flags.h"
#include "pplan/io/json_io.h"

namespace pplan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_text;
using testing::source_path;

struct CliRun {
  int status = 0;
  std::string out;
  std::string err;
};

CliRun run(const std::vector<std::string>& args, const std::string& stdin_text = "",
           bool terminal = false) {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  cli::Environment environment;
  environment.stdout_is_terminal = terminal;
  CliRun r;
  r.status = cli::run(args, in, out, err, environment);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// The error an invocation answers: exit 2 and the error object on stdout.
json error_of(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  const CliRun r = run(args, stdin_text);
  EXPECT_EQ(r.status, 2) << r.out;
  const json answer = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(answer.is_object()) << "stdout is not the error object: " << r.out;
  if (!answer.is_object()) return json::object();
  EXPECT_EQ(answer.value("ok", true), false);
  EXPECT_FALSE(r.err.empty()) << "one human line on stderr";
  return answer.value("error", json::object());
}

std::string example(const std::string& name) { return source_path("examples/" + name); }

const std::string kGpt3 = "gpt3-175b-1024-a100.json";

TEST(Cli, EveryErrorPrintsTheErrorObjectAndExits2) {
  const std::string file = example(kGpt3);
  struct Case {
    std::vector<std::string> args;
    std::string code;
  };
  const std::vector<Case> cases = {
      {{"evaluate", "/no/such/file.json"}, "request.unreadable_file"},
      {{"evaluate", source_path("examples")}, "request.unreadable_file"},  // a directory
      {{"evaluate", "/dev/null"}, "request.empty_input"},
      {{"evaluate", "-"}, "request.empty_input"},  // empty stdin
      {{"plan", file, "--top", "0"}, "request.bad_option"},
      {{"plan", file, "--top", "1001"}, "request.bad_option"},
      {{"plan", file, "--top", "x"}, "request.bad_option"},
      {{"plan", file, "--top"}, "request.bad_option"},            // no value
      {{"plan", file, "--top", "--json"}, "request.bad_option"},  // no value before the next option
      {{"plan", file, "--frobnicate"}, "request.bad_option"},
      {{"plan", file, "-x"}, "request.bad_option"},
      {{"plan", file, file}, "request.bad_option"},              // a second FILE
      {{"evaluate", file, "--top", "3"}, "request.bad_option"},  // an option evaluate does not take
      {{"evaluate", file, "--format", "slurm"}, "request.bad_option"},
      {{"launch", file, "--format", "slurm", "--format", "env"}, "request.bad_option"},
      {{"plan", file, "--json", "--table"}, "request.bad_option"},
      {{"version", file}, "request.bad_option"},
      {{"presets", "--top", "2"}, "request.bad_option"},
      {{"plan", file, "--no-sources"}, "request.bad_option"},  // only presets takes it
      {{"plan"}, "request.bad_option"},  // no scenario at all
      {{"optimise", file}, "request.unknown_command"},
      {{}, "request.bad_option"},
      {{"launch", file, "--format", "bogus"}, "request.bad_option"},  // the engine's check
      {{"plan", "--seq", "8q", "--model", "llama3-8b"}, "request.bad_option"},
      {{"plan", "--tp", "8", "--set", "parallel.tp=4"}, "request.bad_option"},  // set twice
      {{"plan", "--gpu", "h100-sxm", "--set", "cluster.gpu.memory_gb=80"}, "request.bad_option"},
      {{"plan", "--set", "parallel.tp"}, "request.bad_option"},
      // Found by fuzzing: an argument that is not UTF-8 threw from the scenario's dump.
      {{"plan", "--model",
        "llama3-7\xd9"
        "0b",
        "--gpu", "h100-sxm"},
       "request.bad_option"},
  };
  for (const Case& c : cases) {
    std::string shown;
    for (const std::string& a : c.args) shown += a + " ";
    SCOPED_TRACE(shown);
    const json e = error_of(c.args);
    EXPECT_EQ(e.value("code", ""), c.code) << e.dump();
  }
  // Paths name what the user got wrong.
  EXPECT_EQ(error_of({"plan", file, "--top", "0"})["path"], "/top");
  EXPECT_EQ(error_of({"plan", file, "--top"})["path"], "/top");
  EXPECT_EQ(error_of({"launch", file, "--format", "slurm", "--format", "env"})["path"], "/format");
  EXPECT_EQ(error_of({"evaluate", file, "--top", "3"})["path"], "/top");
  EXPECT_EQ(error_of({"plan", "--seq", "8q", "--model", "llama3-8b"})["path"], "/training/seq_len");
  EXPECT_NE(error_of({"plan", file, "--tpp", "2"})["message"].get<std::string>().find(
                "did you mean --tp"),
            std::string::npos);
  EXPECT_NE(error_of({"evaluate", file, "--top", "3"})["message"].get<std::string>().find(
                "not an option of evaluate"),
            std::string::npos);
  // The engine's own errors keep their codes through the CLI.
  EXPECT_EQ(
      error_of({"evaluate", "-"}, "{\"model\": \"llama3-8b\", \"model\": \"gpt3-175b\"}")["code"],
      "schema.duplicate_key");
  EXPECT_EQ(error_of({"evaluate", "-"}, "   \n\t ")["code"], "request.empty_input");
  if (::geteuid() != 0) {  // root reads anything
    const std::string locked = (fs::temp_directory_path() / "pplan-cli-locked.json").string();
    std::ofstream(locked) << "{}";
    fs::permissions(locked, fs::perms::none);
    EXPECT_EQ(error_of({"evaluate", locked})["code"], "request.unreadable_file");
    fs::permissions(locked, fs::perms::owner_all);
    fs::remove(locked);
  }
}

// /dev/zero and a file past the limit answer input.too_large at /, read no further than the
// limit (a sparse 5 GB file is refused from its size alone).
TEST(Cli, InputIsBoundedWhileReading) {
  json e = error_of({"evaluate", "/dev/zero"});
  EXPECT_EQ(e["code"], "input.too_large");
  EXPECT_EQ(e["path"], "/");
  const std::string big = (fs::temp_directory_path() / "pplan-cli-5gb.json").string();
  { std::ofstream(big) << "{"; }
  fs::resize_file(big, 5ULL << 30);
  e = error_of({"plan", big});
  EXPECT_EQ(e["code"], "input.too_large");
  EXPECT_EQ(e["path"], "/");
  fs::remove(big);
  e = error_of({"evaluate", "-"}, std::string(kMaxDocumentBytes + 1, ' '));
  EXPECT_EQ(e["code"], "input.too_large");
  // --model FILE is bounded the same way.
  e = error_of({"plan", "--model", "/dev/zero", "--gpu", "h100-sxm"});
  EXPECT_EQ(e["code"], "input.too_large");
}

TEST(Cli, HumanUnits) {
  using cli::parse_human_number;
  using cli::Units;
  std::string error;
  EXPECT_EQ(parse_human_number("8k", Units::kCount, error), 8192.0);
  EXPECT_EQ(parse_human_number("128K", Units::kCount, error), 131072.0);
  EXPECT_EQ(parse_human_number("16k", Units::kCount, error), 16384.0);
  EXPECT_EQ(parse_human_number("1M", Units::kCount, error), 1048576.0);
  EXPECT_EQ(parse_human_number("1.5K", Units::kCount, error), 1536.0);
  EXPECT_EQ(parse_human_number("4,096", Units::kCount, error), 4096.0);
  EXPECT_EQ(parse_human_number("1,048,576", Units::kCount, error), 1048576.0);
  EXPECT_EQ(parse_human_number("2048", Units::kCount, error), 2048.0);
  EXPECT_EQ(parse_human_number("15T", Units::kAmount, error), 15e12);
  EXPECT_EQ(parse_human_number("14.8T", Units::kAmount, error), 14.8e12);
  EXPECT_EQ(parse_human_number("300B", Units::kAmount, error), 300e9);
  EXPECT_EQ(parse_human_number("2k", Units::kAmount, error), 2000.0);
  EXPECT_EQ(parse_human_number("1e12", Units::kAmount, error), 1e12);
  for (const char* bad :
       {"40,96", "4,0960", ",096", "8q", "", "1.3K", "15T", "k", "1..2", "0x10"}) {
    error.clear();
    EXPECT_FALSE(parse_human_number(bad, Units::kCount, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

/// The flags that rebuild `scenario`: named flags where there is one, --set for the rest,
/// counts written in human units where they are exact (2048 -> 2k, 15360 -> 15,360).
std::vector<std::string> flags_for(const json& scenario) {
  const auto count = [](long long v) {
    if (v >= 1024 && v % 1024 == 0) return std::to_string(v / 1024) + (v % 2048 == 0 ? "K" : "k");
    std::string digits = std::to_string(v);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
      digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
  };
  const auto amount = [](double v) {
    char buffer[32];
    if (v >= 1e12)
      std::snprintf(buffer, sizeof buffer, "%gT", v / 1e12);
    else if (v >= 1e9)
      std::snprintf(buffer, sizeof buffer, "%gB", v / 1e9);
    else
      std::snprintf(buffer, sizeof buffer, "%g", v);
    return std::string(buffer);
  };
  std::vector<std::string> args;
  const auto flag_of = [](const std::string& pointer) -> const cli::ScenarioFlag* {
    for (const cli::ScenarioFlag& f : cli::scenario_flags()) {
      if (pointer == f.pointer) return &f;
    }
    return nullptr;
  };
  const json flat = scenario.flatten();
  for (auto& [pointer, value] : flat.items()) {
    if (pointer == "/model" || pointer == "/cluster/gpu") {
      args.push_back(pointer == "/model" ? "--model" : "--gpu");
      args.push_back(value.get<std::string>());
    } else if (const cli::ScenarioFlag* f = flag_of(pointer)) {
      args.push_back(f->flag);
      args.push_back(f->kind == cli::ScenarioFlag::kText     ? value.get<std::string>()
                     : f->kind == cli::ScenarioFlag::kAmount ? amount(value.get<double>())
                                                             : count(value.get<long long>()));
    } else {
      args.push_back("--set");
      std::string dotted = pointer.substr(1);
      for (char& c : dotted)
        if (c == '/') c = '.';
      args.push_back(dotted + "=" + value.dump());
    }
  }
  return args;
}

// Issue #10's test: for every example, the flags built from the file give byte-identical JSON
// to the file form (the golden command, and the design report).
TEST(Cli, FlagFormIsByteIdenticalToTheFileFormForEveryExample) {
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(source_path("examples"))) {
    if (entry.path().extension() != ".json") continue;
    const json scenario = json::parse(read_text(entry.path().string()));
    const bool complete = scenario.contains("parallel") && scenario["parallel"].contains("tp") &&
                          scenario["parallel"].contains("pp");
    const std::vector<std::string> flags = flags_for(scenario);
    for (const std::string command : {complete ? "evaluate" : "plan", "report"}) {
      SCOPED_TRACE(command + " " + entry.path().filename().string());
      std::vector<std::string> file_form = {command, entry.path().string(), "--json"};
      std::vector<std::string> flag_form = {command};
      flag_form.insert(flag_form.end(), flags.begin(), flags.end());
      flag_form.push_back("--json");
      if (command == "plan") {
        for (auto* form : {&file_form, &flag_form}) {
          form->insert(form->end(), {"--top", "3", "--no-timing"});
        }
      }
      const CliRun from_file = run(file_form);
      const CliRun from_flags = run(flag_form);
      ASSERT_EQ(from_file.status, 0) << from_file.out.substr(0, 300);
      EXPECT_EQ(from_flags.status, 0) << from_flags.out.substr(0, 300) << from_flags.err;
      EXPECT_EQ(from_flags.out, from_file.out);
      ++compared;
    }
    // --print-scenario shows the document the flags built: the file's, field for field.
    std::vector<std::string> print = {"plan"};
    print.insert(print.end(), flags.begin(), flags.end());
    print.push_back("--print-scenario");
    const CliRun printed = run(print);
    ASSERT_EQ(printed.status, 0) << printed.out;
    EXPECT_EQ(json::parse(printed.out), scenario) << entry.path();
  }
  EXPECT_GE(compared, 2 * 19);
}

// The 30-second answer and the table print the same step time: both round the figure the JSON
// carries (6 significant digits), never the raw one (the README showed 10.61 s beside 10.60 s).
TEST(Cli, TheAnswerAndTheTableShowTheSameStepTime) {
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(source_path("examples"))) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const CliRun r = run({"plan", entry.path().string(), "--top", "1", "--table", "--no-timing"});
    ASSERT_EQ(r.status, 0) << r.out;
    const std::size_t at = r.out.find("Expect about ");
    if (at == std::string::npos) continue;  // no timed plan
    const std::size_t from = at + std::string("Expect about ").size();
    const std::string step = r.out.substr(from, r.out.find(" per step", from) - from);
    const std::size_t in_table = r.out.find("  " + step + "  ");
    EXPECT_LT(in_table, at) << "the table's step is not " << step << ":\n" << r.out;
    ++compared;
  }
  EXPECT_GE(compared, 19);
}

TEST(Cli, TheTablesStepTimeRowsAddUpToTheStep) {
  // Every part of time_s has a row: the parts printed under "step time" sum to it (each rounded
  // to 3 digits, so within 1%). The worked example has host stalls, an optimizer step and the
  // slowest GPU's wait beside its compute, bubble and communication.
  const CliRun r = run({"evaluate", example(kGpt3), "--table"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto seconds_in = [](const std::string& text) {
    std::vector<double> out;
    std::size_t at = 0;
    while ((at = text.find_first_of("0123456789", at)) != std::string::npos) {
      std::size_t used = 0;
      const double v = std::stod(text.substr(at), &used);
      const std::string unit = text.substr(at + used, 3);
      out.push_back(unit.rfind(" ms", 0) == 0 ? v / 1000 : v);
      at += used;
    }
    return out;
  };
  const std::size_t step_at = r.out.find("step time");
  ASSERT_NE(step_at, std::string::npos) << r.out;
  const std::size_t line_end = r.out.find('\n', step_at);
  const double step = seconds_in(r.out.substr(step_at, line_end - step_at)).at(0);
  double parts = 0;
  int rows = 0;
  for (std::size_t at = line_end + 1; r.out.compare(at, 2, "  ") == 0; at = r.out.find('\n', at) + 1) {
    const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
    const std::string values = row.substr(row.rfind("  ") + 2);  // the label is padded to them
    for (double v : seconds_in(values)) parts += v;
    ++rows;
  }
  EXPECT_GE(rows, 3) << r.out;
  EXPECT_NEAR(parts, step, 0.01 * step) << r.out;
}

TEST(Cli, FlagsOverrideAFileAndSetReachesAnyField) {
  const std::string file = example(kGpt3);
  CliRun r =
      run({"evaluate", file, "--pp", "16", "--dp", "8", "--set", "parallel.zero=1", "--json"});
  ASSERT_EQ(r.status, 0) << r.out;
  json answer = json::parse(r.out);
  EXPECT_EQ(answer["parallel"]["pp"], 16);
  EXPECT_EQ(answer["parallel"]["zero"], 1);
  // The example: a scenario from flags alone.
  r = run({"plan", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "256", "--seq", "8k",
           "--batch", "512", "--top", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.out;
  answer = json::parse(r.out);
  EXPECT_EQ(answer["plans"].size(), 2u);
  EXPECT_EQ(answer["plans"][0]["training"]["seq_len"], 8192);
  EXPECT_EQ(answer["plans"][0]["training"]["global_batch"], 512);
  // --set takes JSON, human numbers and text; a dotted path or a JSON pointer.
  r = run({"plan", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--seq", "4k",
           "--batch", "64", "--set", "training.token_budget=15T", "--set",
           "/training/flash_attention=false", "--set", "name=My run", "--print-scenario"});
  ASSERT_EQ(r.status, 0) << r.out;
  answer = json::parse(r.out);
  EXPECT_EQ(answer["training"]["token_budget"], 15e12);
  EXPECT_EQ(answer["training"]["flash_attention"], false);
  EXPECT_EQ(answer["name"], "My run");
  EXPECT_EQ(answer["training"]["seq_len"], 4096);
  // A required field left out is named with the flag that gives it.
  r = run({"plan", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--seq", "4k"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(json::parse(r.out)["error"]["path"], "/training/global_batch");
  EXPECT_NE(r.err.find("--batch N"), std::string::npos) << r.err;
}

TEST(Cli, TablesOnATerminalJsonElsewhere) {
  const std::string file = example(kGpt3);
  // Not a terminal: the contract's JSON, as scripts expect.
  CliRun r = run({"evaluate", file});
  const json answer = json::parse(r.out);
  EXPECT_TRUE(answer["ok"].get<bool>());
  char memory[64];
  std::snprintf(memory, sizeof memory, "%.2f of %.2f GB", answer["memory_gb"]["total"].get<double>(),
                answer["memory_gb"]["capacity"].get<double>());
  // A terminal: a table.
  r = run({"evaluate", file}, "", true);
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(json::parse(r.out, nullptr, false).is_discarded()) << r.out;
  EXPECT_NE(r.out.find("fits: tp 8 · pp 8 · dp 16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory per GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(memory), std::string::npos) << r.out;  // the JSON's figures, rounded
  // --json on a terminal, --table in a pipe.
  EXPECT_TRUE(json::parse(run({"evaluate", file, "--json"}, "", true).out)["ok"].get<bool>());
  r = run({"plan", file, "--table", "--top", "2"});
  EXPECT_NE(r.out.find("recompute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("30-second answer:"), std::string::npos) << r.out;
  EXPECT_NE(run({"presets", "--table"}).out.find("llama3-405b"), std::string::npos);
  // --no-sources: the presets the page asks for, every field but each model's and GPU's source.
  const json with_sources = json::parse(run({"presets", "--json"}).out);
  const json without = json::parse(run({"presets", "--json", "--no-sources"}).out);
  for (const char* kind : {"models", "gpus"}) {
    ASSERT_EQ(without[kind].size(), with_sources[kind].size());
    for (const auto& [id, spec] : with_sources[kind].items()) {
      EXPECT_FALSE(spec["source"].get<std::string>().empty()) << id;
      json rest = spec;
      rest.erase("source");
      EXPECT_EQ(without[kind][id], rest) << id;
    }
  }
  EXPECT_NE(run({"version"}, "", true).out.find("pplan "), std::string::npos);
  // Text commands stay text without a terminal (scripts keep working) and give JSON on --json.
  EXPECT_EQ(run({"report", file}).out.rfind("# Design report: ", 0), 0u);
  EXPECT_TRUE(json::parse(run({"report", file, "--json"}).out).contains("markdown"));
  EXPECT_EQ(run({"explain", file}).out.rfind("1. Budget the memory", 0), 0u);
}

TEST(Cli, HelpListsEveryOptionWithAnExample) {
  CliRun r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* command : {"evaluate", "plan", "explain", "launch", "report", "layout_view",
                              "import_model", "presets", "version"}) {
    EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << command;
    const CliRun help = run({command, "--help"});
    EXPECT_EQ(help.status, 0) << command;
    EXPECT_NE(help.out.find("usage: pplan " + std::string(command)), std::string::npos);
    EXPECT_NE(help.out.find("example: pplan " + std::string(command)), std::string::npos)
        << help.out;
    // Every option line carries an example.
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  --", 0) == 0) EXPECT_NE(line.find("e.g. "), std::string::npos) << line;
    }
  }
  const std::string plan = run({"plan", "--help"}).out;
  for (const char* option :
       {"--model", "--gpu", "--gpus", "--seq", "--batch", "--set", "--top", "--json", "--table",
        "--no-timing", "--print-scenario", "--tp", "--recompute", "--tokens"}) {
    EXPECT_NE(plan.find(std::string("  ") + option + " "), std::string::npos) << option;
  }
  EXPECT_EQ(run({"evaluate", "--help"}).out.find("--top"), std::string::npos);
  EXPECT_NE(run({"launch", "--help"}).out.find("--format"), std::string::npos);
}

}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

TEST(CliCalibrate, MeasurementsFromFilesAndLayoutsReachTheEngine) {
  const std::string example = source_path("examples/calibrate-llama3-70b-64-h100.json");
  const std::string nccl = source_path("tests/data/nccl-tests/h100-8gpu-all_reduce.txt");
  const CliRun r = run({"calibrate", example, "--nccl", nccl, "--step", "tp=4,pp=8,dp=2,vpp=5,mb=1,zero=1=20.21",
                        "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json answer = json::parse(r.out);
  EXPECT_EQ(answer["gpu"]["preset"], "h100-sxm");
  // 6 rows of the paste and the step, whose layout the --step spelled out.
  ASSERT_EQ(answer["measurements"].size(), 7u);
  EXPECT_EQ(answer["measurements"][6]["measured"], 20.21);
  EXPECT_NE(answer["measurements"][6]["what"].get<std::string>().find("tp 4 · pp 8 · dp 2 · vpp 5"), std::string::npos);
  // A --step without its seconds, and a layout item without "=", name /steps.
  EXPECT_EQ(error_of({"calibrate", example, "--step", "tp=4,pp=8"})["path"], "/steps");
  EXPECT_EQ(error_of({"calibrate", example, "--step", "tp4=20"})["path"], "/steps");
  // No measurement at all: the engine says what it needs.
  EXPECT_EQ(error_of({"calibrate", example})["path"], "/nccl_tests");
}

}  // namespace
}  // namespace pplan
