#pragma once
/// Launch configurations for a plan: Megatron-LM, SLURM, environment, torchtitan,
/// DeepSpeed, NeMo, nccl-tests, and the rank layout.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pplan/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// The formats `pplan launch --format` accepts.
std::vector<std::string> launch_formats();

/**
 * The launch response body for `format`: {"format", "text"} for text formats, or
 * {"format", "layout": {...}} for the rank layout. A plan Megatron would reject gets
 * {"format", "text": "", "problems": [...]} and no command. Throws InputError
 * (request.bad_option) only for an unknown format.
 */
nlohmann::ordered_json launch_response(const Scenario& scenario, const Estimate& plan,
                                       const std::string& format);

}  // namespace pplan
