// pplan: the command-line face of the engine (docs/cli.md). Every command is one request
// to pplan::handle_command; this file only turns arguments, files and flags into that request
// and the answer into text.
#include "cli.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "flags.h"
#include "human.h"
#include "input.h"
#include "pplan/io/api.h"
#include "pplan/io/hf_config.h"
#include "pplan/io/json_io.h"
#include "pplan/launch/launch.h"
#include "pplan/text.h"

namespace pplan::cli {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

/// An error the CLI answers itself, in the engine's envelope.
struct CliError {
  std::string code;
  std::string path;
  std::string message;
};

const std::vector<std::string>& commands() {
  static const std::vector<std::string> names = {
      "evaluate",  "plan",    "explain", "launch",       "report",  "layout_view",
      "landscape", "scaling", "schedule", "calibrate", "request", "import_model", "presets", "version"};
  return names;
}

bool takes_scenario(const std::string& command) {
  return command != "import_model" && command != "presets" && command != "version" &&
         command != "request";
}

/// An option beside the scenario flags, with the commands that take it.
struct Option {
  const char* name;
  const char* value;  ///< nullptr for a switch
  std::vector<std::string> commands;
  const char* help;
  const char* example;
};

const std::vector<std::string> kScenarioCommands = {"evaluate",  "plan",    "explain",  "launch",
                                                    "report",    "layout_view", "landscape", "scaling",
                                                    "schedule",  "calibrate"};

const std::vector<Option>& options() {
  static const std::vector<Option> list = {
      {"--model", "ID|FILE", kScenarioCommands,
       "a model preset, a pplan model JSON file, or a Hugging Face config.json",
       "--model llama3-70b"},
      {"--gpu", "ID|FILE", kScenarioCommands, "a GPU preset or a pplan GPU JSON file",
       "--gpu h100-sxm"},
      {"--set", "FIELD=VALUE", kScenarioCommands,
       "set any scenario field (dotted or JSON pointer); VALUE is JSON, a human number or text; "
       "repeatable",
       "--set parallel.tp=8 --set training.flash_attention=false"},
      {"--print-scenario", nullptr, kScenarioCommands,
       "print the scenario JSON the file and flags make, and stop", "--print-scenario"},
      {"--top", "N", {"plan", "landscape"}, "plans to return, 1 to 1000 (default 10)", "--top 5"},
      {"--format",
       "F",
       {"launch"},
       "megatron, slurm, env, torchtitan, torchtitan-toml, deepspeed, nemo, nccl-tests or layout",
       "--format megatron"},
      {"--no-timing",
       nullptr,
       {"plan", "explain"},
       "leave out the search's wall time: the answer is byte-identical run to run",
       "--no-timing"},
      {"--no-sources",
       nullptr,
       {"presets"},
       "leave out each model's and GPU's source (what the page asks for)",
       "--no-sources"},
      {"--name",
       "NAME",
       {"import_model"},
       "the imported model's name (default: the config's)",
       "--name \"Llama 3.1 8B\""},
      {"--nccl", "FILE", {"calibrate"},
       "nccl-tests output as printed (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, "
       "sendrecv_perf; with its command line when it is all_gather or alltoall); repeatable",
       "--nccl all_reduce_8gpu.txt"},
      {"--step", "LAYOUT=SECONDS", {"calibrate"},
       "a measured step time of a layout (parallel fields over the scenario's pins: tp, pp, dp, cp, ep, etp, vpp, "
       "mb, zero, recompute, sp); repeatable",
       "--step tp=8,pp=2,mb=1=6.1"},
      {"--log", "[LAYOUT=]FILE", {"calibrate"},
       "a training log of the scenario's layout (or of LAYOUT): Megatron-LM/Bridge, torchtitan or DeepSpeed "
       "iteration lines; repeatable",
       "--log tp=8,pp=2=train.log"},
      {"--json", nullptr, commands(),
       "the contract's JSON (the default when stdout is not a terminal)", "--json"},
      {"--table",
       nullptr,
       {"evaluate", "plan", "calibrate", "import_model", "presets", "version"},
       "the human table (the default on a terminal)",
       "--table"},
  };
  return list;
}

const Option* find_option(const std::string& name) {
  for (const Option& o : options()) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

const ScenarioFlag* find_flag(const std::string& name) {
  for (const ScenarioFlag& f : scenario_flags()) {
    if (name == f.flag) return &f;
  }
  return nullptr;
}

std::vector<std::string> every_option_name() {
  std::vector<std::string> names;
  for (const Option& o : options()) names.emplace_back(o.name);
  for (const ScenarioFlag& f : scenario_flags()) names.emplace_back(f.flag);
  names.emplace_back("--help");
  return names;
}

const char* kHumanUnits =
    "Numbers in flags take human units: 8k = 8,192 and 128K = 131,072 for counts (GPUs, sequence\n"
    "length, batch, degrees: K = 1,024, M = 1,048,576), 15T = 15e12 and 300B = 300e9 for --tokens\n"
    "(K, M, B, T, P: powers of 1,000); commas group thousands (4,096).\n";

std::string general_help() {
  return "pplan: the parallelism planner for LLM training\n\n"
         "usage: pplan COMMAND [FILE|-] [options]\n\n"
         "commands:\n"
         "  evaluate      one complete plan's estimate (fields left out are filled in and listed)\n"
         "  plan          search every layout; pinned fields stay fixed\n"
         "  explain       the search's winner in words: the method's six steps and the "
         "alternatives\n"
         "  launch        the plan's launch configuration (--format megatron|slurm|env|...)\n"
         "  report        the design report (Markdown)\n"
         "  layout_view   the layout picture's replica view (JSON)\n"
         "  landscape     a sample of the search space and its Pareto front (JSON)\n"
         "  scaling       the best plan at gpus/8 ... gpus*8 (JSON)\n"
         "  schedule      the pipeline schedule of the plan: each stage's passes in time (JSON)\n"
         "  calibrate     refit the constants your measurements identify (--nccl, --step, --log)\n"
         "  request       a whole request envelope, as the page's engine receives it (JSON)\n"
         "  import_model  a Hugging Face config.json as a pplan model\n"
         "  presets       the built-in models and GPUs\n"
         "  version       the engine and schema versions\n\n"
         "The scenario comes from FILE (- reads stdin), from flags, or both (flags override "
         "FILE):\n"
         "  pplan plan --model llama3-70b --gpu h100-sxm --gpus 256 --seq 8k --batch 512\n"
         "  pplan evaluate examples/gpt3-175b-1024-a100.json --pp 16 --set parallel.zero=1\n"
         "  pplan plan --model path/to/config.json --gpu h100-sxm --gpus 64 --seq 4k --batch "
         "256\n\n" +
         std::string(kHumanUnits) +
         "\nOn a terminal evaluate, plan, import_model, presets and version print a table; "
         "elsewhere\n"
         "(pipes, scripts) the contract's JSON; --json and --table choose. Exit 0 on success (an\n"
         "infeasible plan is an answer), 2 on bad input with the error object\n"
         "{\"ok\": false, \"error\": {\"code\", \"path\", \"message\"}} on stdout.\n\n"
         "pplan COMMAND --help lists every option of COMMAND with an example.\n";
}

std::string command_help(const std::string& command) {
  std::string out = "usage: pplan " + command;
  if (takes_scenario(command))
    out += " [FILE|-] [scenario flags] [options]\n";
  else if (command == "import_model")
    out += " CONFIG.json|- [options]\n";
  else if (command == "request")
    out += " FILE|- [options]\n";
  else
    out += " [options]\n";
  std::vector<std::vector<std::string>>
      rows;  // {name, help, example}; a section heading has no help
  auto row = [&](const std::string& name, const char* value, const std::string& help,
                 const std::string& example) {
    rows.push_back({name + (value ? std::string(" ") + value : ""), help, example});
  };
  if (takes_scenario(command)) {
    rows.push_back({"scenario flags (override FILE's fields):", "", ""});
    for (const Option& o : options()) {
      if (std::string(o.name) == "--model" || std::string(o.name) == "--gpu")
        row(o.name, o.value, o.help, o.example);
    }
    for (const ScenarioFlag& f : scenario_flags()) {
      std::string field = f.pointer + 1;
      std::replace(field.begin(), field.end(), '/', '.');
      row(f.flag, f.value, f.help + std::string(", sets ") + field,
          std::string(f.flag) + " " + f.example);
    }
    for (const Option& o : options()) {
      if (std::string(o.name) == "--set") row(o.name, o.value, o.help, o.example);
    }
  }
  rows.push_back({"options:", "", ""});
  for (const Option& o : options()) {
    const std::string name = o.name;
    if (name == "--model" || name == "--gpu" || name == "--set") continue;
    if (std::find(o.commands.begin(), o.commands.end(), command) == o.commands.end()) continue;
    row(o.name, o.value, o.help, o.example);
  }
  row("--help", nullptr, "this list", "pplan " + command + " --help");
  std::size_t width = 0;
  for (const auto& r : rows) {
    if (!r[1].empty()) width = std::max(width, utf8_length(r[0]));
  }
  for (const auto& r : rows) {
    if (r[1].empty()) {
      out += "\n" + r[0] + "\n";
      continue;
    }
    out += "  " + r[0] + std::string(width - utf8_length(r[0]) + 2, ' ') + r[1] + "; e.g. " + r[2] +
           "\n";
  }
  if (takes_scenario(command)) out += "\n" + std::string(kHumanUnits);
  if (command == "plan")
    out +=
        "\nexample: pplan plan --model llama3-70b --gpu h100-sxm --gpus 256 --seq 8k --batch 512 "
        "--top 5\n";
  if (command == "evaluate")
    out +=
        "\nexample: pplan evaluate --model gpt3-175b --gpu a100-80gb --gpus 1024 --seq 2k --batch "
        "1536 --tp 8 --pp 8\n";
  if (command == "explain") out += "\nexample: pplan explain examples/gpt3-175b-1024-a100.json\n";
  if (command == "launch")
    out += "\nexample: pplan launch examples/gpt3-175b-1024-a100.json --format slurm\n";
  if (command == "report")
    out +=
        "\nexample: pplan report --model deepseek-v3 --gpu h100-sxm --gpus 2k --seq 4k --batch "
        "15,360 --tokens 14.8T\n";
  if (command == "layout_view")
    out += "\nexample: pplan layout_view examples/gpt3-175b-1024-a100.json\n";
  if (command == "import_model")
    out += "\nexample: pplan import_model tests/data/hf-configs/meta-llama--Llama-3.1-8B.json\n";
  if (command == "landscape")
    out += "\nexample: pplan landscape examples/mixtral-8x7b-256-h100.json\n";
  if (command == "scaling") out += "\nexample: pplan scaling examples/llama3-405b-8k-16384-h100.json\n";
  if (command == "schedule")
    out += "\nexample: pplan schedule examples/gpt3-175b-1024-a100.json\n";
  if (command == "calibrate")
    out +=
        "\nexample: pplan calibrate examples/llama3-70b-64-h100.json --nccl "
        "tests/data/nccl-tests/h100-8gpu-all_reduce.txt --step tp=4,pp=2=5.9\n";
  if (command == "request")
    out += "\nexample: echo '{\"command\": \"version\"}' | pplan request -\n";
  if (command == "presets") out += "\nexample: pplan presets --json\n";
  if (command == "version") out += "\nexample: pplan version\n";
  return out;
}

/// The field of the request an option sets, where an error about it points.
std::string field_of(const std::string& option) {
  if (option == "--top") return "/top";
  if (option == "--format") return "/format";
  if (option == "--no-timing") return "/timing";
  if (option == "--no-sources") return "/sources";
  if (option == "--name") return "/name";
  if (option == "--nccl") return "/nccl_tests";
  if (option == "--step" || option == "--log") return "/steps";
  if (option == "--model") return "/model";
  if (option == "--gpu") return "/cluster/gpu";
  if (const ScenarioFlag* flag = find_flag(option)) return flag->pointer;
  return "/";
}

/// What the arguments say.
struct Parsed {
  std::string command;
  std::optional<std::string> file;
  bool json = false;
  bool table = false;
  bool timing = true;
  bool sources = true;
  bool print_scenario = false;
  bool help = false;
  std::optional<int> top;
  std::optional<std::string> format;
  std::optional<std::string> name;
  /// calibrate's measurements, in argument order: (option, value).
  std::vector<std::pair<std::string, std::string>> measurements;
  /// Scenario edits in argument order: (option as typed, value).
  std::vector<std::pair<std::string, std::string>> edits;
};

Parsed parse_arguments(const std::vector<std::string>& args) {
  Parsed p;
  p.command = args.front();
  std::set<std::string> given;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      p.help = true;
      continue;
    }
    if (arg == "-" || arg.empty() || arg[0] != '-') {
      if (!takes_scenario(p.command) && p.command != "import_model" && p.command != "request") {
        throw CliError{"request.bad_option", "/",
                       p.command + " takes no FILE (got \"" + printable(arg, 80) + "\")"};
      }
      if (p.file) {
        throw CliError{"request.bad_option", "/",
                       "a second FILE \"" + printable(arg, 80) + "\" after \"" +
                           printable(*p.file, 80) +
                           "\": give one scenario (flags can change its fields)"};
      }
      p.file = arg;
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const Option* option = find_option(name);
    const ScenarioFlag* flag = option ? nullptr : find_flag(name);
    if (!option && !flag) {
      const std::optional<std::string> near = closest_match(name, every_option_name());
      throw CliError{
          "request.bad_option", "/",
          "unknown option " + printable(name, 80) + (near ? " (did you mean " + *near + "?)" : "")};
    }
    const std::vector<std::string>& allowed = option ? option->commands : kScenarioCommands;
    if (std::find(allowed.begin(), allowed.end(), p.command) == allowed.end()) {
      std::string which;
      for (const std::string& c : allowed) which += (which.empty() ? "" : ", ") + c;
      throw CliError{"request.bad_option", field_of(name),
                     name + " is not an option of " + p.command + " (it is one of " + which + ")"};
    }
    const bool takes_value = flag || option->value;
    std::string value;
    if (takes_value) {
      if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
      } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
        value = args[++i];
      } else {
        throw CliError{"request.bad_option", field_of(name),
                       name + " needs a value (" + (flag ? flag->value : option->value) + ")"};
      }
    } else if (equals != std::string::npos) {
      throw CliError{"request.bad_option", field_of(name), name + " takes no value"};
    }
    const bool repeatable = name == "--set" || name == "--nccl" || name == "--step" || name == "--log";
    if (!repeatable && !given.insert(name).second) {
      throw CliError{"request.bad_option", field_of(name), name + " given twice: give it once"};
    }
    if (name == "--json")
      p.json = true;
    else if (name == "--table")
      p.table = true;
    else if (name == "--no-timing")
      p.timing = false;
    else if (name == "--no-sources")
      p.sources = false;
    else if (name == "--print-scenario")
      p.print_scenario = true;
    else if (name == "--format")
      p.format = value;
    else if (name == "--name")
      p.name = value;
    else if (name == "--nccl" || name == "--step" || name == "--log")
      p.measurements.emplace_back(name, value);
    else if (name == "--top") {
      std::string error;
      const std::optional<double> top = parse_human_number(value, Units::kCount, error);
      if (!top || *top < 1 || *top > 1000) {
        throw CliError{
            "request.bad_option", "/top",
            "--top takes a whole number from 1 to 1000, not \"" + printable(value, 40) + "\""};
      }
      p.top = static_cast<int>(*top);
    } else {
      p.edits.emplace_back(name, value);
    }
  }
  if (p.json && p.table) throw CliError{"request.bad_option", "/", "--json and --table: give one"};
  return p;
}

