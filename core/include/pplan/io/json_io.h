#pragma once
/// The JSON boundary: strict parsing of scenarios (every error names its JSON path) and
/// serialisation of results. Human units (GB, TFLOP/s, GB/s) are converted here and only here.

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pplan/diagnostics.h"
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
 * | schema.duplicate_key        | a key given twice in one object (at its path)           |
 * | schema.not_an_object        | a document or block that must be an object is not       |
 * | schema.unknown_field        | a key the schema does not have (typos are errors)       |
 * | schema.missing_field        | a required key is absent                                |
 * | schema.wrong_type           | e.g. a string where a number belongs                    |
 * | schema.bad_enum             | a string outside the allowed values                     |
 * | schema.version_unsupported  | schema_version newer than this engine                   |
 * | input.out_of_range          | zero, negative, absurd or sub-physical sizes; a number  |
 * |                             | literal beyond a double (at its field); an input whose  |
 * |                             | figures leave a double's range (blame_input names it)   |
 * | input.not_integer           | a count with a fractional part                          |
 * | input.inconsistent          | fields that contradict each other (hidden % heads)      |
 * | input.unknown_preset        | a preset id that does not exist ("did you mean")        |
 * | input.control_character     | a control, line-separator or bidi-override character in |
 * |                             | any string or key (text.h first_forbidden_character)    |
 * | input.nul_byte              | a NUL byte anywhere in the document                     |
 * | input.too_large             | more than kMaxDocumentBytes or kMaxDocumentValues       |
 * | input.too_deep              | nesting deeper than kMaxDocumentDepth                   |
 * | import.unknown_architecture | import_model: a config.json pplan cannot map            |
 * | import.unsupported          | import_model: a feature pplan's model cannot express    |
 * | import.missing_field        | import_model: a field the architecture needs is absent  |
 * | request.unknown_command     | the request's command is not one the engine serves      |
 * | request.bad_option          | a request option (top, format) is invalid; in the CLI,  |
 * |                             | an unknown, repeated, missing or misplaced option       |
 * | request.unreadable_file     | CLI: the FILE is missing, unreadable or a directory     |
 * | request.empty_input         | CLI: the FILE or stdin holds no JSON (empty, /dev/null) |
 * | resource.out_of_memory      | allocation failed (never a crash)                       |
 * | internal                    | a bug: reported, never a crash                          |
 */
// InputError, which carries one of these codes, is declared in diagnostics.h: every layer may
// refuse input with it.

/// Limits of every document the engine reads (docs/hardening.md); the CLI enforces the byte
/// limit while reading a file, so /dev/zero or a 5 GB file costs at most this much memory.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{64} << 20;  // 64 MiB
inline constexpr int kMaxDocumentDepth = 64;
inline constexpr std::size_t kMaxDocumentValues = std::size_t{1} << 20;

/**
 * Parses JSON text strictly, throwing InputError with the JSON pointer of the offence: NUL
 * bytes, more than kMaxDocumentBytes, duplicate keys at any depth, control characters in any
 * string or key, number literals beyond a double, nesting beyond kMaxDocumentDepth. Pointers
 * under `relative_to` ("/scenario") are reported relative to it ("/model/name").
 */
nlohmann::json parse_document(std::string_view text, std::string_view relative_to = {});

/// The built-in presets, parsed from core/presets/ (embedded at build time).
struct PresetCatalog {
  std::map<std::string, ModelSpec> models;
  std::map<std::string, GpuSpec> gpus;
  Calibration calibration;
};

/// Parses the embedded preset files. Pure.
PresetCatalog load_presets();

/// load_presets(), parsed once: the embedded files never change while the engine runs, and
/// parsing them was a third of the page's first plan in a cold wasm engine.
const PresetCatalog& preset_catalog();

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

/**
 * The input behind a non-finite figure: the pointer of the first number in `document` whose
 * reset to `reference`'s value at the same pointer makes `finite(changed document)` true, or
 * "/" when no single input does (at most 64 tries, each a re-run: the error path only; the
 * physical lower bounds make it unreachable for every figure pplan computes today).
 */
std::string blame_input(const nlohmann::json& document, const nlohmann::json& reference,
                        const std::function<bool(const nlohmann::json&)>& finite);

/// Rounds every number in a document to 6 significant digits (reviewable, and identical
/// natively and in wasm); non-finite numbers become an internal error, never null.
void round_numbers(nlohmann::ordered_json& document);

/**
 * The document as text (2-space indent, invalid UTF-8 in quoted input replaced by U+FFFD),
 * every float in its shortest form: nlohmann's Grisu2 sometimes prints 17 digits for a
 * 6-digit value (2.74772e209 -> 2.7477200000000002e+209); such a token is rewritten with the
 * fewest digits that read back to the same double, in nlohmann's own layout.
 */
std::string dump_document(const nlohmann::ordered_json& document);

}  // namespace pplan
