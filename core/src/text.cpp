#include "pplan/text.h"

#include <cmath>
#include <cstdio>

namespace pplan {

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string out(buffer);
  if (out == "-0" || out.rfind("-0.", 0) == 0) {
    bool all_zero = out.find_first_not_of("-0.") == std::string::npos;
    if (all_zero) out.erase(0, 1);
  }
  return out;
}

double round_significant(double value, int digits) {
  if (!std::isfinite(value) || value == 0.0) return value;
  const double magnitude = std::fabs(value);
  // Scale into [10^(digits-1), 10^digits) by exact powers of ten.
  double scale = 1.0;
  double lo = 1.0;
  for (int i = 1; i < digits; ++i) lo *= 10.0;
  const double hi = lo * 10.0;
  double scaled = magnitude;
  int guard = 0;
  while (scaled < lo && guard++ < 400) { scaled *= 10.0; scale *= 10.0; }
  double divisor = 1.0;
  while (scaled >= hi && guard++ < 400) { scaled /= 10.0; divisor *= 10.0; }
  const double rounded = std::nearbyint(scaled);
  const double result = divisor > 1.0 ? rounded * divisor : rounded / scale;
  return value < 0 ? -result : result;
}

}  // namespace pplan