/// A document read and parsed strictly; errors become the CLI's, at `pointer`.
json read_json(const std::string& path, std::istream& in, const std::string& pointer) {
  const ReadResult read = read_document(path, in, kMaxDocumentBytes);
  if (!read.ok())
    throw CliError{read.code, read.code == "input.too_large" ? "/" : pointer, read.message};
  try {
    return parse_document(read.text);
  } catch (const InputError& e) {
    throw CliError{e.code(), pointer == "/" ? e.path() : pointer, path + ": " + e.what()};
  }
}

bool names_a_file(const std::string& value) {
  return value == "-" || value.find('/') != std::string::npos ||
         (value.size() > 5 && value.compare(value.size() - 5, 5, ".json") == 0);
}

/// --model FILE: a pplan model object, or a Hugging Face config.json imported by the engine.
json model_from_file(const std::string& path, std::istream& in) {
  const json document = read_json(path, in, "/model");
  if (!is_hf_config(document)) return document;
  // The model's name: the folder a config.json sits in (Llama-3.1-8B/config.json), else the file.
  std::string name = path;
  const std::size_t slash = name.find_last_of('/');
  std::string file = slash == std::string::npos ? name : name.substr(slash + 1);
  if (file == "config.json" && slash != std::string::npos) {
    const std::string folder = name.substr(0, slash);
    name = folder.substr(
        folder.find_last_of('/') == std::string::npos ? 0 : folder.find_last_of('/') + 1);
  } else {
    name = file.substr(0, file.rfind(".json"));
  }
  RequestOptions options;
  options.name = name;
  const json answer = json::parse(handle_command("import_model", document.dump(), options));
  if (!answer.value("ok", false)) {
    const json& e = answer["error"];
    throw CliError{e.value("code", "internal"), "/model",
                   path + ": " + e.value("message", std::string()) + " (at " +
                       e.value("path", std::string()) + ")"};
  }
  return answer["model"];
}

