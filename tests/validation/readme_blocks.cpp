#include "readme_blocks.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli.h"
#include "readme.h"

namespace pplan::validation {

namespace {

const std::string kAccuracyCommand = "pplan_accuracy readme";
const std::string kAccuracySummaryCommand = "pplan_accuracy readme-summary";
const std::string kSpeedCommand = "node tests/validation/search_speed.mjs";

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// What a block's command prints, or nullopt for a benchmark (not reproducible). The accuracy
/// inputs are computed once, on the first block that needs them.
std::optional<std::string> block_output(const std::string& command, const std::string& data_dir,
                                        std::optional<AccuracyInputs>& accuracy) {
  if (command == kAccuracyCommand || command == kAccuracySummaryCommand) {
    if (!accuracy) accuracy = accuracy_inputs(data_dir);
    return command == kAccuracyCommand ? accuracy_markdown(*accuracy) : accuracy_summary_markdown(*accuracy);
  }
  if (starts_with(command, "pplan ")) {
    std::vector<std::string> args = words(command);
    args.erase(args.begin());
    std::istringstream in;
    std::ostringstream out, err;
    const int status = cli::run(args, in, out, err);
    if (status != 0) {
      throw std::runtime_error("`" + command + "` exited " + std::to_string(status) + ": " + err.str());
    }
    return "```text\n$ " + command + "\n" + out.str() + "```\n";
  }
  if (command == kSpeedCommand) return std::nullopt;
  throw std::runtime_error("no generator for the block of `" + command + "`");
}

/// Speed blocks: search_speed.mjs's format, whatever the timings.
std::string speed_format_problem(const std::string& content) {
  std::istringstream in(content);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex heading(R"(^Measured by `node tests/validation/search_speed\.mjs` on .+, \d{4}-\d{2}-\d{2}, )"
                           R"(\d+ cores?, load average [0-9.]+\..*$)");
  const std::string header =
      "| search (nothing pinned) | configurations | native (best of 5) | wasm: search alone / whole request |";
  const std::regex row(R"(^\| [^|]+ \| [0-9.]+ M \| [0-9.]+ ms \| ([0-9.]+ ms / [0-9.]+ ms|not built) \|$)");
  if (lines.size() < 5) return "fewer than 5 lines";
  if (!std::regex_match(lines[0], heading)) return "line 1 does not name the command, machine, date and load";
  if (!lines[1].empty() || lines[2] != header || lines[3] != "|---|---|---|---|") return "the table header differs";
  const std::regex ratio(R"(^DeepSeek-V3 over Llama 3 405B: [0-9.]+× native, ([0-9.]+× wasm search alone, )"
                         R"([0-9.]+× whole request|wasm not built) \(goal, issue #22: at most 3× on both engines\)\.$)");
  std::size_t i = 4;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    if (!std::regex_match(lines[i], row)) return "line " + std::to_string(i + 1) + " is not a timing row";
  }
  if (i == 4) return "no timing rows";
  if (i + 1 >= lines.size() || !std::regex_match(lines[i + 1], ratio)) {
    return "the line after the table is not DeepSeek-V3's ratio to Llama 3 405B";
  }
  if (i + 2 != lines.size()) return "lines follow the ratio";
  return "";
}

/// The page's bench block (web/scripts/bench.js, between `<!-- bench:start -->` and
/// `<!-- bench:end -->`): a table headed by the command, the date and the machine.
std::string web_bench_problem(const std::string& markdown) {
  const std::size_t begin = markdown.find("<!-- bench:start -->\n");
  const std::size_t end = markdown.find("<!-- bench:end -->");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "no bench:start/bench:end block";
  std::istringstream in(markdown.substr(begin, end - begin));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex header(R"(^\| measure \(`npm --prefix web run bench`, \d{4}-\d{2}-\d{2}, .*load average [0-9.]+\) \| figure \| budget \|$)");
  // "none": a figure shown for context with no budget (a shared link's first plan).
  const std::regex row(R"(^\| [^|]+ \| [0-9.,]+ (ms|KB gzip) \| (≤ [0-9.,]+ (ms|KB)|none) \|$)");
  if (lines.size() < 4 || !std::regex_match(lines[1], header) || lines[2] != "|---|---|---|") {
    return "the table header does not name the command, the date and the load";
  }
  for (std::size_t i = 3; i < lines.size(); ++i) {
    if (!std::regex_match(lines[i], row)) return "row `" + lines[i] + "` is not figure-and-budget";
  }
  return "";
}

/// The repository root above `path`: the nearest folder holding examples/ (README.md is at the
/// root, docs/*.md one below), so a block's `pplan ... examples/X.json` runs the same from both.
std::string root_of(const std::string& path) {
  std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  for (std::filesystem::path at = folder; !at.empty(); at = at.parent_path()) {
    if (std::filesystem::is_directory(at / "examples")) return at.string();
    if (at == at.root_path()) break;
  }
  return folder.string();
}

/// Relative links of `markdown` (`](target)`, no scheme, no pure anchor) whose target does not
/// exist beside `path`.
std::vector<std::string> broken_links(const std::string& markdown, const std::string& path) {
  const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  // Code is not a link: drop fenced blocks, then inline code spans.
  const std::string prose = std::regex_replace(
      std::regex_replace(markdown, std::regex(R"(```[\s\S]*?```)"), ""), std::regex("`[^`\n]*`"), "");
  const std::regex link(R"(\]\(([^)\s]+)\))");
  std::vector<std::string> broken;
  for (auto it = std::sregex_iterator(prose.begin(), prose.end(), link); it != std::sregex_iterator(); ++it) {
    std::string target = (*it)[1].str();
    if (target.find("://") != std::string::npos || starts_with(target, "#") || starts_with(target, "mailto:")) continue;
    target = target.substr(0, target.find('#'));
    if (!std::filesystem::exists(folder / target)) broken.push_back(target);
  }
  return broken;
}

/// Runs `f` with the working directory set to the repository root (examples/ paths are relative).
template <class F>
auto in_folder_of(const std::string& path, F f) {
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(root_of(path));
  try {
    auto result = f();
    std::filesystem::current_path(before);
    return result;
  } catch (...) {
    std::filesystem::current_path(before);
    throw;
  }
}

}  // namespace

