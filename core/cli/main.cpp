// pplan: the command-line face of the engine (README "The CLI").
//   pplan evaluate FILE|-            one estimate for a complete `parallel`
//   pplan plan FILE|- [--top N]      search; pinned fields stay fixed
//   pplan explain FILE|-             the search's winner, explained (text)
//   pplan launch FILE|- --format F   launch text for the complete or best plan
//   pplan report FILE|-              the design report of the complete or best plan (Markdown)
//   pplan layout_view FILE|-         the layout picture's replica view of that plan (JSON)
//   pplan landscape FILE|- | scaling FILE|-   the search pictures (JSON, io/api.h)
//   pplan request FILE|-             a whole request envelope, as the wasm module receives it
//   pplan presets | version
// Exit 0 on success (an infeasible plan is a success), 2 on bad input, with the error
// envelope on stdout and one human line on stderr; 3 when `launch` refuses the plan: stdout
// then holds only a script that prints the reasons and exits 1 (launch.h
// launch_refusal_script), so `pplan launch ... | bash` fails loudly.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "pplan/io/api.h"
#include "pplan/launch/launch.h"

namespace {

constexpr const char* kUsage =
    "usage: pplan evaluate FILE|-\n"
    "       pplan plan FILE|- [--top N]\n"
    "       pplan explain FILE|-\n"
    "       pplan launch FILE|- --format megatron|slurm|env|torchtitan|torchtitan-toml|deepspeed|nemo|nccl-tests|layout\n"
    "       pplan report FILE|-\n"
    "       pplan layout_view FILE|-\n"
    "       pplan landscape FILE|- | scaling FILE|-\n"
    "       pplan request FILE|-\n"
    "       pplan presets | version\n";

int usage_error(const std::string& message) {
  std::cerr << "pplan: " << message << "\n" << kUsage;
  return 2;
}

bool read_input(const std::string& path, std::string& text, std::string& error) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot read " + path;
    return false;
  }
  std::ostringstream buffer;
  buffer << file.rdbuf();
  text = buffer.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  pplan::RequestOptions options;
  std::string input_path;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--top" && i + 1 < argc) {
      try {
        std::size_t used = 0;
        const long top = std::stol(argv[++i], &used);
        if (used != std::string(argv[i]).size() || top < 1 || top > 1000) throw std::out_of_range("");
        options.top = static_cast<int>(top);
      } catch (...) {
        return usage_error("--top takes a whole number from 1 to 1000");
      }
    } else if (arg == "--format" && i + 1 < argc) {
      options.format = argv[++i];
    } else if (input_path.empty() && (arg == "-" || arg.rfind("--", 0) != 0)) {
      input_path = arg;
    } else {
      return usage_error("unexpected argument " + arg);
    }
  }

  std::string scenario;
  const bool needs_input = command != "presets" && command != "version";
  if (needs_input) {
    if (input_path.empty()) return usage_error("missing scenario FILE (or - for stdin)");
    std::string error;
    if (!read_input(input_path, scenario, error)) return usage_error(error);
  }
  const bool text_output = command == "launch" || command == "report" || command == "explain";
  const std::string engine_command = command == "explain" ? "plan" : command;
  if (command == "explain") options.top = 1;
  const std::string response = command == "request"
                                    ? pplan::handle_request(scenario)
                                    : pplan::handle_command(engine_command, scenario, options);

  nlohmann::json parsed = nlohmann::json::parse(response, nullptr, false);
  const bool ok = parsed.is_object() && parsed.value("ok", false);
  if (!ok) {
    std::cout << response << "\n";
    std::string message = "bad input";
    if (parsed.is_object() && parsed.contains("error")) {
      const auto& e = parsed["error"];
      message = e.value("code", "") + " at " + e.value("path", "") + ": " + e.value("message", "");
    }
    std::cerr << "pplan: " << message << "\n";
    return 2;
  }
  if (text_output) {
    if (command == "explain") {
      const auto& x = parsed["explanation"];
      for (const auto& step : x["steps"]) {
        std::cout << step["step"].get<int>() << ". " << step["title"].get<std::string>() << ": "
                  << step["text"].get<std::string>() << "\n";
      }
      for (const auto& alt : x["alternatives"]) {
        std::cout << "   - " << alt["label"].get<std::string>() << " " << alt["verdict"].get<std::string>()
                  << "\n";
      }
      std::cout << "\n30-second answer: " << x["thirty_second_answer"].get<std::string>() << "\n";
      return 0;
    }
    if (command == "report" && parsed.contains("markdown")) {
      std::cout << parsed["markdown"].get<std::string>();
      return 0;
    }
    if (parsed.contains("text") && !parsed["text"].get<std::string>().empty()) {
      std::cout << parsed["text"].get<std::string>();
      return 0;
    }
    if (parsed.contains("layout")) {
      std::cout << parsed["layout"].dump(2) << "\n";
      return 0;
    }
    if (parsed.contains("problems")) {
      std::vector<pplan::LaunchProblem> problems;
      std::string codes;
      for (const auto& p : parsed["problems"]) {
        problems.push_back({p.value("code", ""), p.value("message", "")});
        codes += (codes.empty() ? "" : ", ") + problems.back().code;
      }
      const std::string script = pplan::launch_refusal_script(options.format, problems);
      std::cout << script;
      std::cerr << "pplan: this plan cannot be launched as --format " << options.format << ": " << codes << "\n";
      if (script.empty()) {
        for (const auto& p : problems) std::cerr << "  " << p.code << ": " << p.message << "\n";
      }
      return 3;
    }
  }
  std::cout << response << "\n";
  return 0;
}
