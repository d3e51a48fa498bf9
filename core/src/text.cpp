#include "pplan/text.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

namespace pplan {

TextPart::TextPart(long long value, Decimal) {
  const int written = std::snprintf(digits_, sizeof digits_, "%lld", value);
  digit_count_ = static_cast<unsigned char>(written);
}

std::string concat(std::initializer_list<TextPart> parts) {
  std::size_t bytes = 0;
  for (const TextPart& part : parts) bytes += part.view().size();
  std::string out;
  out.reserve(bytes);
  for (const TextPart& part : parts) out += part.view();
  return out;
}

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

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string format_count(double value) {
  constexpr double kExactBelow = 9007199254740992.0;  // 2^53
  if (!std::isfinite(value)) return "n/a";
  if (std::fabs(value) < kExactBelow) return std::to_string(static_cast<long long>(value));
  return format_significant(value, 6);
}

double round_significant(double value, int digits) {
  if (!std::isfinite(value) || value == 0.0) return value;
  if (std::fabs(value) < DBL_MIN) return 0.0;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
  return std::strtod(buffer, nullptr);
}

namespace {

/// Decodes the code point at `at`; `length` gets its byte count (1 for a malformed byte,
/// which decodes as U+FFFD).
char32_t decode_utf8(std::string_view text, std::size_t at, std::size_t& length) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  length = 1;
  if (lead < 0x80) return lead;
  std::size_t need = 0;
  char32_t cp = 0;
  if ((lead & 0xE0) == 0xC0) {
    need = 1;
    cp = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    need = 2;
    cp = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    need = 3;
    cp = lead & 0x07;
  } else
    return 0xFFFD;
  if (at + need >= text.size()) return 0xFFFD;
  for (std::size_t k = 1; k <= need; ++k) {
    if ((byte(at + k) & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (byte(at + k) & 0x3F);
  }
  const char32_t smallest[] = {0, 0x80, 0x800, 0x10000};
  if (cp < smallest[need] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0xFFFD;  // overlong, a surrogate, or beyond Unicode
  }
  length = need + 1;
  return cp;
}

bool forbidden(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// Optimal-string-alignment distance (an adjacent transposition is one edit).
std::size_t damerau_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

}  // namespace

bool valid_utf8(std::string_view text) {
  for (std::size_t at = 0, length = 0; at < text.size(); at += length) {
    if (decode_utf8(text, at, length) == 0xFFFD && length == 1) return false;
  }
  return true;
}

std::size_t utf8_length(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t at = 0, length = 0; at < text.size(); at += length) {
    decode_utf8(text, at, length);
    ++count;
  }
  return count;
}

std::optional<ForbiddenCharacter> first_forbidden_character(std::string_view text) {
  std::size_t index = 0;
  for (std::size_t at = 0, length = 0; at < text.size(); at += length, ++index) {
    const char32_t cp = decode_utf8(text, at, length);
    if (forbidden(cp)) return ForbiddenCharacter{cp, index};
  }
  return std::nullopt;
}

std::string code_point_name(char32_t code_point) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(code_point));
  return buffer;
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t end = 0;
  for (std::size_t at = 0, length = 0; at < text.size(); at += length) {
    decode_utf8(text, at, length);
    if (at + length > max_bytes) break;
    end = at + length;
  }
  return std::string(text.substr(0, end));
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  bool cut = false;
  for (std::size_t at = 0, length = 0; at < text.size(); at += length) {
    const char32_t cp = decode_utf8(text, at, length);
    std::string shown;
    if (forbidden(cp)) {
      shown = "<" + code_point_name(cp) + ">";
    } else if (cp == 0xFFFD && length == 1) {
      shown = "\xEF\xBF\xBD";  // U+FFFD for a malformed byte
    } else {
      shown = std::string(text.substr(at, length));
    }
    if (out.size() + shown.size() > max_bytes) {
      cut = true;
      break;
    }
    out += shown;
  }
  return cut ? out + "…" : out;
}

