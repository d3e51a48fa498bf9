#include "pplan/io/json_io.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "pplan/calibrate/measurements.h"
#include "pplan/model/architecture.h"
#include "pplan/framework/framework.h"
#include "pplan/text.h"
#include "pplan/units.h"
#include "presets_data.h"

namespace pplan {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

/// A JSON pointer reference token (RFC 6901: "~" -> "~0", "/" -> "~1"), cut at 80 bytes.
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out.size() > 80 ? truncate_utf8(out, 80) + "…" : out;
}

/// Shortest decimal form of a bound, for messages ("0.001", "1e+07").
std::string bound_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return std::to_string(static_cast<long long>(x));
  return format_significant(x, 6);
}

std::string suggestion_text(std::string_view input, const std::vector<std::string>& candidates) {
  const std::optional<std::string> best = closest_match(input, candidates);
  return best ? " (did you mean \"" + *best + "\"?)" : "";
}

/// Reads one JSON object strictly: every key must be read, unknown keys are errors.
class ObjectReader {
 public:
  ObjectReader(const json& value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value_.is_object()) {
      throw InputError("schema.not_an_object", path_or_root(),
                       where() + " must be an object, not " + type_name(value_));
    }
  }

  bool has(const char* key) const {
    auto it = value_.find(key);
    return it != value_.end() && !it->is_null();
  }

  const json& raw(const char* key) {
    allow(key);
    auto it = value_.find(key);
    if (it == value_.end()) {
      throw InputError("schema.missing_field", child(key), "missing required field " + child(key));
    }
    return *it;
  }

  std::string child(const char* key) const { return path_ + "/" + key; }

  /// An integer in [lo, hi].
  int integer(const char* key, long long lo, long long hi) {
    const json& v = raw(key);
    return to_integer(v, child(key), lo, hi);
  }
  std::optional<int> optional_integer(const char* key, long long lo, long long hi) {
    allow(key);
    if (!has(key)) return std::nullopt;
    return integer(key, lo, hi);
  }

  /// A finite number in [lo, hi]; lo is the field's physical lower bound (never 0 for a rate
  /// or a size, so no division downstream reaches infinity).
  double number(const char* key, double lo, double hi) {
    const double x = finite_number(key);
    if (x < lo || x > hi) {
      throw InputError("input.out_of_range", child(key),
                       child(key) + " = " + raw(key).dump() + " is out of range: it must be between " +
                           bound_text(lo) + " and " + bound_text(hi));
    }
    return x;
  }
  std::optional<double> optional_number(const char* key, double lo, double hi) {
    allow(key);
    if (!has(key)) return std::nullopt;
    return number(key, lo, hi);
  }
  /// 0 (the field's "none"), or a number in [lo, hi].
  std::optional<double> optional_zero_or_number(const char* key, double lo, double hi) {
    allow(key);
    if (!has(key)) return std::nullopt;
    const double x = finite_number(key);
    if (x != 0 && (x < lo || x > hi)) {
      throw InputError("input.out_of_range", child(key),
                       child(key) + " = " + raw(key).dump() + " is out of range: it must be 0 (none) or between " +
                           bound_text(lo) + " and " + bound_text(hi));
    }
    return x;
  }

  /// A string of at most `max_characters` Unicode characters (code points, not bytes).
  std::string string(const char* key, std::size_t max_characters = 200) {
    const json& v = raw(key);
    if (!v.is_string()) {
      throw InputError("schema.wrong_type", child(key),
                       child(key) + " must be a string, not " + type_name(v));
    }
    std::string s = v.get<std::string>();
    if (s.size() > max_characters && utf8_length(s) > max_characters) {
      throw InputError("input.out_of_range", child(key),
                       child(key) + " is longer than " + std::to_string(max_characters) +
                           " characters (" + std::to_string(utf8_length(s)) + ")");
    }
    return s;
  }
  std::optional<std::string> optional_string(const char* key, std::size_t max_characters = 200) {
    allow(key);
    if (!has(key)) return std::nullopt;
    return string(key, max_characters);
  }

  bool boolean(const char* key) {
    const json& v = raw(key);
    if (!v.is_boolean()) {
      throw InputError("schema.wrong_type", child(key),
                       child(key) + " must be true or false, not " + type_name(v));
    }
    return v.get<bool>();
  }
  std::optional<bool> optional_boolean(const char* key) {
    allow(key);
    if (!has(key)) return std::nullopt;
    return boolean(key);
  }

  /// One of `allowed`; returns its index.
  int choice(const char* key, const std::vector<std::string_view>& allowed) {
    const std::string s = string(key, 64);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      if (allowed[i] == s) return static_cast<int>(i);
      names.emplace_back(allowed[i]);
    }
    std::string list;
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      list += (i ? ", \"" : "\"") + std::string(allowed[i]) + "\"";
    }
    throw InputError("schema.bad_enum", child(key),
                     child(key) + " = \"" + s + "\" is not one of " + list + suggestion_text(s, names));
  }
  std::optional<int> optional_choice(const char* key, const std::vector<std::string_view>& allowed) {
    allow(key);
    if (!has(key)) return std::nullopt;
    return choice(key, allowed);
  }

  /// Rejects keys nobody read: a typo is an error, never silently ignored.
  void finish() const {
    for (auto it = value_.begin(); it != value_.end(); ++it) {
      if (std::find(known_.begin(), known_.end(), it.key()) == known_.end()) {
        const std::string key_path = path_ + "/" + pointer_token(it.key());
        throw InputError("schema.unknown_field", key_path,
                         "unknown field " + key_path + suggestion_text(it.key(), known_));
      }
    }
  }

  /// Marks `key` as part of the schema (in schema order, which "did you mean" prefers on ties).
  void allow(const char* key) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  }
  const std::string& path() const { return path_; }
  std::string path_or_root() const { return path_.empty() ? "/" : path_; }

 private:
  std::string where() const { return path_.empty() ? "the document" : path_; }

  double finite_number(const char* key) {
    const json& v = raw(key);
    if (!v.is_number()) {
      throw InputError("schema.wrong_type", child(key),
                       child(key) + " must be a number, not " + type_name(v));
    }
    const double x = v.get<double>();
    if (!std::isfinite(x)) {
      throw InputError("input.out_of_range", child(key), child(key) + " must be finite");
    }
    return x;
  }

  static int to_integer(const json& v, const std::string& path, long long lo, long long hi) {
    if (!v.is_number()) {
      throw InputError("schema.wrong_type", path, path + " must be an integer, not " + type_name(v));
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x != std::floor(x)) {
      throw InputError("input.not_integer", path, path + " = " + v.dump() + " must be a whole number");
    }
    if (x < double(lo) || x > double(hi)) {
      throw InputError("input.out_of_range", path,
                       path + " = " + v.dump() + " is out of range: it must be between " +
                           std::to_string(lo) + " and " + std::to_string(hi));
    }
    return static_cast<int>(x);
  }

  const json& value_;
  std::string path_;
  std::vector<std::string> known_;
};

/// The request strings that hold pasted text (calibrate's "nccl_tests" entries and step
/// logs): parsed, never echoed into a script, so they alone may hold newlines and tabs.
bool is_pasted_text(const std::string& absolute_path) {
  auto index_then = [&](std::size_t at, const std::string& rest) {
    std::size_t end = at;
    while (end < absolute_path.size() && absolute_path[end] >= '0' && absolute_path[end] <= '9') ++end;
    return end > at && absolute_path.compare(end, std::string::npos, rest) == 0;
  };
  if (absolute_path.rfind("/nccl_tests/", 0) == 0) return index_then(12, "");
  if (absolute_path.rfind("/steps/", 0) == 0) return index_then(7, "/log");
  return false;
}

/**
 * Builds the document from the parser's events and refuses, with the JSON pointer of the
 * value: a duplicate key (RFC 8259 leaves it undefined; last-one-wins would let a second
 * schema_version override the first), a control character in any string or key, a number
 * beyond a double, nesting deeper than kMaxDocumentDepth, more than kMaxDocumentValues values.
 */
class StrictBuilder : public nlohmann::json_sax<json> {
 public:
  explicit StrictBuilder(std::string_view relative_to) : relative_to_(relative_to) {}

