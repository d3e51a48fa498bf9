// libFuzzer target for the engine's one JSON entry point, pplan::handle_request, and the CLI.
// How the bytes are used:
//   "{..."    the whole input is a scenario (examples/ and the schema fixtures seed this),
//             wrapped in a well-formed request for evaluate/plan/launch/explain/report;
//   "$..."    the CLI (core/cli/cli.h run()): the bytes up to the first NUL are the arguments,
//             one per line, the rest is stdin; file arguments outside the repository's
//             examples/ and tests/ (and /dev/null) are renamed to paths that do not exist, so
//             the fuzzer never reads the machine's files, a tty or a FIFO.
//   Structure-aware modes (issue #26 item 8), each reading the rest as choices and numbers
//   (ByteReader: choice 0 is the sensible one, so a short input is a valid document):
//   "h..."    a Hugging Face config.json built from the bytes (hf_config()): model_type and
//             architectures from the families core/src/io/hf_config.cpp maps and junk ones
//             (empty arrays, non-strings, a string for the array, long multi-byte names cut at
//             odd lengths, control characters, nested text_config), dimensions at extremes,
//             head_dim, the MoE and MLA keys (num_experts, n_routed_experts,
//             first_k_dense_replace, mlp_only_layers, q_lora_rank, ...), sent as
//             {"command":"import_model","config":...,"name":...}; an imported model is then
//             priced in a scenario (evaluate/plan/launch/explain/report) half of the time.
//   "H..."    the same configs through the CLI: `import_model -` (stdin), `import_model FILE`,
//             and `evaluate|plan|explain|launch|report --model FILE|-` with scenario flags;
//             FILE is written under a private mkdtemp directory (/tmp/pplan-fuzz-XXXXXX) with
//             a name from the bytes (the model's name comes from it) and removed after the run.
//   "-..."    CLI flag vectors: a command, maybe a repository file or "-", then real flags
//             (--set, --print-scenario, --model, --gpu, --gpus, --seq, --batch, --top, --format,
//             --name, ... as "--f v" or "--f=v") whose values come from the bytes: human numbers,
//             --set pointers (deep, ~0/~1 escapes, "-", huge array indices) and values (JSON
//             extremes, strings, objects, raw ESC sequences, invalid UTF-8). Values that would
//             name a file are kept to the repository's examples/ and tests/, /dev/null and "-".
//   "g..."    a valid scenario around a GPU preset with overrides ({"preset": "h100-sxm",
//             "fp8_tflops": ..., "memory_gib": ..., efficiencies, system, name, ...}: the keys of
//             json_io.cpp parse_gpu) and the cluster's topology (gpus_per_node,
//             nvlink_domain_gpus, nvlink_gbytes_per_s, network {nics_per_node, nic_gbits_per_s,
//             rail_optimized, oversubscription}), for any scenario command (evaluate, plan,
//             launch, explain, report, layout_view, landscape, scaling, schedule), answered by
//             the engine or, when the second byte is odd, by the CLI (`pplan CMD -`, tables/text).
//   (No committed seed starts with 'h', 'H', '-' or 'g', which fell to the modes below before.)
//   else the first byte picks a mode for the rest (first byte % 3):
//   raw       the bytes are the whole request (parser, envelope checks);
//   wrapped   the bytes are a scenario in a request whose command the first byte picks;
//   built     the bytes are read as numbers that fill a scenario the parser accepts,
//             so the model and the search see valid but extreme values (huge GPU counts,
//             thousands of layers, odd divisors) far more often than mutation alone finds them.
// Requests carry "top", "timing" and "nearest_gpus" only for the commands that take them (the
// engine refuses an option its command ignores), so the modes' requests reach the command.
// Invariants (a violation prints "pplan fuzz: invariant NAME violated" and aborts, so the fuzzer
// reports it like a crash; PPLAN_FUZZ_ALLOW=NAME,NAME skips named ones while a known bug is
// being fixed):
//   envelope        every response is a JSON object with a boolean "ok"; an error carries a
//                   string code and path;
//   internal        no error is "internal";
//   json-exception  no error message but a parse error's quotes a nlohmann exception (a
//                   library error that escaped the engine's checks, e.g. operator[] on a string);
//   control         no response holds a byte below 0x20 but \n; no string in an ok response and
//                   no human output (CLI stdout) holds a C0 control but \n and \t (ESC, CR,
//                   BEL, ...) or DEL;
//   c1-bidi         nor a C1 control (U+0080-U+009F), U+2028/U+2029 or a bidirectional override
//                   or isolate (U+202A-U+202E, U+2066-U+2069);
//   stderr-control, stderr-c1-bidi   the same two for the CLI's stderr;
//   finite          every number in an ok response is finite;
//   mfu             every "mfu_causal" in an ok response is within [0, 1], every "mfu" and "hfu"
//                   within [0, 2] (eq. 3 counts causal attention's masked half; the engine
//                   warns plan.mfu_counts_masked_attention above 1);
//   nonfinite-text  no "nan" or "inf" word in the CLI's human output (unless the input has one);
//   exit            the CLI exits 0, 2 (with the error object on stdout) or, for launch, 3
//                   (a refused launch: a script that fails).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <sanitizer/common_interface_defs.h>

#include "cli.h"
#include "pplan/io/api.h"

