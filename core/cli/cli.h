#pragma once
// The pplan command line as a function (main.cpp only supplies the process's streams), so
// tests and the fuzzer drive argument parsing and file reading exactly as a shell does.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace pplan::cli {

/// What the process knows about where it runs.
struct Environment {
  bool stdout_is_terminal = false;  ///< human tables by default instead of JSON
};

/**
 * Runs `pplan ARGS...` (args excludes the program name). Reads FILE, `-` (from `in`) and the
 * files --model/--gpu name, at most kMaxDocumentBytes each, enforced while reading. Writes the
 * answer to `out`: the contract's JSON by default when `out` is not a terminal, a table on a
 * terminal (--json / --table choose), the text for explain, launch and report. Every error,
 * the CLI's own included, prints the error object on `out` and one line on `err`, and returns
 * 2; success returns 0 (an infeasible plan is a success).
 */
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err, const Environment& environment = {});

}  // namespace pplan::cli
