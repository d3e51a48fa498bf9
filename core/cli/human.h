#pragma once
// Human-readable answers for a terminal (the default when stdout is one; --table forces it,
// --json gives the contract's JSON instead). Made from the JSON answer, so both say the same.

#include <nlohmann/json.hpp>
#include <string>

namespace pplan::cli {

/// The table for an ok answer of `command` (evaluate, plan, presets, version, import_model);
/// empty when the command has no table form (its JSON is shown).
std::string human_answer(const std::string& command, const nlohmann::json& answer);

}  // namespace pplan::cli
