#pragma once
// The README's generated blocks: the text between `<!-- COMMAND: begin -->` and
// `<!-- COMMAND: end -->` is exactly what COMMAND prints, so a figure in the README is always
// the output of a command, and ctest (pplan_readme check) fails when the two differ.
#include <string>
#include <vector>

#include "accuracy.h"

namespace pplan::validation {

/// One generated block of a Markdown file.
struct MarkdownBlock {
  std::string command;  ///< as written in the markers, e.g. "pplan_accuracy readme"
  std::string content;  ///< the text between the two marker lines
};

/// Every generated block, in order. Throws on a begin marker without its end.
std::vector<MarkdownBlock> generated_blocks(const std::string& markdown);

/// `markdown` with the content of the block of `command` replaced. Throws when it has none.
std::string replace_block(const std::string& markdown, const std::string& command, const std::string& content);

/// The README's accuracy section as Markdown (`pplan_accuracy readme`): the primary figure over
/// every published run, by source, leave-one-source-out (`loso`: each case predicted by the fit
/// that did not see its source), Korthikanti 2022 Table 5 run by run, vTrain's measured
/// single-node runs (and `measured_loso`: predicted by the fit that did not see them, with
/// `held_out_moves` saying how that fit's constants differ), and every case beyond 15%. Deterministic: no timings, rounded as printed.
std::string accuracy_markdown(const std::vector<CaseRun>& runs, const std::vector<CaseRun>& loso,
                              const std::vector<MeasuredRun>& measured,
                              const std::vector<MeasuredRun>& measured_loso,
                              const std::string& held_out_moves = "",
                              const std::vector<CaseRun>& held_out = {},
                              const std::vector<CaseRun>& newer = {});

/// What the accuracy blocks are printed from: every published run planned, each predicted by the
/// fit that did not see its source (`loso`), vTrain's runs, and vTrain's runs predicted by the
/// fit without them (`measured_loso`; `held_out_moves` says how its constants differ).
struct AccuracyInputs {
  std::vector<CaseRun> runs, loso;
  /// The held-out published runs (CaseSet::kHeldOut), with the committed constants.
  std::vector<CaseRun> held_out;
  /// Newer releases' runs (published-runs-newer.json): never fitted, outside the goal set.
  std::vector<CaseRun> newer;
  std::vector<MeasuredRun> measured, measured_loso;
  std::string held_out_moves;
};

/// AccuracyInputs over the data in `data_dir` (published-runs.json, published-runs-newer.json,
/// vtrain-single-node.json),
/// the leave-one-source-out fits starting from the committed constants.
AccuracyInputs accuracy_inputs(const std::string& data_dir);

std::string accuracy_markdown(const AccuracyInputs& inputs);
std::string accuracy_markdown(const std::string& data_dir);

/// The README's summary (`pplan_accuracy readme-summary`): the opening sentence and the
/// primary-figure table of accuracy_markdown, and vTrain's mean, bias and held-out mean.
std::string accuracy_summary_markdown(const AccuracyInputs& inputs);

/// The first line where `a` and `b` differ (1-based), 0 when equal.
int first_difference_line(const std::string& a, const std::string& b);

/// Reads a whole file; throws naming it when it cannot.
std::string read_file_text(const std::string& path);

/// Figures as the README and pplan_accuracy print them: "3.5%", "+0.9%", "0.85" ("–" for NaN).
std::string pct(double fraction);
std::string signed_pct(double fraction);
std::string fixed(double x, int digits);

}  // namespace pplan::validation