/**
 * Refuses a pointer before nlohmann follows it, since following it allocates: an array index
 * fills every element up to it (/zz/30000000 would make 30 million nulls, /zz/1000000000 tries
 * 16 GB), and each level of a deep pointer adds a nesting level that --print-scenario indents.
 * An index may name an element or the one after the last (a new array starts at 0); the
 * pointer may not be deeper than a document may nest (kMaxDocumentDepth).
 */
void check_pointer_target(const json& scenario, const std::string& pointer, const std::string& by) {
  std::vector<std::string> tokens;
  for (std::size_t at = 1; at <= pointer.size();) {
    const std::size_t slash = std::min(pointer.find('/', at), pointer.size());
    std::string token = pointer.substr(at, slash - at);
    for (std::size_t k = 0; k < token.size(); ++k) {
      if (token[k] != '~') continue;
      const char next = k + 1 < token.size() ? token[k + 1] : '\0';
      if (next != '0' && next != '1') {
        throw CliError{"request.bad_option", "/",
                       by + ": \"~\" in a JSON pointer must be ~0 (~) or ~1 (/)"};
      }
      token.replace(k, 2, next == '0' ? "~" : "/");
    }
    tokens.push_back(std::move(token));
    at = slash + 1;
  }
  if (tokens.size() >= static_cast<std::size_t>(kMaxDocumentDepth)) {
    throw CliError{"input.too_deep", "/",
                   by + ": the pointer is " + std::to_string(tokens.size()) +
                       " levels deep; a scenario nests at most " +
                       std::to_string(kMaxDocumentDepth) + " levels"};
  }
  const json* node = &scenario;
  for (const std::string& token : tokens) {
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    if (node && node->is_array() && token != "-") {
      // Longer than any size, or a leading zero nlohmann refuses anyway: past the end.
      const std::size_t size = node->size();
      if (!index || token.size() > 18 || std::stoull(token) > size) {
        throw CliError{"request.bad_option", "/",
                       by + ": array index \"" + printable(token, 24) + "\" is past the end (the array has " +
                           std::to_string(size) + " elements; the next is " + std::to_string(size) + ")"};
      }
      node = std::stoull(token) < size ? &(*node)[std::stoull(token)] : nullptr;
    } else if ((!node || node->is_null()) && index) {
      if (token != "0") {
        throw CliError{"request.bad_option", "/",
                       by + ": array index \"" + printable(token, 24) +
                           "\" would start a new array there; a new array starts at index 0"};
      }
      node = nullptr;
    } else if (node && node->is_object()) {
      const auto it = node->find(token);
      node = it == node->end() ? nullptr : &*it;
    } else if (!node || node->is_null()) {
      node = nullptr;  // a key nlohmann creates: what follows starts empty
    } else {
      break;  // a string or number on the way: set_field's own error names it
    }
  }
}

