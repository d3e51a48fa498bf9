// libFuzzer target for the engine's one JSON entry point, pplan::handle_request.
// How the bytes are used:
//   "{..."    the whole input is a scenario (examples/ and the schema fixtures seed this),
//             wrapped in a well-formed request for evaluate/plan/launch/explain/report;
//   else the first byte picks a mode for the rest:
//   raw       the bytes are the whole request (parser, envelope checks);
//   wrapped   the bytes are a scenario in a request whose command the first byte picks;
//   built     the bytes are read as numbers that fill a scenario the parser accepts,
//             so the model and the search see valid but extreme values (huge GPU counts,
//             thousands of layers, odd divisors) far more often than mutation alone finds them.
//   "$..."    the CLI (core/cli/cli.h run()): the bytes up to the first NUL are the arguments,
//             one per line, the rest is stdin; file arguments outside the repository's
//             examples/ and tests/ (and /dev/null) are renamed to paths that do not exist, so
//             the fuzzer never reads the machine's files, a tty or a FIFO.
// Every response must be a JSON object with a boolean "ok", and an error must carry a code:
// a violation aborts, so the fuzzer reports it like a crash. The CLI must exit 0 or 2, and on 2
// print the error object on stdout.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// The first five take a scenario; presets and version take none.
const char* const kCommands[] = {"evaluate", "plan", "launch", "explain", "report", "presets", "version"};
const char* const kModels[] = {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "megatron-1t",
                               "deepseek-v3", "no-such-model"};
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
    }
    s["model"] = m;
  } else {
    s["model"] = kModels[in.byte() % 7];
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
  return s;
}

/// A scenario in a valid envelope; text that is not JSON goes in as a string (wrong type).
std::string wrap(const char* command, int format, std::string_view scenario_text) {
  std::string scenario(scenario_text);
  if (json::parse(scenario, nullptr, /*allow_exceptions=*/false).is_discarded()) {
    scenario = json(scenario).dump(-1, ' ', false, json::error_handler_t::replace);
  }
  std::string request = std::string("{\"command\":\"") + command + "\",\"top\":" +
                        std::to_string(1 + format) + ",";
  if (std::string_view(command) == "launch") {
    request += std::string("\"format\":\"") + kFormats[format] + "\",";
  }
  return request + "\"scenario\":" + scenario + "}";
}

void check_response(const std::string& response) {
  const json r = json::parse(response, nullptr, /*allow_exceptions=*/false);
  if (!r.is_object() || !r.value("ok", json()).is_boolean()) std::abort();
  if (!r["ok"].get<bool>()) {
    const json error = r.value("error", json());
    if (!error.is_object()) std::abort();
    const json code = error.value("code", json());
    if (!code.is_string() || !error.value("path", json()).is_string()) std::abort();
    if (code.get<std::string>() == "internal") std::abort();  // a bug, reported as such
  }
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
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  pplan::cli::Environment environment;
  environment.stdout_is_terminal = stdin_text.size() % 2 == 1;
  const bool print = std::getenv("PPLAN_FUZZ_PRINT") != nullptr;
  const int status = pplan::cli::run(args, in, out, err, environment);
  if (print) std::fprintf(stderr, "status %d\nstdout: %s\nstderr: %s\n", status, out.str().c_str(), err.str().c_str());
  if (status != 0 && status != 2) std::abort();
  if (status == 2) check_response(out.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] == '$') {
    fuzz_cli(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    return 0;
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
      r["top"] = 1 + in.byte() % 20;
      if (r["command"] == "launch") r["format"] = kFormats[in.byte() % 9];
      r["scenario"] = built_scenario(in);
      request = r.dump();
    }
  }
  // Reproducing a finding: PPLAN_FUZZ_PRINT=1 pplan_fuzz_request crash-... shows both sides.
  const bool print = std::getenv("PPLAN_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "request: %s\n", request.c_str());
  const std::string response = pplan::handle_request(request);
  if (print) std::fprintf(stderr, "response: %s\n", response.c_str());
  check_response(response);
  return 0;
}
