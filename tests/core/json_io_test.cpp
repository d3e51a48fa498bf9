// The JSON boundary's error paths: every bad input is an error with a stable code and the
// JSON pointer of the field, never a crash, a silent default or a NaN (json_io.h's table).
#include "pplan/io/json_io.h"

#include <gtest/gtest.h>

#include <cmath>
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
  EXPECT_EQ(response["error"]["code"], "input.out_of_range");  // the parser gives no position

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

}  // namespace
}  // namespace pplan