/// Sets one field, refusing a field set twice (a flag and --set, or two --set).
void set_field(json& scenario, const std::string& pointer, json value, const std::string& by,
               std::set<std::string>& set_so_far) {
  if (!set_so_far.insert(pointer).second) {
    throw CliError{"request.bad_option", pointer,
                   pointer + " is set twice (again by " + by + "): set it once"};
  }
  check_pointer_target(scenario, pointer, by);
  try {
    scenario[json::json_pointer(pointer)] = std::move(value);
  } catch (const json::exception&) {
    throw CliError{"request.bad_option", pointer,
                   by + ": cannot set " + pointer +
                       ": a field above it is not an object (a preset id? "
                       "give the object, e.g. --model FILE)"};
  }
}

/// A flag's value as JSON: a human number for counts and amounts, else the text.
json flag_value(const ScenarioFlag& flag, const std::string& value) {
  if (flag.kind == ScenarioFlag::kText) return value;
  std::string error;
  const std::optional<double> x = parse_human_number(
      value, flag.kind == ScenarioFlag::kAmount ? Units::kAmount : Units::kCount, error);
  if (!x) {
    throw CliError{"request.bad_option", flag.pointer,
                   std::string(flag.flag) + " \"" + printable(value, 40) + "\": " + error +
                       " (numbers like 8k, 128K, 4,096, 15T, 300B)"};
  }
  if (flag.kind == ScenarioFlag::kCount && std::fabs(*x) < 9e15) return static_cast<long long>(*x);
  return *x;
}

