#pragma once
// Test helpers: read scenario files from the repository and parse them with the presets.
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "pplan/io/json_io.h"

namespace pplan::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

inline std::string source_path(const std::string& relative) {
  return std::string(PPLAN_SOURCE_DIR) + "/" + relative;
}

/// Parses a scenario file under the repository root.
inline Scenario load_scenario(const std::string& relative) {
  return parse_scenario(nlohmann::json::parse(read_text(source_path(relative))), load_presets());
}

/// Parses a scenario given inline.
inline Scenario scenario_from(const std::string& json_text) {
  return parse_scenario(nlohmann::json::parse(json_text), load_presets());
}

}  // namespace pplan::testing
