// The only file that includes Embind. It forwards JSON text to the engine's one entry point,
// which never throws, so no C++ exception crosses into JavaScript (Emscripten 3.1.6 passes a thrown C++ exception to JS as a bare pointer).
#include <emscripten/bind.h>

#include <string>

#include "pplan/io/api.h"

namespace {

std::string handle_request_js(const std::string& request_json) {
  return pplan::handle_request(request_json);
}

std::string version_js() { return pplan::engine_version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(pplan) {
  emscripten::function("handleRequest", &handle_request_js);
  emscripten::function("version", &version_js);
}