/// --set FIELD=VALUE's value: JSON when it parses, else a human number, else text.
json set_value(const std::string& pointer, const std::string& text) {
  try {
    return parse_document(text);
  } catch (const InputError& e) {
    if (e.code() != "schema.parse_error")
      throw CliError{e.code(), pointer, "--set " + pointer + ": " + e.what()};
  }
  std::string error;
  if (const std::optional<double> x = parse_human_number(text, units_of(pointer), error)) {
    if (*x == std::floor(*x) && std::fabs(*x) < 9e15) return static_cast<long long>(*x);
    return *x;
  }
  if (const auto bad = first_forbidden_character(text)) {
    throw CliError{"input.control_character", pointer,
                   "--set " + pointer + ": the value contains " + code_point_name(bad->code_point)};
  }
  return text;
}

void apply_edits(json& scenario, const Parsed& p, std::istream& in) {
  std::set<std::string> set_so_far;
  for (const auto& [name, value] : p.edits) {
    // Arguments are bytes; what reaches the scenario must be text the parser would accept.
    if (!valid_utf8(value)) {
      throw CliError{"request.bad_option", "/", name + ": the value is not valid UTF-8"};
    }
    if (name == "--model") {
      set_field(scenario, "/model", names_a_file(value) ? model_from_file(value, in) : json(value),
                name, set_so_far);
    } else if (name == "--gpu") {
      set_field(scenario, "/cluster/gpu",
                names_a_file(value) ? read_json(value, in, "/cluster/gpu") : json(value), name,
                set_so_far);
    } else if (name == "--set") {
      const std::size_t equals = value.find('=');
      const std::string pointer = to_pointer(value.substr(0, equals));
      if (equals == std::string::npos || pointer.empty()) {
        throw CliError{
            "request.bad_option", "/",
            "--set \"" + printable(value, 80) + "\": give FIELD=VALUE, e.g. parallel.tp=8"};
      }
      set_field(scenario, pointer, set_value(pointer, value.substr(equals + 1)),
                "--set " + printable(value.substr(0, equals), 200), set_so_far);
    } else {
      const ScenarioFlag& flag = *find_flag(name);
      set_field(scenario, flag.pointer, flag_value(flag, value), name, set_so_far);
    }
  }
}

