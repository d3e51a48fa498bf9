#pragma once
// Regenerating and checking every generated block of a Markdown file (the README): a block of
// `pplan_accuracy readme` holds accuracy_markdown(), a block of `pplan ARGS` the CLI's output
// for ARGS (run from the file's folder), and a block of a benchmark command
// (`node tests/validation/search_speed.mjs`) timings, whose format alone can be checked.
#include <string>

namespace pplan::validation {

/// The command that rewrites every block; the check's failure message names it.
inline constexpr const char* kRegenerateCommand = "build/native/tests/pplan_accuracy readme --write README.md";

/// Rewrites the blocks of `path` whose output is deterministic. Returns the exit status.
int write_readme(const std::string& path, const std::string& data_dir);

/// 0 when every block of `path` is what its command prints (benchmarks: has its format), else
/// prints which block differs, where, and the command that regenerates it, and returns 1.
int check_readme(const std::string& path, const std::string& data_dir);

}  // namespace pplan::validation
