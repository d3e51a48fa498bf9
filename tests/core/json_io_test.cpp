// The JSON boundary's error paths: every bad input is an error with a stable code and the
// JSON pointer of the field, never a crash, a silent default or a NaN (json_io.h's table).
#include "pplan/io/json_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/scenario_files.h"
#include "pplan/io/api.h"

namespace pplan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using testing::read_text;
using testing::source_path;

/// A valid scenario to break one field at a time.
json valid() {
  return json::parse(R"({
    "schema_version": 1,
    "model": {"layers": 8, "hidden": 1024, "heads": 16, "kv_heads": 4, "ffn_hidden": 4096,
              "vocab": 32000, "activation": "swiglu",
              "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 1024}},
    "cluster": {"gpu": {"memory_gb": 80, "bf16_tflops": 989, "nvlink_gbytes_per_s": 450,
                        "network_gbytes_per_s": 50}, "gpus": 16, "gpus_per_node": 8},
    "training": {"seq_len": 2048, "global_batch": 64, "precision": "bf16"},
    "parallel": {"tp": 2, "recompute": "selective"}
  })");
}

struct Failure {
  std::string code;
  std::string path;
  std::string message;
};

/// The error a scenario gets through the entry point (what the CLI and the page see).
Failure failure_of(const json& scenario, const std::string& command = "evaluate") {
  const json response = json::parse(handle_request(json({{"command", command}, {"scenario", scenario}}).dump()));
  EXPECT_FALSE(response.value("ok", true)) << "expected an error, got " << response.dump().substr(0, 300);
  if (!response.contains("error")) return {};
  const json& e = response["error"];
  return {e.value("code", ""), e.value("path", ""), e.value("message", "")};
}

Failure failure_of_request(const std::string& request) {
  const json response = json::parse(handle_request(request));
  EXPECT_FALSE(response.value("ok", true)) << response.dump().substr(0, 300);
  EXPECT_EQ(response.value("schema_version", 0), kSchemaVersion);
  if (!response.contains("error")) return {};
  const json& e = response["error"];
  return {e.value("code", ""), e.value("path", ""), e.value("message", "")};
}

void expect_failure(const json& scenario, const std::string& code, const std::string& path,
                    bool message_names_path = true) {
  const Failure f = failure_of(scenario);
  EXPECT_EQ(f.code, code) << f.message;
  EXPECT_EQ(f.path, path) << f.message;
  if (message_names_path) {
    EXPECT_NE(f.message.find(path), std::string::npos) << "the message should name " << path << ": " << f.message;
  }
}

TEST(JsonIo, ValidScenarioParses) {
  const json response = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", valid()}}).dump()));
  EXPECT_TRUE(response["ok"].get<bool>()) << response.dump().substr(0, 300);
}

// A custom model with every identifying shape of a preset takes the preset's details it leaves
// out (Qwen3-30B-A3B's config.json: head_dim 128, not hidden / heads = 2048 / 32 = 64; QK-norm;
// rope_theta 1e6), keeps those it gives, and says so; one shape off and nothing is taken.
TEST(JsonIo, AModelWithAPresetsShapesTakesItsOmittedDetails) {
  const json qwen3 = json::parse(R"({"name": "Qwen3_30B_a3B", "layers": 48, "hidden": 2048, "heads": 32,
      "kv_heads": 4, "ffn_hidden": 6144, "vocab": 151936, "activation": "swiglu",
      "moe": {"experts": 128, "top_k": 8, "shared_experts": 0, "expert_ffn_hidden": 768, "dense_layers": 0}})");
  const auto scenario_with = [](const json& model) {
    json s = json::parse(R"({"cluster": {"gpu": "h100-sxm", "gpus": 8},
        "training": {"seq_len": 4096, "global_batch": 64}})");
    s["model"] = model;
    return s;
  };
  const Scenario taken = parse_scenario(scenario_with(qwen3), preset_catalog());
  EXPECT_EQ(taken.model.head_dim, 128);
  EXPECT_TRUE(taken.model.qk_norm);
  EXPECT_EQ(taken.model.rope_theta, 1e6);
  EXPECT_EQ(taken.model.details_from_preset, "qwen3-30b-a3b");
  EXPECT_EQ(taken.model.name, "Qwen3_30B_a3B");  // the user's name stays
  const json response = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", scenario_with(qwen3)}}).dump()));
  EXPECT_NE(response.dump().find("model.details_from_preset"), std::string::npos);
  EXPECT_NE(response.dump().find("head_dim 128, qk_norm true, rope_theta 1000000"), std::string::npos) << response.dump().substr(0, 2000);

  json given = qwen3;
  given["head_dim"] = 64;  // a given detail is kept
  const Scenario kept = parse_scenario(scenario_with(given), preset_catalog());
  EXPECT_EQ(kept.model.head_dim, 64);
  EXPECT_TRUE(kept.model.qk_norm);

  json other = qwen3;
  other["layers"] = 47;  // not Qwen3-30B-A3B: the generic defaults
  const Scenario custom = parse_scenario(scenario_with(other), preset_catalog());
  EXPECT_EQ(custom.model.head_dim, 0);
  EXPECT_FALSE(custom.model.qk_norm);
  EXPECT_TRUE(custom.model.details_from_preset.empty());
}