  json take() { return std::move(root_); }

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool value) override { return put(json(value)); }
  bool number_integer(number_integer_t value) override { return put(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return put(json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return put(json(value)); }
  bool string(string_t& value) override {
    check_text(value, value_path());
    return put(json(std::move(value)));
  }
  bool binary(binary_t& value) override { return put(json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    Frame& frame = stack_.back();
    frame.key = std::move(key);
    const std::string path = shown(value_path());
    check_text(frame.key, value_path());
    if (frame.container->contains(frame.key)) {
      throw InputError("schema.duplicate_key", path,
                       "duplicate key " + path + ": each key may appear once in an object");
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    if (error.id == 406) {  // a number literal beyond a double (1e400)
      const std::string path = shown(value_path());
      throw InputError("input.out_of_range", path,
                       path + " is a number too large for a double (beyond ±1.8e308)");
    }
    std::string where;
    if (!stack_.empty()) where = " (inside " + shown(container_path()) + ")";
    throw InputError("schema.parse_error", "/",
                     "not valid JSON (truncated or malformed) at byte " + std::to_string(position) +
                         where + ": " + error.what());
  }

 private:
  struct Frame {
    json* container;
    std::string key;       ///< the pending key (objects)
    std::size_t index = 0; ///< the next element's index (arrays)
    std::string path;      ///< pointer of the container, absolute
  };

  std::string container_path() const { return stack_.empty() ? "" : stack_.back().path; }

  /// Pointer of the value about to be stored, absolute (inside the whole document).
  std::string value_path() const {
    if (stack_.empty()) return "";
    const Frame& frame = stack_.back();
    return frame.path + "/" +
           (frame.container->is_object() ? pointer_token(frame.key) : std::to_string(frame.index));
  }

  /// A pointer as the caller names it: relative to `relative_to_` when inside it.
  std::string shown(const std::string& absolute) const {
    if (!relative_to_.empty() && absolute.size() > relative_to_.size() &&
        absolute.compare(0, relative_to_.size(), relative_to_) == 0 &&
        absolute[relative_to_.size()] == '/') {
      return absolute.substr(relative_to_.size());
    }
    return absolute.empty() ? "/" : absolute;
  }

  void check_text(const std::string& text, const std::string& absolute_path) const {
    if (is_pasted_text(absolute_path)) {
      if (const auto bad = forbidden_in_pasted_text(text)) {
        const std::string path = shown(absolute_path);
        throw InputError("input.control_character", path,
                         path + " contains a control character at " + *bad +
                             ": pasted text may hold newlines and tabs, nothing else (strip terminal "
                             "colours, e.g. torchtitan's --metrics.disable_color_printing)");
      }
      return;
    }
    if (const auto bad = first_forbidden_character(text)) {
      const std::string path = shown(absolute_path);
      throw InputError("input.control_character", path,
                       path + " contains the control character " + code_point_name(bad->code_point) +
                           " at character " + std::to_string(bad->character_index + 1) +
                           ": strings must be printable text on one line (no newline, tab, NUL, "
                           "U+2028/U+2029 or bidirectional override)");
    }
  }

  void count_value() {
    if (++values_ > kMaxDocumentValues) {
      throw InputError("input.too_large", "/",
                       "the document has more than " + std::to_string(kMaxDocumentValues) +
                           " values (the limit of every request)");
    }
  }

  bool put(json value) {
    count_value();
    if (stack_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& frame = stack_.back();
    if (frame.container->is_object()) {
      (*frame.container)[frame.key] = std::move(value);
    } else {
      frame.container->push_back(std::move(value));
      ++frame.index;
    }
    return true;
  }

  bool open(json empty) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxDocumentDepth)) {
      const std::string path = shown(value_path());
      throw InputError("input.too_deep", path,
                       path + " nests deeper than " + std::to_string(kMaxDocumentDepth) +
                           " levels (the limit of every request)");
    }
    const std::string path = value_path();
    count_value();
    json* slot = nullptr;
    if (stack_.empty()) {
      root_ = std::move(empty);
      slot = &root_;
    } else {
      Frame& frame = stack_.back();
      if (frame.container->is_object()) {
        slot = &((*frame.container)[frame.key] = std::move(empty));
      } else {
        frame.container->push_back(std::move(empty));
        slot = &frame.container->back();
      }
    }
    stack_.push_back({slot, {}, 0, path});
    return true;
  }

  bool close() {
    stack_.pop_back();
    if (!stack_.empty() && stack_.back().container->is_array()) ++stack_.back().index;
    return true;
  }

  std::string relative_to_;
  json root_;
  std::vector<Frame> stack_;
  std::size_t values_ = 0;
};

// Limits: generous for real systems, small enough that no product overflows or hangs.
constexpr long long kMaxGpus = 1LL << 20;        // 1,048,576
constexpr long long kMaxLayers = 100000;
constexpr long long kMaxWidth = 1LL << 22;       // hidden, ffn
constexpr long long kMaxHeads = 1LL << 16;
constexpr long long kMaxVocab = 10000000;
constexpr long long kMaxSeq = 1LL << 24;
constexpr long long kMaxBatch = 100000000;
constexpr long long kMaxDegree = 1LL << 20;

// Physical lower bounds (issue #14): real parts sit many orders above them, and with them no
// derived time, rate or count leaves the range of a double (1e-308 TFLOP/s used to give an
// infinite step time).
constexpr double kMinGB = 1e-3;            // 1 MB of memory
constexpr double kMinTflops = 1e-3;        // 1 GFLOP/s
constexpr double kMinGBps = 1e-3;          // 1 MB/s of HBM, NVLink or network
constexpr double kMinEfficiency = 1e-3;    // 0.1% of peak
constexpr double kMinStorageGBps = 1e-6;   // 1 KB/s of checkpoint storage
constexpr double kMinFailureRate = 1e-12;  // failures per GPU-hour

// In the order of the Activation enum (specs.h).
// In Activation's order.
const std::vector<std::string_view> kActivations = {"gelu", "swiglu", "geglu", "squared_relu", "clamped_swiglu"};
const std::vector<std::string_view> kPrecisions = {"bf16", "fp8"};
const std::vector<std::string_view> kRecomputes = {"none", "selective", "full"};
/// ScheduleKind order (specs.h schedule_name).
const std::vector<std::string_view> kSchedules = {"1f1b", "interleaved", "zb-h1", "zb-v", "dualpipe", "dualpipev"};
const std::vector<std::string_view> kArchitectures = {"ampere", "hopper", "blackwell", "other"};
// In the order of the Framework, Fp8Recipe and OptimizerStateDtype enums (specs.h).
const std::vector<std::string_view> kFrameworks = {"megatron-core", "megatron-lm", "deepspeed", "torchtitan"};
const std::vector<std::string_view> kFp8Recipes = {"delayed", "current", "blockwise", "mxfp8", "nvfp4"};
const std::vector<std::string_view> kOptimizerStateDtypes = {"fp32", "bf16"};
const std::vector<std::string_view> kMoeDispatchers = {"alltoall", "flex"};

void check_schema_version(ObjectReader& reader, bool required) {
  std::optional<int> v = required ? std::optional<int>(reader.integer("schema_version", 0, 1000000))
                                  : reader.optional_integer("schema_version", 0, 1000000);
  if (v && *v != kSchemaVersion) {
    throw InputError(*v > kSchemaVersion ? "schema.version_unsupported" : "input.out_of_range",
                     reader.child("schema_version"),
                     "schema_version " + std::to_string(*v) + " is not supported (this engine reads " +
                         std::to_string(kSchemaVersion) + ")");
  }
}

/// The preset `id`, or input.unknown_preset with "did you mean" (across case and near misses:
/// "gpt3-175B", "llama3-405") and the list of presets.
template <typename Spec>
const Spec& find_preset(const std::map<std::string, Spec>& presets, const std::string& id,
                        const char* path, const char* kind) {
  auto it = presets.find(id);
  if (it != presets.end()) return it->second;
  std::vector<std::string> known;
  std::string list;
  for (const auto& kv : presets) {
    known.push_back(kv.first);
    list += (list.empty() ? "" : ", ") + kv.first;
  }
  throw InputError("input.unknown_preset", path,
                   std::string("unknown ") + kind + " preset \"" + printable(id, 64) + "\"" +
                       suggestion_text(id, known) + " (presets: " + list + ")");
}

/// parallel.recompute_modules: Megatron's module names, each once, each one the model has (MLA's
/// up-projections need MLA; moe, moe_act and shared_experts experts, shared ones the last; mlp a
/// dense MLP layer). It sets selective recomputation; with another recompute it is refused.
unsigned parse_recompute_modules(const json& value, const std::string& path, const ModelSpec& model,
                                 ParallelConstraints& c) {
  if (!value.is_array() || value.empty() || value.size() > kRecomputeModuleCount) {
    throw InputError("schema.wrong_type", path, path + " must be a non-empty list of module names");
  }
  if (c.recompute && *c.recompute != Recompute::kSelective) {
    throw InputError("input.inconsistent", path, path + " names the modules of selective recomputation, but "
                     "parallel.recompute is \"" + recompute_name(*c.recompute) + "\"");
  }
  const bool moe = model.moe && model.moe->experts > 0;
  unsigned mask = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = path + "/" + std::to_string(i);
    if (!value[i].is_string()) throw InputError("schema.wrong_type", at, at + " must be a module name");
    const std::string name = value[i].get<std::string>();
    std::size_t bit = 0;
    while (bit < kRecomputeModuleCount && name != kRecomputeModuleNames[bit]) ++bit;
    if (bit == kRecomputeModuleCount) {
      throw InputError("schema.bad_enum", at, at + ": \"" + printable(name, 32) +
                       "\" is not a module (core_attn, mla_up_proj, layernorm, moe_act, mlp, moe, shared_experts)");
    }
    if (mask & (1u << bit)) throw InputError("input.inconsistent", at, at + ": \"" + name + "\" is listed twice");
    const unsigned m = 1u << bit;
    const bool has = m == kRecomputeMlaUpProj ? model.mla.has_value()
                     : (m == kRecomputeMoe || m == kRecomputeMoeAct) ? moe
                     : m == kRecomputeSharedExperts ? moe && model.moe->shared_experts > 0
                     : m == kRecomputeMlp ? !moe || model.moe->dense_layers > 0 || model.moe->every > 1
                     : true;
    if (!has) throw InputError("input.inconsistent", at, at + ": the model has no " + name + " to recompute");
    mask |= m;
  }
  c.recompute = Recompute::kSelective;
  return mask;
}

