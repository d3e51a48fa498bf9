// text.h: the one Markdown/HTML escaping of user strings (and the report that uses it),
// forbidden characters, code-point lengths, "did you mean" and exact rounding. Expected
// values are written out by hand from CommonMark's rules and the decimal literals.
#include "pplan/text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "pplan/io/api.h"
#include "pplan/io/json_io.h"

namespace pplan {
namespace {

using nlohmann::json;

TEST(Text, EscapeMarkdownNeutralisesHtmlAndMarkup) {
  EXPECT_EQ(escape_markdown("<script>alert(1)</script>"), "&lt;script>alert(1)&lt;/script>");
  EXPECT_EQ(escape_markdown("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)>");
  EXPECT_EQ(escape_markdown("<iframe src=//evil>"), "&lt;iframe src=//evil>");
  EXPECT_EQ(escape_markdown("[x](javascript:alert(1))"), "\\[x\\](javascript:alert(1))");
  EXPECT_EQ(escape_markdown("![p](https://evil.example/p.png)"),
            "!\\[p\\](https\\://evil.example/p.png)");
  EXPECT_EQ(escape_markdown("<https://evil.example>"), "&lt;https\\://evil.example>");
  EXPECT_EQ(escape_markdown("*a* _b_ `c` |d| ~~e~~ #f $g$ \\h &lt;"),
            "\\*a\\* \\_b\\_ \\`c\\` \\|d\\| \\~\\~e\\~\\~ \\#f \\$g\\$ \\\\h &amp;lt;");
  // Block markers only where a block would start.
  EXPECT_EQ(escape_markdown("- item"), "\\- item");
  EXPECT_EQ(escape_markdown("+ item"), "\\+ item");
  EXPECT_EQ(escape_markdown("---"), "\\---");
  EXPECT_EQ(escape_markdown("> quote"), "\\> quote");
  EXPECT_EQ(escape_markdown("12. item"), "12\\. item");
  EXPECT_EQ(escape_markdown("3) item"), "3\\) item");
  EXPECT_EQ(escape_markdown("46.7B parameters, 87.5 GB > 80 GB, GPT-3"),
            "46.7B parameters, 87.5 GB > 80 GB, GPT-3");
  EXPECT_EQ(escape_markdown("Llama 3 (p−1)/m · 日本語"), "Llama 3 (p−1)/m · 日本語");
  // Forbidden characters become spaces (the parser has refused them already).
  EXPECT_EQ(escape_markdown("a\nb\r\n# c\xe2\x80\xa8"
                            "d"),
            "a b  \\# c d");
}

TEST(Text, ConcatJoinsTextAndIntegersOfEveryWidth) {
  const std::string name = "1f1b";
  EXPECT_EQ(concat({"tp = ", 8, ", pp = ", 16LL, " (", name, ")"}), "tp = 8, pp = 16 (1f1b)");
  EXPECT_EQ(concat({std::string_view("n"), std::size_t{4096}, "/", -3, "/", 9223372036854775807LL}),
            "n4096/-3/9223372036854775807");
  EXPECT_EQ(concat({-9223372036854775807LL - 1}), "-9223372036854775808");
  EXPECT_EQ(concat({}), "");
  EXPECT_EQ(concat({"", 0, ""}), "0");
}

TEST(Text, ForbiddenCharactersAndLengthsCountCodePoints) {
  EXPECT_FALSE(first_forbidden_character("GPT-3 175B — é 日本"));
  const auto nl = first_forbidden_character("ab\ncd");
  ASSERT_TRUE(nl);
  EXPECT_EQ(nl->code_point, U'\n');
  EXPECT_EQ(nl->character_index, 2u);
  const auto rlo = first_forbidden_character("é\xe2\x80\xae");
  ASSERT_TRUE(rlo);
  EXPECT_EQ(code_point_name(rlo->code_point), "U+202E");
  EXPECT_EQ(rlo->character_index, 1u);
  for (const char* bad :
       {"\x7f", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x81\xa6", "\t"}) {
    EXPECT_TRUE(first_forbidden_character(bad)) << bad;
  }
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("é日\xf0\x9f\x98\x80"), 3u);  // 2 + 3 + 4 bytes
  EXPECT_EQ(utf8_length("\xff\xfe"), 2u);             // malformed bytes count one each
  EXPECT_TRUE(valid_utf8("é日\xf0\x9f\x98\x80\xef\xbf\xbd"));
  for (const char* bad : {"\xff",
                          "llama3-7\xd9"
                          "0b",
                          "\xc0\x80", "\xed\xa0\x80", "\xe2\x82"}) {
    EXPECT_FALSE(valid_utf8(bad)) << bad;
  }
}

TEST(Text, ClosestMatchAcrossCaseAndNearMisses) {
  const std::vector<std::string> presets = {"a100-40gb", "a100-80gb", "b200", "h100-sxm", "h200"};
  EXPECT_EQ(closest_match("H100-SXM", presets), "h100-sxm");
  EXPECT_EQ(closest_match("h100", presets), "h100-sxm");  // a truncation
  EXPECT_EQ(closest_match("a100-80", presets), "a100-80gb");
  const std::vector<std::string> models = {"deepseek-v3", "gpt3-175b", "llama3-405b",
                                           "llama3-70b",  "llama3-8b", "megatron-1t",
                                           "mixtral-8x7b"};
  EXPECT_EQ(closest_match("gpt3-175B", models), "gpt3-175b");
  EXPECT_EQ(closest_match("llama3-405", models), "llama3-405b");
  EXPECT_EQ(closest_match("lama3-70b", models), "llama3-70b");
  EXPECT_EQ(closest_match("llmaa3-8b", models), "llama3-8b");  // a transposition
  EXPECT_FALSE(closest_match("bert-base", models));
  // Ties: the longer common prefix wins, then schema order, never the alphabet.
  EXPECT_EQ(closest_match("memory_gi", {"memory_gb", "memory_gib"}), "memory_gib");
  EXPECT_EQ(closest_match("xp", {"tp", "pp", "dp", "cp", "ep"}), "tp");
  EXPECT_EQ(closest_match("ppp", {"tp", "pp", "dp"}), "pp");
}

TEST(Text, RoundSignificantIsExactAtEveryExponent) {
  EXPECT_EQ(round_significant(123456789.0, 6), 123457000.0);
  EXPECT_EQ(round_significant(6.02214076e23, 6), 6.02214e23);
  EXPECT_EQ(round_significant(1.7976931348623157e308, 6), 1.79769e308);
  EXPECT_EQ(round_significant(1.23456789e300, 6), 1.23457e300);
  EXPECT_EQ(round_significant(-9.87654321e-300, 6), -9.87654e-300);
  EXPECT_EQ(round_significant(0.1 + 0.2, 6), 0.3);
  EXPECT_EQ(round_significant(2.2250738585072014e-308, 6), 2.22507e-308);
  EXPECT_EQ(round_significant(4.9e-324, 6), 0.0);  // subnormal
  EXPECT_EQ(round_significant(1e-310, 6), 0.0);
  // The shortest text of every rounded value has at most 6 significant digits, in the JSON
  // the engine writes (nlohmann's Grisu2 alone prints 2.7477200000000002e+209 for this one).
  EXPECT_EQ(dump_document(nlohmann::ordered_json(round_significant(2.74771504778165e209, 6))),
            "2.74772e+209");
  EXPECT_EQ(dump_document(
                nlohmann::ordered_json({{"a", 1.5e-5}, {"b", 175e9}, {"c", "2.7477200000000002"}})),
            "{\n  \"a\": 1.5e-05,\n  \"b\": 175000000000.0,\n  \"c\": \"2.7477200000000002\"\n}");
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  for (int i = 0; i < 20000; ++i) {
    char literal[32];
    std::snprintf(literal, sizeof literal, "%.15ge%d", mantissa(rng), exponent(rng));
    const std::string text =
        dump_document(nlohmann::ordered_json(round_significant(std::strtod(literal, nullptr), 6)));
    std::string digits = text.substr(0, text.find_first_of("eE"));
    std::string kept;
    for (char c : digits)
      if (c >= '0' && c <= '9') kept += c;
    kept.erase(0, kept.find_first_not_of('0'));
    while (!kept.empty() && kept.back() == '0') kept.pop_back();
    ASSERT_LE(kept.size(), 6u) << literal << " -> " << text;
  }
}

// The design report with hostile names: nothing the names hold becomes a tag, link, image or
// heading (issue #14: `<script>`, `<img onerror>`, `<iframe>`, `[x](javascript:...)`, remote
// images and headings came out verbatim).
TEST(Text, ReportEscapesEveryUserString) {
  const std::string hostile =
      "<script>alert(1)</script><img src=x onerror=alert(2)><iframe src=//e>"
      "[x](javascript:alert(3)) ![i](https://evil.example/i.png) **bold** | cell |";
  json scenario = {{"model",
                    {{"name", hostile},
                     {"layers", 8},
                     {"hidden", 1024},
                     {"heads", 16},
                     {"ffn_hidden", 4096},
                     {"vocab", 32000},
                     {"activation", "swiglu"}}},
                   {"cluster",
                    {{"gpu",
                      {{"name", "# GPU " + hostile},
                       {"memory_gb", 80},
                       {"bf16_tflops", 989},
                       {"nvlink_gbytes_per_s", 450},
                       {"network_gbytes_per_s", 50}}},
                     {"gpus", 16}}},
                   {"training", {{"seq_len", 2048}, {"global_batch", 64}}}};
  const json r =
      json::parse(handle_request(json({{"command", "report"}, {"scenario", scenario}}).dump()));
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  const std::string md = r["markdown"];
  for (const char* raw : {"<script", "<img", "<iframe", "![", "**bold**", "| cell |"}) {
    EXPECT_EQ(md.find(raw), std::string::npos) << raw;
  }
  // The only links are the report's own formula references ("[[3]](#f-3)"): every other "]("
  // is escaped ("\\](").
  for (std::size_t at = md.find("]("); at != std::string::npos; at = md.find("](", at + 1)) {
    EXPECT_TRUE(md.compare(at, 5, "](#f-") == 0 || (at > 0 && md[at - 1] == '\\'))
        << md.substr(at - 10, 40);
  }
  // The only tags are the report's own formula anchors ("<" before a letter, "/" or "!" opens
  // one; "δ < 2M" in a formula does not).
  for (std::size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
    const char next = at + 1 < md.size() ? md[at + 1] : ' ';
    if (!std::isalpha(static_cast<unsigned char>(next)) && next != '/' && next != '!' &&
        next != '?')
      continue;
    EXPECT_TRUE(md.compare(at, 9, "<a id=\"f-") == 0 || md.compare(at, 4, "</a>") == 0)
        << md.substr(at, 40);
  }
  const std::string title = md.substr(0, md.find('\n'));
  EXPECT_EQ(title, "# Design report: " + escape_markdown(hostile) + " on 16 × " +
                       escape_markdown("# GPU " + hostile));
  // The summary names the model too, escaped the same way.
  EXPECT_NE(md.find("For " + escape_markdown(hostile) + " on 16 "), std::string::npos);
  // JSON keeps the names as written: escaping is for Markdown only.
  EXPECT_EQ(r["report"]["title"].get<std::string>().find(hostile),
            std::string("Design report: ").size());
}

}  // namespace
}  // namespace pplan