// Every schema version's inputs are kept forever and must keep parsing.
TEST(JsonIo, EveryV1FixtureAndExampleParses) {
  const PresetCatalog presets = load_presets();
  int parsed = 0;
  for (const char* dir : {"tests/fixtures/schema/v1", "examples"}) {
    for (const auto& entry : std::filesystem::directory_iterator(source_path(dir))) {
      if (entry.path().extension() != ".json") continue;
      const json doc = json::parse(read_text(entry.path().string()));
      if (doc.contains("command")) continue;  // a request envelope, not a scenario
      EXPECT_NO_THROW(parse_scenario(doc, presets)) << entry.path();
      ++parsed;
    }
  }
  EXPECT_GE(parsed, 5);
}

// Unknown keys: a typo is an error at its own path, at every depth, with a suggestion.
TEST(JsonIo, UnknownKeyIsAnErrorWithItsPath) {
  json s = valid();
  s["parallel"]["ppp"] = 2;
  expect_failure(s, "schema.unknown_field", "/parallel/ppp");
  EXPECT_NE(failure_of(s).message.find("did you mean \"pp\""), std::string::npos);

  s = valid();
  s["parallell"] = json::object();
  expect_failure(s, "schema.unknown_field", "/parallell");

  s = valid();
  s["model"]["moe"]["expert"] = 8;
  expect_failure(s, "schema.unknown_field", "/model/moe/expert");

  s = valid();
  s["cluster"]["gpu"]["memroy_gb"] = 80;
  expect_failure(s, "schema.unknown_field", "/cluster/gpu/memroy_gb");

  s = valid();
  s["training"]["a/b~c"] = 1;  // JSON pointer escaping (RFC 6901): / -> ~1, ~ -> ~0
  expect_failure(s, "schema.unknown_field", "/training/a~1b~0c");
}

TEST(JsonIo, BadEnumIsAnErrorNotTheFirstValue) {
  json s = valid();
  s["training"]["precision"] = "fp16";
  expect_failure(s, "schema.bad_enum", "/training/precision");
  s = valid();
  s["parallel"]["recompute"] = "partial";
  expect_failure(s, "schema.bad_enum", "/parallel/recompute");
  s = valid();
  s["model"]["activation"] = "relu";
  expect_failure(s, "schema.bad_enum", "/model/activation");
  s = valid();
  s["model"]["activation"] = "GELU";  // case matters: no silent normalisation
  expect_failure(s, "schema.bad_enum", "/model/activation");
  s = valid();
  s["training"]["optimizer_state_dtype"] = "fp16";  // bf16 or fp32 only
  expect_failure(s, "schema.bad_enum", "/training/optimizer_state_dtype");
}

TEST(JsonIo, WrongTypeIsAnErrorWithItsPath) {
  json s = valid();
  s["cluster"]["gpus"] = "16";
  expect_failure(s, "schema.wrong_type", "/cluster/gpus");
  s = valid();
  s["parallel"]["sequence_parallel"] = 1;
  expect_failure(s, "schema.wrong_type", "/parallel/sequence_parallel");
  s = valid();
  s["training"]["precision"] = 16;
  expect_failure(s, "schema.wrong_type", "/training/precision");
  s = valid();
  s["model"]["layers"] = json::array({8});
  expect_failure(s, "schema.wrong_type", "/model/layers");
  s = valid();
  s["training"] = "long";
  expect_failure(s, "schema.not_an_object", "/training");
  s = valid();
  s["model"] = 42;
  expect_failure(s, "schema.not_an_object", "/model");
}

TEST(JsonIo, MissingFieldIsAnError) {
  json s = valid();
  s["model"].erase("hidden");
  expect_failure(s, "schema.missing_field", "/model/hidden");
  s = valid();
  s.erase("cluster");
  expect_failure(s, "schema.missing_field", "/cluster");
}

TEST(JsonIo, TruncatedJsonIsAParseError) {
  const std::string full = json({{"command", "plan"}, {"scenario", valid()}}).dump();
  for (std::size_t cut : {std::size_t{1}, full.size() / 3, full.size() / 2, full.size() - 1}) {
    const Failure f = failure_of_request(full.substr(0, cut));
    EXPECT_EQ(f.code, "schema.parse_error") << "cut at " << cut;
  }
  const Failure empty = failure_of_request("");
  EXPECT_EQ(empty.code, "schema.parse_error");
  // A scenario given as text to the CLI's path.
  const json response = json::parse(handle_command("evaluate", "{\"model\": \"llama3-8b\", \"clus", RequestOptions{}));
  EXPECT_EQ(response["error"]["code"], "schema.parse_error");
}

