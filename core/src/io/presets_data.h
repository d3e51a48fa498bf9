#pragma once
// The preset files, embedded at build time (core/CMakeLists.txt). Constant data, not state.

#include <vector>

namespace pplan {

/// One embedded preset file.
struct EmbeddedPreset {
  const char* kind;  ///< "gpus" | "models"
  const char* file;  ///< file name, for error messages
  const char* text;  ///< the JSON
};

/// Every preset file, sorted by path.
const std::vector<EmbeddedPreset>& embedded_presets();

}  // namespace pplan
