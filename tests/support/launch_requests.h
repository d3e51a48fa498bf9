#pragma once
// Test helpers: launch requests through the engine's one entry point, and the example files.
#include <nlohmann/json.hpp>
#include <string>

#include "pplan/io/api.h"
#include "scenario_files.h"

namespace pplan::testing {

/// examples/<name>.json as JSON.
inline nlohmann::json example_scenario(const std::string& name) {
  return nlohmann::json::parse(read_text(source_path("examples/" + name + ".json")));
}

/// The response to {"command": "launch", "scenario": ..., "format": ...}.
inline nlohmann::json launch_request(const nlohmann::json& scenario, const std::string& format) {
  const nlohmann::json request = {
      {"command", "launch"}, {"scenario", scenario}, {"format", format}};
  return nlohmann::json::parse(handle_request(request.dump()));
}

}  // namespace pplan::testing