namespace {

using nlohmann::json;

/// Reads little-endian integers from the input; zeros once it runs out.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
    return v;
  }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  /// 1..max, biased towards small values and powers of two (where valid plans live).
  long long count(long long max) {
    const std::uint8_t kind = byte() % 4;
    const std::uint32_t raw = u32();
    long long v = 0;
    if (kind == 0) v = 1LL << (raw % 21);   // a power of two
    else if (kind == 1) v = raw % 129;      // small
    else if (kind == 2) v = raw % 100001;   // medium
    else v = raw;                            // anything, even out of range
    return v > max ? max : v;
  }
  bool flag() { return byte() & 1; }
  /// 0..n-1 (0 once the input runs out: the first choice is the sensible one).
  std::size_t pick(std::size_t n) { return byte() % n; }
  template <typename T, std::size_t N>
  T pick_from(const T (&choices)[N]) {
    return choices[pick(N)];
  }
  bool done() const { return at_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// The first five take a scenario; presets and version take none.
const char* const kCommands[] = {"evaluate", "plan", "launch", "explain", "report", "presets", "version"};
const char* const kModels[] = {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "megatron-1t",
                               "deepseek-v3", "no-such-model", "gemma3-27b", "gpt-oss-120b", "nemotron-h-56b",
                               "llama4-maverick", "qwen3-235b-a22b"};
const char* const kGpus[] = {"a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "no-such-gpu"};
const char* const kRecomputes[] = {"none", "selective", "full"};
const char* const kFormats[] = {"megatron", "slurm", "env", "torchtitan", "deepspeed", "nemo",
                                "nccl-tests", "layout", "bogus"};

json built_scenario(ByteReader& in) {
  json s;
  s["schema_version"] = 1;
  if (in.byte() % 3 == 0) {
    json m;
    m["layers"] = in.count(20000);
    const long long heads = in.count(512);
    m["heads"] = heads;
    m["kv_heads"] = in.flag() || heads == 0 ? heads : 1 + in.count(heads) % heads;
    m["hidden"] = heads * in.count(512);
    m["ffn_hidden"] = in.count(1 << 22);
    m["vocab"] = in.count(10000000);
    m["activation"] = in.flag() ? "swiglu" : "gelu";
    if (in.flag()) {
      const long long experts = in.count(1024);
      m["moe"] = {{"experts", experts},
                  {"top_k", experts == 0 ? 0 : 1 + in.count(experts) % experts},
                  {"shared_experts", in.count(4) % 5},
                  {"expert_ffn_hidden", in.count(1 << 16)},
                  {"dense_layers", in.count(8) % 9}};
      if (in.flag()) m["moe"]["every"] = in.count(64);
      if (in.flag()) m["mtp_layers"] = in.count(16);
    }
    // The 2026 model fields (issue #23), at their bounds and past them.
    if (in.flag()) {
      const char* const activations[] = {"gelu", "swiglu", "geglu", "squared_relu", "clamped_swiglu"};
      m["activation"] = activations[in.byte() % 5];
      if (in.flag()) m["head_dim"] = in.count(1 << 17);
      if (in.flag()) m["qk_norm"] = in.flag();
      if (in.flag()) m["linear_bias"] = in.flag();
      if (in.flag()) m["attention_sinks"] = in.flag();
      if (in.flag()) {
        m["local_attention"] = {{"tokens", in.count(1 << 25)}, {"global_every", in.count(64)}, {"chunked", in.flag()}};
      }
      if (in.flag()) {
        // A hybrid pattern of the model's length (or not), from M, * and -.
        const long long layers = m["layers"].get<long long>();
        std::string pattern;
        const long long length = in.flag() ? layers : in.count(64);
        for (long long i = 0; i < std::min(length, 4096LL); ++i) pattern += "M*-"[in.byte() % 3];
        m["hybrid_pattern"] = pattern;
        if (in.flag()) {
          m["mamba"] = {{"heads", in.count(1024)}, {"head_dim", in.count(1 << 17)}, {"state", in.count(1 << 17)},
                        {"groups", in.count(64)}, {"chunk", in.count(1 << 17)}};
        }
      }
    }
    s["model"] = m;
  } else {
    s["model"] = kModels[in.byte() % (sizeof(kModels) / sizeof(kModels[0]))];
  }
  s["cluster"] = {{"gpu", kGpus[in.byte() % 6]},
                  {"gpus", in.count(1 << 21)},
                  {"gpus_per_node", in.count(64)}};
  s["training"] = {{"seq_len", in.count(1 << 20)},
                   {"global_batch", in.count(1 << 24)},
                   {"precision", in.flag() ? "fp8" : "bf16"}};
  if (in.flag()) {
    json p = json::object();
    const std::uint8_t pins = in.byte();
    if (pins & 1) p["tp"] = in.count(1024);
    if (pins & 2) p["pp"] = in.count(1024);
    if (pins & 4) p["dp"] = in.count(1 << 20);
    if (pins & 8) p["cp"] = in.count(64);
    if (pins & 16) p["micro_batch"] = in.count(64);
    if (pins & 32) p["zero"] = in.byte() % 4;
    if (pins & 64) p["recompute"] = kRecomputes[in.byte() % 3];
    if (pins & 128) {
      p["vpp"] = in.count(16);
      p["ep"] = in.count(256);
      p["sequence_parallel"] = in.flag();
    }
    s["parallel"] = p;
  }
  // Read last, so the bytes of older seeds mean what they meant: a custom GPU and report block
  // with figures at the physical bounds (json_io.cpp kMin*) and at the maxima.
  const auto extreme = [&](double lo, double hi) {
    const std::uint8_t pick = in.byte() % 4;
    return pick == 0 ? lo : pick == 1 ? hi : pick == 2 ? lo * 10 : hi / 10;
  };
  if (in.byte() % 4 == 1) {
    s["cluster"]["gpu"] = {{"memory_gb", extreme(1e-3, 1e5)},          {"bf16_tflops", extreme(1e-3, 1e7)},
                           {"fp8_tflops", extreme(1e-3, 1e7)},         {"hbm_gbytes_per_s", extreme(1e-3, 1e6)},
                           {"nvlink_gbytes_per_s", extreme(1e-3, 1e6)}, {"network_gbytes_per_s", extreme(1e-3, 1e6)},
                           {"gemm_efficiency", extreme(1e-3, 1)},      {"attention_efficiency", extreme(1e-3, 1)}};
  }
  if (in.byte() % 4 == 1) {
    s["report"] = {{"storage_gbytes_per_s", extreme(1e-6, 1e7)},
                   {"failures_per_gpu_hour", extreme(1e-12, 1)},
                   {"restart_s", extreme(0, 1e7)}};
    s["training"]["token_budget"] = extreme(1, 1e18);
  }
  // The training stack and the optimizer state it keeps: framework rules, memory, launches.
  if (in.byte() % 4 == 1) {
    static const char* const kFrameworks[] = {"megatron-core", "megatron-lm", "deepspeed", "torchtitan"};
    s["training"]["framework"] = kFrameworks[in.byte() % 4];
    s["training"]["optimizer_state_dtype"] = in.flag() ? "bf16" : "fp32";
  }
  // MoE routing and expert TP (issue #22): group-limited routing, the flex dispatcher, the EP
  // overlap and parallel.etp, on any model (the parser refuses them on a dense one).
  if (in.byte() % 4 == 1) {
    if (s["model"].is_object() && s["model"].contains("moe") && s["model"]["moe"].is_object()) {
      s["model"]["moe"]["groups"] = in.count(512);
      s["model"]["moe"]["group_top_k"] = in.count(64);
    }
    if (in.flag()) s["training"]["moe_dispatcher"] = in.flag() ? "flex" : "alltoall";
    if (in.flag()) s["training"]["overlap_moe_expert_parallel_comm"] = in.flag();
    if (in.flag()) s["parallel"]["etp"] = in.count(64);
    if (in.flag()) {
      static const char* const kModules[] = {"core_attn", "mla_up_proj", "layernorm", "moe_act",
                                             "mlp",       "moe",         "shared_experts", "attn"};
      json modules = json::array();
      for (int i = in.byte() % 9; i > 0; --i) modules.push_back(kModules[in.byte() % 8]);
      s["parallel"]["recompute_modules"] = modules;
    }
  }
  // Pipeline schedules and SwiGLU's FP8 input store (issue #22), with an unknown name sometimes.
  if (in.byte() % 4 == 2) {
    static const char* const kSchedules[] = {"1f1b", "interleaved", "zb-h1", "zb-v", "dualpipe", "dualpipev", "gpipe"};
    s["parallel"]["schedule"] = kSchedules[in.byte() % 7];
    if (in.flag()) s["parallel"]["pp"] = in.count(64);
    if (in.flag()) s["training"]["activation_func_fp8_input_store"] = in.flag();
    if (in.flag()) s["training"]["fp8_dot_product_attention"] = in.flag();
  }
  return s;
}

/// The commands a request's "top" (and "timing", "nearest_gpus") is an option of; the engine
/// refuses it on the others (api.cpp refuse_options_the_command_ignores).
bool takes_top(std::string_view command) {
  return command == "plan" || command == "explain" || command == "landscape";
}

/// A scenario in a valid envelope; text that is not JSON goes in as a string (wrong type).
std::string wrap(const char* command, int format, std::string_view scenario_text) {
  std::string scenario(scenario_text);
  if (json::parse(scenario, nullptr, /*allow_exceptions=*/false).is_discarded()) {
    scenario = json(scenario).dump(-1, ' ', false, json::error_handler_t::replace);
  }
  std::string request = std::string("{\"command\":\"") + command + "\",";
  if (takes_top(command)) request += "\"top\":" + std::to_string(1 + format) + ",";
  if (std::string_view(command) == "launch") {
    request += std::string("\"format\":\"") + kFormats[format] + "\",";
  }
  return request + "\"scenario\":" + scenario + "}";
}

// ---------------------------------------------------------------------------------------------
// The files the "H" mode writes: a private mkdtemp directory, the file and folder of the run
// under way; all removed at exit, before a violation aborts, and when a sanitizer reports
// (fixed buffers: the death callback may not allocate). A timeout's _Exit leaves them.

char g_scratch[64] = "";
char g_file[1024] = "";
char g_folder[1024] = "";

void remove_scratch() {
  if (g_file[0] != '\0') ::unlink(g_file);
  if (g_folder[0] != '\0') ::rmdir(g_folder);
  g_file[0] = g_folder[0] = '\0';
  if (g_scratch[0] != '\0') ::rmdir(g_scratch);
}

const char* scratch_dir() {
  if (g_scratch[0] == '\0') {
    std::snprintf(g_scratch, sizeof g_scratch, "/tmp/pplan-fuzz-XXXXXX");
    if (::mkdtemp(g_scratch) == nullptr) {
      std::perror("pplan fuzz: mkdtemp");
      std::abort();
    }
    std::atexit(remove_scratch);
    __sanitizer_set_death_callback(remove_scratch);
  }
  return g_scratch;
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool enforced(const char* invariant) {
  static const std::string allowed = [] {
    const char* a = std::getenv("PPLAN_FUZZ_ALLOW");
    return a ? "," + std::string(a) + "," : std::string();
  }();
  return allowed.find("," + std::string(invariant) + ",") == std::string::npos;
}

/// Aborts with the invariant's name and what broke it, `detail()` (built only then; printed
/// escaped, as it may hold control bytes).
template <typename Detail>
void require(bool holds, const char* invariant, const Detail& detail) {
  if (holds || !enforced(invariant)) return;
  const std::string shown =
      json(std::string(detail()).substr(0, 800)).dump(-1, ' ', true, json::error_handler_t::replace);
  std::fprintf(stderr, "pplan fuzz: invariant \"%s\" violated: %s\n", invariant, shown.c_str());
  remove_scratch();
  std::abort();
}

/// The first C0 control but \n and \t (ESC, CR, BEL, ...) or DEL in `text`; npos if none.
std::size_t first_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return i;
  }
  return std::string_view::npos;
}

/// The first C1 control (U+0080-U+009F, e.g. CSI U+009B), line or paragraph separator or
/// bidirectional override or isolate (they reorder what a reader sees); npos if none.
std::size_t first_invisible(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0xc2 && i + 1 < text.size()) {
      const auto d = static_cast<unsigned char>(text[i + 1]);
      if (d >= 0x80 && d <= 0x9f) return i;
    }
    if (c == 0xe2 && i + 2 < text.size()) {
      const auto d = static_cast<unsigned char>(text[i + 1]);
      const auto e = static_cast<unsigned char>(text[i + 2]);
      if (d == 0x80 && e >= 0xa8 && e <= 0xae) return i;  // U+2028-U+202E
      if (d == 0x81 && e >= 0xa6 && e <= 0xa9) return i;  // U+2066-U+2069
    }
  }
  return std::string_view::npos;
}