// Zero, negative and absurd sizes are out of range (never a division by zero or an hour-long
// search); fractions where counts belong are not integers.
TEST(JsonIo, ZeroNegativeAndAbsurdSizesAreOutOfRange) {
  const std::vector<std::pair<std::vector<std::string>, json>> cases = {
      {{"cluster", "gpus"}, 0},          {{"cluster", "gpus"}, -8},
      {{"cluster", "gpus"}, 1e30},       {{"cluster", "gpus"}, 2097152},
      {{"model", "hidden"}, 0},          {{"model", "heads"}, 0},
      {{"model", "layers"}, 1000000},    {{"model", "vocab"}, -1},
      {{"training", "seq_len"}, 0},      {{"training", "global_batch"}, 1e12},
      {{"parallel", "tp"}, 0},           {{"parallel", "zero"}, 4},
      {{"parallel", "vpp"}, 100000},     {{"cluster", "gpus_per_node"}, 0},
      {{"cluster", "gpu", "memory_gb"}, 0}, {{"cluster", "gpu", "memory_gb"}, -80},
      {{"cluster", "gpu", "bf16_tflops"}, 1e30}, {{"cluster", "gpu", "gemm_efficiency"}, 1.5},
      {{"model", "moe", "top_k"}, 9},    {{"model", "moe", "experts"}, 0},
  };
  for (const auto& [keys, value] : cases) {
    json s = valid();
    json* at = &s;
    std::string path;
    for (const std::string& key : keys) {
      at = &(*at)[key];
      path += "/" + key;
    }
    *at = value;
    SCOPED_TRACE(path + " = " + value.dump());
    expect_failure(s, "input.out_of_range", path);
  }
}

TEST(JsonIo, FractionalCountIsNotAnInteger) {
  json s = valid();
  s["cluster"]["gpus"] = 15.5;
  expect_failure(s, "input.not_integer", "/cluster/gpus");
  s = valid();
  s["parallel"]["tp"] = 2.000001;
  expect_failure(s, "input.not_integer", "/parallel/tp");
}

TEST(JsonIo, ContradictoryFieldsAreInconsistent) {
  json s = valid();
  s["model"]["hidden"] = 1000;  // 1000 % 16 heads != 0
  expect_failure(s, "input.inconsistent", "/model/hidden");
  s = valid();
  s["model"]["kv_heads"] = 3;
  expect_failure(s, "input.inconsistent", "/model/kv_heads");
}

TEST(JsonIo, UnknownPresetAndNewerSchemaAreErrors) {
  json s = valid();
  s["model"] = "gpt-5";
  expect_failure(s, "input.unknown_preset", "/model", false);
  s = valid();
  s["cluster"]["gpu"] = "h1000";
  expect_failure(s, "input.unknown_preset", "/cluster/gpu", false);
  s = valid();
  s["schema_version"] = 2;
  expect_failure(s, "schema.version_unsupported", "/schema_version", false);
}

TEST(JsonIo, RequestEnvelopeErrors) {
  EXPECT_EQ(failure_of_request(R"({"command":"optimise"})").code, "request.unknown_command");
  const Failure top = failure_of_request(R"({"command":"plan","top":0,"scenario":{}})");
  EXPECT_EQ(top.code, "request.bad_option");
  EXPECT_EQ(top.path, "/top");
  EXPECT_EQ(failure_of_request(R"({"command":"plan","top":1e9})").code, "request.bad_option");
  const Failure key = failure_of_request(R"({"command":"plan","scenarios":{}})");
  EXPECT_EQ(key.code, "schema.unknown_field");
  EXPECT_EQ(key.path, "/scenarios");
  EXPECT_EQ(failure_of_request(R"({"scenario":{}})").code, "schema.missing_field");
  EXPECT_EQ(failure_of_request(R"([1,2,3])").code, "schema.not_an_object");
}

// NaN guard: JSON has no NaN, overflowing literals become infinities that the parser refuses,
// and an output number that is not finite is an internal error, never a silent null.
TEST(JsonIo, NanGuard) {
  EXPECT_EQ(failure_of_request(R"({"command":"evaluate","scenario":{"model":NaN}})").code, "schema.parse_error");
  json s = valid();
  s["cluster"]["gpu"]["memory_gb"] = std::numeric_limits<double>::infinity();  // dumps as null
  expect_failure(s, "schema.wrong_type", "/cluster/gpu/memory_gb");
  const std::string overflow = json({{"command", "evaluate"}, {"scenario", valid()}}).dump();
  const std::string with_huge_literal =
      overflow.substr(0, overflow.find("\"memory_gb\":80")) + "\"memory_gb\":1e400" +
      overflow.substr(overflow.find("\"memory_gb\":80") + 14);
  const json response = json::parse(handle_request(with_huge_literal));
  ASSERT_FALSE(response["ok"].get<bool>()) << response.dump().substr(0, 300);
  EXPECT_EQ(response["error"]["code"], "input.out_of_range");
  EXPECT_EQ(response["error"]["path"], "/cluster/gpu/memory_gb");  // at its field (issue #14)

  ordered_json out = {{"mfu", std::nan("")}};
  EXPECT_THROW(round_numbers(out), std::logic_error);
  out = {{"nested", {{"step_time_s", std::numeric_limits<double>::infinity()}}}};
  EXPECT_THROW(round_numbers(out), std::logic_error);
}