MoeSpec parse_moe(const json& value, const std::string& path, int layers) {
  ObjectReader r(value, path);
  MoeSpec moe;
  moe.experts = r.integer("experts", 1, 65536);
  moe.top_k = r.integer("top_k", 1, moe.experts);
  moe.shared_experts = r.optional_integer("shared_experts", 0, 64).value_or(0);
  moe.expert_ffn_hidden = r.integer("expert_ffn_hidden", 1, kMaxWidth);
  moe.dense_layers = r.optional_integer("dense_layers", 0, layers).value_or(0);
  moe.every = r.optional_integer("every", 1, layers).value_or(1);
  moe.groups = r.optional_integer("groups", 1, moe.experts).value_or(0);
  moe.group_top_k = r.optional_integer("group_top_k", 1, std::max(1, moe.groups)).value_or(0);
  // Megatron's checks (transformer_config.py): groups divide the experts; a group_top_k needs
  // groups. Both or neither.
  if ((moe.groups > 0) != (moe.group_top_k > 0)) {
    const char* missing = moe.groups > 0 ? "group_top_k" : "groups";
    throw InputError("input.inconsistent", r.child(missing),
                     r.child(missing) + " is missing: group-limited routing needs both groups and group_top_k");
  }
  if (moe.groups > 0 && moe.experts % moe.groups != 0) {
    throw InputError("input.inconsistent", r.child("groups"),
                     r.child("groups") + " = " + std::to_string(moe.groups) + " does not divide the " +
                         std::to_string(moe.experts) + " experts");
  }
  r.finish();
  return moe;
}

MambaSpec parse_mamba(const json& value, const std::string& path) {
  ObjectReader r(value, path);
  MambaSpec m;
  m.heads = r.integer("heads", 1, 65536);
  m.head_dim = r.integer("head_dim", 1, 65536);
  m.state = r.integer("state", 1, 65536);
  m.groups = r.optional_integer("groups", 1, m.heads).value_or(1);
  m.conv_kernel = r.optional_integer("conv_kernel", 1, 64).value_or(4);
  m.chunk = r.optional_integer("chunk", 1, 65536).value_or(128);
  r.finish();
  if (m.heads % m.groups != 0) {
    throw InputError("input.inconsistent", r.child("groups"),
                     r.child("groups") + " = " + std::to_string(m.groups) + " must divide heads = " +
                         std::to_string(m.heads));
  }
  return m;
}

LocalAttentionSpec parse_local_attention(const json& value, const std::string& path, int layers) {
  ObjectReader r(value, path);
  LocalAttentionSpec local;
  local.tokens = r.integer("tokens", 1, kMaxSeq);
  local.global_every = r.integer("global_every", 0, layers);
  local.chunked = r.optional_boolean("chunked").value_or(false);
  r.finish();
  return local;
}

MlaSpec parse_mla(const json& value, const std::string& path) {
  ObjectReader r(value, path);
  MlaSpec mla;
  // Absent (or null): queries projected directly, as DeepSeek-V2-Lite; 0 is no width at all.
  mla.q_lora_rank = r.optional_integer("q_lora_rank", 1, kMaxWidth).value_or(0);
  mla.kv_lora_rank = r.integer("kv_lora_rank", 1, kMaxWidth);
  mla.qk_nope_head_dim = r.integer("qk_nope_head_dim", 1, 65536);
  mla.qk_rope_head_dim = r.integer("qk_rope_head_dim", 0, 65536);
  mla.v_head_dim = r.integer("v_head_dim", 1, 65536);
  r.finish();
  return mla;
}

}  // namespace

std::optional<Framework> framework_from_name(const std::string& name) {
  for (std::size_t i = 0; i < kFrameworks.size(); ++i) {
    if (kFrameworks[i] == name) return static_cast<Framework>(i);
  }
  return std::nullopt;
}

namespace {

/// The calibration's numbers by name, for reading and writing the calibration document.
struct ArchitectureField {
  const char* key;
  double ArchitectureCalibration::*member;
};
const ArchitectureField kArchitectureFields[] = {
    {"mamf_fraction_bf16", &ArchitectureCalibration::mamf_fraction_bf16},
    {"mamf_fraction_fp8", &ArchitectureCalibration::mamf_fraction_fp8},
    {"attention_peak_fraction", &ArchitectureCalibration::attention_peak_fraction},
    {"attention_half_keys", &ArchitectureCalibration::attention_half_keys},
    {"attention_backward_ratio", &ArchitectureCalibration::attention_backward_ratio},
    {"mma_bf16_flops_per_clock_per_sm", &ArchitectureCalibration::mma_bf16_flops_per_clock_per_sm},
    {"softmax_exp_per_clock_per_sm", &ArchitectureCalibration::softmax_exp_per_clock_per_sm},
    {"gemm_in_step", &ArchitectureCalibration::gemm_in_step},
    {"attention_in_step", &ArchitectureCalibration::attention_in_step},
    {"gpu_speed_spread", &ArchitectureCalibration::gpu_speed_spread},
};
struct GlobalField {
  const char* key;
  double Calibration::*member;
};
const GlobalField kGlobalFields[] = {
    {"host_kernel_s", &Calibration::host_kernel_s},
    {"host_collective_s", &Calibration::host_collective_s},
    {"overlap_slowdown", &Calibration::overlap_slowdown},
    {"hbm_efficiency", &Calibration::hbm_efficiency},
    {"softmax_exp_exposed", &Calibration::softmax_exp_exposed},
};
struct ArchitectureBlock {
  const char* key;
  ArchitectureCalibration Calibration::*member;
};
const ArchitectureBlock kArchitectureBlocks[] = {
    {"ampere", &Calibration::ampere}, {"hopper", &Calibration::hopper}, {"blackwell", &Calibration::blackwell}};

/// One constant: {"value", "source"?, "fitted"?}.
double read_constant(const json& value, const std::string& path, double lo, double hi) {
  ObjectReader r(value, path);
  const double v = r.number("value", lo, hi);
  r.optional_string("source", 2000);
  r.optional_boolean("fitted");
  r.finish();
  return v;
}

}  // namespace

Calibration parse_calibration(const json& document, const std::string& path) {
  ObjectReader root(document, path);
  check_schema_version(root, true);
  root.optional_string("about", 4000);
  Calibration c;
  {
    ObjectReader archs(root.raw("architectures"), root.child("architectures"));
    for (const ArchitectureBlock& block : kArchitectureBlocks) {
      ObjectReader r(archs.raw(block.key), archs.child(block.key));
      ArchitectureCalibration& a = c.*block.member;
      a.sm_count = static_cast<int>(read_constant(r.raw("sm_count"), r.child("sm_count"), 1, 100000));
      for (const ArchitectureField& f : kArchitectureFields) {
        a.*f.member = read_constant(r.raw(f.key), r.child(f.key), 0, 1e6);
      }
      r.finish();
    }
    archs.finish();
  }
  for (const GlobalField& f : kGlobalFields) c.*f.member = read_constant(root.raw(f.key), root.child(f.key), 0, 1e6);
  root.finish();
  return c;
}

ordered_json calibration_to_json(const Calibration& c, const ordered_json& document) {
  ordered_json out = document;
  for (const ArchitectureBlock& block : kArchitectureBlocks) {
    ordered_json& a = out["architectures"][block.key];
    a["sm_count"]["value"] = (c.*block.member).sm_count;
    for (const ArchitectureField& f : kArchitectureFields) a[f.key]["value"] = (c.*block.member).*f.member;
  }
  for (const GlobalField& f : kGlobalFields) out[f.key]["value"] = c.*f.member;
  return out;
}