/// Where `at` is in `text`, for a violation's message.
std::string around(std::string_view text, std::size_t at) {
  const std::size_t from = std::min(at, text.size()) < 60 ? 0 : std::min(at, text.size()) - 60;
  return "at byte " + std::to_string(at) + ": ..." + std::string(text.substr(from, 160)) + "...";
}

/// An ok response's values: finite numbers, utilizations in [0, 1], strings without controls.
/// A violation names the key it was found under (PPLAN_FUZZ_PRINT shows the whole response).
void check_values(const json& j, const std::string& key) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    require(std::isfinite(v), "finite", [&] { return key + " = " + j.dump(); });
    // Kernels never run above peak, so what they compute (mfu_causal) stays within [0, 1]; MFU
    // and HFU count the masked half of causal attention too (Narayanan et al. 2021 eq. 3), at
    // most twice what runs, and above 1 the engine says why (plan.mfu_counts_masked_attention).
    if (key == "mfu_causal") require(v >= 0 && v <= 1, "mfu", [&] { return key + " = " + j.dump(); });
    if (key == "mfu" || key == "hfu") require(v >= 0 && v <= 2, "mfu", [&] { return key + " = " + j.dump(); });
  } else if (j.is_string()) {
    const std::string& text = j.get_ref<const std::string&>();
    const std::size_t control = first_control(text);
    require(control == std::string::npos, "control",
            [&] { return "string under " + key + " " + around(text, control); });
    const std::size_t invisible = first_invisible(text);
    require(invisible == std::string::npos, "c1-bidi",
            [&] { return "string under " + key + " " + around(text, invisible); });
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_values(*it, it.key());
  } else if (j.is_array()) {
    for (const json& item : j) check_values(item, key);
  }
}

void check_response(const std::string& response) {
  // JSON text: only the newlines of the indentation are below 0x20; strings escape the rest.
  const auto raw = std::find_if(response.begin(), response.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\n';
  });
  const std::size_t control = raw == response.end() ? std::string::npos : static_cast<std::size_t>(raw - response.begin());
  require(control == std::string::npos, "control",
          [&] { return "raw byte in the response " + around(response, control); });
  const json r = json::parse(response, nullptr, /*allow_exceptions=*/false);
  const bool envelope = r.is_object() && r.value("ok", json()).is_boolean();
  require(envelope, "envelope", [&] { return response; });
  if (!envelope) return;
  if (r["ok"].get<bool>()) {
    check_values(r, "");
    return;
  }
  const json error = r.value("error", json());
  const bool located = error.is_object() && error.value("code", json()).is_string() &&
                       error.value("path", json()).is_string();
  require(located, "envelope", [&] { return response; });
  if (!located) return;
  const std::string code = error["code"].get<std::string>();
  require(code != "internal", "internal", [&] { return response; });  // a bug, reported as such
  const json message = error.value("message", json());
  require(code == "schema.parse_error" || !message.is_string() ||
              message.get<std::string>().find("[json.exception.") == std::string::npos,
          "json-exception", [&] { return response; });
}

bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t at = 0; at + word.size() <= text.size(); ++at) {
    bool same = true;
    for (std::size_t k = 0; k < word.size() && same; ++k)
      same = std::tolower(static_cast<unsigned char>(text[at + k])) == word[k];
    if (!same) continue;
    const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if ((at == 0 || !alnum(text[at - 1])) &&
        (at + word.size() == text.size() || !alnum(text[at + word.size()])))
      return true;
  }
  return false;
}

