#pragma once
/// The one entry point of the engine: JSON in, JSON out. The CLI and the wasm module both
/// call it, so they answer byte for byte the same. Never throws.
///
/// Request: {"command": "evaluate"|"plan"|"launch"|"report"|"layout_view"|"landscape"|"scaling"|
///           "calibrate"|"import_model"|"presets"|"version", "scenario": {...}, "top": 10,
///           "format": "megatron"|..., "nearest_gpus": false, "timing": true,
///           "config": {...} (import_model), "name": "..." (import_model),
///           "nccl_tests": [...], "steps": [...] (calibrate)}
/// The request text is parsed strictly (json_io.h parse_document): at most kMaxDocumentBytes,
/// no NUL, no duplicate key, no control character in any string.
/// plan with "nearest_gpus": true, when no plan fits, adds "nearest_gpus": {"below": {"gpus",
/// "plan"} | null, "above": {"gpus", "plan"} | null, "searched", "max_searches"}: the closest GPU
/// counts with a plan (search/landscape.h nearest_gpu_counts: multiples of gpus_per_node, the
/// scenario's pins except dp, at most kNearestMaxSearches = 48 searches and 40,000,000
/// configurations in all). A "plan" here (and in scaling) is {"parallel", "step_time_s", "mfu",
/// "memory_gb", "bubble_fraction", "tokens_per_s" [, "days_to_train" with a token budget]}.
/// landscape -> {"landscape": {"points": [{"parallel", "memory_gb", "step_time_s", "mfu",
/// "bubble_fraction", "pareto": bool, "rank": n | null}], "candidates", "evaluated", "feasible",
/// "pareto_points", "max_points", "max_evaluations", "capacity_gb"}}: at most
/// kLandscapeMaxPoints = 240 feasible configurations of a sample of at most 60,000 (the rule is
/// in landscape.h), fastest first; "rank" is the position in the ranked plans of `plan` with the
/// same "top" (0 = the recommended plan), "pareto" marks the front of step time against memory.
/// scaling -> {"scaling": {"gpu_counts": [...], "points": [{"gpus", "plan": {...} | null,
/// "reason": code | null, "rejected"}], "token_budget": x | null}}: the search's best plan at
/// gpus·2^k, k = −3…3 (at most kScalingMaxCounts = 7 counts), same pins except dp; no plan
/// gives the most frequent rejection code and how many configurations it rejected.
/// layout_view -> {"parallel": {...}, "view": {...}} for the plan a launch configures (the
/// complete pinned tp and pp, else the search's best): replica 0's nodes (at most
/// kLayoutViewMaxRows rows, the middle of a long replica collapsed into {"collapsed_nodes"}),
/// each node's GPUs with rank and tp/cp/dp/pp (and ep) coordinates, the stages and CP ranks
/// of replica 0 on it, the replica count and each group's link ("nvlink"|"network"|"none"),
/// all from layout.h replica_view. A pinned grid that is not the cluster's GPU count gives
/// "view": null and "problems": [{"code": "launch.world_size_mismatch", ...}].
/// import_model -> {"model": {...pplan model object...}, "mapped_from": {...}, "notes": [...]}
/// from a Hugging Face config.json (hf_config.h).
/// calibrate (with "nccl_tests": [TEXT, ...] and/or "steps": [{"parallel": {...}, "step_time_s": x}
/// | {"parallel": {...}, "log": TEXT}, ...]) -> {"gpu", "constants", "measurements",
/// "rms_log_error", "notes", "plan_before", "plan_after", "plan_changed", "wins_by"}:
/// io/calibrate_json.h. Pasted texts may hold newlines and tabs (only there).
/// plan and explain add "timing": {"elapsed_ms": ...}, the search's wall time, as the last
/// top-level key: the one figure that differs between runs (goldens and tests drop it;
/// "timing": false in the request leaves it out, so the answer is byte-identical).
/// Response: {"ok": true, "schema_version": 1, "engine_version": "...", ...} or
///           {"ok": false, "error": {"code", "path", "message"}}.
/// Error paths inside the scenario are JSON pointers relative to the scenario document
/// ("/parallel/ppp"), so they read the same for a file and for a request.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pplan {

/// Options of a command, beside the scenario.
struct RequestOptions {
  int top = 10;               ///< plan: number of plans to return
  std::string format;         ///< launch: output format
  bool nearest_gpus = false;  ///< plan: when nothing fits, the nearest GPU counts with a plan
  bool timing = true;         ///< plan/explain: add the top-level "timing" block
  std::string name;           ///< import_model: the imported model's name (default: from the config)
  bool sources = true;        ///< presets: each model's and GPU's "source" (the page leaves them out)
  /// calibrate: the pasted nccl-tests outputs (an array of strings) and the measured steps
  /// (an array of {"parallel", "step_time_s" | "log"}); null when not given.
  nlohmann::json nccl_tests;
  nlohmann::json steps;
};

/// Handles a whole request envelope (what the wasm module receives).
std::string handle_request(std::string_view request_json) noexcept;

/// Handles one command on a document given as text (what the CLI does with a file): the
/// scenario, or for import_model the config.json.
std::string handle_command(std::string_view command, std::string_view document_json,
                           const RequestOptions& options) noexcept;

/// The engine's version (project VERSION), separate from the schema version.
const char* engine_version() noexcept;

}  // namespace pplan