/// "tp=8,pp=2,mb=1" as parallel fields (mb and sp are micro_batch and sequence_parallel).
json layout_fields(const std::string& text, const std::string& option) {
  json parallel = json::object();
  if (text.empty()) return parallel;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw CliError{"request.bad_option", "/steps",
                     option + ": \"" + printable(item, 40) + "\" is not FIELD=VALUE (e.g. tp=8,pp=2)"};
    }
    std::string key = item.substr(0, equals);
    if (key == "mb") key = "micro_batch";
    if (key == "sp") key = "sequence_parallel";
    parallel[key] = set_value("/parallel/" + key, item.substr(equals + 1));
    at = comma + 1;
  }
  return parallel;
}

/// calibrate's request: the scenario and every --nccl, --step and --log, in order.
std::string calibrate_request(const std::string& scenario_text, const Parsed& p, std::istream& in) {
  json request = {{"command", "calibrate"}, {"scenario", json::parse(scenario_text)}};
  json nccl = json::array();
  json steps = json::array();
  auto file_text = [&](const std::string& path, const char* pointer) {
    const ReadResult read = read_document(path, in, kMaxDocumentBytes);
    if (!read.ok()) throw CliError{read.code, pointer, read.message};
    return read.text;
  };
  for (const auto& [option, value] : p.measurements) {
    if (option == "--nccl") {
      nccl.push_back(file_text(value, "/nccl_tests"));
      continue;
    }
    // LAYOUT=SECONDS, [LAYOUT=]FILE: the value after the last "=".
    const std::size_t equals = value.rfind('=');
    const std::string layout = equals == std::string::npos ? "" : value.substr(0, equals);
    const std::string last = equals == std::string::npos ? value : value.substr(equals + 1);
    json step = {{"parallel", layout_fields(layout, option)}};
    if (option == "--step") {
      std::string error;
      const std::optional<double> seconds = parse_human_number(last, Units::kAmount, error);
      if (equals == std::string::npos || !seconds) {
        throw CliError{"request.bad_option", "/steps",
                       "--step \"" + printable(value, 80) + "\": give LAYOUT=SECONDS, e.g. tp=8,pp=2=6.1"};
      }
      step["step_time_s"] = *seconds;
    } else {
      step["log"] = file_text(last, "/steps");
    }
    steps.push_back(step);
  }
  if (!nccl.empty()) request["nccl_tests"] = nccl;
  if (!steps.empty()) request["steps"] = steps;
  return request.dump();
}

/// Which flag gives a required scenario field, for the hint under a missing-field error.
std::string flag_for(const std::string& pointer) {
  if (pointer == "/model") return "--model ID|FILE";
  if (pointer == "/cluster/gpu") return "--gpu ID|FILE";
  if (pointer == "/cluster") return "--gpu ID and --gpus N";
  if (pointer == "/training") return "--seq N and --batch N";
  for (const ScenarioFlag& f : scenario_flags()) {
    if (pointer == f.pointer) return std::string(f.flag) + " " + f.value;
  }
  return "";
}

