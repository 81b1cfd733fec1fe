// Reports of large comparisons and runs (issue 16) on synthetic fixtures (large_fixture.hpp):
// a 200,000-entry HTML report parses (Python's html.parser, html_parse_check.py) and names every
// entry to act on, stays under 20 MB; Markdown names them too and does not grow with the
// unchanged entries; small reports keep the full table.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>

#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/render/svg.hpp"
#include "compare/report/report.hpp"
#include "html_check.hpp"
#include "large_fixture.hpp"
#include "tests/suites/run_program.hpp"
#include "util/fs.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t k_fleet_entries = 200000;

std::string render_html_text(const Comparison& cmp, const std::string& csv = "") {
  std::ostringstream out;
  render_comparison(cmp, Format::html, out, false, csv);
  return out.str();
}

std::string render_md_text(const Comparison& cmp, const std::string& csv = "") {
  std::ostringstream out;
  render_comparison(cmp, Format::md, out, false, csv);
  return out.str();
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs html_parse_check.py; returns its exit code and output.
std::pair<int, std::string> parse_check(const fs::path& html, const fs::path& names) {
  std::string cmd = "python3 '" + std::string(GPUBENCH_SOURCE_DIR) +
                    "/tests/compare/html_parse_check.py' '" + html.string() + "' '" +
                    names.string() + "' --max-mb 20 2>&1";
  gpubench::testing::ChildResult r = gpubench::testing::run_shell(cmd);
  return {r.exit_code, std::move(r.out)};
}

bool have_python() {
  return std::system("python3 -c 'import html.parser' >/dev/null 2>&1") == 0;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

}  // namespace

TEST(LargeReport, SidecarIsBesideTheOutput) {
  EXPECT_EQ(sidecar_path("out/cmp.html", ".unchanged.csv"), "out/cmp.unchanged.csv");
  EXPECT_EQ(sidecar_path("cmp.md", ".unchanged.csv"), "cmp.unchanged.csv");
  EXPECT_EQ(sidecar_path("", ".unchanged.csv"), "");
  EXPECT_EQ(sidecar_path("-", ".unchanged.csv"), "");
  EXPECT_EQ(sidecar_name("out/cmp.unchanged.csv"), "cmp.unchanged.csv");
}

TEST(LargeReport, DistributionCountsEveryValueOnRoundTicks) {
  std::vector<std::pair<std::string, double>> values;
  for (int i = 0; i < 1000; ++i) values.emplace_back("memory", -1.8 + 3.6 * i / 999.0);
  values.emplace_back("memory", -40.0);  // an outlier: counted in the first (open) bar
  values.emplace_back("memory", NAN);    // unknown: left out
  values.emplace_back("gemm", 0.5);
  std::vector<Distribution> d = distributions(values);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].suite, "gemm");
  const Distribution& m = d[1];
  EXPECT_EQ(m.total, 1001u);
  std::size_t sum = 0;
  for (std::size_t c : m.counts) sum += c;
  EXPECT_EQ(sum, 1001u);
  ASSERT_EQ(m.edges.size(), k_histogram_bins + 1);
  EXPECT_DOUBLE_EQ(m.edges.front(), -2.0);  // rounded out to a round step
  EXPECT_DOUBLE_EQ(m.edges.back(), 2.0);
  EXPECT_DOUBLE_EQ(m.min, -40.0);
  std::ostringstream svg_out;
  svg::histogram_chart(svg_out, "t", "x", m.edges, m.counts, "#888");
  EXPECT_EQ(count_of(svg_out.str(), "<rect "), k_histogram_bins);
  EXPECT_EQ(check_markup(svg_out.str(), true), "");
}

TEST(LargeReport, SmallComparisonKeepsTheFullTable) {
  Comparison at = large_comparison(k_large_report_entries, 33);
  std::string html = render_html_text(at);
  EXPECT_NE(html.find("<h2>Results</h2>"), std::string::npos);
  // Every entry in the table: its 8 GPUs make it a strip of one square per entry (issue 26).
  EXPECT_EQ(count_of(html, "height=\"10\" class="), k_large_report_entries);
  EXPECT_EQ(html.find("more than 5000"), std::string::npos);

  Comparison over = large_comparison(k_large_report_entries + 1, 33);
  html = render_html_text(over);
  EXPECT_EQ(html.find("<h2>Results</h2>"), std::string::npos);
  EXPECT_NE(html.find("more than 5000"), std::string::npos);
  EXPECT_EQ(check_markup(html, true), "");
}

