#pragma once
/// Number formatting shared by messages, explanations and generated text. Deterministic:
/// the same digits natively and in wasm.

#include <string>

namespace pplan {

/// `value` with `decimals` digits after the point ("43.75", "7.3").
std::string format_fixed(double value, int decimals);

/// Rounds to `digits` significant digits without transcendental functions, so the native
/// CLI and the wasm engine emit byte-identical JSON.
double round_significant(double value, int digits);

}  // namespace pplan