ModelSpec parse_model(const json& value, const std::string& path) {
  ObjectReader r(value, path);
  check_schema_version(r, false);
  ModelSpec m;
  m.id = r.optional_string("id", 64).value_or("custom");
  m.name = r.optional_string("name").value_or("custom model");
  m.layers = r.integer("layers", 1, kMaxLayers);
  m.hidden = r.integer("hidden", 1, kMaxWidth);
  m.heads = r.integer("heads", 1, kMaxHeads);
  m.kv_heads = r.optional_integer("kv_heads", 1, m.heads).value_or(m.heads);
  m.head_dim = r.optional_integer("head_dim", 1, 65536).value_or(0);
  m.qk_norm = r.optional_boolean("qk_norm").value_or(false);
  m.linear_bias = r.optional_boolean("linear_bias").value_or(false);
  m.attention_sinks = r.optional_boolean("attention_sinks").value_or(false);
  m.ffn_hidden = r.integer("ffn_hidden", 1, kMaxWidth);
  m.vocab = r.integer("vocab", 1, kMaxVocab);
  m.activation = static_cast<Activation>(r.choice("activation", kActivations));
  // GPT-style defaults for GeLU models, Llama-style for SwiGLU ones; each can be overridden.
  const bool gpt_style = m.activation == Activation::kGelu;
  m.tied_embeddings = r.optional_boolean("tied_embeddings").value_or(gpt_style);
  const std::optional<bool> dropout = r.optional_boolean("dropout");
  m.dropout = dropout.value_or(gpt_style);
  m.dropout_given = dropout.has_value();
  m.learned_positions = r.optional_boolean("learned_positions").value_or(gpt_style);
  // RoPE base: rotary models only; RoFormer's and Megatron's 10000 unless given.
  m.rope_theta = r.optional_number("rope_theta", 1, 1e12).value_or(m.learned_positions ? 0 : 10000);
  if (m.learned_positions && m.rope_theta > 0) {
    throw InputError("input.inconsistent", r.child("rope_theta"),
                     path + "/rope_theta is for rotary positions, but learned_positions is true");
  }
  r.allow("moe");
  if (r.has("moe")) m.moe = parse_moe(value.at("moe"), r.child("moe"), m.layers);
  r.allow("mla");
  if (r.has("mla")) m.mla = parse_mla(value.at("mla"), r.child("mla"));
  r.allow("local_attention");
  if (r.has("local_attention")) {
    m.local_attention = parse_local_attention(value.at("local_attention"), r.child("local_attention"), m.layers);
  }
  m.mtp_layers = r.optional_integer("mtp_layers", 0, 16).value_or(0);
  m.hybrid_pattern = r.optional_string("hybrid_pattern", 100000).value_or("");
  r.allow("mamba");
  if (r.has("mamba")) m.mamba = parse_mamba(value.at("mamba"), r.child("mamba"));
  m.nominal_params = r.optional_zero_or_number("nominal_params", 1, 1e16).value_or(0);
  m.source = r.optional_string("source", 2000).value_or("");
  r.finish();
  if (!m.hybrid_pattern.empty()) {
    const std::string at = r.child("hybrid_pattern");
    if (static_cast<long long>(m.hybrid_pattern.size()) != m.layers) {
      throw InputError("input.inconsistent", at,
                       at + " has " + std::to_string(m.hybrid_pattern.size()) + " characters, one per layer, but layers = " +
                           std::to_string(m.layers));
    }
    const std::size_t bad = m.hybrid_pattern.find_first_not_of("M*-");
    if (bad != std::string::npos) {
      throw InputError("schema.bad_enum", at,
                       at + ": character " + std::to_string(bad + 1) +
                           " is not M (Mamba-2), * (attention) or - (MLP)");
    }
    for (char c : m.hybrid_pattern) {
      m.hybrid_attention_layers += c == '*';
      m.hybrid_mlp_layers += c == '-';
      m.hybrid_mamba_layers += c == 'M';
    }
    if ((m.hybrid_mamba_layers > 0) != m.mamba.has_value()) {
      throw InputError("input.inconsistent", r.child("mamba"),
                       m.mamba ? r.child("mamba") + " is given but " + at + " has no M layer"
                               : at + " has Mamba-2 layers (M): give " + r.child("mamba"));
    }
    if (m.moe || m.mla || m.mtp_layers > 0) {
      throw InputError("input.inconsistent", at,
                       at + ": pplan's hybrid layers are Mamba-2, attention and MLP blocks; experts, "
                            "latent attention and MTP modules with them are not priced");
    }
  } else if (m.mamba) {
    throw InputError("input.inconsistent", r.child("mamba"),
                     r.child("mamba") + " needs " + r.child("hybrid_pattern") + " (which layers are Mamba-2)");
  }
  if (m.mla && (m.head_dim > 0 || m.qk_norm)) {
    throw InputError("input.inconsistent", r.child(m.head_dim > 0 ? "head_dim" : "qk_norm"),
                     path + "/" + (m.head_dim > 0 ? "head_dim" : "qk_norm") +
                         " is for multi-head attention; mla gives the per-head widths (and its own norms)");
  }
  if (m.head_dim == 0 && m.hidden % m.heads != 0) {
    throw InputError("input.inconsistent", r.child("hidden"),
                     path + "/hidden = " + std::to_string(m.hidden) +
                         " must be divisible by heads = " + std::to_string(m.heads) +
                         ", or give head_dim (the width of one head)");
  }
  if (m.heads % m.kv_heads != 0) {
    throw InputError("input.inconsistent", r.child("kv_heads"),
                     path + "/kv_heads = " + std::to_string(m.kv_heads) +
                         " must divide heads = " + std::to_string(m.heads));
  }
  return m;
}

namespace {

/// The shapes that identify an architecture: two models with all of them equal are one model.
bool same_shapes(const ModelSpec& a, const ModelSpec& b) {
  const auto moe_shape = [](const std::optional<MoeSpec>& m) {
    return m ? std::array<int, 6>{m->experts, m->top_k, m->shared_experts, m->expert_ffn_hidden, m->dense_layers, m->every}
             : std::array<int, 6>{};
  };
  return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads && a.kv_heads == b.kv_heads &&
         a.ffn_hidden == b.ffn_hidden && a.vocab == b.vocab && a.activation == b.activation &&
         moe_shape(a.moe) == moe_shape(b.moe) && a.hybrid_pattern == b.hybrid_pattern;
}

/**
 * A custom model with every identifying shape of a preset is that preset's model written
 * short (as published tables write Qwen3 or gpt-oss: layers, widths, heads, experts): the
 * architectural details the object leaves out come from the preset instead of the generic
 * defaults, which would price Qwen3's 128-wide heads at hidden / heads = 64. Each field the
 * object gives is kept; what was taken is listed for the info model.details_from_preset.
 * Training choices (dropout, multi-token prediction, routing groups) are not taken.
 */
void take_preset_details(const json& object, const std::map<std::string, ModelSpec>& presets, ModelSpec& m) {
  for (const auto& [id, twin] : presets) {
    if (!same_shapes(m, twin)) continue;
    std::string taken;
    const auto note = [&](const std::string& what) { taken += (taken.empty() ? "" : ", ") + what; };
    const auto head_width = [](const ModelSpec& x) { return x.head_dim > 0 ? x.head_dim : x.hidden / x.heads; };
    if (!object.contains("head_dim") && head_width(m) != head_width(twin)) {
      m.head_dim = twin.head_dim;
      note("head_dim " + std::to_string(twin.head_dim));
    }
    const auto take_flag = [&](const char* key, bool& field, bool value) {
      if (object.contains(key) || field == value) return;
      field = value;
      note(std::string(key) + (value ? " true" : " false"));
    };
    take_flag("qk_norm", m.qk_norm, twin.qk_norm);
    take_flag("linear_bias", m.linear_bias, twin.linear_bias);
    take_flag("attention_sinks", m.attention_sinks, twin.attention_sinks);
    take_flag("tied_embeddings", m.tied_embeddings, twin.tied_embeddings);
    // Positions: learned or rotary, and the rotary base, together (parse_model refuses a base
    // with learned positions).
    if (!object.contains("learned_positions") && !object.contains("rope_theta") &&
        (m.learned_positions != twin.learned_positions || m.rope_theta != twin.rope_theta)) {
      m.learned_positions = twin.learned_positions;
      m.rope_theta = twin.rope_theta;
      note(twin.learned_positions ? "learned_positions true" : "rope_theta " + format_count(twin.rope_theta));
    }
    if (!object.contains("mla") && twin.mla && !m.mla) {
      m.mla = twin.mla;
      note("mla");
    }
    if (!object.contains("local_attention") && twin.local_attention && !m.local_attention) {
      m.local_attention = twin.local_attention;
      note("local_attention (" + std::to_string(twin.local_attention->tokens) + " tokens)");
    }
    if (!taken.empty()) {
      m.details_from_preset = id;
      m.details_taken = taken;
    }
    return;
  }
}

SystemSpec parse_system(const json& value, const std::string& path) {
  ObjectReader r(value, path);
  SystemSpec sys;
  sys.name = r.optional_string("name").value_or("");
  sys.gpus_per_node = r.integer("gpus_per_node", 1, 1024);
  sys.nvlink_domain_gpus = r.optional_integer("nvlink_domain_gpus", 1, 1024).value_or(sys.gpus_per_node);
  if (sys.nvlink_domain_gpus % sys.gpus_per_node != 0) {
    // Not raised to a host silently: pplan's domains are whole hosts (NVSwitch trays, NVL72).
    throw InputError("input.inconsistent", r.child("nvlink_domain_gpus"),
                     r.child("nvlink_domain_gpus") + " = " + std::to_string(sys.nvlink_domain_gpus) +
                         " must be a whole number of hosts of gpus_per_node = " +
                         std::to_string(sys.gpus_per_node));
  }
  sys.nics_per_node = r.optional_integer("nics_per_node", 0, 1024).value_or(0);
  sys.nic_bits_per_s = r.optional_number("nic_gbits_per_s", kMinGBps, 1e5).value_or(0) * 1e9;
  r.optional_string("source", 2000);
  r.finish();
  return sys;
}

}  // namespace

/**
 * Figures of one GPU that contradict each other are refused, since each would price an
 * impossible plan: an FP8 (FP4) peak below the BF16 (FP8) one lets BF16 work outrun the peak
 * MFU is measured against (MFU above 100%), and two memory figures must name one capacity:
 * the same bytes (80 GiB = 85.9 GB), or the vendors' label ("80GB" parts hold 80 GiB).
 */
void check_gpu_is_physical(const GpuSpec& g, const ObjectReader& r, bool both_memory_figures) {
  const double tflops = units::kFlopsPerTflop;
  if (g.fp8_flops_per_s > 0 && g.fp8_flops_per_s < g.bf16_flops_per_s) {
    throw InputError("input.inconsistent", r.child("fp8_tflops"),
                     r.child("fp8_tflops") + " = " + bound_text(g.fp8_flops_per_s / tflops) +
                         " is below bf16_tflops = " + bound_text(g.bf16_flops_per_s / tflops) +
                         ": FP8 tensor cores are at least as fast as BF16 ones (0 = no FP8)");
  }
  const double below_fp4 = g.fp8_flops_per_s > 0 ? g.fp8_flops_per_s : g.bf16_flops_per_s;
  if (g.fp4_flops_per_s > 0 && g.fp4_flops_per_s < below_fp4) {
    throw InputError("input.inconsistent", r.child("fp4_tflops"),
                     r.child("fp4_tflops") + " = " + bound_text(g.fp4_flops_per_s / tflops) +
                         " is below the " + (g.fp8_flops_per_s > 0 ? "FP8" : "BF16") + " peak " +
                         bound_text(below_fp4 / tflops) + ": FP4 tensor cores are the fastest (0 = no FP4)");
  }
  if (both_memory_figures) {
    const double label_gb = g.marketed_memory_bytes / units::kBytesPerGB;
    const double gib = g.memory_bytes / units::kBytesPerGiB;
    const double same_bytes = g.memory_bytes / g.marketed_memory_bytes;
    const bool agree = std::fabs(same_bytes - 1.0) <= 0.01 || std::fabs(gib / label_gb - 1.0) <= 0.01;
    if (!agree) {
      throw InputError("input.inconsistent", r.child("memory_gib"),
                       r.child("memory_gib") + " = " + bound_text(gib) + " and memory_gb = " +
                           bound_text(label_gb) +
                           " name different capacities: give one, or two that agree (the same "
                           "bytes, or an \"80GB\" label on 80 GiB)");
    }
  }
}