// The "Must show": a 200,000-entry HTML report parses and names every regression (and
// every other entry to act on), under 20 MB, with no sidecar (output to stdout).
TEST(LargeReport, HtmlOf200kEntriesParsesAndNamesEveryEntryToActOn) {
  if (!have_python()) GTEST_SKIP() << "python3 not installed (ci/setup installs it)";
  const Comparison cmp = large_comparison(k_fleet_entries, 33);
  gpubench::TempDir dir("gpubench-large-html");
  const std::string html = render_html_text(cmp);
  EXPECT_EQ(check_markup(html, true), "");
  std::ostringstream names;
  std::size_t regressions = 0, listed = 0;
  for (const Entry& e : cmp.entries) {
    if (e.verdict == Verdict::unchanged) continue;
    names << e.key.benchmark << '\n';
    ++listed;
    regressions += e.verdict == Verdict::regression ? 1 : 0;
  }
  ASSERT_EQ(regressions, 400u);  // every 500th of 200,000
  write(dir.path() / "report.html", html);
  write(dir.path() / "names.txt", names.str());
  auto [code, out] = parse_check(dir.path() / "report.html", dir.path() / "names.txt");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("ok: " + std::to_string(listed) + " names found"), std::string::npos) << out;
  EXPECT_NE(html.find("<h2>regression (400)</h2>"), std::string::npos);
  // Regressions are full table rows with their why; unchanged entries only in the closed block.
  EXPECT_EQ(count_of(html, "<tr class=\"regression\">"), 400u);
  EXPECT_NE(html.find("<details><summary>" + std::to_string(cmp.count(Verdict::unchanged)) +
                      " unchanged entries</summary>"),
            std::string::npos);
  EXPECT_NE(html.find("change of "), std::string::npos);  // the per-suite distributions
  EXPECT_LT(html.size(), 20u * 1000 * 1000);

  // The checker itself fails on a broken page and on a name that is not there.
  write(dir.path() / "broken.html", html.substr(0, html.size() / 2));
  EXPECT_NE(parse_check(dir.path() / "broken.html", dir.path() / "names.txt").first, 0);
  write(dir.path() / "other.txt", "memory/not-in-the-report\n");
  EXPECT_NE(parse_check(dir.path() / "report.html", dir.path() / "other.txt").first, 0);
}

TEST(LargeReport, HtmlWithOutputFileWritesUnchangedCsvBesideIt) {
  const Comparison cmp = large_comparison(k_fleet_entries, 33);
  gpubench::TempDir dir("gpubench-large-csv");
  const std::string csv_path = (dir.path() / "cmp.unchanged.csv").string();
  const std::string html = render_html_text(cmp, csv_path);
  EXPECT_EQ(check_markup(html, true), "");
  EXPECT_NE(html.find("<a href=\"cmp.unchanged.csv\">"), std::string::npos);
  EXPECT_EQ(html.find(" unchanged entries</summary>"), std::string::npos);
  const std::string csv = gpubench::read_file(csv_path);
  EXPECT_EQ(count_of(csv, "\n"), cmp.count(Verdict::unchanged) + 1);  // header + one a row
  EXPECT_EQ(csv.find(",regression\n"), std::string::npos);
  EXPECT_NE(csv.find(",unchanged\n"), std::string::npos);
  EXPECT_LT(html.size(), render_html_text(cmp).size());
}

TEST(LargeReport, MarkdownNamesEveryEntryToActOnAndDoesNotGrowWithUnchanged) {
  const Comparison cmp = large_comparison(k_fleet_entries, 33);
  const std::string md = render_md_text(cmp);
  std::unordered_set<std::string> words;  // names hold no spaces: a set keeps 200k look-ups fast
  std::istringstream split(md);
  for (std::string w; split >> w;) words.insert(w);
  std::size_t full = 0, compact = 0;
  for (const Entry& e : cmp.entries) {
    if (e.verdict == Verdict::unchanged) continue;
    // Full rows escape the name for Markdown; the inconclusive block is a code fence (literal).
    bool in_fence = e.verdict == Verdict::inconclusive;
    const std::string name = in_fence ? e.key.benchmark : markdown_escape(e.key.benchmark);
    ASSERT_TRUE(words.count(name)) << to_string(e.verdict) << ' ' << name;
    (in_fence ? compact : full) += 1;
  }
  EXPECT_EQ(count_of(md, "**regression**"), 400u);
  // Bounded by what there is to act on: ~600 bytes a full row, ~150 a compact line, plus a page.
  EXPECT_LT(md.size(), 600 * full + 150 * compact + 20000) << md.size();
  // Without inconclusive entries the 200,000 entries are ~1,000 to act on: the unchanged add
  // nothing but a row per suite.
  const std::string decided = render_md_text(large_comparison(k_fleet_entries, 0));
  EXPECT_LT(decided.size(), 700u * 1000) << decided.size();
  EXPECT_NE(decided.find("Not listed here: write the report with -o FILE"), std::string::npos);
}

