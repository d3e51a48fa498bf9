#pragma once
/// The JSON boundary: strict parsing of scenarios (every error names its JSON path) and
/// serialisation of results. Human units (GB, TFLOP/s, GB/s) are converted here and only here.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan {

/// Version of the scenario and response documents (separate from the engine version).
inline constexpr int kSchemaVersion = 1;

/**
 * A malformed request. Thrown only inside json_io and caught only by handle_request.
 * Codes (stable):
 * | code                        | meaning                                                 |
 * |-----------------------------|---------------------------------------------------------|
 * | schema.parse_error          | not JSON (truncated, syntax error)                      |
 * | schema.not_an_object        | a document or block that must be an object is not       |
 * | schema.unknown_field        | a key the schema does not have (typos are errors)       |
 * | schema.missing_field        | a required key is absent                                |
 * | schema.wrong_type           | e.g. a string where a number belongs                    |
 * | schema.bad_enum             | a string outside the allowed values                     |
 * | schema.version_unsupported  | schema_version newer than this engine                   |
 * | input.out_of_range          | zero, negative or absurd sizes                          |
 * | input.not_integer           | a count with a fractional part                          |
 * | input.inconsistent          | fields that contradict each other (hidden % heads)      |
 * | input.unknown_preset        | a preset id that does not exist                         |
 * | request.unknown_command     | the request's command is not one the engine serves      |
 * | request.bad_option          | a request option (top, format) is invalid               |
 * | internal                    | a bug: reported, never a crash                          |
 */
class InputError : public std::runtime_error {
 public:
  InputError(std::string code, std::string path, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)), path_(std::move(path)) {}
  const std::string& code() const { return code_; }
  const std::string& path() const { return path_; }

 private:
  std::string code_;
  std::string path_;
};

/// The built-in presets, parsed from core/presets/ (embedded at build time).
struct PresetCatalog {
  std::map<std::string, ModelSpec> models;
  std::map<std::string, GpuSpec> gpus;
  Calibration calibration;
};

/// Parses the embedded preset files. Pure; cheap enough to call per request.
PresetCatalog load_presets();

/// Parses a scenario document strictly. Throws InputError with a JSON-pointer path.
Scenario parse_scenario(const nlohmann::json& document, const PresetCatalog& presets);

/// Parses a model object (custom model spec) at `path`.
ModelSpec parse_model(const nlohmann::json& value, const std::string& path);

/// Parses a GPU object (custom GPU spec) at `path`; over `base` (a preset named by the object's
/// "preset") every field is an optional override.
GpuSpec parse_gpu(const nlohmann::json& value, const std::string& path, const GpuSpec* base = nullptr);

/// Parses the calibration document (core/presets/calibration/calibration.json).
Calibration parse_calibration(const nlohmann::json& document, const std::string& path);

/// The calibration document with `calibration`'s values (what pplan_calibrate writes back):
/// `document`'s sources and structure, every "value" replaced.
nlohmann::ordered_json calibration_to_json(const Calibration& calibration,
                                           const nlohmann::ordered_json& document);

/// "megatron-core" | "megatron-lm" | "deepspeed" | "torchtitan" → Framework; nullopt otherwise.
std::optional<Framework> framework_from_name(const std::string& name);

/// JSON of a complete parallel config, with the scenario's input keys.
nlohmann::ordered_json parallel_to_json(const ParallelConfig& parallel);

/// JSON of a model spec (as a custom model object would be written).
nlohmann::ordered_json model_to_json(const ModelSpec& model);

/// JSON of a GPU spec (as a custom GPU object would be written).
nlohmann::ordered_json gpu_to_json(const GpuSpec& gpu);

/// The contract's estimate object (without the envelope keys `ok`/`schema_version`).
nlohmann::ordered_json estimate_to_json(const Estimate& estimate, const Scenario& scenario);

/// Rounds every number in a document to 6 significant digits (reviewable, and identical
/// natively and in wasm); non-finite numbers become an internal error, never null.
void round_numbers(nlohmann::ordered_json& document);

/// "none" | "selective" | "full".
const char* recompute_name(Recompute recompute);
/// "gelu" | "swiglu".
const char* activation_name(Activation activation);
/// "bf16" | "fp8".
const char* precision_name(Precision precision);

}  // namespace pplan
