// Issue 13, security: no string of a scenario can run code through a launch configuration.
// The scenarios are built in C++ with hostile strings, bypassing the parser (which rejects
// control characters on its own), so the escaping of every format is tested by itself:
// payloads x string fields x formats. Bash outputs run under logging stubs and must make
// exactly the external calls the same plan with a benign name makes (and create no file);
// Python outputs must parse to the same syntax tree, TOML and JSON to the same document.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../support/scenario_files.h"
#include "../support/stub_shell.h"
#include "pplan/io/launch_json.h"
#include "pplan/launch/launch.h"
#include "pplan/model/estimate.h"

namespace {

using nlohmann::ordered_json;
using pplan::Scenario;

const std::vector<std::string>& payloads() {
  static const std::vector<std::string> p = {
      "x\ntouch PWNED #",
      "x\rtouch PWNED #",
      "x\r\nimport os; os.system('touch PWNED') #",
      "x\rimport os; os.system('touch PWNED') #",
      "$(touch PWNED)",
      "`touch PWNED`",
      "x' ; touch PWNED ; echo '",
      "x\" ; touch PWNED ; echo \"",
      "x\xe2\x80\xa8"
      "import os; os.system('touch PWNED')",  // U+2028
      "x\xe2\x80\xa9touch PWNED",             // U+2029
      "x\nPPLAN_EOF\ntouch PWNED\ncat <<'PPLAN_EOF'",
      "x\nEOF\ntouch PWNED\ncat <<'EOF'",
      "x\n[model]\nname = \"evil\"\n#",
      "x\x1b]0;evil\x07\x1b[2J",
      std::string("x\0touch PWNED", 13),
      "x\xc2\x85touch PWNED",  // U+0085 (NEL)
      "x\xe2\x80\xae"
      "DEWNP hcuot",  // U+202E (bidi override)
      "\xff\xfe invalid UTF-8 \xc3",
      "x\\\nt\\ouch PWNED \\",
  };
  return p;
}

/// The payload with every byte outside printable ASCII as \xNN, for failure messages.
std::string visible(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

struct Field {
  const char* name;
  std::function<void(Scenario&, const std::string&)> set;
};

const std::vector<Field>& fields() {
  static const std::vector<Field> f = {
      {"model.name", [](Scenario& s, const std::string& v) { s.model.name = v; }},
      {"model.id", [](Scenario& s, const std::string& v) { s.model.id = v; }},
      {"model.source", [](Scenario& s, const std::string& v) { s.model.source = v; }},
      {"cluster.gpu.name", [](Scenario& s, const std::string& v) { s.cluster.gpu.name = v; }},
      {"cluster.gpu.id", [](Scenario& s, const std::string& v) { s.cluster.gpu.id = v; }},
      {"cluster.gpu.source", [](Scenario& s, const std::string& v) { s.cluster.gpu.source = v; }},
      {"cluster.gpu.architecture",
       [](Scenario& s, const std::string& v) { s.cluster.gpu.architecture = v; }},
  };
  return f;
}

/// Plans every format launches: one node (ZeRO-3, no pipeline) and two nodes with a pipeline.
const std::vector<std::string>& bases() {
  static const std::vector<std::string> b = {
      R"({"schema_version": 1, "model": "llama3-8b",
          "cluster": {"gpu": "h100-sxm", "gpus": 8, "gpus_per_node": 8},
          "training": {"seq_len": 8192, "global_batch": 64},
          "parallel": {"tp": 2, "pp": 1, "dp": 4, "cp": 1, "micro_batch": 1, "sequence_parallel": true,
                       "recompute": "full", "zero": 3}})",
      R"({"schema_version": 1, "model": "llama3-8b",
          "cluster": {"gpu": "h100-sxm", "gpus": 16, "gpus_per_node": 8},
          "training": {"seq_len": 8192, "global_batch": 64},
          "parallel": {"tp": 2, "pp": 2, "dp": 4, "cp": 1, "micro_batch": 1, "sequence_parallel": true,
                       "recompute": "full", "zero": 1}})",
  };
  return b;
}

