#pragma once
/// Launch configurations for a plan: Megatron-LM, SLURM, environment, torchtitan,
/// DeepSpeed, NeMo, nccl-tests, and the rank layout.

#include <optional>
#include <string>
#include <vector>

#include "pplan/diagnostics.h"
#include "pplan/framework/rules.h"
#include "pplan/launch/layout.h"
#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// The formats `pplan launch --format` accepts: megatron, slurm, env, torchtitan,
/// torchtitan-toml, deepspeed, nemo, nccl-tests, layout.
std::vector<std::string> launch_formats();

/// What one launch format makes of a plan. Either `problems` (the plan cannot be launched as
/// priced: no configuration) or the configuration: `text` for the text formats, `layout` for
/// --format layout. `warnings`: a plan pplan expects to run out of memory still launches, with
/// plan.out_of_memory here. io/launch_json.h writes it as the launch response.
struct LaunchResult {
  std::string format;
  std::vector<Diagnostic> warnings;
  std::vector<LaunchProblem> problems;
  std::string text;
  std::optional<RankLayout> layout;
};

/**
 * The launch configuration of `plan` in `format`. Every generated configuration runs the plan
 * pplan priced; a plan the format's framework would reject or run differently gets exactly the
 * problems framework_problems() reports for the format's framework (megatron and slurm:
 * Megatron-LM; torchtitan; torchtitan-toml; deepspeed; nemo) and no configuration. layout, env
 * and nccl-tests need only a grid that tiles the cluster (launch.* codes). Every user string
 * reaches the text escaped for its format (comments, bash words, Python and TOML strings; ids
 * filtered to [A-Za-z0-9._-]). Throws InputError (request.bad_option) only for an unknown format.
 */
LaunchResult launch_configuration(const Scenario& scenario, const Estimate& plan,
                                  const std::string& format);

/**
 * What `pplan launch --format F` writes on stdout for a refused plan (the CLI then exits 3 and
 * names the problem codes on stderr): for the formats that are run — megatron, slurm, env,
 * torchtitan, deepspeed and nccl-tests (bash), nemo (Python) — a script that only prints the
 * reasons to stderr and exits 1, so `pplan launch ... | bash` fails loudly; for the data formats
 * (torchtitan-toml, layout) nothing.
 */
std::string launch_refusal_script(const std::string& format,
                                  const std::vector<LaunchProblem>& problems);

}  // namespace pplan
