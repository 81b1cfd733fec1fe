// Lays an HTML report out in headless Chromium and checks that its charts are readable: every
// <text> of every svg.chart inside its SVG's view box, no two texts of a chart overlapping, no
// label (class "lab") repeated within a chart. The check script goes into a copy; the report
// itself has no scripts. Returns "labels=N OK" or what is wrong; "" when Chromium is absent.
// Also the one Chromium runner the site, report and accept tests share (find_chromium_binary,
// chromium_script_result).
#pragma once

#include <filesystem>
#include <string>

#include "harness/process/process.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {

inline std::string find_chromium_binary() {
  for (const char* p :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

// Loads a copy of `html` (in `dir`) in headless Chromium with `script` (JavaScript) added before
// </body>; the script pushes its findings into the array `out`, which goes into a <pre> whose
// text is returned ("chromium produced no check result" when there is none). The page itself has
// no scripts. `window` ("1400,1000"): the window size, for checks of layout; "" the default.
inline std::string chromium_script_result(const std::string& chromium,
                                          const std::filesystem::path& html,
                                          const std::filesystem::path& dir,
                                          const std::string& script,
                                          const std::string& window = "") {
  std::string page = read_file(html);
  page.insert(page.rfind("</body>"),
              "<script>const out=[];" + script +
                  "const pre=document.createElement('pre');pre.id='gpubench-check';"
                  "pre.textContent=out.join(' ');document.body.appendChild(pre);</script>");
  const std::filesystem::path copy = dir / ("check_" + html.filename().string());
  write_file_atomic(copy, page);
  harness::ProcessSpec spec;
  spec.argv = {chromium, "--headless", "--no-sandbox", "--disable-gpu"};
  if (!window.empty()) spec.argv.push_back("--window-size=" + window);
  spec.argv.push_back("--dump-dom");
  spec.argv.push_back("file://" + copy.string());
  spec.stdout_path = dir / "chromium_dom.html";
  spec.timeout_s = 120;
  harness::run_process(spec);
  std::filesystem::remove(copy);
  const std::string dom = read_file(spec.stdout_path);
  const std::string marker = "<pre id=\"gpubench-check\">";
  const std::size_t at = dom.find(marker);
  if (at == std::string::npos) return "chromium produced no check result";
  const std::size_t from = at + marker.size();
  return dom.substr(from, dom.find('<', from) - from);
}

inline std::string chromium_chart_check(const std::filesystem::path& html,
                                        const std::filesystem::path& dir) {
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) return "";
  return chromium_script_result(chromium, html, dir, R"(let labels=0;
document.querySelectorAll('svg.chart').forEach((svg,i)=>{
  const w=svg.viewBox.baseVal.width, h=svg.viewBox.baseVal.height; const seen=new Set();
  const boxes=[];
  svg.querySelectorAll('text').forEach(t=>{
    const b=t.getBBox();
    if(b.x<-0.5||b.x+b.width>w+0.5||b.y<-0.5||b.y+b.height>h+0.5) out.push('clipped in chart '+i+': '+t.textContent);
    for(const o of boxes){ if(b.x<o.b.x+o.b.width-0.5&&o.b.x<b.x+b.width-0.5&&b.y<o.b.y+o.b.height-0.5&&o.b.y<b.y+b.height-0.5) out.push('overlap in chart '+i+': '+t.textContent+' / '+o.s); }
    boxes.push({b:b,s:t.textContent});
    if(t.classList.contains('lab')){ labels++;
      if(seen.has(t.textContent)) out.push('repeated in chart '+i+': '+t.textContent);
      seen.add(t.textContent);}});});
const problems=out.splice(0); out.push('labels='+labels+' '+(problems.length?problems.join(' | '):'OK'));
)");
}

}  // namespace gpubench::e2e
