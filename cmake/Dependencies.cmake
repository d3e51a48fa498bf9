# nlohmann/json: the native build uses Debian's package config; the wasm build must not,
# because its imported target adds -isystem /usr/include and glibc then shadows
# Emscripten's libc (Emscripten 3.1.6: a bare find_package adds -isystem /usr/include).
if(EMSCRIPTEN)
  set(_pplan_deps_include "${CMAKE_BINARY_DIR}/deps/include")
  if(NOT EXISTS "/usr/include/nlohmann/json.hpp")
    message(FATAL_ERROR "nlohmann/json.hpp not found: apt-get install nlohmann-json3-dev")
  endif()
  file(COPY "/usr/include/nlohmann" DESTINATION "${_pplan_deps_include}")
  add_library(pplan_nlohmann_json INTERFACE)
  target_include_directories(pplan_nlohmann_json SYSTEM INTERFACE "${_pplan_deps_include}")
  add_library(nlohmann_json::nlohmann_json ALIAS pplan_nlohmann_json)
else()
  find_package(nlohmann_json 3.10 REQUIRED)
endif()
