#pragma once
/// Launch configurations for a plan: Megatron-LM, SLURM, environment, torchtitan,
/// DeepSpeed, NeMo, nccl-tests, and the rank layout.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// The formats `pplan launch --format` accepts: megatron, slurm, env, torchtitan,
/// torchtitan-toml, deepspeed, nemo, nccl-tests, layout.
std::vector<std::string> launch_formats();

/**
 * The launch response body for `format`: {"format", "text"} for text formats, or
 * {"format", "layout": {...}} for the rank layout (layout.h). A plan Megatron would reject
 * (Megatron-LM d98e8a64 megatron/training/arguments.py validate_args) gets {"format", "text": "", "problems": [{code, message}]}
 * and no command; layout, env and nccl-tests need only a grid that tiles the cluster.
 * A plan pplan expects to run out of memory still launches, with "warnings".
 * Problem codes: launch.* (grid), megatron.* (§1.3), torchtitan.*, deepspeed.*.
 * Throws InputError (request.bad_option) only for an unknown format.
 */
nlohmann::ordered_json launch_response(const Scenario& scenario, const Estimate& plan,
                                       const std::string& format);

}  // namespace pplan