GpuSpec parse_gpu(const json& value, const std::string& path, const GpuSpec* base) {
  ObjectReader r(value, path);
  check_schema_version(r, false);
  // Over a preset ("preset": id, read by parse_scenario) every field is an optional override.
  GpuSpec g = base ? *base : GpuSpec{};
  auto number = [&](const char* key, double lo, double hi, double current) {
    return base ? r.optional_number(key, lo, hi).value_or(current) : r.number(key, lo, hi);
  };
  if (base) r.allow("preset");
  g.id = r.optional_string("id", 64).value_or(base ? g.id + "+overrides" : "custom");
  g.name = r.optional_string("name").value_or(base ? g.name : "custom GPU");
  if (auto a = r.optional_choice("architecture", kArchitectures)) {
    g.architecture = kArchitectures[*a];
  } else if (!base) {
    g.architecture = "hopper";
  }
  const bool memory_given = r.has("memory_gb");
  g.marketed_memory_bytes = number("memory_gb", kMinGB, 1e5, g.marketed_memory_bytes / units::kBytesPerGB) *
                            units::kBytesPerGB;
  // "80GB" parts really hold 80 GiB; presets say so with memory_gib.
  if (auto gib = r.optional_number("memory_gib", kMinGB, 1e5)) {
    g.memory_bytes = *gib * units::kBytesPerGiB;
  } else if (!base || memory_given) {
    g.memory_bytes = g.marketed_memory_bytes;
  }
  g.bf16_flops_per_s = number("bf16_tflops", kMinTflops, 1e7, g.bf16_flops_per_s / units::kFlopsPerTflop) *
                       units::kFlopsPerTflop;
  g.fp8_flops_per_s = r.optional_zero_or_number("fp8_tflops", kMinTflops, 1e7).value_or(g.fp8_flops_per_s / units::kFlopsPerTflop) *
                      units::kFlopsPerTflop;
  g.fp4_flops_per_s = r.optional_zero_or_number("fp4_tflops", kMinTflops, 1e7).value_or(g.fp4_flops_per_s / units::kFlopsPerTflop) *
                      units::kFlopsPerTflop;
  // Without a datasheet figure, assume H100's balance: 295 FLOP per byte of HBM (989.4/3.35).
  const double balance_default = base ? g.hbm_bytes_per_s : g.bf16_flops_per_s / 295.0;
  g.hbm_bytes_per_s = r.optional_number("hbm_gbytes_per_s", kMinGBps, 1e6).value_or(balance_default / units::kBytesPerSecPerGBps) *
                      units::kBytesPerSecPerGBps;
  g.nvlink_bytes_per_s = number("nvlink_gbytes_per_s", kMinGBps, 1e6, g.nvlink_bytes_per_s / units::kBytesPerSecPerGBps) *
                         units::kBytesPerSecPerGBps;
  g.network_bytes_per_s = number("network_gbytes_per_s", kMinGBps, 1e6, g.network_bytes_per_s / units::kBytesPerSecPerGBps) *
                          units::kBytesPerSecPerGBps;
  g.host_link_bytes_per_s =
      r.optional_zero_or_number("host_link_gbytes_per_s", kMinGBps, 1e6).value_or(g.host_link_bytes_per_s / units::kBytesPerSecPerGBps) *
      units::kBytesPerSecPerGBps;
  g.host_memory_bytes =
      r.optional_zero_or_number("host_memory_gb", kMinGB, 1e6).value_or(g.host_memory_bytes / units::kBytesPerGB) *
      units::kBytesPerGB;
  g.sm_count = r.optional_integer("sm_count", 1, 100000).value_or(g.sm_count);
  g.mamf_fraction_bf16 = r.optional_number("mamf_fraction_bf16", kMinEfficiency, 1).value_or(g.mamf_fraction_bf16);
  g.mamf_fraction_fp8 = r.optional_number("mamf_fraction_fp8", kMinEfficiency, 1).value_or(g.mamf_fraction_fp8);
  g.softmax_exp_per_clock_per_sm =
      r.optional_number("softmax_exp_per_clock_per_sm", 1, 4096).value_or(g.softmax_exp_per_clock_per_sm);
  // Schema v1 calibration fields: read as a ratio to v1's default for the architecture, so a
  // copy of a v1 preset behaves as the preset does and a lower figure slows the kernels.
  const bool ampere = g.architecture == "ampere";
  const double v1_gemm = ampere ? 0.74 : 0.65;
  const double v1_attention = ampere ? 0.55 : g.architecture == "blackwell" ? 0.4 : 0.25;
  if (auto e = r.optional_number("gemm_efficiency", kMinEfficiency, 1)) g.legacy_gemm_scale = *e / v1_gemm;
  if (auto e = r.optional_number("attention_efficiency", kMinEfficiency, 1)) g.attention_scale = *e / v1_attention;
  if (auto e = r.optional_number("attention_scale", kMinEfficiency, 10)) {
    if (r.has("attention_efficiency")) {
      throw InputError("input.inconsistent", r.child("attention_scale"),
                       r.child("attention_scale") + " and " + r.child("attention_efficiency") +
                           " both set the attention throughput: give one");
    }
    g.attention_scale = *e;
  }
  // What NCCL reaches of the links (pplan calibrate fits them): a share of the line rate up to
  // 2 (NVLink SHARP reduces in the switch, beating a ring at the line rate), latencies in µs.
  g.nvlink_efficiency = r.optional_number("nvlink_efficiency", kMinEfficiency, 2).value_or(g.nvlink_efficiency);
  g.network_efficiency = r.optional_number("network_efficiency", kMinEfficiency, 2).value_or(g.network_efficiency);
  g.nvlink_latency_s = r.optional_number("nvlink_latency_us", 0, 1e5).value_or(g.nvlink_latency_s * 1e6) * 1e-6;
  g.network_latency_s = r.optional_number("network_latency_us", 0, 1e5).value_or(g.network_latency_s * 1e6) * 1e-6;
  if (auto us = r.optional_number("host_kernel_us", 0.01, 1e5)) g.host_kernel_s = *us * 1e-6;
  r.allow("system");
  if (r.has("system")) g.system = parse_system(value.at("system"), r.child("system"));
  g.source = r.optional_string("source", 2000).value_or(g.source);
  r.finish();
  check_gpu_is_physical(g, r, memory_given && r.has("memory_gib"));
  return g;
}

json parse_document(std::string_view text, std::string_view relative_to) {
  if (text.size() > kMaxDocumentBytes) {
    throw InputError("input.too_large", "/",
                     "the document is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                         std::to_string(kMaxDocumentBytes) + " (64 MiB)");
  }
  // nlohmann's lexer ends the input at a NUL byte, so the bytes after one were never read.
  const std::size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    throw InputError("input.nul_byte", "/",
                     "byte " + std::to_string(nul) + " is a NUL: JSON text cannot contain one");
  }
  StrictBuilder builder(relative_to);
  json::sax_parse(text.begin(), text.end(), &builder);
  return builder.take();
}

PresetCatalog load_presets() {
  PresetCatalog catalog;
  for (const EmbeddedPreset& preset : embedded_presets()) {
    const json doc = parse_document(preset.text);
    const std::string path = std::string("preset:") + preset.file;
    if (preset.kind == std::string_view("models")) {
      ModelSpec m = parse_model(doc, path);
      catalog.models[m.id] = m;
    } else if (preset.kind == std::string_view("calibration")) {
      catalog.calibration = parse_calibration(doc, path);
    } else {
      GpuSpec g = parse_gpu(doc, path);
      catalog.gpus[g.id] = g;
    }
  }
  return catalog;
}

const PresetCatalog& preset_catalog() {
  static const PresetCatalog catalog = load_presets();
  return catalog;
}