namespace {

int write_one(const std::string& path, const std::string& data_dir, std::optional<AccuracyInputs>& accuracy) {
  std::string text = read_file_text(path);
  const std::string absolute_data = std::filesystem::absolute(data_dir).string();
  text = in_folder_of(path, [&] {
    std::string updated = text;
    for (const MarkdownBlock& b : generated_blocks(text)) {
      if (auto output = block_output(b.command, absolute_data, accuracy)) {
        updated = replace_block(updated, b.command, *output);
        std::printf("%s: `%s` %s\n", path.c_str(), b.command.c_str(), b.content == *output ? "unchanged" : "rewritten");
      } else {
        std::printf("%s: `%s` is a benchmark: run it to refresh its block\n", path.c_str(), b.command.c_str());
      }
    }
    return updated;
  });
  std::ofstream(path, std::ios::binary) << text;
  return 0;
}

/// Paragraphs of `text` (80+ characters, outside code and tables) already seen in this or an
/// earlier file: one fact, one place. Prints each repeat; returns how many.
int repeated_paragraphs(const std::string& path, const std::string& text,
                        std::map<std::string, std::string>& first_seen) {
  int repeats = 0;
  const std::string prose = std::regex_replace(text, std::regex(R"(```[\s\S]*?```)"), "");
  std::istringstream in(prose);
  std::string paragraph;
  const auto flush = [&] {
    if (paragraph.size() >= 80 && paragraph[0] != '|' && !starts_with(paragraph, "<!--")) {
      const auto [at, fresh] = first_seen.emplace(paragraph, path);
      if (!fresh) {
        ++repeats;
        std::printf("%s repeats a paragraph of %s: \"%.60s...\"\n", path.c_str(), at->second.c_str(),
                    paragraph.c_str());
      }
    }
    paragraph.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t") == std::string::npos) {
      flush();
    } else {
      const std::size_t from = line.find_first_not_of(" \t");
      paragraph += (paragraph.empty() ? "" : " ") + line.substr(from);
    }
  }
  flush();
  return repeats;
}

int check_one(const std::string& path, const std::string& data_dir, std::optional<AccuracyInputs>& accuracy,
              std::map<std::string, std::string>& paragraphs_seen) {
  const std::string text = read_file_text(path);
  const std::string absolute_data = std::filesystem::absolute(data_dir).string();
  int failures = 0;
  int blocks = 0;
  in_folder_of(path, [&] {
    for (const MarkdownBlock& b : generated_blocks(text)) {
      ++blocks;
      const std::optional<std::string> output = block_output(b.command, absolute_data, accuracy);
      if (!output) {
        const std::string problem = speed_format_problem(b.content);
        if (!problem.empty()) {
          ++failures;
          std::printf("%s: the block of `%s` does not have the benchmark's format (%s); rerun `%s --write %s`\n",
                      path.c_str(), b.command.c_str(), problem.c_str(), b.command.c_str(), path.c_str());
        }
        continue;
      }
      const int line = first_difference_line(b.content, *output);
      if (line != 0) {
        ++failures;
        std::printf("%s: the block of `%s` differs from the command's output (line %d of the block).\n"
                    "Regenerate it: %s\n",
                    path.c_str(), b.command.c_str(), line, regenerate_command(path).c_str());
      }
    }
    return 0;
  });
  for (const std::string& target : broken_links(text, path)) {
    ++failures;
    std::printf("%s: links to %s, which does not exist\n", path.c_str(), target.c_str());
  }
  const std::string web = text.find("<!-- bench:start -->") == std::string::npos ? "" : web_bench_problem(text);
  if (!web.empty()) {
    ++failures;
    std::printf("%s: the page's bench block: %s; rerun `npm --prefix web run bench -- --write-readme`\n", path.c_str(),
                web.c_str());
  }
  failures += repeated_paragraphs(path, text, paragraphs_seen);
  std::printf("%s: %d generated blocks checked, %d problems (blocks that differ, missing links, repeated paragraphs)\n",
              path.c_str(), blocks, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int write_readme(const std::vector<std::string>& paths, const std::string& data_dir) {
  std::optional<AccuracyInputs> accuracy;
  int status = 0;
  for (const std::string& path : paths) status |= write_one(path, data_dir, accuracy);
  return status;
}

int check_readme(const std::vector<std::string>& paths, const std::string& data_dir) {
  std::optional<AccuracyInputs> accuracy;
  std::map<std::string, std::string> paragraphs_seen;  // across the files: one fact, one place
  int status = 0;
  for (const std::string& path : paths) status |= check_one(path, data_dir, accuracy, paragraphs_seen);
  return status;
}

}  // namespace pplan::validation