/// `base` priced for the framework `format` launches: torchtitan and DeepSpeed refuse a plan
/// priced for Megatron-Core (*.priced_for_another_framework).
Scenario priced_for_format(const std::string& base, const std::string& format) {
  nlohmann::json j = nlohmann::json::parse(base);
  if (format.rfind("torchtitan", 0) == 0) j["training"]["framework"] = "torchtitan";
  if (format == "deepspeed") j["training"]["framework"] = "deepspeed";
  return pplan::testing::scenario_from(j.dump());
}

enum class Kind { kBash, kPython, kToml, kJson };

Kind kind_of(const std::string& format) {
  if (format == "nemo") return Kind::kPython;
  if (format == "torchtitan-toml") return Kind::kToml;
  if (format == "layout") return Kind::kJson;
  return Kind::kBash;
}

/// External commands a launch script of `format` runs (the launcher and its helpers).
const std::set<std::string>& allowed_commands(const std::string& format) {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"megatron", {"torchrun"}},
      {"slurm", {"scontrol", "head", "srun", "awk"}},
      {"env", {}},
      {"torchtitan", {"cat", "torchrun"}},
      {"deepspeed", {"cat", "torchrun"}},
      {"nccl-tests", {"srun"}},
  };
  return allowed.at(format);
}

struct Output {
  bool refused = false;
  std::string text;
};

Output generate(Scenario s, const Field& field, const std::string& value,
                const std::string& format) {
  field.set(s, value);
  const pplan::Estimate plan = pplan::evaluate(s, pplan::resolve_defaults(s));
  const ordered_json r = pplan::launch_response(s, plan, format);
  Output out;
  out.refused = r.contains("problems");
  if (format == "layout")
    out.text = out.refused ? "" : r["layout"].dump();
  else
    out.text = r["text"].get<std::string>();
  return out;
}

std::string temp_root() {
  const std::string root = ::testing::TempDir() + "pplan_security";
  std::filesystem::create_directories(root);
  return root;
}

/// Every file under `dir`, relative.
std::set<std::string> files_under(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    out.insert(std::filesystem::relative(entry.path(), dir).string());
  }
  return out;
}

/// Calls in a fixed order: the commands of a pipeline run at the same time.
std::vector<std::vector<std::string>> sorted(std::vector<std::vector<std::string>> calls) {
  std::sort(calls.begin(), calls.end());
  return calls;
}