Scenario parse_scenario(const json& document, const PresetCatalog& presets) {
  ObjectReader root(document, "");
  check_schema_version(root, false);
  Scenario s;
  s.calibration = presets.calibration;

  // Model: a preset id or a custom object.
  const json& model = root.raw("model");
  if (model.is_string()) {
    s.model = find_preset(presets.models, model.get<std::string>(), "/model", "model");
  } else {
    s.model = parse_model(model, "/model");
    take_preset_details(model, presets.models, s.model);
  }

  // Cluster.
  {
    ObjectReader r(root.raw("cluster"), "/cluster");
    const json& gpu = r.raw("gpu");
    if (gpu.is_string()) {
      s.cluster.gpu = find_preset(presets.gpus, gpu.get<std::string>(), "/cluster/gpu", "GPU");
    } else if (gpu.is_object() && gpu.contains("preset")) {
      // A preset with overrides: the preset's figures and calibration, changed where given.
      const std::string at = "/cluster/gpu/preset";
      if (!gpu.at("preset").is_string()) {
        throw InputError("schema.wrong_type", at, at + " must be a preset id (a string)");
      }
      s.cluster.gpu = parse_gpu(gpu, "/cluster/gpu",
                                &find_preset(presets.gpus, gpu.at("preset").get<std::string>(), at.c_str(), "GPU"));
    } else {
      s.cluster.gpu = parse_gpu(gpu, "/cluster/gpu");
    }
    ClusterSpec& c = s.cluster;
    const SystemSpec& sys = c.gpu.system;
    c.gpus = r.integer("gpus", 1, kMaxGpus);
    // Hosts and NVLink domains: the preset's system unless the cluster says otherwise; a
    // cluster that names only its hosts keeps as much of the system's domain as holds whole
    // hosts (an NVL72 rack described as 64-GPU hosts is one 64-GPU domain, warned of by
    // cluster.nvlink_domain_trimmed), and without a system one host is one domain (schema v1).
    c.gpus_per_node = r.optional_integer("gpus_per_node", 1, 1024).value_or(sys.gpus_per_node > 0 ? sys.gpus_per_node : 8);
    c.nvlink_domain_gpus =
        r.optional_integer("nvlink_domain_gpus", 1, 1 << 20)
            .value_or(std::max(c.gpus_per_node, sys.nvlink_domain_gpus / c.gpus_per_node * c.gpus_per_node));
    if (c.nvlink_domain_gpus % c.gpus_per_node != 0) {
      throw InputError("input.inconsistent", r.child("nvlink_domain_gpus"),
                       "/cluster/nvlink_domain_gpus = " + std::to_string(c.nvlink_domain_gpus) +
                           " must be a whole number of hosts of gpus_per_node = " + std::to_string(c.gpus_per_node));
    }
    if (auto nvlink = r.optional_number("nvlink_gbytes_per_s", kMinGBps, 1e6)) {
      c.gpu.nvlink_bytes_per_s = *nvlink * units::kBytesPerSecPerGBps;
    }
    r.allow("network");
    if (r.has("network")) {
      // The scale-out network per host: NICs × line rate, shared by the host's GPUs.
      ObjectReader n(document.at("cluster").at("network"), "/cluster/network");
      const int nics = n.optional_integer("nics_per_node", 1, 1024).value_or(sys.nics_per_node);
      const double rate = n.optional_number("nic_gbits_per_s", kMinGBps, 1e5).value_or(sys.nic_bits_per_s / 1e9) * 1e9;
      if (n.has("nics_per_node") || n.has("nic_gbits_per_s")) {
        if (nics <= 0 || rate <= 0) {
          throw InputError("schema.missing_field", n.child(nics <= 0 ? "nics_per_node" : "nic_gbits_per_s"),
                           "/cluster/network needs both nics_per_node and nic_gbits_per_s (this GPU's "
                           "preset has no system to take the other from)");
        }
        c.gpu.network_bytes_per_s = nics * rate / 8.0 / c.gpus_per_node;
      }
      c.rail_optimized = n.optional_boolean("rail_optimized").value_or(true);
      c.oversubscription = n.optional_number("oversubscription", 1, 64).value_or(1.0);
      // Traffic between hosts shares the oversubscribed uplinks: the per-GPU figure the
      // collectives see is the NIC's share divided by the oversubscription.
      c.gpu.network_bytes_per_s /= c.oversubscription;
      n.finish();
    }
    r.finish();
  }

  // Training.
  {
    ObjectReader r(root.raw("training"), "/training");
    s.training.seq_len = r.integer("seq_len", 1, kMaxSeq);
    s.training.global_batch = r.integer("global_batch", 1, kMaxBatch);
    s.training.precision =
        static_cast<Precision>(r.optional_choice("precision", kPrecisions).value_or(0));
    // The framework sets every switch; each may be overridden (framework/framework.h).
    const auto framework = r.optional_choice("framework", kFrameworks);
    s.training = with_framework_defaults(
        s.training, framework ? static_cast<Framework>(*framework) : default_framework(s.cluster.gpu),
        s.cluster.gpu);
    TrainingSpec& t = s.training;
    // A GeLU model that does not say: dropout where the framework's default has it
    // (Megatron-LM and Megatron-DeepSpeed: --hidden-dropout and --attention-dropout 0.1);
    // NVIDIA's recipes and torchtitan train without (framework/framework.h).
    if (!s.model.dropout_given && s.model.activation == Activation::kGelu) {
      s.model.dropout = framework_default_dropout(t.framework);
    }
    t.flash_attention = r.optional_boolean("flash_attention").value_or(t.flash_attention);
    t.overlap_grad_reduce = r.optional_boolean("overlap_grad_reduce").value_or(t.overlap_grad_reduce);
    t.overlap_param_gather = r.optional_boolean("overlap_param_gather").value_or(t.overlap_param_gather);
    t.tp_comm_overlap = r.optional_boolean("tp_comm_overlap").value_or(t.tp_comm_overlap);
    t.grad_reduce_in_fp32 = r.optional_boolean("grad_reduce_in_fp32").value_or(t.grad_reduce_in_fp32);
    t.cuda_graphs = r.optional_boolean("cuda_graphs").value_or(t.cuda_graphs);
    if (auto recipe = r.optional_choice("fp8_recipe", kFp8Recipes)) t.fp8_recipe = static_cast<Fp8Recipe>(*recipe);
    // The MoE switches: refused on a dense model, where nothing would use them.
    for (const char* key : {"moe_dispatcher", "overlap_moe_expert_parallel_comm"}) {
      if (r.has(key) && !(s.model.moe && s.model.moe->experts > 0)) {
        throw InputError("input.inconsistent", r.child(key),
                         r.child(key) + " configures mixture-of-experts routing, but the model has no experts");
      }
    }
    if (auto dispatcher = r.optional_choice("moe_dispatcher", kMoeDispatchers)) {
      t.moe_dispatcher = static_cast<MoeDispatcher>(*dispatcher);
    }
    t.overlap_moe_expert_parallel_comm =
        r.optional_boolean("overlap_moe_expert_parallel_comm").value_or(t.overlap_moe_expert_parallel_comm);
    if (r.has("activation_func_fp8_input_store") && s.model.activation != Activation::kSwiglu) {
      // Megatron-LM d98e8a64 transformer_config.py:2467: SwiGLU only.
      throw InputError("input.inconsistent", r.child("activation_func_fp8_input_store"),
                       r.child("activation_func_fp8_input_store") +
                           " stores SwiGLU's input in FP8, but the model's activation is " +
                           activation_name(s.model.activation));
    }
    t.activation_func_fp8_input_store =
        r.optional_boolean("activation_func_fp8_input_store").value_or(t.activation_func_fp8_input_store);
    if (auto keep = r.optional_boolean("fp8_param_gather")) {
      t.fp8_param_gather = *keep;
      t.fp8_param_gather_given = true;
    }
    t.fp8_dot_product_attention =
        r.optional_boolean("fp8_dot_product_attention").value_or(t.fp8_dot_product_attention);
    if (t.fp8_dot_product_attention && (t.precision != Precision::kFp8 || !t.flash_attention)) {
      throw InputError("input.inconsistent", r.child("fp8_dot_product_attention"),
                       r.child("fp8_dot_product_attention") +
                           " needs precision \"fp8\" and flash_attention true (given or the framework's default)");
    }
    if (t.fp8_dot_product_attention && t.fp8_recipe == Fp8Recipe::kNvfp4) {
      // Megatron's --fp8-dot-product-attention belongs to --fp8-format, which --fp4-format excludes.
      throw InputError("input.inconsistent", r.child("fp8_dot_product_attention"),
                       r.child("fp8_dot_product_attention") +
                           " needs an FP8 recipe: under \"nvfp4\" (--fp4-format, exclusive with --fp8-format) attention stays BF16");
    }
    if (t.fp8_param_gather && t.precision != Precision::kFp8) {
      throw InputError("input.inconsistent", r.child("fp8_param_gather"),
                       r.child("fp8_param_gather") + " keeps the weights in FP8, but training.precision is " +
                           precision_name(t.precision) + ": set precision \"fp8\" or drop it");
    }
    if (auto dtype = r.optional_choice("optimizer_state_dtype", kOptimizerStateDtypes)) {
      t.optimizer_state_dtype = static_cast<OptimizerStateDtype>(*dtype);
    }
    t.memory_headroom = r.optional_number("memory_headroom", 0, 0.9).value_or(t.memory_headroom);
    s.training.token_budget = r.optional_zero_or_number("token_budget", 1, 1e18).value_or(0);
    r.finish();
  }

  // Parallel: optional; every field optional (plan searches what is absent).
  root.allow("parallel");
  if (root.has("parallel")) {
    s.has_parallel = true;
    ObjectReader r(document.at("parallel"), "/parallel");
    ParallelConstraints& c = s.parallel;
    c.tp = r.optional_integer("tp", 1, kMaxDegree);
    c.pp = r.optional_integer("pp", 1, kMaxDegree);
    c.dp = r.optional_integer("dp", 1, kMaxDegree);
    c.cp = r.optional_integer("cp", 1, kMaxDegree);
    c.ep = r.optional_integer("ep", 1, kMaxDegree);
    c.etp = r.optional_integer("etp", 1, kMaxDegree);
    if (c.etp && !(s.model.moe && s.model.moe->experts > 0)) {
      throw InputError("input.inconsistent", r.child("etp"),
                       r.child("etp") + " sets expert tensor parallelism, but the model has no experts");
    }
    c.vpp = r.optional_integer("vpp", 1, 1024);
    if (auto schedule = r.optional_choice("schedule", kSchedules)) c.schedule = static_cast<ScheduleKind>(*schedule);
    c.micro_batch = r.optional_integer("micro_batch", 1, kMaxBatch);
    c.sequence_parallel = r.optional_boolean("sequence_parallel");
    if (auto rc = r.optional_choice("recompute", kRecomputes)) c.recompute = static_cast<Recompute>(*rc);
    c.zero = r.optional_integer("zero", 0, 3);
    c.recompute_layers = r.optional_integer("recompute_layers", 1, s.model.layers);
    r.allow("recompute_modules");
    if (r.has("recompute_modules")) c.recompute_modules = parse_recompute_modules(document.at("parallel").at("recompute_modules"),
                                                                                r.child("recompute_modules"), s.model, c);
    // Megatron-LM d98e8a64 transformer_config.py:1884: fewer than the model's layers.
    c.offload_layers = r.optional_integer("offload_layers", 0, std::max(0, s.model.layers - 1));
    c.first_stage_layers = r.optional_integer("first_stage_layers", 1, s.model.layers);
    c.last_stage_layers = r.optional_integer("last_stage_layers", 1, s.model.layers);
    // An uneven split needs stages to split: at pp = 1 it would be echoed without effect.
    for (const char* key : {"first_stage_layers", "last_stage_layers"}) {
      if (c.pp && *c.pp == 1 && r.has(key)) {
        throw InputError("input.inconsistent", r.child(key),
                         r.child(key) + " sets an uneven pipeline split, but parallel.pp is 1");
      }
    }
    r.finish();
  }

  // Report inputs (design report): optional.
  root.allow("report");
  if (root.has("report")) {
    ObjectReader r(document.at("report"), "/report");
    s.report.storage_bytes_per_s =
        r.optional_number("storage_gbytes_per_s", kMinStorageGBps, 1e7).value_or(0) * units::kBytesPerSecPerGBps;
    s.report.failures_per_gpu_hour = r.optional_number("failures_per_gpu_hour", kMinFailureRate, 1).value_or(0);
    s.report.restart_overhead_s = r.optional_number("restart_s", 0, 1e7);
    r.finish();
  }
  root.allow("name");
  root.allow("description");
  if (root.has("name")) root.string("name");
  if (root.has("description")) root.string("description", 4000);
  root.finish();
  return s;
}

