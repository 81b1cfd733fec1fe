// Renderers on a fixture comparison whose strings are hostile (markup, Markdown and CSV
// metacharacters, as a database could hold): every format must escape them and stay well formed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/render/render.hpp"
#include "fixtures.hpp"
#include "html_check.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;

namespace {

const char* k_evil = "memory/<script>alert(1)</script>|*x*,\"q\"";

Comparison fixture_comparison() {
  Side a, b;
  a.selection = "baseline:<b>nightly</b>";
  b.selection = "latest";
  a.runs.push_back(run_detail(1, "550 <i>"));
  b.runs.push_back(run_detail(2, "560 & co"));
  for (int bytes = 1024; bytes <= 1 << 20; bytes *= 4) {
    std::string name = "memory/copy/bytes:" + std::to_string(bytes);
    a.results.push_back(
        row(name, "GB_per_s", "GB/s", Direction::higher,
            normal_samples(100.0 + bytes / 1e4, 0.005, 8, static_cast<unsigned>(bytes))));
    b.results.push_back(
        row(name, "GB_per_s", "GB/s", Direction::higher,
            normal_samples(90.0 + bytes / 1e4, 0.005, 8, static_cast<unsigned>(bytes + 1))));
  }
  a.results.push_back(
      row(k_evil, "real_time", "ns", Direction::lower, normal_samples(10, 0.005, 8, 7)));
  b.results.push_back(
      row(k_evil, "real_time", "ns", Direction::lower, normal_samples(10, 0.005, 8, 8)));
  return compare_sides(a, b, Options{});
}

std::string render(Format f) {
  std::ostringstream out;
  render_comparison(fixture_comparison(), f, out, false);
  return out.str();
}

}  // namespace

TEST(Render, Escaping) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(markdown_escape("a|b*c_d`e<f>"), "a\\|b\\*c\\_d\\`e&lt;f&gt;");
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
  EXPECT_EQ(csv_field("=cmd()"), "\"'=cmd()\"");
}

TEST(Render, HtmlIsSelfContainedAndWellFormed) {
  std::string html = render(Format::html);
  EXPECT_EQ(check_markup(html, true), "");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("polyline"), std::string::npos);  // the bytes sweep was charted
  EXPECT_NE(html.find("regression"), std::string::npos);
  EXPECT_NE(html.find("550 &lt;i&gt;"), std::string::npos);  // environment difference shown
}

TEST(Render, CheckerCatchesBrokenMarkup) {
  // The structural check itself must be able to fail.
  EXPECT_NE(check_markup("<html><body></html>", true), "");
  EXPECT_NE(check_markup("<img src=\"http://x/y.png\">", true), "");
  EXPECT_NE(check_markup("<p><script>x</script></p>", true), "");
  EXPECT_EQ(check_markup("<p><br><b>x</b></p>", true), "");
}

TEST(Render, MarkdownEscapesCells) {
  std::string md = render(Format::md);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("\\|\\*x\\*"), std::string::npos);
  EXPECT_NE(md.find("**regression**"), std::string::npos);
}

TEST(Render, JsonHasEveryFigure) {
  nlohmann::json doc = nlohmann::json::parse(render(Format::json));
  ASSERT_EQ(doc["results"].size(), 7u);
  const auto& first = doc["results"][0];
  for (const char* key : {"ratio", "ci_low", "ci_high", "p_value", "q_value", "delta", "verdict",
                          "unit", "direction", "base", "candidate"}) {
    EXPECT_TRUE(first.contains(key)) << key;
  }
  EXPECT_EQ(first["base"]["values"].size(), 8u);
  EXPECT_EQ(doc["environment_differences"][0]["field"], "driver");
}

TEST(Render, JunitOneCasePerBenchmarkWithFailures) {
  std::string xml = render(Format::junit);
  EXPECT_EQ(check_markup(xml, false), "");
  std::size_t cases = 0, failures = 0;
  for (std::size_t p = 0; (p = xml.find("<testcase ", p)) != std::string::npos; ++p) ++cases;
  for (std::size_t p = 0; (p = xml.find("<failure ", p)) != std::string::npos; ++p) ++failures;
  EXPECT_EQ(cases, 7u);
  EXPECT_EQ(failures, 6u);  // the six copies lost 10%
}

TEST(Render, CsvRowsAndQuoting) {
  std::string csv = render(Format::csv);
  std::size_t lines = static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n'));
  EXPECT_EQ(lines, 8u);  // header + 7
  EXPECT_NE(csv.find("\"memory/<script>alert(1)</script>|*x*,\"\"q\"\"\""), std::string::npos);
}

TEST(Render, TextAlignedWithoutColourUnlessAsked) {
  std::ostringstream plain, coloured;
  Comparison c = fixture_comparison();
  render_text(c, plain, false);
  render_text(c, coloured, true);
  EXPECT_EQ(plain.str().find("\033["), std::string::npos);
  EXPECT_NE(coloured.str().find("\033[31m"), std::string::npos);
  EXPECT_NE(plain.str().find("driver"), std::string::npos);
}

// Issue 35: a run measures each suite in several executions, each its own suite run. The run's
// line counts suites (one failed when any execution failed) and says how many executions.
TEST(Render, RunTallyCountsSuitesAndTheirExecutions) {
  using gpubench::results::SuiteRunInfo;
  using gpubench::results::SuiteStatus;
  std::vector<SuiteRunInfo> suite_runs;
  for (int e = 0; e < 3; ++e) {
    for (const char* suite : {"memory", "gemm"}) {
      SuiteRunInfo s;
      s.suite = suite;
      s.status = e == 1 && s.suite == "memory" ? SuiteStatus::crashed : SuiteStatus::ok;
      suite_runs.push_back(s);
    }
  }
  RunTally tally;
  tally.add("memory/copy", gpubench::results::BenchmarkStatus::ok, "");
  tally.add("memory/copy", gpubench::results::BenchmarkStatus::ok, "");
  EXPECT_EQ(tally.line(7, suite_runs),
            "run 7: 2 suites × 3 executions (1 failed), 1 benchmark: 1 measured, 0 skipped, "
            "0 failed");
  suite_runs.pop_back();  // gemm's third execution never ran
  EXPECT_EQ(tally.line(7, suite_runs).rfind("run 7: 2 suites × 2-3 executions (1 failed), ", 0), 0u)
      << tally.line(7, suite_runs);
  suite_runs.resize(2);  // one execution each: as before
  EXPECT_EQ(tally.line(7, suite_runs).rfind("run 7: 2 suites, 1 benchmark", 0), 0u)
      << tally.line(7, suite_runs);
}
