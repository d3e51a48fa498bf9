#pragma once
// Regenerating and checking every generated block of a Markdown file (the README, docs/): a block of
// `pplan_accuracy readme` holds accuracy_markdown() (`readme-summary` its summary), a block of `pplan ARGS` the CLI's output
// for ARGS (run from the file's folder), and a block of a benchmark command
// (`node tests/validation/search_speed.mjs`) timings, whose format alone can be checked.
#include <string>
#include <vector>

namespace pplan::validation {

/// The command that rewrites every block of `path`; the check's failure message names it.
inline std::string regenerate_command(const std::string& path) {
  return "build/native/tests/pplan_accuracy readme --write " + path;
}

/// Rewrites the blocks of each file whose output is deterministic. Returns the exit status.
int write_readme(const std::vector<std::string>& paths, const std::string& data_dir);

/// 0 when, in each file, every block is what its command prints (benchmarks: has its format) and
/// every relative link of it exists, else prints which block differs, where, and the command
/// that regenerates it (or the missing link), and returns 1.
int check_readme(const std::vector<std::string>& paths, const std::string& data_dir);

}  // namespace pplan::validation