/// Files that the Python checker compares: (hostile, benign, kind).
struct Comparison {
  std::string hostile, benign, kind, label;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Runs one python3 over every comparison; returns its report ("" when all equal).
std::string compare_in_python(const std::vector<Comparison>& comparisons, const std::string& root) {
  const std::string manifest = root + "/manifest.json";
  nlohmann::json list = nlohmann::json::array();
  for (const Comparison& c : comparisons) list.push_back({c.hostile, c.benign, c.kind, c.label});
  write(manifest, list.dump());
  const std::string checker = root + "/compare.py";
  write(checker, R"PY(
import ast, json, sys, tomllib
failures = []
for hostile, benign, kind, label in json.load(open(sys.argv[1])):
    try:
        a = open(hostile, encoding="utf-8", errors="strict").read()
        b = open(benign, encoding="utf-8").read()
        if kind == "python":
            same = ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
        elif kind == "python-refusal":
            class Blank(ast.NodeTransformer):
                def visit_Constant(self, node):
                    return ast.Constant(value="") if isinstance(node.value, str) else node
            same = ast.dump(Blank().visit(ast.parse(a))) == ast.dump(Blank().visit(ast.parse(b)))
            # Run it in an empty directory: SystemExit(1) and no file.
            import contextlib, io, os, tempfile
            with tempfile.TemporaryDirectory() as d:
                here = os.getcwd()
                os.chdir(d)
                try:
                    with contextlib.redirect_stderr(io.StringIO()) as err:
                        exec(compile(a, hostile, "exec"), {"__name__": "__main__"})
                    same = False  # it did not exit
                except SystemExit as e:
                    same = same and e.code == 1 and os.listdir(d) == [] and "fp8_unsupported" in err.getvalue()
                finally:
                    os.chdir(here)
        elif kind == "toml":
            same = tomllib.loads(a) == tomllib.loads(b)
        else:
            same = json.loads(a) == json.loads(b)
    except Exception as e:  # a parse error is a failure too
        same = False
        label += " (" + type(e).__name__ + ": " + str(e)[:200] + ")"
    if not same:
        failures.append(label)
print("\n".join(failures))
)PY");
  const std::string report = root + "/report.txt";
  const int status =
      std::system(("python3 '" + checker + "' '" + manifest + "' > '" + report + "' 2>&1").c_str());
  std::string text = pplan::testing::read_text(report);
  if (status != 0) text += "\n(python3 exited with " + std::to_string(status) + ")";
  return text;
}

TEST(LaunchSecurity, NoStringFieldRunsCodeInAnyFormat) {
  if (std::system("bash -c true > /dev/null 2>&1") != 0 ||
      std::system("python3 -c 'import tomllib' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "needs bash and python3 >= 3.11";
  }
  const std::string root = temp_root();
  std::vector<Comparison> comparisons;
  std::map<std::string, int> generated;  // format -> hostile outputs checked
  int case_number = 0;
  for (std::size_t b = 0; b < bases().size(); ++b) {
    for (const Field& field : fields()) {
      for (const std::string& format : pplan::launch_formats()) {
        const Scenario base = priced_for_format(bases()[b], format);
        const Output benign = generate(base, field, "benign", format);
        const Kind kind = kind_of(format);
        pplan::testing::StubRun benign_run;
        if (!benign.refused && kind == Kind::kBash) {
          benign_run = pplan::testing::run_under_stubs(benign.text, root);
          ASSERT_EQ(benign_run.exit_code, 0) << format << "\n" << benign_run.stderr_text;
          for (const auto& call : benign_run.calls) {
            ASSERT_TRUE(allowed_commands(format).count(call[0])) << format << " calls " << call[0];
          }
        }
        for (const std::string& payload : payloads()) {
          const std::string label = "base " + std::to_string(b) + ", " + field.name + ", " +
                                    format + ", payload " + visible(payload);
          SCOPED_TRACE(label);
          const Output hostile = generate(base, field, payload, format);
          EXPECT_EQ(hostile.refused, benign.refused) << "a name changed whether the plan launches";
          if (hostile.refused || benign.refused) continue;
          ++generated[format];
          // No raw control character or line separator reaches any output.
          for (std::size_t i = 0; i < hostile.text.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(hostile.text[i]);
            if (c < 0x20 && c != '\n')
              ADD_FAILURE() << "control character " << int(c) << " at " << i;
            if (c == 0x7f) ADD_FAILURE() << "DEL at " << i;
          }
          EXPECT_EQ(hostile.text.find("\xe2\x80\xa8"), std::string::npos);
          EXPECT_EQ(hostile.text.find("\xe2\x80\xa9"), std::string::npos);
          // A field that does not reach the output leaves it byte for byte unchanged.
          if (hostile.text == benign.text) continue;
          const std::string stem = root + "/case" + std::to_string(case_number++);
          if (kind == Kind::kBash) {
            const pplan::testing::StubRun run = pplan::testing::run_under_stubs(hostile.text, root);
            EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
            EXPECT_EQ(sorted(run.calls), sorted(benign_run.calls)) << "the external calls changed";
            EXPECT_EQ(files_under(run.work_dir), files_under(benign_run.work_dir))
                << "files changed";
            if (format == "torchtitan") {
              comparisons.push_back({run.work_dir + "/pplan_plan.py",
                                     benign_run.work_dir + "/pplan_plan.py", "python", label});
            }
            if (format == "deepspeed") {
              comparisons.push_back({run.work_dir + "/ds_config.json",
                                     benign_run.work_dir + "/ds_config.json", "json", label});
            }
          } else {
            write(stem + ".hostile", hostile.text);
            write(stem + ".benign", benign.text);
            const char* name = kind == Kind::kPython ? "python"
                               : kind == Kind::kToml ? "toml"
                                                     : "json";
            comparisons.push_back({stem + ".hostile", stem + ".benign", name, label});
          }
        }
      }
    }
  }
  EXPECT_EQ(compare_in_python(comparisons, root), "\n");
  // Every format was exercised with every payload (torchtitan only where the id is a preset's).
  for (const std::string& format : pplan::launch_formats()) {
    EXPECT_GE(generated[format], int(payloads().size()) * 4) << format;
  }
}

TEST(LaunchSecurity, RefusalScriptsOnlyPrintTheReasons) {
  if (std::system("bash -c true > /dev/null 2>&1") != 0 ||
      std::system("python3 -c pass > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "needs bash and python3";
  }
  // FP8 on an A100: megatron.fp8_unsupported quotes the GPU's name in its message.
  Scenario s = pplan::testing::scenario_from(R"({"schema_version": 1, "model": "llama3-8b",
      "cluster": {"gpu": "a100-80gb", "gpus": 8}, "training": {"seq_len": 4096, "global_batch": 64, "precision": "fp8"},
      "parallel": {"tp": 2, "pp": 1, "dp": 4, "cp": 1, "recompute": "full", "zero": 3}})");
  const std::string root = temp_root();
  std::vector<Comparison> comparisons;
  for (const std::string& payload : payloads()) {
    SCOPED_TRACE(visible(payload));
    for (const std::string& format : pplan::launch_formats()) {
      Scenario hostile = s;
      hostile.cluster.gpu.name = payload;
      const auto problems = pplan::framework_problems(pplan::LaunchFramework::kMegatron, hostile,
                                                      pplan::resolve_defaults(hostile));
      ASSERT_FALSE(problems.empty());
      const std::string script = pplan::launch_refusal_script(format, problems);
      const Kind kind = kind_of(format);
      if (kind == Kind::kToml || kind == Kind::kJson) {
        EXPECT_EQ(script, "") << format;
        continue;
      }
      if (kind == Kind::kBash && format != "megatron") {
        // The same script but for the format's name: run once, for megatron.
        std::string same = pplan::launch_refusal_script("megatron", problems);
        same.replace(same.find("--format megatron"), 17, "--format " + format);
        EXPECT_EQ(script, same);
      } else if (kind == Kind::kBash) {
        const pplan::testing::StubRun run = pplan::testing::run_under_stubs(script, root);
        EXPECT_EQ(run.exit_code, 1) << format;
        EXPECT_TRUE(run.calls.empty()) << format << " called " << run.calls.front().front();
        EXPECT_TRUE(files_under(run.work_dir).empty()) << format;
        EXPECT_NE(run.stderr_text.find("megatron.fp8_unsupported"), std::string::npos)
            << run.stderr_text;
      } else {
        Scenario benign = s;
        benign.cluster.gpu.name = "benign";
        const std::string stem = root + "/refusal" + std::to_string(comparisons.size());
        write(stem + ".hostile", script);
        write(stem + ".benign",
              pplan::launch_refusal_script(
                  format, pplan::framework_problems(pplan::LaunchFramework::kMegatron, benign,
                                                    pplan::resolve_defaults(benign))));
        // Compared in shape and run in the checker: it must exit 1 and create nothing.
        comparisons.push_back(
            {stem + ".hostile", stem + ".benign", "python-refusal", visible(payload)});
      }
    }
  }
  EXPECT_EQ(compare_in_python(comparisons, root), "\n");
}

TEST(LaunchSecurity, JobNamesAreFilteredIds) {
  Scenario s = pplan::testing::scenario_from(bases()[1]);
  s.model.id = "a b;$(c)`d`'e\"f\ng.h-i_j/k\\l";
  const ordered_json r =
      pplan::launch_response(s, pplan::evaluate(s, pplan::resolve_defaults(s)), "slurm");
  const std::string text = r["text"];
  EXPECT_NE(text.find("\n#SBATCH --job-name=pplan-abcdefg.h-i_jkl\n"), std::string::npos)
      << text.substr(0, 200);
}

}  // namespace