/// A line for stderr: an ESC or newline a user put into an argument or a path is shown as
/// "<U+001B>", never sent to the terminal.
std::string terminal_text(const std::string& text) { return printable(text, 4000); }

std::string error_text(const std::string& code, const std::string& path,
                       const std::string& message) {
  ordered_json j;
  j["ok"] = false;
  j["schema_version"] = kSchemaVersion;
  j["error"] = {{"code", code}, {"path", path}, {"message", message}};
  return dump_document(j);
}

int fail(std::ostream& out, std::ostream& err, const CliError& e, bool usage_hint,
         const std::string& command) {
  out << error_text(e.code, e.path, e.message) << "\n";
  err << "pplan: " << terminal_text(e.code) << " at " << terminal_text(e.path) << ": "
      << terminal_text(e.message) << "\n";
  if (usage_hint)
    err << "pplan: see pplan " << (command.empty() ? "--help" : command + " --help") << "\n";
  return 2;
}

/// Prints the engine's answer the way the command and the terminal want it.
int emit(const Parsed& p, const std::string& response, const Environment& environment,
         bool built_from_flags, std::ostream& out, std::ostream& err) {
  const json answer = json::parse(response, nullptr, false);
  const bool ok = answer.is_object() && answer.value("ok", false);
  if (!ok) {
    std::string message = "bad input";
    std::string path = "/";
    std::string code = "internal";
    if (answer.is_object() && answer.contains("error")) {
      const json& e = answer["error"];
      code = e.value("code", code);
      path = e.value("path", path);
      message = e.value("message", message);
    }
    out << response << "\n";
    err << "pplan: " << terminal_text(code) << " at " << terminal_text(path) << ": "
        << terminal_text(message) << "\n";
    if (built_from_flags && code == "schema.missing_field" && !flag_for(path).empty()) {
      err << "pplan: give it with " << flag_for(path) << "\n";
    }
    return 2;
  }
  const bool text_command =
      p.command == "explain" || p.command == "report" || p.command == "launch";
  if (p.json || (!text_command && !p.table && !environment.stdout_is_terminal)) {
    out << response << "\n";
    return 0;
  }
  if (p.command == "explain") {
    const json& x = answer["explanation"];
    for (const json& step : x["steps"]) {
      out << step["step"].get<int>() << ". " << step["title"].get<std::string>() << ": "
          << step["text"].get<std::string>() << "\n";
    }
    for (const json& alt : x["alternatives"]) {
      out << "   - " << alt["label"].get<std::string>() << " " << alt["verdict"].get<std::string>()
          << "\n";
    }
    out << "\n30-second answer: " << x["thirty_second_answer"].get<std::string>() << "\n";
    return 0;
  }
  if (p.command == "report" && answer.contains("markdown")) {
    out << answer["markdown"].get<std::string>();
    return 0;
  }
  if (p.command == "launch") {
    if (answer.contains("text") && !answer["text"].get<std::string>().empty()) {
      out << answer["text"].get<std::string>();
      return 0;
    }
    if (answer.contains("layout")) {
      out << answer["layout"].dump(2) << "\n";
      return 0;
    }
    if (answer.contains("problems")) {
      // Refused: stdout holds only a script that prints the reasons and fails, so
      // `pplan launch ... | bash` fails loudly (launch.h launch_refusal_script); exit 3.
      std::vector<LaunchProblem> problems;
      std::string codes;
      for (const json& problem : answer["problems"]) {
        problems.push_back({problem.value("code", ""), problem.value("message", ""),
                            problem.value("source", "")});
        codes += (codes.empty() ? "" : ", ") + problems.back().code;
      }
      const std::string format = answer.value("format", p.format.value_or(""));
      const std::string script = launch_refusal_script(format, problems);
      out << script;
      err << "pplan: this plan cannot be launched as --format " << format << ": " << codes << "\n";
      if (script.empty()) {
        for (const LaunchProblem& problem : problems) {
          err << "  " << problem.code << ": " << problem.message << "\n";
          if (!problem.source.empty()) err << "    (" << problem.source << ")\n";
        }
      }
      return 3;
    }
    out << response << "\n";
    return 0;
  }
  const std::string table = human_answer(p.command, answer);
  out << (table.empty() ? response + "\n" : table);
  return 0;
}

