// End-to-end (issue 25): `gpubench site -o DIR` on FIXTURE runs (history_fixture.hpp: 60 runs, a
// -6% step at run 41 with a driver change, annotated), then the index and a series page opened in
// headless Chromium: the chart is laid out with one point per run, the change marked, the
// annotation shown. A second `site` writes nothing that did not change.
#include <gtest/gtest.h>

#include <regex>

#include "chromium_labels.hpp"
#include "e2e_support.hpp"
#include "history_fixture.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {
namespace {

// Runs a check script on a copy of `page` (the site itself has none) in headless Chromium.
std::string chromium_check(const std::string& chromium, const fs::path& page,
                           const std::string& check) {
  return chromium_script_result(chromium, page, page.parent_path(), check);
}

TEST(E2eSite, IndexAndSeriesPageRenderWithTheChangeMarked) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  ASSERT_EQ(ws.run({"annotate", "41", "driver upgrade"}).exit_code, 0);
  const fs::path site = ws.root() / "site";
  const CliResult r = ws.run({"site", "-o", site.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "60 runs, 2 series")) << r.out;
  ASSERT_TRUE(fs::exists(site / "index.html"));
  ASSERT_TRUE(fs::exists(site / "history.json"));
  ASSERT_TRUE(fs::exists(site / "run-41.html"));
  const std::string index = read_file(site / "index.html");
  EXPECT_TRUE(
      contains(index, "run 41 (2026-02-13, driver 570.86 → 575.51, &quot;driver upgrade&quot;)"))
      << index.substr(0, 2000);
  EXPECT_FALSE(contains(index, "<script"));
  const std::string run41 = read_file(site / "run-41.html");
  EXPECT_TRUE(contains(run41, "<td>driver</td><td>570.86</td><td>575.51</td>")) << run41;
  // The series page the index's suite page links first (suite pages carry a hash of the name).
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(index, m, std::regex("href=\"(suite-calibration-[0-9a-f]{16}\\.html)\"")));
  const std::string suite = read_file(site / m[1].str());
  ASSERT_TRUE(std::regex_search(suite, m, std::regex("href=\"(series/[0-9a-f]+\\.html)\"")));
  const fs::path series = site / m[1].str();
  ASSERT_TRUE(fs::exists(series));

  // Regenerated with nothing new: nothing written.
  const CliResult again = ws.run({"site", "-o", site.string()});
  EXPECT_TRUE(contains(again.out, "0 pages written")) << again.out;

  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "no Chromium to render the site";
  EXPECT_EQ(
      chromium_check(chromium, site / "index.html",
                     "out.push('runs='+(document.querySelectorAll('table.runs tr').length-1));"
                     "out.push('changes='+document.querySelectorAll('ul.changes li a').length);"),
      "runs=60 changes=1");
  EXPECT_EQ(
      chromium_check(chromium, series,
                     "const svg=document.querySelector('svg.history');"
                     "out.push('points='+svg.querySelectorAll('circle').length);"
                     "const cp=svg.querySelectorAll('g.change-point line');"
                     "out.push('changes='+cp.length);"
                     "const b=cp[0].getBBox();out.push(b.height>100?'marked':'flat '+b.height);"
                     "out.push('annotations='+svg.querySelectorAll('g.annotation').length);"
                     "const w=svg.viewBox.baseVal.width;let clipped=0;"
                     "svg.querySelectorAll('text').forEach(t=>{const r=t.getBBox();"
                     "if(r.x<0||r.x+r.width>w+0.5)clipped++;});out.push('clipped='+clipped);"),
      "points=60 changes=1 marked annotations=1 clipped=0");
}

// `history --format html` (the same charts as the site's series pages, all on one page) in
// headless Chromium: every series drawn, every change marked, no label outside its chart.
TEST(E2eSite, HistoryHtmlRendersEveryChartWithTheChangeMarked) {
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "no Chromium to render the page";
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  ASSERT_EQ(ws.run({"annotate", "41", "driver upgrade"}).exit_code, 0);
  const fs::path page = ws.root() / "history.html";
  const CliResult r = ws.run({"history", "all", "--format", "html", "-o", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(chromium_check(chromium, page,
                           "const svgs=document.querySelectorAll('svg.history');"
                           "out.push('charts='+svgs.length);let points=0,marked=0,clipped=0,"
                           "notes=0;svgs.forEach(svg=>{"
                           "points+=svg.querySelectorAll('circle').length;"
                           "svg.querySelectorAll('g.change-point line').forEach(l=>{"
                           "if(l.getBBox().height>100)marked++;});"
                           "notes+=svg.querySelectorAll('g.annotation').length;"
                           "const w=svg.viewBox.baseVal.width;"
                           "svg.querySelectorAll('text').forEach(t=>{const b=t.getBBox();"
                           "if(b.x<0||b.x+b.width>w+0.5)clipped++;});});"
                           "out.push('points='+points,'marked='+marked,'annotations='+notes,"
                           "'clipped='+clipped);"),
            "charts=2 points=120 marked=2 annotations=2 clipped=0");
}

// Issue 39: the unit label overlapped the top tick, the first and last points were half cut off
// at the frame, and the x axis named two runs. Measured in the browser on every chart: no two
// texts overlap, every point and its interval inside the frame (the first <rect>), more than two
// run labels.
TEST(E2eSite, HistoryChartsNameRunsAndKeepPointsAndLabelsClear) {
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "no Chromium to render the page";
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  ASSERT_EQ(ws.run({"annotate", "41", "driver upgrade"}).exit_code, 0);
  const fs::path page = ws.root() / "history.html";
  ASSERT_EQ(ws.run({"history", "all", "--format", "html", "-o", page.string()}).exit_code, 0);
  const std::string result = chromium_check(chromium, page,
                                            R"(let charts=0, ticks=9999, problems=[];
document.querySelectorAll('svg.history').forEach((svg,i)=>{charts++;
  const f=svg.querySelector('rect').getBBox();
  const texts=[...svg.querySelectorAll('text')].map(t=>({b:t.getBBox(),s:t.textContent}));
  for(let p=0;p<texts.length;p++) for(let q=p+1;q<texts.length;q++){const a=texts[p].b,b=texts[q].b;
    if(a.x<b.x+b.width-0.5&&b.x<a.x+a.width-0.5&&a.y<b.y+b.height-0.5&&b.y<a.y+a.height-0.5)
      problems.push('chart '+i+': '+texts[p].s+' / '+texts[q].s);}
  svg.querySelectorAll('g.run').forEach(g=>{const b=g.getBBox();
    if(b.x<f.x+1||b.x+b.width>f.x+f.width-1||b.y<f.y||b.y+b.height>f.y+f.height)
      problems.push('chart '+i+': point outside the frame at x '+Math.round(b.x));});
  ticks=Math.min(ticks,svg.querySelectorAll('text.run-tick').length);});
if(ticks<3) problems.push('only '+ticks+' run labels');
out.push('charts='+charts+' '+(problems.length?problems.join(' | '):'OK'));
)");
  EXPECT_EQ(result, "charts=2 OK");
  const std::string html = read_file(page);
  EXPECT_TRUE(contains(html, "<text class=\"run-tick\"")) << html.substr(0, 2000);
  EXPECT_TRUE(contains(html, ">run 60</text>")) << html.substr(0, 2000);
}

}  // namespace
}  // namespace gpubench::e2e
