#pragma once
/// Text shared by every layer: number formatting (deterministic: the same digits natively and
/// in wasm), the one Markdown/HTML escaping of user strings, UTF-8 checks and "did you mean".

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace pplan {

/// One piece of a message for concat(): text, or an integer written in decimal.
class TextPart {
 public:
  TextPart(const char* text) : text_(text) {}
  TextPart(std::string_view text) : text_(text) {}
  TextPart(const std::string& text) : text_(text) {}
  template <typename Integer, std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  TextPart(Integer value) : TextPart(static_cast<long long>(value), kDecimal) {}
  std::string_view view() const { return digit_count_ > 0 ? std::string_view(digits_, digit_count_) : text_; }

 private:
  enum Decimal { kDecimal };
  TextPart(long long value, Decimal);
  std::string_view text_;
  char digits_[24] = {};
  unsigned char digit_count_ = 0;
};

/// The parts joined ("tp = ", 8, " ..."): one call where a chain of string additions would
/// inline an allocation and an append per piece (the page's engine is smaller for it).
std::string concat(std::initializer_list<TextPart> parts);

/// `value` with `decimals` digits after the point ("43.75", "7.3").
std::string format_fixed(double value, int decimals);

/// `value` with at most `digits` significant digits, shortest form ("0.001", "1e+07", "2.5").
std::string format_significant(double value, int digits = 6);

/// A count held as a double (parameters, tokens, elements): the whole number below 2^53, where
/// a double is exact ("405000000000"), else 6 significant digits ("1.05553e+19"); never a
/// cast that wraps past a long long.
std::string format_count(double value);

/**
 * Rounds to `digits` significant digits, exactly: the double nearest to the decimal the value
 * rounds to (printf's correctly rounded %e, then strtod; glibc and musl, so native and wasm,
 * agree digit for digit). Subnormal values (|x| < 2.2e-308) become 0: no output figure is
 * meaningful at that size.
 */
double round_significant(double value, int digits);

/// The significant digits of every number in pplan's JSON answers (json_io round_numbers); the
/// explanation rounds its figures alike so its words and a table printed from the JSON agree.
inline constexpr int kOutputSignificantDigits = 6;

/// Whether `text` is well-formed UTF-8 (no stray byte, overlong form or surrogate).
bool valid_utf8(std::string_view text);

/// Unicode code points in UTF-8 text; a byte that starts no valid sequence counts as one.
std::size_t utf8_length(std::string_view text);

/// A character no user string may hold, and where it is.
struct ForbiddenCharacter {
  char32_t code_point = 0;
  std::size_t character_index = 0;  ///< 0-based, in code points
};

/**
 * The first character a name, id or description must not contain: C0 controls U+0000–U+001F
 * (newline, tab, NUL, ...), DEL U+007F, C1 controls U+0080–U+009F (NEL), the line and paragraph
 * separators U+2028/U+2029, and the bidirectional overrides and isolates U+202A–U+202E,
 * U+2066–U+2069 (they reorder what a reader sees, "Trojan Source", CVE-2021-42574). A newline
 * in a name would start a heading in Markdown and a command in a script.
 */
std::optional<ForbiddenCharacter> first_forbidden_character(std::string_view text);

/// "U+000A".
std::string code_point_name(char32_t code_point);

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a character boundary
/// (a cut never splits a UTF-8 sequence, so the result stays valid text for JSON and terminals).
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

/**
 * User text as an error message or a terminal may show it: cut on a character boundary to at
 * most `max_bytes` (then "…" follows), a malformed byte as U+FFFD, and every character
 * first_forbidden_character refuses (ESC, newline, C1, bidi overrides) as its name in angle
 * brackets ("<U+001B>"). What a user typed can then never move a cursor, retitle a terminal,
 * start a line or reorder what a reader sees, and the JSON dump of the message cannot throw.
 */
std::string printable(std::string_view text, std::size_t max_bytes = 200);

/**
 * Plain text as Markdown source that renders as exactly that text, also where the renderer
 * passes raw HTML through: `<` and `&` become entities (no tag, comment or autolink can open),
 * the inline markup characters \ ` * _ [ ] | ~ # $ get a backslash (no emphasis, code span,
 * link, image, table cell, strike-through, heading or math), and text that would start a
 * block at the start of a line ("- ", "+ ", "---", ">", "1. ") is neutralised; GFM's extended
 * autolinks ("https://", "www.", "user@host") are broken by a backslash before their ':', '.'
 * or '@', so a name never becomes a link. Forbidden
 * characters (first_forbidden_character) become spaces, though the parser has refused them
 * already. Every user string a Markdown report shows goes through here (design_report.cpp).
 */
std::string escape_markdown(std::string_view text);

/**
 * "Did you mean": the candidate closest to `input`, compared without case, by edit distance
 * with transpositions (Damerau); a candidate that `input` begins (a truncation, "h100" of
 * "h100-sxm") counts as one edit. Ties go to the longer common prefix, then the closer length,
 * then the earlier candidate (callers list them in schema order, not alphabetically). Nothing
 * when no candidate is within 1 edit (inputs of up to 3 characters), 2 (up to 8) or 3.
 */
std::optional<std::string> closest_match(std::string_view input,
                                         const std::vector<std::string>& candidates);

}  // namespace pplan