bool contains_nocase(std::string_view text, std::string_view word) {
  const auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

/// What a person reads: no control characters; no nan/inf unless the input brought them.
void check_human(const std::string& text, bool is_stderr, const std::string& input) {
  const std::size_t at = first_control(text);
  require(at == std::string::npos, is_stderr ? "stderr-control" : "control",
          [&] { return around(text, at); });
  const std::size_t invisible = first_invisible(text);
  require(invisible == std::string::npos, is_stderr ? "stderr-c1-bidi" : "c1-bidi",
          [&] { return around(text, invisible); });
  if (!contains_nocase(input, "nan") && !contains_nocase(input, "inf")) {
    require(!has_word(text, "nan") && !has_word(text, "inf") && !has_word(text, "infinity"),
            "nonfinite-text", [&] { return text.substr(0, 2000); });
  }
}

/// One CLI run: the arguments, stdin and the answer's invariants.
void run_cli(const std::vector<std::string>& args, const std::string& stdin_text, bool terminal) {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  pplan::cli::Environment environment;
  environment.stdout_is_terminal = terminal;
  const bool print = std::getenv("PPLAN_FUZZ_PRINT") != nullptr;
  if (print) {
    std::string shown;
    for (const std::string& arg : args) shown += json(arg).dump(-1, ' ', false, json::error_handler_t::replace) + " ";
    std::fprintf(stderr, "args: %s\nterminal: %d\nstdin: %s\n", shown.c_str(), terminal ? 1 : 0,
                 json(stdin_text).dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  }
  const int status = pplan::cli::run(args, in, out, err, environment);
  if (print) std::fprintf(stderr, "status %d\nstdout: %s\nstderr: %s\n", status, out.str().c_str(), err.str().c_str());
  const std::string command = args.empty() ? "" : args.front();
  require(status == 0 || status == 2 || (status == 3 && command == "launch"), "exit",
          [&] { return "status " + std::to_string(status); });
  std::string input = stdin_text;
  for (const std::string& arg : args) input += " " + arg;
  const std::string text = out.str();
  if (status == 2) {
    check_response(text);
  } else if (text.rfind("{\n  \"ok\"", 0) == 0) {
    check_response(text);  // --json, or a pipe: the contract's JSON
  } else {
    check_human(text, false, input);
  }
  check_human(err.str(), true, input);
}

/// The CLI on fuzzed arguments and stdin.
void fuzz_cli(std::string_view bytes) {
  const std::size_t nul = bytes.find('\0');
  const std::string_view argument_text = bytes.substr(0, nul);
  const std::string stdin_text(nul == std::string_view::npos ? std::string_view() : bytes.substr(nul + 1));
  std::vector<std::string> args;
  for (std::size_t at = 0; at <= argument_text.size();) {
    const std::size_t end = std::min(argument_text.find('\n', at), argument_text.size());
    args.emplace_back(argument_text.substr(at, end - at));
    at = end + 1;
  }
  for (std::string& arg : args) {
    // Files the CLI may open: the repository's own, read from the source tree (the cwd).
    std::string path = arg.substr(arg.find('=') == std::string::npos ? 0 : arg.find('=') + 1);
    const bool pathlike = path.find('/') != std::string::npos || path.find(".json") != std::string::npos;
    const bool allowed = (path.rfind("examples/", 0) == 0 || path.rfind("tests/", 0) == 0 || path == "/dev/null") &&
                         path.find("..") == std::string::npos;
    if (pathlike && !allowed) arg.replace(arg.size() - path.size(), path.size(), "/nonexistent-pplan-fuzz/x.json");
  }
  run_cli(args, stdin_text, stdin_text.size() % 2 == 1);
}

// ---------------------------------------------------------------------------------------------
// Pieces the structure-aware modes share.

/// Text a user might type or a file might hold: plain names, long multi-byte names (cut
/// anywhere later), control characters and ESC sequences, separators, shell and Markdown
/// metacharacters, and (when `raw` is true) any bytes, invalid UTF-8 included.
std::string junk_text(ByteReader& in, bool raw = true) {
  static const char* const kPieces[] = {
      "\x1b[31m", "\x1b]0;title\x07", "\x1b[2J", "\x07", "\x08", "\r", "\n", "\t", "\x7f",
      "\xc2\x85", "\xc2\x9b", "\xe2\x80\xa8", "\xe2\x80\xae", "\xe2\x81\xa6", "\xef\xbb\xbf",
      "\xef\xbf\xbd", "`$(id)`", "'; echo x #", "\"", "\\", "<script>", "# ", "| a |", "*_",
      "%s%n", "{{", "..", "~1", "/", "=", " "};
  static const char* const kWide[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe6\xbc\xa2"};
  std::string out;
  switch (in.pick(9)) {
    case 0:
      return "fuzz-model";
    case 1: {  // printable ASCII from the bytes
      const std::size_t n = in.pick(80);
      for (std::size_t i = 0; i < n; ++i) out += static_cast<char>(' ' + in.pick(95));
      return out;
    }
    case 2: {  // ASCII, then many multi-byte characters: any cut lands mid-character somewhere
      out.assign(in.pick(4), 'a');
      const char* wide = in.pick_from(kWide);
      const std::size_t n = 1 + in.pick(256);
      for (std::size_t i = 0; i < n; ++i) out += wide;
      return out;
    }
    case 3:
    case 4: {  // words and dangerous pieces
      const std::size_t n = 1 + in.pick(6);
      for (std::size_t i = 0; i < n; ++i) out += in.flag() ? in.pick_from(kPieces) : "Llama";
      return out;
    }
    case 5: {  // one control byte in a name
      out = "name";
      out += static_cast<char>(in.pick(32));
      return out + "end";
    }
    case 6:  // long
      return std::string(1 + 40 * static_cast<std::size_t>(in.byte()), 'x');
    case 7:
      return "";
    default: {  // raw bytes
      const std::size_t n = in.pick(64);
      for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<char>(in.byte());
        out += raw || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) ? c : '?';
      }
      return out;
    }
  }
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

/// Any JSON value, for keys that should hold something else.
json junk_value(ByteReader& in, int depth = 0) {
  switch (in.pick(depth < 2 ? 10 : 8)) {
    case 0: return nullptr;
    case 1: return in.flag();
    case 2: return static_cast<long long>(in.u32()) - 2147483648LL;
    case 3: {
      static const double kReals[] = {1.5, -0.0, 1e308, -1e308, 4.9e-324, 0.1, 2147483647.5, 9007199254740993.0};
      return in.pick_from(kReals);
    }
    case 4: return junk_text(in);
    case 5: return std::to_string(in.count(1 << 20));
    case 6: return json::array();
    case 7: return json::object();
    case 8: {
      json a = json::array();
      for (std::size_t n = in.pick(4); n > 0; --n) a.push_back(junk_value(in, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (std::size_t n = in.pick(4); n > 0; --n) o[junk_text(in)] = junk_value(in, depth + 1);
      return o;
    }
  }
}

/// A whole number a config or scenario wants: usually `sensible`, else an extreme or wrong type.
json whole_or_extreme(ByteReader& in, long long sensible) {
  switch (in.pick(24)) {
    case 16: return 0;
    case 17: return 2147483647;
    case 18: return 2147483648LL;
    case 19: return -1;
    case 20: {
      static const double kReals[] = {1.5, 1e308, -1e308, 4.9e-324, -0.0, 2147483647.5, 1e15, 64.0};
      return in.pick_from(kReals);
    }
    case 21: return junk_value(in);
    case 22: return in.u32();
    case 23: return in.count(1LL << 40);
    default: return sensible;
  }
}

const char* const kModelPresets[] = {"llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b", "llama3-405b",
                                     "deepseek-v3", "megatron-1t", "no-such-model"};
const char* const kGpuPresets[] = {"h100-sxm", "a100-80gb", "a100-40gb", "h200", "h800", "b200", "b300",
                                   "gb200", "gb300", "no-such-gpu", "H100-SXM"};
const char* const kScenarioCommands[] = {"evaluate", "plan", "launch", "explain", "report",
                                         "layout_view", "landscape", "scaling", "schedule"};

/// A scenario's cluster and training around `model`, small enough that every command is quick.
json simple_scenario(ByteReader& in, json model) {
  json s;
  s["schema_version"] = 1;
  s["model"] = std::move(model);
  s["cluster"] = {{"gpu", kGpuPresets[in.pick(9)]}, {"gpus", !in.flag() ? 8 : in.count(1 << 14)}};
  s["training"] = {{"seq_len", !in.flag() ? 4096 : in.count(1 << 17)},
                   {"global_batch", !in.flag() ? 64 : in.count(1 << 16)},
                   {"precision", in.flag() ? "fp8" : "bf16"}};
  return s;
}

/// A request for a scenario command; the command and options from the bytes.
json scenario_request(ByteReader& in, json scenario, std::size_t commands) {
  json r;
  r["command"] = kScenarioCommands[in.pick(commands)];
  const std::size_t top = 1 + in.pick(5);
  const std::string command = r["command"];
  if (takes_top(command)) r["top"] = top;
  if (command == "launch") r["format"] = kFormats[in.pick(9)];
  if (command == "plan" && in.pick(4) == 1) r["nearest_gpus"] = true;
  if (command == "plan" || command == "explain") r["timing"] = false;
  r["scenario"] = std::move(scenario);
  return r;
}

std::string handle(const std::string& request) {
  // Reproducing a finding: PPLAN_FUZZ_PRINT=1 pplan_fuzz_request crash-... shows both sides.
  const bool print = std::getenv("PPLAN_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "request: %s\n", request.c_str());
  const std::string response = pplan::handle_request(request);
  if (print) std::fprintf(stderr, "response: %s\n", response.c_str());
  check_response(response);
  return response;
}

// ---------------------------------------------------------------------------------------------
// Hugging Face configs ("h", "H").

struct Family {
  const char* model_type;
  const char* architecture;
};
// As core/src/io/hf_config.cpp maps them, then names it does not (newer or related families).
const Family kFamilies[] = {
    {"llama", "LlamaForCausalLM"},          {"mistral", "MistralForCausalLM"},
    {"qwen2", "Qwen2ForCausalLM"},          {"qwen3", "Qwen3ForCausalLM"},
    {"mixtral", "MixtralForCausalLM"},      {"qwen2_moe", "Qwen2MoeForCausalLM"},
    {"qwen3_moe", "Qwen3MoeForCausalLM"},   {"deepseek_v3", "DeepseekV3ForCausalLM"},
    {"gpt2", "GPT2LMHeadModel"},            {"gpt_neox", "GPTNeoXForCausalLM"},
    {"deepseek_v2", "DeepseekV2ForCausalLM"}, {"llama4", "Llama4ForConditionalGeneration"},
    {"gemma3", "Gemma3ForCausalLM"},        {"LLAMA", "llamaforcausallm"},
    {"llama ", "LlamaForCausalLM "},        {"", ""}};
constexpr std::size_t kKnownFamilies = 10;

json family_name(ByteReader& in, const char* name, const char* other) {
  switch (in.pick(10)) {
    case 1: return junk_text(in, false);
    case 2: return junk_value(in);
    case 3: return other;  // a name of another family
    default: return name;
  }
}

json hf_config(ByteReader& in, int depth = 0) {
  const std::size_t f = in.pick(16) < 13 ? in.pick(kKnownFamilies) : in.pick(std::size(kFamilies));
  const Family& family = kFamilies[f];
  const Family& other = kFamilies[in.pick(std::size(kFamilies))];
  const std::string type = family.model_type;
  const bool gpt2 = type == "gpt2";
  json c = json::object();
  // model_type and architectures, each present, absent or malformed.
  if (in.pick(8) != 1) c["model_type"] = family_name(in, family.model_type, other.model_type);
  switch (in.pick(14)) {
    case 1: break;                                                  // absent
    case 2: c["architectures"] = json::array(); break;              // []
    case 3: c["architectures"] = json::array({junk_value(in)}); break;
    case 4: c["architectures"] = family.architecture; break;        // a string, not an array
    case 5: c["architectures"] = {junk_text(in, false), family.architecture}; break;
    case 6: c["architectures"] = {family.architecture, junk_value(in)}; break;
    case 7: c["architectures"] = {junk_text(in, false)}; break;
    case 8: c["architectures"] = nullptr; break;
    case 9: c["architectures"] = junk_value(in); break;
    case 10: c["architectures"] = json::array({json::array({family.architecture})}); break;
    case 11: c["architectures"] = json::array({other.architecture}); break;
    default: c["architectures"] = json::array({family.architecture}); break;
  }
  // The shape: consistent by default (heads divide hidden, kv heads divide heads).
  const long long heads = 1LL << in.pick(8);                  // 1..128
  const long long head_dim = 16LL << in.pick(5);              // 16..256
  const long long hidden = heads * head_dim;
  const long long kv_heads = std::max(1LL, heads >> in.pick(8));
  const long long layers = 1 + static_cast<long long>(in.pick(96));
  static const long long kVocabs[] = {32000, 50257, 128256, 151936, 1, 10000000, 256000, 129280};
  const long long vocab = in.pick_from(kVocabs);
  const long long ffn_multiple = 1 + static_cast<long long>(in.pick(4));
  const long long ffn = hidden * ffn_multiple + (in.pick(4) == 0 ? 0 : 256);
  c[gpt2 ? "n_layer" : "num_hidden_layers"] = whole_or_extreme(in, layers);
  c[gpt2 ? "n_embd" : "hidden_size"] = whole_or_extreme(in, hidden);
  c[gpt2 ? "n_head" : "num_attention_heads"] = whole_or_extreme(in, heads);
  if (in.pick(4) != 1) c["num_key_value_heads"] = whole_or_extreme(in, kv_heads);
  if (gpt2) {
    c["n_inner"] = in.flag() ? json(nullptr) : whole_or_extreme(in, ffn);
  } else {
    c["intermediate_size"] = whole_or_extreme(in, ffn);
  }
  c["vocab_size"] = whole_or_extreme(in, vocab);
  // Everything else, each key present when its bit is set.
  const unsigned mask_low = in.byte();
  const unsigned mask = mask_low | (static_cast<unsigned>(in.byte()) << 8);
  static const char* const kActs[] = {"silu", "gelu", "gelu_new", "relu", "swish", "gelu_pytorch_tanh"};
  if (mask & 1) c[gpt2 ? "activation_function" : "hidden_act"] = !in.flag() ? json(in.pick_from(kActs)) : junk_value(in);
  if (mask & 2) c["head_dim"] = !in.flag() ? whole_or_extreme(in, head_dim) : json(in.count(1024));
  if (mask & 4) c["tie_word_embeddings"] = in.pick(4) != 1 ? json(in.flag()) : junk_value(in);
  if (mask & 8) {
    static const char* const kDropouts[] = {"attention_dropout", "hidden_dropout", "resid_pdrop",
                                            "embd_pdrop", "attn_pdrop", "hidden_dropout_prob"};
    static const double kProbabilities[] = {0.0, 0.1, 1.0, -1.0, 1e308, 5e-324};
    c[in.pick_from(kDropouts)] = in.pick(4) != 1 ? json(in.pick_from(kProbabilities)) : junk_value(in);
  }
  if (mask & 16) {
    static const double kThetas[] = {500000.0, 10000.0, 1e308, 0.0, -1.0, 5e-324, 1e6};
    c["rope_theta"] = in.pick(4) != 1 ? json(in.pick_from(kThetas)) : junk_value(in);
  }
  if (mask & 32) c["max_position_embeddings"] = whole_or_extreme(in, 8192);
  if (mask & 64) {
    c["sliding_window"] = !in.flag() ? whole_or_extreme(in, 4096) : json(nullptr);
    if (in.flag()) c["use_sliding_window"] = in.pick(4) != 1 ? json(in.flag()) : junk_value(in);
  }
  if (mask & 128) c["attention_bias"] = in.pick(4) != 1 ? json(in.flag()) : junk_value(in);
  if (mask & 256) c["_name_or_path"] = in.pick(4) != 1 ? json(junk_text(in, false)) : junk_value(in);
  if (mask & 512) {  // GPT-NeoX's and GPT-2's own keys on any family
    c["rotary_pct"] = 0.25;
    c["use_parallel_residual"] = in.pick(4) != 1 ? json(in.flag()) : junk_value(in);
    c["n_positions"] = whole_or_extreme(in, 1024);
  }
  // Mixture of experts: the family's keys (bit 1024), and any family's on any config (2048).
  const long long experts = 1LL << in.pick(9);
  const long long top_k = std::max(1LL, experts >> (1 + in.pick(4)));
  const long long expert_width = 128LL << in.pick(6);
  const auto leading_layers = [&]() -> json {
    switch (in.pick(8)) {
      case 1: return json::array();
      case 2: return {0, 2};                    // not the leading ones
      case 3: return {0, "1"};                  // not integers
      case 4: return "0,1";                     // not an array
      case 5: return {0.0, 1.0};
      case 6: {                                 // as many as (or more than) the layers
        json a = json::array();
        const std::size_t n = !in.flag() ? static_cast<std::size_t>(layers) : in.pick(256) * 64;
        for (std::size_t i = 0; i < n; ++i) a.push_back(i);
        return a;
      }
      case 7: return {-1};
      default: return {0};
    }
  };
  const bool moe_keys = (mask & 1024) != 0;
  const bool any_moe = (mask & 2048) != 0;
  if ((moe_keys && type == "mixtral") || any_moe) {
    c["num_local_experts"] = whole_or_extreme(in, experts);
    c["num_experts_per_tok"] = whole_or_extreme(in, top_k);
  }
  if ((moe_keys && (type == "qwen2_moe" || type == "qwen3_moe")) || any_moe) {
    c["num_experts"] = whole_or_extreme(in, experts);
    c["num_experts_per_tok"] = whole_or_extreme(in, top_k);
    c["moe_intermediate_size"] = whole_or_extreme(in, expert_width);
    if (in.flag()) c["shared_expert_intermediate_size"] = whole_or_extreme(in, expert_width * (1 + static_cast<long long>(in.pick(4))));
    if (in.flag()) c["decoder_sparse_step"] = whole_or_extreme(in, 1);
    if (in.flag()) c["mlp_only_layers"] = leading_layers();
  }
  if ((moe_keys && (type == "deepseek_v3" || type == "deepseek_v2")) || any_moe) {
    c["n_routed_experts"] = whole_or_extreme(in, experts);
    c["num_experts_per_tok"] = whole_or_extreme(in, top_k);
    c["n_shared_experts"] = whole_or_extreme(in, 1);
    c["moe_intermediate_size"] = whole_or_extreme(in, expert_width);
    c["first_k_dense_replace"] = whole_or_extreme(in, static_cast<long long>(in.pick(4)));
    if (in.flag()) c["moe_layer_freq"] = whole_or_extreme(in, 1);
    if (in.flag()) c["num_nextn_predict_layers"] = whole_or_extreme(in, 1);
  }
  // Multi-head latent attention (DeepSeek-V3's keys; V2-Lite has q_lora_rank null).
  if ((mask & 4096) || (type == "deepseek_v3" && !(mask & 8192))) {
    c["q_lora_rank"] = in.pick(6) == 1 ? json(nullptr) : whole_or_extreme(in, 1536);
    c["kv_lora_rank"] = whole_or_extreme(in, 512);
    c["qk_nope_head_dim"] = whole_or_extreme(in, 128);
    c["qk_rope_head_dim"] = whole_or_extreme(in, 64);
    c["v_head_dim"] = whole_or_extreme(in, 128);
  }
  // A multimodal wrapper: the text model nested (Llama 4, Gemma 3, Qwen2-VL), with or without
  // the top level's own dimensions.
  if ((mask & 16384) && depth == 0) {
    c["text_config"] = hf_config(in, depth + 1);
    if (in.flag()) {
      for (const char* key : {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"}) c.erase(key);
    }
  }
  if (mask & 32768) {  // extra keys, unknown to pplan
    for (std::size_t n = 1 + in.pick(4); n > 0; --n) c[junk_text(in, false)] = junk_value(in);
  }
  return c;
}

/// "h": import_model through the engine, then (half the time) the model in a scenario.
void fuzz_hf_request(ByteReader& in) {
  json r;
  r["command"] = "import_model";
  r["config"] = in.pick(16) == 1 ? junk_value(in) : hf_config(in);
  if (in.flag()) r["name"] = junk_text(in, false);
  const json answer = json::parse(handle(dump(r)), nullptr, false);
  if (answer.is_object() && answer.value("ok", false) && answer.contains("model") && in.flag()) {
    handle(dump(scenario_request(in, simple_scenario(in, answer["model"]), 5)));
  }
}

/// A file or folder name from the bytes: no '/', no NUL, not "." or "..", at most 200 bytes.
std::string file_name(ByteReader& in) {
  std::string name = junk_text(in);
  if (name.size() > 200) name.resize(200);
  for (char& c : name) {
    if (c == '/' || c == '\0') c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "x";
  return name;
}

/// Scenario flags for --model runs: valid values, so the model is what the run is about.
void add_scenario_flags(ByteReader& in, std::vector<std::string>& args) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--gpu", kGpuPresets[in.pick(9)]},
      {"--gpus", !in.flag() ? "8" : std::to_string(in.count(1 << 14))},
      {"--seq", !in.flag() ? "4k" : std::to_string(in.count(1 << 17))},
      {"--batch", !in.flag() ? "64" : std::to_string(in.count(1 << 16))}};
  for (const auto& [name, value] : flags) {
    if (in.pick(8) == 1) continue;
    if (in.flag()) {
      args.push_back(name + "=" + value);
    } else {
      args.push_back(name);
      args.push_back(value);
    }
  }
}

/// "H": configs through the CLI: import_model FILE|-, --model FILE|-.
void fuzz_hf_cli(ByteReader& in) {
  const std::string config = in.pick(16) == 1 ? dump(junk_value(in)) : dump(hf_config(in));
  const std::size_t variant = in.pick(4);
  const bool from_stdin = variant == 0 || variant == 3;
  std::string path, folder;
  if (!from_stdin) {
    const std::string dir = scratch_dir();
    switch (in.pick(4)) {
      case 0: path = dir + "/config.json"; break;
      case 1: path = dir + "/" + file_name(in) + ".json"; break;
      case 2: folder = dir + "/" + file_name(in); path = folder + "/config.json"; break;
      default: path = dir + "/" + file_name(in); break;
    }
    if (!folder.empty() && ::mkdir(folder.c_str(), 0700) != 0) {
      folder.clear();
      path = dir + "/config.json";
    }
    if (path.size() >= sizeof g_file) path = dir + "/config.json";
    std::snprintf(g_folder, sizeof g_folder, "%s", folder.c_str());
    std::snprintf(g_file, sizeof g_file, "%s", path.c_str());
    std::ofstream(path, std::ios::binary) << config;
  }
  const std::string file = from_stdin ? "-" : path;
  std::vector<std::string> args;
  if (variant < 2) {
    args = {"import_model", file};
  } else {
    static const char* const kCommandsWithModel[] = {"plan", "evaluate", "explain", "launch", "report"};
    args = {in.pick_from(kCommandsWithModel)};
    if (in.flag()) {
      args.push_back("--model=" + file);
    } else {
      args.push_back("--model");
      args.push_back(file);
    }
    add_scenario_flags(in, args);
    if (args.front() == "launch") args.push_back(std::string("--format=") + kFormats[in.pick(9)]);
    if (args.front() == "plan") args.push_back("--top=" + std::to_string(1 + in.pick(3)));
  }
  const std::uint8_t options = in.byte();
  if ((options & 1) && (variant < 2 || (options & 16))) {  // --name is import_model's option
    args.push_back("--name");
    std::string name = junk_text(in);
    name.erase(std::remove(name.begin(), name.end(), '\0'), name.end());  // argv has no NUL
    args.push_back(name);
  }
  if (options & 2) args.push_back(options & 4 ? "--json" : "--table");
  run_cli(args, from_stdin ? config : std::string(), (options & 8) != 0);
  if (!path.empty()) ::unlink(path.c_str());
  if (!folder.empty()) ::rmdir(folder.c_str());
  g_file[0] = g_folder[0] = '\0';
}

// ---------------------------------------------------------------------------------------------
// CLI flag vectors ("-").

/// A number as a person types it for a flag: human units, commas, extremes and junk.
std::string human_number(ByteReader& in, bool amount = false) {
  static const char* const kSuffixes[] = {"k", "K", "m", "M", "B", "G", "T", "P", "x"};
  static const char* const kOdd[] = {"1e308", "9e15", "9007199254740993", "99999999999999999999", "1e308K",
                                     "0", "-1", "-0", "+8", "0x10", "inf", "nan", "8 k", " 8 ", "", "k",
                                     "1e", "--8", "8kk", "1,0", "40,96", "1,048,576", "4,096.5", "1.5",
                                     ".5", "1e-320", "1E3", "00008", "18446744073709551616"};
  switch (in.pick(8)) {
    case 1: {
      const std::string digits = std::to_string(in.count(4096));
      return digits + in.pick_from(kSuffixes);
    }
    case 2: return in.pick_from(kOdd);
    case 3: return std::to_string(in.u32());
    case 4: {
      const std::string whole = std::to_string(in.count(1 << 20));
      return whole + "." + std::to_string(in.pick(100));
    }
    default: return amount ? std::to_string(in.count(1 << 20)) + "B" : std::to_string(in.count(1 << 20));
  }
}

/// A --set FIELD: dotted or a JSON pointer; known keys, array indices, escapes, junk; deep.
std::string set_field_path(ByteReader& in) {
  static const char* const kTop[] = {"parallel", "training", "cluster", "model", "report", "name",
                                     "description", "schema_version", "zz"};
  static const char* const kKeys[] = {
      "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel",
      "moe_dispatcher", "overlap_moe_expert_parallel_comm", "groups", "group_top_k", "recompute_modules", "schedule", "activation_func_fp8_input_store", "fp8_dot_product_attention", "seq_len", "global_batch", "precision", "framework", "token_budget", "memory_headroom",
      "gpu", "gpus", "gpus_per_node", "nvlink_domain_gpus", "network", "rail_optimized",
      "oversubscription", "preset", "fp8_tflops", "bf16_tflops", "memory_gb", "memory_gib",
      "layers", "hidden", "heads", "kv_heads", "vocab", "moe", "experts", "mla", "name", "system"};
  static const char* const kIndices[] = {"0", "1", "-", "30000000", "4294967296", "18446744073709551616",
                                         "00", "01", "-1", "2147483648", "1e3", "100000"};
  static const char* const kEscapes[] = {"~0", "~1", "~", "~2", "a~1b", "~01", "~~", "%2F", ""};
  const bool pointer = in.pick(4) != 1;
  std::size_t segments = 1 + in.pick(3);
  if (in.pick(16) == 1) segments = 1 + in.pick(256);  // deep
  std::string out;
  for (std::size_t i = 0; i < segments; ++i) {
    std::string segment;
    if (i == 0 && in.pick(8) != 1) {
      segment = in.pick_from(kTop);
    } else {
      switch (in.pick(8)) {
        case 1: case 2: segment = in.pick_from(kIndices); break;
        case 3: segment = in.pick_from(kEscapes); break;
        case 4: segment = junk_text(in); break;
        default: segment = in.pick_from(kKeys); break;
      }
    }
    out += (pointer || i > 0 ? (pointer ? "/" : ".") : "") + segment;
  }
  return out;
}

/// A --set VALUE: JSON (numbers at extremes, strings, objects, deep arrays), human numbers, text.
std::string set_value_text(ByteReader& in) {
  static const char* const kNumbers[] = {"1e308", "-1e308", "1e-320", "-0", "0", "9007199254740993", "1e400",
                                         "-1e400", "18446744073709551616", "1.7976931348623157e308",
                                         "5e-324", "0.5", "1024", "-9223372036854775809"};
  static const char* const kTexts[] = {"h100-sxm", "llama3-70b", "fp8", "selective", "megatron-lm",
                                       "bf16", "full", "true", "null", "[]", "{}"};
  switch (in.pick(12)) {
    case 1: return in.pick_from(kNumbers);
    case 2: return dump(json(junk_text(in)));  // a JSON string: escapes hold any character
    case 3: return junk_text(in);              // raw text, ESC and invalid UTF-8 included
    case 4: {                                  // a GPU with overrides, or a network
      json o;
      if (in.flag()) {
        o = {{"preset", kGpuPresets[in.pick(11)]}};
        static const char* const kFigures[] = {"fp8_tflops", "bf16_tflops", "memory_gb", "memory_gib",
                                               "gemm_efficiency", "attention_efficiency", "name"};
        for (std::size_t n = in.pick(4); n > 0; --n) o[in.pick_from(kFigures)] = junk_value(in);
      } else {
        o = {{"nics_per_node", whole_or_extreme(in, 8)}, {"nic_gbits_per_s", whole_or_extreme(in, 400)},
             {"rail_optimized", in.flag()}};
      }
      return dump(o);
    }
    case 5: {  // nested arrays
      const std::size_t depth = 1 + in.pick(8) * in.pick(8) * 16;
      return std::string(depth, '[') + std::string(depth, ']');
    }
    case 6: return in.pick_from(kTexts);
    case 7: return "\x1b[2J\x1b[31m" + junk_text(in);
    case 8: return "\"\\u001b[31mred\\u001b[0m\"";
    case 9: return dump(junk_value(in));
    default: return human_number(in);
  }
}

/// "-": a command and a vector of real flags with values from the bytes.
void fuzz_cli_flags(ByteReader& in) {
  static const char* const kCliCommands[] = {"plan", "evaluate", "explain", "launch", "report", "layout_view",
                                             "landscape", "scaling", "schedule", "import_model", "presets",
                                             "version", "request", "evaluat", "--help"};
  static const char* const kFiles[] = {"", "-", "examples/gpt3-175b-1024-a100.json",
                                       "examples/mixtral-8x7b-256-h100.json",
                                       "examples/deepseek-v3-2048-h800.json", "/dev/null",
                                       "tests/fixtures/schema/v1/custom-model-custom-gpu.json",
                                       "tests/data/hf-configs/deepseek-ai--DeepSeek-V3.json", "examples/"};
  // The first 25 every scenario command takes; the rest only some commands, or none.
  static const char* const kFlags[] = {
      "--set", "--set", "--set", "--set", "--set", "--set", "--print-scenario", "--model", "--gpu",
      "--gpus", "--gpus-per-node", "--seq", "--batch", "--precision", "--tokens", "--tp", "--pp", "--dp",
      "--cp", "--ep", "--vpp", "--micro-batch", "--zero", "--recompute", "--json", "--top", "--format",
      "--no-timing", "--name", "--table", "--help", "-h", "--sett", "--", "-x", "--set=", "--model="};
  const std::string command = kCliCommands[in.pick(std::size(kCliCommands))];
  std::vector<std::string> args = {command};
  const std::string file = kFiles[in.pick(std::size(kFiles))];
  const std::size_t file_at = in.pick(4);  // after this many flags
  // A valid base without a file, so the flags under test are not the first error.
  const bool base = file.empty() && in.pick(4) != 1;
  if (base) {
    args.push_back("--model=" + std::string(kModelPresets[in.pick(4)]));
    args.push_back("--gpu=" + std::string(kGpuPresets[in.pick(9)]));
    args.push_back("--gpus=" + std::to_string(!in.flag() ? 64 : in.count(1 << 16)));
    args.push_back("--seq=" + std::string(!in.flag() ? "4k" : std::to_string(in.count(1 << 17))));
    args.push_back("--batch=" + std::string(!in.flag() ? "256" : std::to_string(in.count(1 << 16))));
  }
  bool uses_stdin = file == "-";
  const std::size_t flags = in.pick(10);
  for (std::size_t i = 0; i <= flags; ++i) {
    if (i == file_at && !file.empty()) args.push_back(file);
    if (i == flags) break;
    const std::string flag = kFlags[in.pick(in.pick(4) == 1 ? std::size(kFlags) : 25)];
    std::string value;
    bool takes_value = true;
    if (flag == "--set") {
      value = set_field_path(in);
      value += in.pick(16) == 1 ? "" : "=";
      value += set_value_text(in);
    } else if (flag == "--model") {
      static const char* const kModels[] = {"llama3-8b", "-", "deepseek-v3", "mixtral-8x7b", "no-such-model",
                                            "tests/data/hf-configs/Qwen--Qwen3-30B-A3B.json", "x.json", ""};
      value = in.pick_from(kModels);
    } else if (flag == "--gpu") {
      static const char* const kGpus[] = {"h100-sxm", "-", "gb200", "a100-40gb", "no-such-gpu", "x.json", ""};
      value = in.pick_from(kGpus);
    } else if (flag == "--precision" || flag == "--recompute") {
      static const char* const kChoices[] = {"bf16", "fp8", "selective", "full", "none", "fp4", "BF16", ""};
      value = in.pick(4) != 1 ? in.pick_from(kChoices) : junk_text(in);
    } else if (flag == "--format") {
      value = in.pick(4) != 1 ? kFormats[in.pick(9)] : junk_text(in);
    } else if (flag == "--name") {
      value = junk_text(in);
    } else if (flag == "--tokens") {
      value = human_number(in, true);
    } else if (flag == "--print-scenario" || flag == "--no-timing" || flag == "--json" || flag == "--table" ||
               flag == "--help" || flag == "-h" || flag == "--" || flag == "-x") {
      takes_value = in.pick(8) == 1;  // a switch with a value is an error to report
      if (takes_value) value = junk_text(in);
    } else if (flag == "--set=" || flag == "--model=") {
      args.push_back(flag + junk_text(in));
      continue;
    } else {
      value = human_number(in);
    }
    if (value == "-") uses_stdin = true;
    if (!takes_value) {
      args.push_back(flag);
    } else if (in.flag()) {
      args.push_back(flag + "=" + value);
    } else {
      args.push_back(flag);
      args.push_back(value);
    }
  }
  // Keep files to the repository: an argument the CLI may read as a FILE (any argument not
  // starting with "--" but the value of --set or --name, and what follows --model= / --gpu=)
  // that names a file elsewhere is renamed to one that does not exist.
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string& arg = args[i];
    arg.erase(std::remove(arg.begin(), arg.end(), '\0'), arg.end());  // argv has no NUL
    std::string path;
    if (arg.rfind("--model=", 0) == 0 || arg.rfind("--gpu=", 0) == 0) {
      path = arg.substr(arg.find('=') + 1);
    } else if (arg.rfind("--", 0) != 0 && args[i - 1] != "--set" && args[i - 1] != "--name") {
      path = arg;
    } else {
      continue;
    }
    const bool allowed = path == "-" || path == "/dev/null" ||
                         ((path.rfind("examples/", 0) == 0 || path.rfind("tests/", 0) == 0) &&
                          path.find("..") == std::string::npos);
    if (!allowed && (path.find('/') != std::string::npos || path.find(".json") != std::string::npos)) {
      arg.replace(arg.size() - path.size(), path.size(), "/nonexistent-pplan-fuzz/x.json");
    }
  }
  std::string stdin_text;
  if (uses_stdin || in.pick(4) == 1) {
    switch (in.pick(4)) {
      case 1: stdin_text = dump(hf_config(in)); break;
      case 2: stdin_text = dump(json{{"preset", kGpuPresets[in.pick(11)]}, {"fp8_tflops", whole_or_extreme(in, 1979)}}); break;
      case 3: stdin_text = junk_text(in); break;
      default:
        stdin_text = R"({"schema_version":1,"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":8},)"
                     R"("training":{"seq_len":4096,"global_batch":64}})";
    }
  }
  run_cli(args, stdin_text, in.flag());
}

// ---------------------------------------------------------------------------------------------
// GPU presets with overrides, and the cluster's topology ("g").

/// A hardware figure around `typical` (ratios), at the parser's bounds [lo, hi], past them,
/// zero, negative or of the wrong type.
json figure(ByteReader& in, double lo, double hi, double typical) {
  static const double kRatios[] = {1, 0.5, 2, 0.1, 10, 0.999, 1.001, 0.01, 100};
  switch (in.pick(16)) {
    case 9: return lo;
    case 10: return hi;
    case 11: return lo * 0.999;
    case 12: return hi * 1.001;
    case 13: return in.flag() ? 0.0 : -typical;
    case 14: return junk_value(in);
    case 15: return lo + (hi - lo) * (in.u32() / 4294967296.0);
    default: return typical * in.pick_from(kRatios);
  }
}

json gpu_with_overrides(ByteReader& in) {
  json g;
  g["preset"] = in.pick(16) == 1 ? junk_value(in) : json(kGpuPresets[in.pick(std::size(kGpuPresets))]);
  const unsigned mask_low = in.byte();
  const unsigned mask = mask_low | (static_cast<unsigned>(in.byte()) << 8);
  // The bounds of json_io.cpp parse_gpu (kMinGB, kMinTflops, kMinGBps, kMinEfficiency).
  if (mask & 1) g["memory_gb"] = figure(in, 1e-3, 1e5, 80);
  if (mask & 2) g["memory_gib"] = figure(in, 1e-3, 1e5, 80);
  if (mask & 4) g["bf16_tflops"] = figure(in, 1e-3, 1e7, 989.4);
  if (mask & 8) g["fp8_tflops"] = figure(in, 1e-3, 1e7, 1978.9);
  if (mask & 16) g["fp4_tflops"] = figure(in, 1e-3, 1e7, 4500);
  if (mask & 32) g["hbm_gbytes_per_s"] = figure(in, 1e-3, 1e6, 3350);
  if (mask & 64) g["nvlink_gbytes_per_s"] = figure(in, 1e-3, 1e6, 450);
  if (mask & 128) g["network_gbytes_per_s"] = figure(in, 1e-3, 1e6, 50);
  if (mask & 256) g["gemm_efficiency"] = figure(in, 1e-3, 1, 0.65);
  if (mask & 512) g["attention_efficiency"] = figure(in, 1e-3, 1, 0.25);
  if (mask & 1024) g["mamf_fraction_bf16"] = figure(in, 1e-3, 1, 0.8);
  if (mask & 2048) g["mamf_fraction_fp8"] = figure(in, 1e-3, 1, 0.7);
  if (mask & 4096) g["sm_count"] = whole_or_extreme(in, 132);
  if (mask & 8192) {
    static const char* const kArchitectures[] = {"hopper", "ampere", "blackwell", "other", "volta"};
    g["architecture"] = in.pick_from(kArchitectures);
  }
  if (mask & 16384) {
    g[in.flag() ? "name" : "id"] = junk_text(in, false);
    if (in.flag()) g["source"] = junk_text(in, false);
  }
  if (mask & 32768) {
    json sys = {{"gpus_per_node", whole_or_extreme(in, 8)}};
    if (in.flag()) sys["nvlink_domain_gpus"] = whole_or_extreme(in, 72);
    if (in.flag()) sys["nics_per_node"] = whole_or_extreme(in, 8);
    if (in.flag()) sys["nic_gbits_per_s"] = figure(in, 1e-3, 1e5, 400);
    g["system"] = sys;
  }
  if (in.pick(16) == 1) g[junk_text(in, false)] = junk_value(in);
  return g;
}

json topology_scenario(ByteReader& in) {
  json s;
  s["schema_version"] = 1;
  s["model"] = in.pick(8) == 1 ? json(kModelPresets[in.pick(8)]) : json(kModelPresets[in.pick(4)]);
  json c;
  c["gpu"] = in.pick(8) == 1 ? json(kGpuPresets[in.pick(9)]) : gpu_with_overrides(in);
  c["gpus"] = in.pick(4) != 1 ? json(8LL << in.pick(8)) : json(in.count(1 << 21));
  long long per_node = 8;
  switch (in.pick(8)) {
    case 1: per_node = 4; break;
    case 2: per_node = 72; break;
    case 3: per_node = 1; break;
    case 4: per_node = std::max(1LL, in.count(1024)); break;
    default: break;
  }
  if (in.pick(4) != 1) c["gpus_per_node"] = per_node;
  switch (in.pick(8)) {
    case 1: c["nvlink_domain_gpus"] = per_node; break;
    case 2: c["nvlink_domain_gpus"] = per_node * (1LL << in.pick(8)); break;
    case 3: c["nvlink_domain_gpus"] = in.count(1 << 21); break;
    case 4: c["nvlink_domain_gpus"] = 72; break;
    default: break;
  }
  if (in.pick(4) == 1) c["nvlink_gbytes_per_s"] = figure(in, 1e-3, 1e6, 900);
  if (in.flag()) {
    json n = json::object();
    const std::uint8_t keys = in.byte();
    if (keys & 1) n["nics_per_node"] = whole_or_extreme(in, 8);
    if (keys & 2) n["nic_gbits_per_s"] = figure(in, 1e-3, 1e5, 400);
    if (keys & 4) n["rail_optimized"] = in.pick(8) == 1 ? junk_value(in) : json(in.flag());
    if (keys & 8) n["oversubscription"] = figure(in, 1, 64, 2);
    if (keys & 16) n[junk_text(in, false)] = junk_value(in);
    c["network"] = n;
  }
  s["cluster"] = c;
  static const char* const kFrameworks[] = {"megatron-core", "megatron-lm", "deepspeed", "torchtitan"};
  static const char* const kRecipes[] = {"delayed", "current", "blockwise", "mxfp8"};
  json t = {{"seq_len", in.pick(4) != 1 ? json(1024LL << in.pick(6)) : json(in.count(1 << 20))},
            {"global_batch", in.pick(4) != 1 ? json(16LL << in.pick(8)) : json(in.count(1 << 24))},
            {"precision", in.flag() ? "fp8" : "bf16"}};
  const std::uint8_t training = in.byte();
  if (training & 1) t["framework"] = in.pick_from(kFrameworks);
  if (training & 2) t["fp8_recipe"] = in.pick_from(kRecipes);
  if (training & 4) t["optimizer_state_dtype"] = in.flag() ? "bf16" : "fp32";
  if (training & 8) {
    for (const char* key : {"flash_attention", "overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap",
                            "grad_reduce_in_fp32", "cuda_graphs"}) {
      if (in.flag()) t[key] = in.flag();
    }
  }
  if (training & 16) t["memory_headroom"] = figure(in, 0, 0.9, 0.1);
  if (training & 32) t["token_budget"] = figure(in, 1, 1e18, 1e12);
  s["training"] = t;
  if (in.flag()) {
    json p = json::object();
    const std::uint8_t pins = in.byte();
    if (pins & 1) p["tp"] = 1LL << in.pick(5);
    if (pins & 2) p["pp"] = 1LL << in.pick(5);
    if (pins & 4) p["dp"] = in.count(1 << 20);
    if (pins & 8) p["cp"] = 1LL << in.pick(4);
    if (pins & 16) p["micro_batch"] = 1LL << in.pick(4);
    if (pins & 32) p["zero"] = in.pick(4);
    if (pins & 64) p["recompute"] = kRecomputes[in.pick(3)];
    if (pins & 128) {
      p["ep"] = 1LL << in.pick(6);
      p["sequence_parallel"] = in.flag();
    }
    s["parallel"] = p;
  }
  if (in.pick(4) == 1) {
    s["report"] = {{"storage_gbytes_per_s", figure(in, 1e-6, 1e7, 10)},
                   {"failures_per_gpu_hour", figure(in, 1e-12, 1, 1e-5)},
                   {"restart_s", figure(in, 0, 1e7, 600)}};
  }
  if (in.pick(4) == 1) s["name"] = junk_text(in, false);
  if (in.pick(4) == 1) s["description"] = junk_text(in, false);
  return s;
}

/// "g": a scenario with a GPU preset with overrides and a topology, by the engine or the CLI.
void fuzz_gpu_overrides(ByteReader& in) {
  const bool cli = in.flag();
  json request = scenario_request(in, topology_scenario(in), std::size(kScenarioCommands));
  if (!cli) {
    handle(dump(request));
    return;
  }
  const std::string command = request["command"];
  std::vector<std::string> args = {command, "-"};
  if (command == "plan" || command == "landscape") args.push_back("--top=" + std::to_string(request["top"].get<int>()));
  if (command == "launch") args.push_back("--format=" + request["format"].get<std::string>());
  if (command == "plan" || command == "explain") args.push_back("--no-timing");
  const std::uint8_t options = in.byte();
  const bool table = command == "evaluate" || command == "plan";
  if (options & 1) args.push_back(table && (options & 2) ? "--table" : "--json");
  run_cli(args, dump(request["scenario"]), (options & 4) != 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] == '$') {
    fuzz_cli(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    return 0;
  }
  ByteReader rest_bytes(data + 1, size - 1);
  switch (data[0]) {
    case 'h': fuzz_hf_request(rest_bytes); return 0;
    case 'H': fuzz_hf_cli(rest_bytes); return 0;
    case '-': fuzz_cli_flags(rest_bytes); return 0;
    case 'g': fuzz_gpu_overrides(rest_bytes); return 0;
    default: break;
  }
  std::string request;
  if (data[0] == '{') {
    const std::string_view scenario(reinterpret_cast<const char*>(data), size);
    request = wrap(kCommands[size % 5], static_cast<int>(size % 9), scenario);
  } else {
    const std::uint8_t mode = data[0] % 3;
    const std::uint8_t pick = static_cast<std::uint8_t>(data[0] / 3);
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    if (mode == 0) {
      request.assign(rest);
    } else if (mode == 1) {
      request = wrap(kCommands[pick % 7], pick % 9, rest);
    } else {
      ByteReader in(data + 1, size - 1);
      json r;
      r["command"] = kCommands[pick % 5];  // evaluate, plan, launch, explain, report
      const int top = 1 + in.byte() % 20;
      if (takes_top(r["command"].get<std::string>())) r["top"] = top;
      if (r["command"] == "launch") r["format"] = kFormats[in.byte() % 9];
      r["scenario"] = built_scenario(in);
      request = r.dump();
    }
  }
  handle(request);
  return 0;
}