// Messages quote what the user wrote; bytes that are not UTF-8 never make the answer fail
// (fuzzing found that a parse error quoting 0xff turned into an internal error).
TEST(JsonIo, InvalidUtf8InTheInputStillGetsAClearError) {
  const Failure f = failure_of_request(std::string("\xff\xfe{\"command\":1}"));
  EXPECT_EQ(f.code, "schema.parse_error");
  const std::string cut_snowmen = "{\"command\":\"" + std::string(14, 'x') + "\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\"}";
  EXPECT_EQ(failure_of_request(cut_snowmen).code, "request.unknown_command");
}


// Hardening II (issue #14) ----------------------------------------------------------------

/// The request text with `from` replaced by `to` once (for inputs a json value cannot hold:
/// duplicate keys, raw bytes, huge literals).
std::string edited_request(const std::string& from, const std::string& to,
                           const std::string& command = "evaluate") {
  std::string text = json({{"command", command}, {"scenario", valid()}}).dump();
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A control character in any string or key is refused at parse time, naming the field: a
// newline in a name would start a heading in the report and a command in a launch script.
TEST(JsonIo, ControlCharactersAreRejectedAtTheirField) {
  const std::vector<std::string> bad = {"\n", "\r", "\t", std::string(1, '\0'), "\x1f", "\x7f",
                                        "\xc2\x85" /* NEL */, "\xe2\x80\xa8" /* U+2028 */,
                                        "\xe2\x80\xa9" /* U+2029 */, "\xe2\x80\xae" /* RLO */};
  for (const std::string& c : bad) {
    SCOPED_TRACE(json(c).dump());
    json s = valid();
    s["model"]["name"] = "Llama" + c + "# injected";
    expect_failure(s, "input.control_character", "/model/name");
    s = valid();
    s["cluster"]["gpu"]["name"] = c;
    expect_failure(s, "input.control_character", "/cluster/gpu/name");
    s = valid();
    s["description"] = "fine until" + c;
    expect_failure(s, "input.control_character", "/description");
    s = valid();
    s["model"]["source"] = "a" + c;
    expect_failure(s, "input.control_character", "/model/source");
  }
  // In a key, and in an unknown field's value: still the parser's refusal, at that path.
  json s = valid();
  s["training"]["bad\nkey"] = 1;
  expect_failure(s, "input.control_character", "/training/bad\nkey", false);
  s = valid();
  s["parallel"]["comment"] = "x\ny";
  expect_failure(s, "input.control_character", "/parallel/comment");
  // In the request envelope and a preset id.
  EXPECT_EQ(failure_of_request(R"({"command":"plan\n"})").code, "input.control_character");
  s = valid();
  s["model"] = "llama3-8b\n";
  expect_failure(s, "input.control_character", "/model");
  // Printable Unicode stays accepted.
  s = valid();
  s["model"]["name"] = "Modèle 70B — 日本語 ✓";
  EXPECT_TRUE(json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()))["ok"].get<bool>());
}

TEST(JsonIo, DuplicateKeysAreRejectedWithTheirPath) {
  Failure f = failure_of_request(edited_request("\"schema_version\":1", "\"schema_version\":1,\"schema_version\":2"));
  EXPECT_EQ(f.code, "schema.duplicate_key");
  EXPECT_EQ(f.path, "/schema_version");
  f = failure_of_request(edited_request("\"memory_gb\":80", "\"memory_gb\":80,\"memory_gb\":8"));
  EXPECT_EQ(f.code, "schema.duplicate_key");
  EXPECT_EQ(f.path, "/cluster/gpu/memory_gb");
  EXPECT_NE(f.message.find("/cluster/gpu/memory_gb"), std::string::npos) << f.message;
  f = failure_of_request(edited_request("\"experts\":8", "\"experts\":8,\"experts\":16"));
  EXPECT_EQ(f.path, "/model/moe/experts");
  f = failure_of_request(R"({"command":"plan","command":"evaluate","scenario":{}})");
  EXPECT_EQ(f.code, "schema.duplicate_key");
  EXPECT_EQ(f.path, "/command");
  // The CLI's path: a scenario file.
  const json r = json::parse(handle_command("evaluate", R"({"model":"llama3-8b","model":"gpt3-175b"})", {}));
  EXPECT_EQ(r["error"]["code"], "schema.duplicate_key");
  EXPECT_EQ(r["error"]["path"], "/model");
}

TEST(JsonIo, NulByteIsRejected) {
  const std::string request = json({{"command", "evaluate"}, {"scenario", valid()}}).dump();
  for (const std::string& text : {request + std::string(1, '\0') + "garbage",
                                  std::string(1, '\0') + request,
                                  request.substr(0, 20) + std::string(1, '\0') + request.substr(20)}) {
    const Failure f = failure_of_request(text);
    EXPECT_EQ(f.code, "input.nul_byte");
    EXPECT_EQ(f.path, "/");
  }
  const json r = json::parse(handle_command("evaluate", std::string("{}\0{}", 5), {}));
  EXPECT_EQ(r["error"]["code"], "input.nul_byte");
}

