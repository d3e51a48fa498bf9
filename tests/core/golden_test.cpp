// Golden responses: every scenario in examples/ through the one entry point, compared byte
// for byte with tests/golden/responses/<name>.json. `evaluate` when the file pins tp and pp,
// else `plan --top 3`. Regenerate with UPDATE_GOLDEN=1 and review the diff: the model moved.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/io/api.h"
#include "../support/golden.h"
#include "../support/scenario_files.h"

namespace pplan {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(testing::source_path("examples"))) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The response with what legitimately varies between runs taken out.
std::string normalised_response(const std::string& name) {
  const std::string text = testing::read_text(testing::source_path("examples/" + name + ".json"));
  const nlohmann::json scenario = nlohmann::json::parse(text);
  const bool complete = scenario.contains("parallel") && scenario["parallel"].contains("tp") &&
                        scenario["parallel"].contains("pp");
  RequestOptions options;
  options.top = 3;
  nlohmann::ordered_json response =
      nlohmann::ordered_json::parse(handle_command(complete ? "evaluate" : "plan", text, options));
  response.erase("timing");  // the search's wall time: the one figure that differs between runs
  response.erase("engine_version");
  return response.dump(2) + "\n";
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, ResponseMatchesTheReviewedFile) {
  const std::string name = GetParam();
  const std::string golden_path = testing::source_path("tests/golden/responses/" + name + ".json");
  const std::string actual = normalised_response(name);
  EXPECT_NE(actual.find("\"ok\": true"), std::string::npos) << actual.substr(0, 400);
  if (testing::update_golden()) {
    fs::create_directories(fs::path(golden_path).parent_path());
    std::ofstream(golden_path, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << golden_path;
  }
  ASSERT_TRUE(fs::exists(golden_path)) << "no golden file; run with UPDATE_GOLDEN=1 and review it";
  const std::string golden = testing::read_text(golden_path);
  EXPECT_EQ(actual, golden) << testing::golden_review(golden, actual)
                            << "regenerate with UPDATE_GOLDEN=1 and review";
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden, ::testing::ValuesIn(example_names()),
                         [](const auto& info) {
                           std::string id = info.param;
                           for (char& c : id) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return id;
                         });

TEST(Determinism, PlanOutputIsByteIdenticalAcrossRuns) {
  EXPECT_EQ(normalised_response("gpt3-175b-1024-a100"), normalised_response("gpt3-175b-1024-a100"));
  EXPECT_EQ(normalised_response("llama3-405b-8k-16384-h100"), normalised_response("llama3-405b-8k-16384-h100"));
}

}  // namespace
}  // namespace pplan