ordered_json parallel_to_json(const ParallelConfig& p) {
  ordered_json j;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["dp"] = p.dp;
  j["cp"] = p.cp;
  j["ep"] = p.ep;
  // Expert TP only where it can differ from TP: a plan with experts (ep > 1) or an etp set.
  if (p.ep > 1 || expert_tp(p) != p.tp) j["etp"] = expert_tp(p);
  j["vpp"] = p.vpp;
  if (p.pp > 1) j["schedule"] = schedule_name(p.schedule);
  j["micro_batch"] = p.micro_batch;
  j["sequence_parallel"] = p.sequence_parallel;
  j["recompute"] = recompute_name(p.recompute);
  if (p.recompute == Recompute::kFull && p.recompute_layers > 0) j["recompute_layers"] = p.recompute_layers;
  if (p.offload_layers > 0) j["offload_layers"] = p.offload_layers;
  if (p.recompute == Recompute::kSelective && p.recompute_modules != 0) {
    j["recompute_modules"] = recompute_module_names(p.recompute_modules);
  }
  j["zero"] = p.zero;
  if (p.first_stage_layers > 0) j["first_stage_layers"] = p.first_stage_layers;
  if (p.last_stage_layers > 0) j["last_stage_layers"] = p.last_stage_layers;
  return j;
}