TEST(JsonIo, NumberBeyondADoubleIsReportedAtItsField) {
  Failure f = failure_of_request(edited_request("\"memory_gb\":80", "\"memory_gb\":1e400"));
  EXPECT_EQ(f.code, "input.out_of_range");
  EXPECT_EQ(f.path, "/cluster/gpu/memory_gb");
  f = failure_of_request(edited_request("\"gpus\":16", "\"gpus\":-1e999"));
  EXPECT_EQ(f.path, "/cluster/gpus");
  f = failure_of_request(edited_request("\"tp\":2", "\"tp\":2,\"list\":[1,2,3e999]"));
  EXPECT_EQ(f.path, "/parallel/list/2");
  f = failure_of_request(R"({"command":"plan","top":1e400})");
  EXPECT_EQ(f.path, "/top");
}

TEST(JsonIo, DeepAndHugeDocumentsAreBounded) {
  const std::string deep = std::string(kMaxDocumentDepth + 10, '[') + std::string(kMaxDocumentDepth + 10, ']');
  Failure f = failure_of_request(edited_request("\"tp\":2", "\"tp\":2,\"x\":" + deep));
  EXPECT_EQ(f.code, "input.too_deep");
  EXPECT_EQ(f.path.rfind("/parallel/x/0/0", 0), 0u) << f.path;
  // More bytes than the limit: refused before parsing, at the document.
  const std::string huge = "{\"command\":\"evaluate\",\"pad\":\"" + std::string(kMaxDocumentBytes, 'x') + "\"}";
  f = failure_of_request(huge);
  EXPECT_EQ(f.code, "input.too_large");
  EXPECT_EQ(f.path, "/");
  // Many small values: bounded memory.
  std::string many = "{\"command\":\"evaluate\",\"scenario\":{\"x\":[";
  for (std::size_t i = 0; i <= kMaxDocumentValues; ++i) many += i ? ",0" : "0";
  many += "]}}";
  f = failure_of_request(many);
  EXPECT_EQ(f.code, "input.too_large");
}

// Each rate and size has a physical lower bound: a tiny figure used to overflow to infinity
// and answer `internal` at `/`.
TEST(JsonIo, SubPhysicalFiguresAreOutOfRangeAtTheirField) {
  const std::vector<std::pair<std::vector<std::string>, double>> cases = {
      {{"cluster", "gpu", "bf16_tflops"}, 1e-308},          {{"cluster", "gpu", "fp8_tflops"}, 1e-308},
      {{"cluster", "gpu", "gemm_efficiency"}, 5e-324},      {{"cluster", "gpu", "attention_efficiency"}, 5e-324},
      {{"cluster", "gpu", "memory_gb"}, 1e-300},            {{"cluster", "gpu", "memory_gib"}, 1e-300},
      {{"cluster", "gpu", "hbm_gbytes_per_s"}, 1e-300},     {{"cluster", "gpu", "nvlink_gbytes_per_s"}, 1e-300},
      {{"cluster", "gpu", "network_gbytes_per_s"}, 1e-300}, {{"report", "storage_gbytes_per_s"}, 1e-300},
      {{"report", "failures_per_gpu_hour"}, 1e-300},        {{"training", "token_budget"}, 1e-300},
      {{"model", "nominal_params"}, 1e-300},
  };
  for (const auto& [keys, value] : cases) {
    for (const char* command : {"evaluate", "plan", "report"}) {
      json s = valid();
      json* at = &s;
      std::string path;
      for (const std::string& key : keys) {
        at = &(*at)[key];
        path += "/" + key;
      }
      *at = value;
      SCOPED_TRACE(path + " = " + json(value).dump() + " in " + command);
      const Failure f = failure_of(s, command);
      EXPECT_EQ(f.code, "input.out_of_range") << f.message;
      EXPECT_EQ(f.path, path) << f.message;
    }
  }
  // Zero still means "none" where it did.
  json s = valid();
  s["cluster"]["gpu"]["fp8_tflops"] = 0;
  s["training"]["token_budget"] = 0;
  EXPECT_TRUE(json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()))["ok"].get<bool>());
}

// What the bounds cannot foresee is still named: the first input whose reset to an ordinary
// figure makes the answer finite.
TEST(JsonIo, NonFiniteResultsNameTheInputBehindThem) {
  const json doc = {{"a", 1.0}, {"cluster", {{"gpu", {{"bf16_tflops", 1e-300}}}, {"gpus", 8}}}};
  const json reference = {{"a", 2.0}, {"cluster", {{"gpu", {{"bf16_tflops", 989.4}}}, {"gpus", 8}}}};
  const auto finite = [](const json& d) { return d["cluster"]["gpu"]["bf16_tflops"].get<double>() > 1e-3; };
  EXPECT_EQ(blame_input(doc, reference, finite), "/cluster/gpu/bf16_tflops");
  EXPECT_EQ(blame_input(doc, reference, [](const json&) { return false; }), "/");
  // Every bound at its edge, in every command: finite answers or named errors, never internal.
  json s = valid();
  s["cluster"]["gpu"] = {{"memory_gb", 0.001},        {"bf16_tflops", 0.001},         {"fp8_tflops", 1e7},
                         {"hbm_gbytes_per_s", 0.001}, {"nvlink_gbytes_per_s", 0.001}, {"network_gbytes_per_s", 1e6},
                         {"gemm_efficiency", 0.001},  {"attention_efficiency", 0.001}};
  s["training"]["token_budget"] = 1e18;
  s["report"] = {{"storage_gbytes_per_s", 1e-6}, {"failures_per_gpu_hour", 1e-12}, {"restart_s", 1e7}};
  for (const char* command : {"evaluate", "plan", "report", "explain", "layout_view"}) {
    const json r = json::parse(handle_request(json({{"command", command}, {"scenario", s}}).dump()));
    ASSERT_TRUE(r.contains("ok")) << command;
    if (!r["ok"].get<bool>()) EXPECT_NE(r["error"]["code"], "internal") << command << ": " << r.dump().substr(0, 300);
  }
}

