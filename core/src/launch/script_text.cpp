// Text that reaches a launch script: every user string is written in the syntax of the format
// it lands in (a comment, a bash word, a Python or TOML string) so that no string, whatever
// it holds, can end that construct and become code. The parser rejects control characters
// too; these functions are safe on their own (tests/core/launch_security_test.cpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "detail_launch.h"

namespace pplan::detail {

namespace {

/// One decoded UTF-8 sequence: its code point and length, or length 0 when invalid.
struct CodePoint {
  std::uint32_t value = 0;
  std::size_t length = 0;
};

CodePoint decode(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {lead, 1};
  std::size_t length = 0;
  std::uint32_t value = 0;
  std::uint32_t minimum = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    return {};
  }
  if (at + length > text.size()) return {};
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return {};
    value = (value << 6) | (byte(at + i) & 0x3F);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length};
}

/// Characters that can end a line or a comment somewhere (bash: LF; Python: CR, LF; TOML
/// forbids every control character in comments; JavaScript and JSON-in-HTML: U+2028/2029),
/// or that make a terminal or an editor show something else than the bytes (C1, bidi controls).
bool unsafe(std::uint32_t c) {
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         (c >= 0x200E && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
  static const char* hex = "0123456789abcdef";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[(value >> shift) & 0xF];
}

/// A quoted string in the syntax both Python and TOML share for basic strings: \\, \" and
/// \uXXXX / \UXXXXXXXX escapes; `ascii_only` also escapes every non-ASCII character.
std::string quoted(std::string_view text, bool ascii_only) {
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const CodePoint cp = decode(text, at);
    if (cp.length == 0) {  // invalid UTF-8: the replacement character
      out += "\\ufffd";
      ++at;
      continue;
    }
    const std::uint32_t c = cp.value;
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else if (!ascii_only && !unsafe(c)) {
      out.append(text.substr(at, cp.length));
    } else if (c <= 0xFFFF) {
      out += "\\u";
      append_hex(out, c, 4);
    } else {
      out += "\\U";
      append_hex(out, c, 8);
    }
    at += cp.length;
  }
  return out + "\"";
}

}  // namespace

std::string comment_text(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const CodePoint cp = decode(text, at);
    if (cp.length == 0 || unsafe(cp.value)) {
      out += '?';
      at += cp.length == 0 ? 1 : cp.length;
      continue;
    }
    out.append(text.substr(at, cp.length));
    at += cp.length;
  }
  return out;
}

std::string safe_id(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    if (keep) out += c;
  }
  return out.empty() ? "model" : out;
}

std::string bash_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string python_str(std::string_view text) { return quoted(text, true); }

std::string toml_str(std::string_view text) { return quoted(text, false); }

}  // namespace pplan::detail