ordered_json model_to_json(const ModelSpec& m) {
  ordered_json j;
  j["id"] = m.id;
  j["name"] = m.name;
  j["layers"] = m.layers;
  j["hidden"] = m.hidden;
  j["heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  if (m.head_dim > 0) j["head_dim"] = m.head_dim;
  if (m.qk_norm) j["qk_norm"] = true;
  if (m.linear_bias) j["linear_bias"] = true;
  if (m.attention_sinks) j["attention_sinks"] = true;
  j["ffn_hidden"] = m.ffn_hidden;
  j["vocab"] = m.vocab;
  j["activation"] = activation_name(m.activation);
  j["tied_embeddings"] = m.tied_embeddings;
  j["dropout"] = m.dropout;
  j["learned_positions"] = m.learned_positions;
  if (!m.learned_positions) j["rope_theta"] = m.rope_theta;
  if (m.moe) {
    j["moe"] = {{"experts", m.moe->experts},
                {"top_k", m.moe->top_k},
                {"shared_experts", m.moe->shared_experts},
                {"expert_ffn_hidden", m.moe->expert_ffn_hidden},
                {"dense_layers", m.moe->dense_layers}};
    if (m.moe->every > 1) j["moe"]["every"] = m.moe->every;
    if (m.moe->groups > 0) {
      j["moe"]["groups"] = m.moe->groups;
      j["moe"]["group_top_k"] = m.moe->group_top_k;
    }
  } else {
    j["moe"] = nullptr;
  }
  if (m.local_attention) {
    j["local_attention"] = {{"tokens", m.local_attention->tokens},
                            {"global_every", m.local_attention->global_every},
                            {"chunked", m.local_attention->chunked}};
  }
  if (m.mtp_layers > 0) j["mtp_layers"] = m.mtp_layers;
  if (!m.hybrid_pattern.empty()) j["hybrid_pattern"] = m.hybrid_pattern;
  if (m.mamba) {
    j["mamba"] = {{"heads", m.mamba->heads},   {"head_dim", m.mamba->head_dim},
                  {"state", m.mamba->state},   {"groups", m.mamba->groups},
                  {"conv_kernel", m.mamba->conv_kernel}, {"chunk", m.mamba->chunk}};
  }
  if (m.mla) {
    j["mla"] = {{"q_lora_rank", m.mla->q_lora_rank > 0 ? ordered_json(m.mla->q_lora_rank) : ordered_json(nullptr)},
                {"kv_lora_rank", m.mla->kv_lora_rank},
                {"qk_nope_head_dim", m.mla->qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                {"v_head_dim", m.mla->v_head_dim}};
  }
  if (m.nominal_params > 0) j["nominal_params"] = m.nominal_params;
  j["source"] = m.source;
  return j;
}

ordered_json gpu_to_json(const GpuSpec& g) {
  ordered_json j;
  j["id"] = g.id;
  j["name"] = g.name;
  j["architecture"] = g.architecture;
  j["memory_gb"] = g.marketed_memory_bytes / units::kBytesPerGB;
  j["memory_gib"] = g.memory_bytes / units::kBytesPerGiB;
  j["bf16_tflops"] = g.bf16_flops_per_s / units::kFlopsPerTflop;
  j["fp8_tflops"] = g.fp8_flops_per_s / units::kFlopsPerTflop;
  j["hbm_gbytes_per_s"] = g.hbm_bytes_per_s / units::kBytesPerSecPerGBps;
  j["nvlink_gbytes_per_s"] = g.nvlink_bytes_per_s / units::kBytesPerSecPerGBps;
  j["network_gbytes_per_s"] = g.network_bytes_per_s / units::kBytesPerSecPerGBps;
  if (g.host_link_bytes_per_s > 0) j["host_link_gbytes_per_s"] = g.host_link_bytes_per_s / units::kBytesPerSecPerGBps;
  if (g.host_memory_bytes > 0) j["host_memory_gb"] = g.host_memory_bytes / units::kBytesPerGB;
  if (g.sm_count > 0) j["sm_count"] = g.sm_count;
  if (g.mamf_fraction_bf16 > 0) j["mamf_fraction_bf16"] = g.mamf_fraction_bf16;
  if (g.mamf_fraction_fp8 > 0) j["mamf_fraction_fp8"] = g.mamf_fraction_fp8;
  if (g.fp4_flops_per_s > 0) j["fp4_tflops"] = g.fp4_flops_per_s / units::kFlopsPerTflop;
  j["nvlink_efficiency"] = g.nvlink_efficiency;
  j["network_efficiency"] = g.network_efficiency;
  j["nvlink_latency_us"] = g.nvlink_latency_s * 1e6;
  j["network_latency_us"] = g.network_latency_s * 1e6;
  if (g.attention_scale != 1) j["attention_scale"] = g.attention_scale;
  if (g.softmax_exp_per_clock_per_sm > 0) j["softmax_exp_per_clock_per_sm"] = g.softmax_exp_per_clock_per_sm;
  if (g.host_kernel_s > 0) j["host_kernel_us"] = g.host_kernel_s * 1e6;
  if (g.system.gpus_per_node > 0) {
    ordered_json sys;
    sys["name"] = g.system.name;
    sys["gpus_per_node"] = g.system.gpus_per_node;
    sys["nvlink_domain_gpus"] = g.system.nvlink_domain_gpus;
    if (g.system.nics_per_node > 0) sys["nics_per_node"] = g.system.nics_per_node;
    if (g.system.nic_bits_per_s > 0) sys["nic_gbits_per_s"] = g.system.nic_bits_per_s / 1e9;
    j["system"] = sys;
  }
  j["source"] = g.source;
  return j;
}

ordered_json estimate_to_json(const Estimate& e, const Scenario& scenario) {
  const double gb = units::kBytesPerGB;
  ordered_json j;
  j["parallel"] = parallel_to_json(e.parallel);
  const TrainingSpec& t = scenario.training;
  j["training"] = {{"seq_len", t.seq_len},
                   {"global_batch", t.global_batch},
                   {"precision", precision_name(t.precision)},
                   {"framework", framework_name(t.framework)},
                   {"flash_attention", t.flash_attention},
                   {"overlap_grad_reduce", t.overlap_grad_reduce},
                   {"overlap_param_gather", t.overlap_param_gather},
                   {"tp_comm_overlap", t.tp_comm_overlap},
                   {"grad_reduce_in_fp32", t.grad_reduce_in_fp32},
                   {"cuda_graphs", t.cuda_graphs},
                   {"optimizer_state_dtype", std::string(kOptimizerStateDtypes[static_cast<int>(t.optimizer_state_dtype)])},
                   {"memory_headroom", t.memory_headroom}};
  if (t.precision == Precision::kFp8) {
    j["training"]["fp8_recipe"] = fp8_recipe_name(t.fp8_recipe);
    j["training"]["fp8_param_gather"] = keeps_fp8_params(t, e.parallel.zero);
    j["training"]["fp8_dot_product_attention"] = t.fp8_dot_product_attention;
  }
  if (scenario.model.activation == Activation::kSwiglu) {
    j["training"]["activation_func_fp8_input_store"] = t.activation_func_fp8_input_store;
  }
  if (scenario.model.moe && scenario.model.moe->experts > 0) {
    j["training"]["moe_dispatcher"] = std::string(kMoeDispatchers[static_cast<int>(t.moe_dispatcher)]);
    j["training"]["overlap_moe_expert_parallel_comm"] = t.overlap_moe_expert_parallel_comm;
  }
  const ClusterSpec& c = scenario.cluster;
  j["cluster"] = {{"gpus", c.gpus},
                  {"gpus_per_node", c.gpus_per_node},
                  {"nvlink_domain_gpus", c.nvlink_domain_gpus},
                  {"nvlink_gbytes_per_s", c.gpu.nvlink_bytes_per_s / units::kBytesPerSecPerGBps},
                  {"network_gbytes_per_s", c.gpu.network_bytes_per_s / units::kBytesPerSecPerGBps}};
  j["fits"] = e.feasible;
  j["fits_in_memory"] = e.fits_in_memory;
  j["memory_gb"] = {{"weights", e.memory.weights_bytes / gb},
                    {"gradients", e.memory.gradients_bytes / gb},
                    {"optimizer", e.memory.optimizer_bytes / gb},
                    {"activations", e.memory.activations_bytes / gb},
                    {"reserved", e.memory.reserved_bytes / gb},
                    {"total", e.memory.total_bytes / gb},
                    {"capacity", e.memory.capacity_bytes / gb},
                    {"peak_stage", e.memory.peak_stage}};
  // Host memory the offloaded activations take (parallel.offload_layers), beside the GPU's.
  if (e.parallel.offload_layers > 0) j["memory_gb"]["offloaded_to_host"] = e.memory.offloaded_bytes / gb;
  j["pipeline"] = {{"microbatches", e.microbatches},
                   {"bubble_fraction", e.bubble_fraction},
                   {"bubble_ratio", e.bubble_ratio},
                   {"stages", e.parallel.pp},
                   {"first_stage_layers", e.split.first_layers},
                   {"middle_stage_layers", e.split.middle_layers},
                   {"last_stage_layers", e.split.last_layers},
                   {"embedding_counted_as_layer", e.split.embedding_counted},
                   {"loss_counted_as_layer", e.split.loss_counted},
                   {"schedule", e.parallel.pp <= 1                                   ? "none"
                                : e.parallel.schedule == ScheduleKind::kInterleaved ? "interleaved-1f1b"
                                                                                    : schedule_name(e.parallel.schedule)}};
  if (!e.timed) {
    // The grid does not tile the cluster: no time, MFU or throughput (see diagnostics).
    for (const char* key : {"step_time_s", "time_s", "mfu", "mfu_causal", "hfu", "tflops_per_gpu", "tokens_per_s"}) {
      j[key] = nullptr;
    }
    if (scenario.training.token_budget > 0) j["days_to_train"] = nullptr;
  } else {
    j["step_time_s"] = e.step_time_s;
    j["time_s"] = {{"compute", e.time.compute_s},     {"host", e.time.host_s},
                   {"recompute", e.time.recompute_s},
                   {"tp_comm", e.time.tp_comm_s},     {"cp_comm", e.time.cp_comm_s},
                   {"ep_comm", e.time.ep_comm_s},     {"pp_comm", e.time.pp_comm_s},
                   {"bubble", e.time.bubble_s},       {"dp_comm", e.time.dp_comm_s},
                   {"offload", e.time.offload_s},     {"optimizer", e.time.optimizer_s},
                   {"straggler", e.time.straggler_s}};
    // Where the model has experts: what hides their all-to-all (the page's MoE caveat reads it).
    if (scenario.model.moe && scenario.model.moe->experts > 0) {
      j["ep_comm_overlap"] = expert_all_to_all_overlap(scenario.training, e.parallel, true);
    }
    j["mfu"] = e.mfu;
    j["mfu_causal"] = e.mfu_causal;
    j["hfu"] = e.hfu;
    j["tflops_per_gpu"] = e.tflops_per_gpu;
    j["tokens_per_s"] = e.tokens_per_s;
    if (scenario.training.token_budget > 0) j["days_to_train"] = e.days_to_train;
  }
  j["flops_per_step"] = {{"model", e.model_flops_per_step}, {"hardware", e.hardware_flops_per_step}};
  const MethodFigures& m = e.method;
  ordered_json method;
  method["params"] = m.params;
  method["params_nominal"] = m.params_nominal;
  method["model_states_gb"] = m.model_states_bytes / gb;
  method["min_gpus_per_replica"] = m.min_gpus_per_replica;
  method["model_states_gb_per_gpu"] = m.model_states_bytes_per_gpu / gb;
  method["activations_gb"] = m.activations_bytes / gb;
  method["total_gb"] = m.total_bytes / gb;
  method["plan_total_gb"] = m.plan_total_bytes / gb;
  method["fits"] = m.fits;
  method["bubble"] = m.bubble_ratio;
  if (m.half_pp > 0) {
    method["half_pp"] = {{"pp", m.half_pp},
                         {"model_states_gb_per_gpu", m.half_pp_model_states_bytes_per_gpu / gb},
                         {"fits", m.half_pp_fits}};
  }
  method["distributed_optimizer_gb_per_gpu"] = m.distributed_optimizer_bytes_per_gpu / gb;
  j["method"] = method;
  ordered_json diagnostics = ordered_json::array();
  for (const Diagnostic& d : e.diagnostics) {
    diagnostics.push_back({{"code", d.code}, {"severity", severity_name(d.severity)}, {"message", d.message}});
  }
  j["diagnostics"] = diagnostics;
  return j;
}

namespace {

void numeric_leaves(const json& value, const std::string& path, std::vector<std::string>& out) {
  if (value.is_number()) {
    out.push_back(path);
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      numeric_leaves(it.value(), path + "/" + pointer_token(it.key()), out);
    }
  }
}

}  // namespace

std::string blame_input(const json& document, const json& reference,
                        const std::function<bool(const json&)>& finite) {
  std::vector<std::string> leaves;
  numeric_leaves(document, "", leaves);
  if (leaves.size() > 64) leaves.resize(64);
  for (const std::string& leaf : leaves) {
    const json::json_pointer pointer(leaf);
    if (!reference.contains(pointer) || !reference.at(pointer).is_number()) continue;
    if (reference.at(pointer) == document.at(pointer)) continue;
    json changed = document;
    changed[pointer] = reference.at(pointer);
    if (finite(changed)) return leaf;
  }
  return "/";
}

namespace {

/// `x` in nlohmann's number layout (dtoa_impl::format_buffer: fixed for decimal exponents in
/// (-4, 15], else d.ddde±XX), with the fewest digits that read back to `x`.
std::string shortest_number(double x) {
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  const std::string text(buffer);
  const bool negative = text[0] == '-';
  const std::size_t e = text.find('e');
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size());
  const int n = std::atoi(text.c_str() + e + 1) + 1;  // position of the decimal point
  std::string out = negative ? "-" : "";
  if (k <= n && n <= 15) {
    out += digits + std::string(n - k, '0') + ".0";
  } else if (0 < n && n <= 15) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-4 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    out += digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "");
    char exponent[16];
    std::snprintf(exponent, sizeof exponent, "e%c%02d", n - 1 < 0 ? '-' : '+', std::abs(n - 1));
    out += exponent;
  }
  return out;
}

}  // namespace

std::string dump_document(const ordered_json& document) {
  const std::string text = document.dump(2, ' ', false, ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\') {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    const bool number_start = c == '-' || (c >= '0' && c <= '9');
    if (!number_start) {
      out += c;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && std::strchr("0123456789.eE+-", text[end]) != nullptr) ++end;
    const std::string token = text.substr(i, end - i);
    std::size_t significant = 0;
    bool leading = true;
    for (char d : token.substr(0, token.find_first_of("eE"))) {
      if (d < '0' || d > '9') continue;
      if (d != '0') leading = false;
      if (!leading) ++significant;
    }
    const bool is_float = token.find_first_of(".eE") != std::string::npos;
    out += is_float && significant > 15 ? shortest_number(std::strtod(token.c_str(), nullptr)) : token;
    i = end - 1;
  }
  return out;
}

void round_numbers(ordered_json& document) {
  if (document.is_number_float()) {
    const double x = document.get<double>();
    if (!std::isfinite(x)) {
      throw std::logic_error("non-finite number in output");
    }
    document = round_significant(x, kOutputSignificantDigits);
    return;
  }
  if (document.is_structured()) {
    for (auto& child : document) round_numbers(child);
  }
}

}  // namespace pplan