// min_gpus_per_replica was an int: 16Ψ / 80 GB of the largest accepted model wrapped to
// −2147483648 (also in explain's and the report's text).
TEST(JsonIo, MethodFiguresDoNotOverflow) {
  json s = valid();
  s["model"] = {{"layers", 100000}, {"hidden", 1 << 22}, {"heads", 1 << 16}, {"ffn_hidden", 1 << 22},
                {"vocab", 32000},   {"activation", "gelu"}};
  s["cluster"]["gpu"]["memory_gb"] = 40;
  s["parallel"] = {{"tp", 8}, {"pp", 2}};
  const json r = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  const double states_gb = r["method"]["model_states_gb"].get<double>();
  const long long want = static_cast<long long>(std::ceil(states_gb / 40.0));
  EXPECT_GT(want, 2147483647LL);  // the case is the one that used to wrap
  EXPECT_NEAR(r["method"]["min_gpus_per_replica"].get<double>(), double(want), want * 1e-5);
  const json plan = json::parse(handle_request(json({{"command", "report"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(plan["ok"].get<bool>()) << plan.dump().substr(0, 300);
  EXPECT_EQ(plan["markdown"].get<std::string>().find("-2147483648"), std::string::npos);
  EXPECT_NE(plan["markdown"].get<std::string>().find("needs at least " + std::to_string(want).substr(0, 4)),
            std::string::npos);
}

TEST(JsonIo, EvaluateListsTheDefaultsItFilledIn) {
  const json r = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", valid()}}).dump()));
  ASSERT_TRUE(r["ok"].get<bool>());
  const json* filled = nullptr;
  for (const json& d : r["diagnostics"]) if (d["code"] == "plan.defaults_filled") filled = &d;
  ASSERT_NE(filled, nullptr) << r["diagnostics"].dump();
  EXPECT_EQ((*filled)["severity"], "info");
  const std::string m = (*filled)["message"];
  // valid() pins tp 2 and recompute; the rest was filled: pp 1, dp 16 / 2 = 8, ...
  for (const char* part : {"pp 1", "dp 8", "cp 1", "micro_batch 1", "zero 0", "sequence_parallel true"}) {
    EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  }
  EXPECT_EQ(m.find("tp 2"), std::string::npos) << m;
  EXPECT_EQ(m.find("recompute"), std::string::npos) << m;
  // A complete parallel block gets no such diagnostic.
  json s = valid();
  s["parallel"] = {{"tp", 2}, {"pp", 1}, {"dp", 8}, {"cp", 1}, {"ep", 1}, {"vpp", 1}, {"micro_batch", 1},
                   {"sequence_parallel", true}, {"recompute", "none"}, {"zero", 0}};
  const json complete = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  for (const json& d : complete["diagnostics"]) EXPECT_NE(d["code"], "plan.defaults_filled");
}

// A configuration the scenario's framework refuses is still priced by evaluate, with a warning
// naming Megatron's rule: here the EP all-to-all overlap with pp 2 and no virtual pipeline, which
// Megatron-LM d98e8a64 transformer_config.py refuses (found on NVIDIA's DeepSeek-V3 26.06
// recipe, whose vp 8 pplan cannot express). Without a pipeline (pp 1) Megatron runs the overlap:
// no warning.
TEST(JsonIo, EvaluateWarnsOfWhatTheFrameworkRefuses) {
  json s = json::parse(R"({"model":"deepseek-v3","cluster":{"gpu":"gb300","gpus":256,"gpus_per_node":4,
      "nvlink_domain_gpus":72},"training":{"seq_len":4096,"global_batch":4096,"precision":"fp8",
      "framework":"megatron-core","overlap_moe_expert_parallel_comm":true},
      "parallel":{"tp":1,"pp":2,"cp":1,"dp":128,"ep":32,"vpp":1,"micro_batch":1,"zero":1,"recompute":"none"}})");
  const auto refusals = [](const json& r) {
    std::vector<std::string> messages;
    for (const json& d : r["diagnostics"]) {
      if (d["code"] == "plan.framework_refuses") {
        EXPECT_EQ(d["severity"], "warning");
        messages.push_back(d["message"]);
      }
    }
    return messages;
  };
  const json r = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  const std::vector<std::string> refused = refusals(r);
  ASSERT_EQ(refused.size(), 1u) << r["diagnostics"].dump();
  EXPECT_NE(refused[0].find("megatron.moe_overlap_needs_vpp"), std::string::npos) << refused[0];
  EXPECT_NE(refused[0].find("virtual pipeline"), std::string::npos) << refused[0];
  EXPECT_TRUE(r["fits"].get<bool>());
  s["parallel"]["pp"] = 1;
  s["parallel"]["dp"] = 256;
  const json one_stage = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(one_stage["ok"].get<bool>());
  EXPECT_TRUE(refusals(one_stage).empty()) << one_stage["diagnostics"].dump();
  // A plan with errors of its own (pp 200 > 61 layers, 1,600 ranks on 256 GPUs) is not also
  // told what the framework refuses: its errors say it.
  s["parallel"]["pp"] = 200;
  const json broken = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(broken["ok"].get<bool>());
  EXPECT_FALSE(broken["fits"].get<bool>());
  EXPECT_TRUE(refusals(broken).empty()) << broken["diagnostics"].dump();
}

TEST(JsonIo, DidYouMeanAcrossCaseAndNearMisses) {
  const auto message_of = [](const json& s) { return failure_of(s).message; };
  json s = valid();
  s["parallel"]["PP"] = 2;
  EXPECT_NE(message_of(s).find("did you mean \"pp\""), std::string::npos) << message_of(s);
  s = valid();
  s["cluster"]["gpu"]["memory_gi"] = 80;  // one edit from memory_gib and from memory_gb
  EXPECT_NE(message_of(s).find("did you mean \"memory_gib\""), std::string::npos) << message_of(s);
  s = valid();
  s["model"]["activation"] = "SwiGLU";
  EXPECT_NE(message_of(s).find("did you mean \"swiglu\""), std::string::npos) << message_of(s);
  for (const auto& [typed, meant] : std::vector<std::pair<std::string, std::string>>{
           {"gpt3-175B", "gpt3-175b"}, {"llama3-405", "llama3-405b"}, {"Llama3-70B", "llama3-70b"},
           {"mixtral-8x7", "mixtral-8x7b"}, {"deepseek-v3.1", "deepseek-v3"}}) {
    s = valid();
    s["model"] = typed;
    const Failure f = failure_of(s);
    EXPECT_EQ(f.code, "input.unknown_preset");
    EXPECT_NE(f.message.find("did you mean \"" + meant + "\""), std::string::npos) << typed << ": " << f.message;
  }
  s = valid();
  s["cluster"]["gpu"] = "H100-SXM";
  EXPECT_NE(message_of(s).find("did you mean \"h100-sxm\""), std::string::npos) << message_of(s);
  s = valid();
  s["cluster"]["gpu"] = "h100";
  EXPECT_NE(message_of(s).find("did you mean \"h100-sxm\""), std::string::npos) << message_of(s);
  EXPECT_NE(failure_of_request(R"({"command":"Plan"})").message.find("did you mean \"plan\""), std::string::npos);
}

TEST(JsonIo, StringLimitsCountCharactersNotBytes) {
  std::string name;
  for (int i = 0; i < 200; ++i) name += "é";  // 200 characters, 400 bytes
  json s = valid();
  s["model"]["name"] = name;
  EXPECT_TRUE(json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", s}}).dump()))["ok"].get<bool>());
  s["model"]["name"] = name + "é";
  const Failure f = failure_of(s);
  EXPECT_EQ(f.code, "input.out_of_range");
  EXPECT_NE(f.message.find("longer than 200 characters (201)"), std::string::npos) << f.message;
}

// Every float in an answer has at most 6 significant digits (no 17-digit noise), and plan
// answers are byte-identical run to run once the timing block is left out.
TEST(JsonIo, OutputNumbersAreShortAndPlanIsDeterministic) {
  const std::string text = read_text(source_path("examples/gpt3-175b-1024-a100.json"));
  json scenario = json::parse(text);
  scenario["parallel"] = json::object();
  const std::string request = json({{"command", "plan"}, {"top", 5}, {"timing", false}, {"scenario", scenario}}).dump();
  const std::string first = handle_request(request);
  EXPECT_EQ(first, handle_request(request));
  const json r = json::parse(first);
  EXPECT_FALSE(r.contains("timing"));
  EXPECT_FALSE(r["search"].contains("elapsed_ms"));
  const json timed = json::parse(handle_request(json({{"command", "plan"}, {"scenario", scenario}}).dump()));
  ASSERT_TRUE(timed.contains("timing"));
  EXPECT_GE(timed["timing"]["elapsed_ms"].get<double>(), 0.0);
  EXPECT_EQ(std::prev(timed.end()).key(), "timing");  // last, apart from the answer
  // Walk every number of the text: mantissa digits <= 6.
  std::size_t checked = 0;
  for (std::size_t at = 0; at < first.size(); ++at) {
    const bool starts = (first[at] >= '0' && first[at] <= '9') && (at == 0 || first[at - 1] == ' ' || first[at - 1] == '-');
    if (!starts || (at > 0 && first[at - 1] == '"')) continue;
    std::size_t end = at;
    while (end < first.size() && std::string("0123456789.eE+-").find(first[end]) != std::string::npos) ++end;
    const std::string number = first.substr(at, end - at);
    at = end;
    if (number.find_first_of(".eE") == std::string::npos) continue;  // integers are exact
    std::string mantissa = number.substr(0, number.find_first_of("eE"));
    mantissa.erase(std::remove(mantissa.begin(), mantissa.end(), '.'), mantissa.end());
    mantissa.erase(0, mantissa.find_first_not_of('0'));
    while (!mantissa.empty() && mantissa.back() == '0') mantissa.pop_back();
    EXPECT_LE(mantissa.size(), 6u) << number;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

// FP8 asked on a GPU without FP8 (A100: fp8_tflops 0) is priced in BF16 and says so (issue #14);
// on H100 it is not flagged.
TEST(JsonIo, Fp8OnAGpuWithoutFp8IsFlagged) {
  auto codes = [](const std::string& gpu) {
    const nlohmann::json request = {
        {"command", "evaluate"},
        {"scenario",
         {{"model", "gpt3-175b"},
          {"cluster", {{"gpu", gpu}, {"gpus", 1024}}},
          {"training", {{"seq_len", 2048}, {"global_batch", 1536}, {"precision", "fp8"}}},
          {"parallel", {{"tp", 8}, {"pp", 8}}}}}};
    const nlohmann::json r = nlohmann::json::parse(handle_request(request.dump()));
    std::vector<std::string> out;
    for (const auto& d : r["diagnostics"]) out.push_back(d["code"]);
    return out;
  };
  const std::vector<std::string> a100 = codes("a100-80gb");
  EXPECT_NE(std::find(a100.begin(), a100.end(), "plan.fp8_unsupported"), a100.end());
  const std::vector<std::string> h100 = codes("h100-sxm");
  EXPECT_EQ(std::find(h100.begin(), h100.end(), "plan.fp8_unsupported"), h100.end());
}

// first_stage_layers / last_stage_layers at pp = 1 were echoed without effect (issue #14).
TEST(JsonIo, AnUnevenSplitAtPp1IsRefused) {
  for (const char* key : {"first_stage_layers", "last_stage_layers"}) {
    const nlohmann::json request = {
        {"command", "evaluate"},
        {"scenario",
         {{"model", "gpt3-175b"},
          {"cluster", {{"gpu", "a100-80gb"}, {"gpus", 1024}}},
          {"training", {{"seq_len", 2048}, {"global_batch", 1536}}},
          {"parallel", {{"tp", 8}, {"pp", 1}, {key, 3}}}}}};
    const nlohmann::json r = nlohmann::json::parse(handle_request(request.dump()));
    EXPECT_FALSE(r["ok"].get<bool>()) << key;
    EXPECT_EQ(r["error"]["code"], "input.inconsistent");
    EXPECT_EQ(r["error"]["path"], std::string("/parallel/") + key);
  }
}
}  // namespace
}  // namespace pplan

namespace pplan {
namespace {

// MFU is against the peak of the precision the GEMMs run in: under NVFP4 the FP4 peak (GB300:
// 15,000 TFLOP/s dense, NVIDIA GB300 NVL72 datasheet), so MFU = TFLOP/s per GPU / 15,000, not
// / 5,000 (the FP8 peak, which NVFP4 plans would read at 70% and faster GPUs above 100%).
TEST(JsonIo, Nvfp4MfuIsAgainstTheFp4Peak) {
  nlohmann::json s = nlohmann::json::parse(
      testing::read_text(testing::source_path("examples/llama3.1-405b-256-gb300-nvfp4.json")));
  const nlohmann::json r =
      nlohmann::json::parse(handle_request(nlohmann::json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  const double tflops = r["tflops_per_gpu"].get<double>();
  EXPECT_NEAR(r["mfu"].get<double>(), tflops / 15000.0, 1e-4);
  EXPECT_LT(r["mfu"].get<double>(), 0.5);
  // The same plan in FP8 (MXFP8) is measured against the FP8 peak, 5,000.
  s["training"]["fp8_recipe"] = "mxfp8";
  const nlohmann::json fp8 =
      nlohmann::json::parse(handle_request(nlohmann::json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(fp8["ok"].get<bool>());
  EXPECT_NEAR(fp8["mfu"].get<double>(), fp8["tflops_per_gpu"].get<double>() / 5000.0, 1e-4);
  // NVFP4 runs its linear layers faster than MXFP8 on the same layout.
  EXPECT_GT(tflops, fp8["tflops_per_gpu"].get<double>());
  // A GPU that gives no FP4 rate prices NVFP4 at the FP8 rate, and says so.
  s["training"]["fp8_recipe"] = "nvfp4";
  s["cluster"]["gpu"] = {{"preset", "gb300"}, {"fp4_tflops", 0}};
  const nlohmann::json no_fp4 =
      nlohmann::json::parse(handle_request(nlohmann::json({{"command", "evaluate"}, {"scenario", s}}).dump()));
  ASSERT_TRUE(no_fp4["ok"].get<bool>()) << no_fp4.dump().substr(0, 300);
  bool warned = false;
  for (const nlohmann::json& d : no_fp4["diagnostics"]) warned = warned || d["code"] == "plan.fp4_unsupported";
  EXPECT_TRUE(warned) << no_fp4["diagnostics"].dump();
  EXPECT_NEAR(no_fp4["mfu"].get<double>(), no_fp4["tflops_per_gpu"].get<double>() / 5000.0, 1e-4);
}

}  // namespace
}  // namespace pplan