namespace {

/// Whether the ASCII letters before `at` end in a URL scheme GFM links ("http", "https", "ftp").
bool after_url_scheme(std::string_view text, std::size_t at) {
  for (std::string_view scheme : {"https", "http", "ftp"}) {
    if (at >= scheme.size()) {
      std::string_view before = text.substr(at - scheme.size(), scheme.size());
      if (lower_ascii(before) == scheme) return true;
    }
  }
  return false;
}

}  // namespace

std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  // A block marker counts only at the start of the line, after at most three spaces.
  std::size_t leading_spaces = 0;
  while (leading_spaces < text.size() && leading_spaces < 3 && text[leading_spaces] == ' ') {
    ++leading_spaces;
  }
  std::size_t list_number_end = std::string_view::npos;  // the '.' or ')' of "12." at the start
  {
    std::size_t k = leading_spaces;
    while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k;
    // "12. x" starts an ordered list; "46.7B" does not (a marker needs a space after it).
    if (k > leading_spaces && k < text.size() && (text[k] == '.' || text[k] == ')') &&
        (k + 1 == text.size() || text[k + 1] == ' ')) {
      list_number_end = k;
    }
  }
  for (std::size_t at = 0, length = 0; at < text.size(); at += length) {
    const char32_t cp = decode_utf8(text, at, length);
    if (forbidden(cp)) {
      out += ' ';
      continue;
    }
    if (cp >= 0x80) {
      out.append(text.substr(at, length));
      continue;
    }
    const char c = static_cast<char>(cp);
    const bool block_start = at == leading_spaces;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '~':
      case '#':
      case '$':
        out += '\\';
        out += c;
        break;
      case '-':
      case '+': {
        // A bullet ("- x"), or a thematic break ("---"), only at the start of a line.
        const char next = at + 1 < text.size() ? text[at + 1] : ' ';
        if (block_start && (next == ' ' || next == '-')) out += '\\';
        out += c;
        break;
      }
      case '>':
        if (block_start) out += '\\';
        out += c;
        break;
      case ':':
        // "https://": GFM's extended autolink starts at the scheme's colon.
        if (text.substr(at, 3) == "://" && after_url_scheme(text, at)) out += '\\';
        out += c;
        break;
      case '@':
        out += "\\@";  // "user@host.org" would be an email autolink
        break;
      default:
        // "www.example.org" is an autolink without a scheme; "12. x" an ordered list.
        if (at == list_number_end || (c == '.' && at >= 3 && lower_ascii(text.substr(at - 3, 3)) == "www"))
          out += '\\';
        out += c;
    }
  }
  return out;
}

std::optional<std::string> closest_match(std::string_view input,
                                         const std::vector<std::string>& candidates) {
  if (input.empty() || input.size() > 64) return std::nullopt;
  const std::string needle = lower_ascii(input);
  const std::size_t max_distance = needle.size() <= 3 ? 1 : needle.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  // Smaller is better: (distance, -common prefix, length difference, candidate order).
  std::tuple<std::size_t, long, std::size_t, std::size_t> best_key{};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    if (candidate.size() > 64 || candidate == input) continue;
    const std::string hay = lower_ascii(candidate);
    std::size_t distance = damerau_distance(needle, hay);
    if (needle.size() >= 2 && hay.size() > needle.size() &&
        hay.compare(0, needle.size(), needle) == 0) {
      distance = std::min<std::size_t>(distance, 1);
    }
    if (distance > max_distance) continue;
    std::size_t prefix = 0;
    while (prefix < needle.size() && prefix < hay.size() && needle[prefix] == hay[prefix]) ++prefix;
    const std::size_t length_gap =
        hay.size() > needle.size() ? hay.size() - needle.size() : needle.size() - hay.size();
    const auto key = std::make_tuple(distance, -static_cast<long>(prefix), length_gap, i);
    if (!best || key < best_key) {
      best = candidate;
      best_key = key;
    }
  }
  return best;
}

}  // namespace pplan