TEST(LargeReport, RunReportListsErrorsInFullAndOkRowsBeside) {
  RunReport r;
  r.run.run.id = 7;
  r.run.run.uuid = "fixture";
  for (std::size_t i = 0; i < k_large_report_entries + 100; ++i) {
    ReportRow row;
    row.key = {"memory", large_name(i), "GB_per_s", "gpu0"};
    row.unit = "GB/s";
    row.stats.n = 4;
    row.stats.median = 100;
    row.stats.cv = 0.01 * static_cast<double>(i % 7);
    if (i % 1000 == 3) {
      row.status = gpubench::results::BenchmarkStatus::error;
      row.message = "validation failed <exactly>";
    }
    if (i % 1000 == 4) row.stats.throttled = 2;
    r.rows.push_back(row);
  }
  std::ostringstream collapsed;
  render_report(r, Format::html, collapsed);
  const std::string html = collapsed.str();
  EXPECT_EQ(check_markup(html, true), "");
  EXPECT_EQ(count_of(html, "validation failed &lt;exactly&gt;"), 6u);
  EXPECT_NE(html.find("Errors, skips and throttled results (12)"), std::string::npos);
  EXPECT_NE(html.find("<details><summary>" + std::to_string(r.rows.size() - 12) + " results"),
            std::string::npos);
  EXPECT_NE(html.find("coefficient of variation"), std::string::npos);

  gpubench::TempDir dir("gpubench-large-report");
  const std::string csv_path = (dir.path() / "run.results.csv").string();
  std::ostringstream beside, md;
  render_report(r, Format::html, beside, false, csv_path);
  EXPECT_NE(beside.str().find("<a href=\"run.results.csv\">"), std::string::npos);
  EXPECT_EQ(count_of(gpubench::read_file(csv_path), "\n"), r.rows.size() - 12 + 1);
  render_report(r, Format::md, md);
  EXPECT_EQ(count_of(md.str(), "validation failed &lt;exactly&gt;"), 6u);
  EXPECT_LT(md.str().size(), 10000u);
}

TEST(LargeReport, LongSweepsAndLongUnmatchedListsStaySmall) {
  Comparison cmp = large_comparison(k_large_report_entries + 1000, 0);
  for (std::size_t i = 0; i < cmp.entries.size(); ++i) {
    Entry& e = cmp.entries[i];
    e.key.device = "gpu0";
    e.case_name = "triad";
    gpubench::results::Param p;
    p.key = "bytes";
    p.text = std::to_string(1024 * (i + 1));
    p.number = 1024.0 * static_cast<double>(i + 1);
    e.params = {p};  // one sweep per suite, thousands of points each
    cmp.added.push_back({e.key, "candidate only"});
  }
  const std::string html = render_html_text(cmp);
  EXPECT_EQ(check_markup(html, true), "");
  EXPECT_NE(html.find("2 sweeps of more than 500 points are not drawn"), std::string::npos);
  EXPECT_EQ(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("<h2>Added (6000)</h2>\n<details><summary>6000 entries</summary>"),
            std::string::npos);
}

// A change that slows everything: 200,000 regressions. The largest k_max_full_rows get full rows,
// every other one a compact line; all are named, and the page stays under 20 MB.
TEST(LargeReport, HtmlOf200kRegressionsNamesEveryOneUnder20MB) {
  if (!have_python()) GTEST_SKIP() << "python3 not installed (ci/setup installs it)";
  const Comparison cmp = large_comparison(k_fleet_entries, 0, 100);
  ASSERT_GT(cmp.count(Verdict::regression), 190000u);
  gpubench::TempDir dir("gpubench-large-regressions");
  const std::string html = render_html_text(cmp);
  std::ostringstream names;
  for (const Entry& e : cmp.entries) {
    if (e.verdict == Verdict::regression) names << e.key.benchmark << '\n';
  }
  write(dir.path() / "report.html", html);
  write(dir.path() / "names.txt", names.str());
  auto [code, out] = parse_check(dir.path() / "report.html", dir.path() / "names.txt");
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(count_of(html, "<tr class=\"regression\">"), k_max_full_rows);
  // The largest changes (the 20% ones of every 500th benchmark) are among the full rows.
  const std::size_t heading = html.find("<h2>regression (");
  ASSERT_NE(heading, std::string::npos);
  const std::size_t table_end = html.find("</table>", heading);
  ASSERT_NE(table_end, std::string::npos);
  EXPECT_LT(html.find("<td class=\"name\">" + large_name(500) + "</td>"), table_end);
  const std::string md = render_md_text(cmp);
  EXPECT_EQ(count_of(md, "**regression**"), k_max_full_rows);
  EXPECT_LT(md.size(), 20u * 1000 * 1000);
}

TEST(LargeReport, CompactLineHasChangeIntervalSamplesAndIdentity) {
  Entry e;
  e.key = {"memory", "memory/triad/bytes:1024", "GB_per_s", "gpu0"};
  e.ratio = 0.833;
  e.ci_low = 0.8077;
  e.ci_high = 0.859;
  e.base.n = e.candidate.n = 4;
  EXPECT_EQ(compact_line(e, Interval::shown),
            "-16.70% [-19.23, -14.10] 4/4   memory/triad/bytes:1024 GB_per_s gpu0");
  EXPECT_EQ(compact_line(e, Interval::left_out),
            "-16.70% 4/4   memory/triad/bytes:1024 GB_per_s gpu0");
  e.ci_high = INFINITY;  // an unknown end: no interval, never a cut character
  e.primary = false;
  EXPECT_EQ(compact_line(e, Interval::shown),
            "-16.70% —" + std::string(14, ' ') +
                "4/4   memory/triad/bytes:1024 GB_per_s (secondary) gpu0");
}
