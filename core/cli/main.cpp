// pplan: the command-line face of the engine (docs/cli.md; `pplan --help`). The work is
// in cli.cpp's run(), which tests and the fuzzer call with their own streams; this only hands
// it the process's, and answers an allocation failure with the error object instead of an
// abort (issue #14: /dev/zero used to end in std::bad_alloc, exit 134).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli.h"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    pplan::cli::Environment environment;
    environment.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    return pplan::cli::run(args, std::cin, std::cout, std::cerr, environment);
  } catch (const std::bad_alloc&) {
    // Fixed text: nothing here may allocate.
    std::fflush(stdout);
    std::fputs(
        "{\n  \"ok\": false,\n  \"schema_version\": 1,\n  \"error\": {\n    \"code\": "
        "\"resource.out_of_memory\",\n    \"path\": \"/\",\n    \"message\": \"out of memory\"\n  "
        "}\n}\n",
        stdout);
    std::fputs("pplan: resource.out_of_memory at /: out of memory\n", stderr);
    return 2;
  } catch (...) {
    std::fputs(
        "{\n  \"ok\": false,\n  \"schema_version\": 1,\n  \"error\": {\n    \"code\": "
        "\"internal\",\n"
        "    \"path\": \"/\",\n    \"message\": \"internal error\"\n  }\n}\n",
        stdout);
    std::fputs("pplan: internal at /: internal error\n", stderr);
    return 2;
  }
}