int run_parsed(const Parsed& p, std::istream& in, std::ostream& out, std::ostream& err,
               const Environment& environment) {
  if (p.help) {
    out << command_help(p.command);
    return 0;
  }
  RequestOptions options;
  if (p.top) options.top = *p.top;
  if (p.format) options.format = *p.format;
  if (p.name) options.name = *p.name;
  options.timing = p.timing;
  options.sources = p.sources;
  if (!takes_scenario(p.command)) {
    std::string document;
    if (p.command == "request") {
      if (!p.file)
        throw CliError{"request.bad_option", "/", "request needs a FILE (or - for stdin)"};
      const ReadResult read = read_document(*p.file, in, kMaxDocumentBytes);
      if (!read.ok()) throw CliError{read.code, "/", read.message};
      return emit(p, handle_request(read.text), environment, false, out, err);
    }
    if (p.command == "import_model") {
      if (!p.file)
        throw CliError{"request.bad_option", "/",
                       "import_model needs a CONFIG.json (or - for stdin)"};
      const ReadResult read = read_document(*p.file, in, kMaxDocumentBytes);
      if (!read.ok()) throw CliError{read.code, "/", read.message};
      document = read.text;
    }
    return emit(p, handle_command(p.command, document, options), environment, false, out, err);
  }
  std::string scenario_text;
  const bool flags = !p.edits.empty();
  if (p.file && !flags && !p.print_scenario) {
    const ReadResult read = read_document(*p.file, in, kMaxDocumentBytes);
    if (!read.ok()) throw CliError{read.code, "/", read.message};
    scenario_text = read.text;
  } else {
    if (!p.file && !flags) {
      throw CliError{
          "request.bad_option", "/",
          "no scenario: give FILE, - for stdin, or flags such as --model ID --gpu ID --gpus N "
          "--seq N --batch N"};
    }
    json scenario = p.file ? read_json(*p.file, in, "/") : json{{"schema_version", kSchemaVersion}};
    if (!scenario.is_object())
      throw CliError{"schema.not_an_object", "/", "the scenario must be a JSON object"};
    apply_edits(scenario, p, in);
    // The limits every document has (depth, values), checked before anything is printed.
    try {
      parse_document(scenario.dump());
    } catch (const InputError& e) {
      throw CliError{e.code(), e.path(), e.what()};
    }
    if (p.print_scenario) {
      out << scenario.dump(2) << "\n";
      return 0;
    }
    scenario_text = scenario.dump();
  }
  if (p.command == "calibrate") {
    return emit(p, handle_request(calibrate_request(scenario_text, p, in)), environment, flags && !p.file, out, err);
  }
  const std::string engine_command = p.command == "explain" ? "plan" : p.command;
  if (p.command == "explain") options.top = 1;
  return emit(p, handle_command(engine_command, scenario_text, options), environment,
              flags && !p.file, out, err);
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err, const Environment& environment) {
  std::string command;
  try {
    if (args.empty()) {
      err << general_help();
      throw CliError{"request.bad_option", "/command", "missing command (pplan --help lists them)"};
    }
    // Arguments are bytes from the shell: each must be text with no control character, so
    // none can reach a message, a script or the terminal (an ESC, a newline, a bidi override).
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string which = "argument " + std::to_string(i + 1);
      if (!valid_utf8(args[i])) {
        throw CliError{"request.bad_option", "/", which + " is not valid UTF-8"};
      }
      if (const auto bad = first_forbidden_character(args[i])) {
        throw CliError{"input.control_character", "/",
                       which + " (\"" + printable(args[i], 80) + "\") contains " +
                           code_point_name(bad->code_point) + " at character " +
                           std::to_string(bad->character_index + 1)};
      }
    }
    command = args.front();
    if (command == "--help" || command == "-h" || command == "help") {
      out << general_help();
      return 0;
    }
    if (command == "--version") command = "version";
    if (std::find(commands().begin(), commands().end(), command) == commands().end()) {
      const std::optional<std::string> near = closest_match(command, commands());
      const std::string shown = printable(command, 40);
      command.clear();
      throw CliError{
          "request.unknown_command", "/command",
          "unknown command \"" + shown + "\"" + (near ? " (did you mean " + *near + "?)" : "") +
              " (commands: evaluate, plan, explain, launch, report, layout_view, landscape, "
              "scaling, schedule, calibrate, request, import_model, presets, version)"};
    }
    std::vector<std::string> rest = args;
    rest.front() = command;
    return run_parsed(parse_arguments(rest), in, out, err, environment);
  } catch (const CliError& e) {
    return fail(out, err, e, e.code == "request.bad_option" || e.code == "request.unknown_command",
                command);
  } catch (const std::bad_alloc&) {
    throw;  // main() answers it without allocating
  } catch (const std::exception& e) {
    return fail(out, err, CliError{"internal", "/", std::string("internal error: ") + e.what()},
                false, command);
  }
}

}  // namespace pplan::cli
