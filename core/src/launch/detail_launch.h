#pragma once
// Private helpers of the launch generators (launch*.cpp): the text that reaches a script and
// the shared pieces of the scripts. The facts each format prints and each framework's mapping
// of the plan come from framework/plan_facts.h, which the framework rules read too.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pplan/framework/plan_facts.h"
#include "pplan/framework/rules.h"
#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan::detail {

// ---- text that reaches a script ------------------------------------------------------

/// `text` made safe inside a comment of any format (bash, Python, TOML) and on a terminal:
/// control characters (C0, DEL, C1), line and paragraph separators, bidirectional controls and
/// invalid UTF-8 become '?'. Nothing in the result can end the comment.
std::string comment_text(std::string_view text);

/// `text` filtered to [A-Za-z0-9._-] (job names, file names); "model" when nothing is left.
std::string safe_id(std::string_view text);

/// A single-quoted bash word: 'text' with every ' written as '\''.
std::string bash_quote(std::string_view text);

/// A double-quoted Python string literal: printable ASCII as is, everything else escaped.
std::string python_str(std::string_view text);

/// A TOML basic string: "text" with \, " and every non-printable character escaped.
std::string toml_str(std::string_view text);

// ---- shared pieces of the scripts -----------------------------------------------------

/// One variable of the environment block.
struct EnvVar {
  enum class Kind { kExport, kUnset, kSuggested };  ///< kSuggested = commented-out placeholder
  const char* name = "";
  std::string value;
  const char* why = "";  ///< one line
  Kind kind = Kind::kExport;
};

/// The CUDA / NCCL / PyTorch environment a Megatron-Core run of this plan needs
/// (Megatron-LM d98e8a64 validate_args, §2).
std::vector<EnvVar> environment(const LaunchFacts& facts);

/// environment() as shell lines, each with its one-line reason.
std::string environment_block(const LaunchFacts& facts);

/// One command-line flag; empty value = a switch. `comment` is printed after it.
struct Flag {
  std::string name;
  std::string value;
  std::string comment;
};

/// Flags grouped into one bash array (Megatron's own example-script style).
struct FlagGroup {
  std::string array_name;
  std::vector<Flag> flags;
};

/// GPT-2 BPE (50,257 tokens, Radford et al. 2019) for GPT-style models (learned positions), as
/// Megatron's own GPT examples do, when Megatron can pad it to the vocabulary pplan prices at
/// `tp`; otherwise a HuggingFace tokenizer of the model's vocabulary.
bool gpt2_tokenizer(const ModelSpec& model, int tp);

/// --make-vocab-size-divisible-by that makes Megatron's padding of the tokenizer's vocabulary
/// (vocab_size_with_padding: a multiple of this x TP) land on the vocabulary pplan prices.
long long megatron_vocab_divisor(const ModelSpec& model, int tp);

/// The pretrain_gpt.py arguments of the plan, spelled as megatron-flags.tsv spells them.
std::vector<FlagGroup> megatron_flags(const Scenario& scenario, const Estimate& plan,
                                      const LaunchFacts& facts);

/// `NAME=(\n    --flag value  # comment\n)` for every group.
std::string render_flag_arrays(const std::vector<FlagGroup>& groups);

/// `"${NAME[@]}"` references, one per continuation line, indented by `indent`.
std::string array_references(const std::vector<FlagGroup>& groups, const std::string& indent);

/// `${NAME[@]+"${NAME[@]}"}`: an array that may be empty, expanded safely under `set -u` also
/// by bash < 4.4, which treats "${NAME[@]}" of an empty array as unbound.
std::string maybe_empty_array(const std::string& name);

/// The comment header every format starts with: what, model, cluster, plan, batch.
std::string plan_header(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts,
                        const std::string& title);

/// `#SBATCH --segment=N` (with its newline) when the job's hosts must keep NVLink domains
/// whole, else "" (layout.h; Slurm >= 24.05 topology/block).
std::string slurm_segment_line(const LaunchFacts& facts);

/// Comment lines saying how the job's hosts map onto NVLink domains, or "" on one-host domains.
std::string domain_note(const LaunchFacts& facts);

/// The site-specific placeholder variables of the Megatron scripts.
std::string megatron_placeholders(const Scenario& scenario, const LaunchFacts& facts);

/// `--format` generators (text). Each assumes framework_problems() found nothing.
std::string megatron_script(const Scenario& scenario, const Estimate& plan,
                            const LaunchFacts& facts);
std::string slurm_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string env_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string torchtitan_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& facts);
/// torchtitan.document_mask: the attention torchtitan runs is masked per document (every
/// backend of the config registry; the DeepSeek flavors of the TOML era), where pplan priced
/// causal attention over whole sequences. Empty where it runs the causal SDPA priced.
std::optional<Diagnostic> titan_attention_warning(const Scenario& scenario, const LaunchFacts& f,
                                                  bool toml);
std::string torchtitan_toml(const Scenario& scenario, const Estimate& plan,
                            const LaunchFacts& facts);
std::string deepspeed_script(const Scenario& scenario, const Estimate& plan,
                             const LaunchFacts& facts);
std::string nemo_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string nccl_tests_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& facts);

/// Decimal integer text.
std::string num(long long value);

/// One entry per layer, `expert` where the layer holds experts (architecture.h is_moe_layer),
/// else `dense`, joined by `separator`: Megatron's and NeMo's moe_layer_freq lists, DeepSpeed's
/// --num-experts list.
std::string per_layer_experts(const ModelSpec& model, std::string_view expert, std::string_view dense,
                              std::string_view separator);

/// The selective-recomputation modules the plan was priced with (specs.h recompute_modules),
/// by Megatron's names, each wrapped in `quote` and joined by `separator`: --recompute-modules
/// and NeMo's recompute_modules list.
std::string recompute_module_list(const ParallelConfig& p, const ModelSpec& model, std::string_view quote,
                                  std::string_view separator);

}  // namespace pplan::detail
