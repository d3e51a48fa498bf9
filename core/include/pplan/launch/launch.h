#pragma once
/// Launch configurations for a plan: Megatron-LM, SLURM, environment, torchtitan,
/// DeepSpeed, NeMo, nccl-tests, and the rank layout.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pplan/framework/rules.h"
#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// The formats `pplan launch --format` accepts: megatron, slurm, env, torchtitan,
/// torchtitan-toml, deepspeed, nemo, nccl-tests, layout.
std::vector<std::string> launch_formats();

/**
 * The launch response body for `format`: {"format", "text"} for text formats, or
 * {"format", "layout": {...}} for the rank layout (layout.h). Every generated configuration
 * runs the plan pplan priced; a plan the format's framework would reject or run differently
 * gets {"format", "text": "", "problems": [{code, message}]} and no configuration — exactly the
 * problems framework_problems() reports for the format's framework (megatron and slurm:
 * Megatron-LM; torchtitan; torchtitan-toml; deepspeed; nemo). layout, env and nccl-tests need
 * only a grid that tiles the cluster (launch.* codes). Every user string reaches the text
 * escaped for its format (comments, bash words, Python and TOML strings; ids filtered to
 * [A-Za-z0-9._-]). A plan pplan expects to run out of memory still launches, with "warnings".
 * Throws InputError (request.bad_option) only for an unknown format.
 */
nlohmann::ordered_json launch_response(const Scenario& scenario, const Estimate& plan,
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
