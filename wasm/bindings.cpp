// The engine's two exports as plain C functions (no Embind: a smaller module and glue). They
// forward JSON text to the engine's one entry point, which never throws, so no C++ exception
// crosses into JavaScript. handle_request.post.js wraps them as Module.handleRequest and
// Module.version (pplan.d.ts).
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "pplan/io/api.h"

extern "C" {

/// The response to the `length` bytes of UTF-8 JSON at `request`: NUL-terminated, allocated
/// with malloc (free it with pplan_free); null when memory runs out.
EMSCRIPTEN_KEEPALIVE char* pplan_handle_request(const char* request, int length) {
  // handle_request never throws; copying its answer may (out of memory): nothing leaves as a C++
  // exception.
  try {
    const std::string response =
        pplan::handle_request(std::string_view(request, static_cast<std::size_t>(length)));
    char* out = static_cast<char*>(std::malloc(response.size() + 1));
    if (out) std::memcpy(out, response.c_str(), response.size() + 1);
    return out;
  } catch (...) {
    return nullptr;
  }
}

/// Frees a response of pplan_handle_request.
EMSCRIPTEN_KEEPALIVE void pplan_free(char* response) { std::free(response); }

/// The engine version (the CMake project VERSION), a static string.
EMSCRIPTEN_KEEPALIVE const char* pplan_version() { return pplan::engine_version(); }

}  // extern "C"
