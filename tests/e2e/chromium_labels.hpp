// Lays an HTML report out in headless Chromium and checks that its charts are readable: every
// <text> of every svg.chart inside its SVG's view box, no two texts of a chart overlapping, no
// label (class "lab") repeated within a chart. The check script goes into a copy; the report
// itself has no scripts. Returns "labels=N OK" or what is wrong; "" when Chromium is absent.
#pragma once

#include <filesystem>
#include <string>

#include "harness/process.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {

inline std::string find_chromium_binary() {
  for (const char* p :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

inline std::string chromium_chart_check(const std::filesystem::path& html,
                                        const std::filesystem::path& dir) {
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) return "";
  std::string page = read_file(html);
  const std::string script = R"(<script>
const out=[]; let labels=0;
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
const pre=document.createElement('pre'); pre.id='labelcheck';
pre.textContent='labels='+labels+' '+(out.length?out.join(' | '):'OK');
document.body.appendChild(pre);
</script>)";
  page.insert(page.rfind("</body>"), script);
  const std::filesystem::path copy = dir / ("check_" + html.filename().string());
  write_file_atomic(copy, page);
  harness::ProcessSpec spec;
  spec.argv = {chromium,        "--headless", "--no-sandbox",
               "--disable-gpu", "--dump-dom", "file://" + copy.string()};
  spec.stdout_path = dir / "chromium_dom.html";
  spec.timeout_s = 120;
  harness::run_process(spec);
  const std::string dom = read_file(spec.stdout_path);
  const std::string marker = "<pre id=\"labelcheck\">";
  const std::size_t at = dom.find(marker);
  if (at == std::string::npos) return "chromium produced no check result";
  const std::size_t from = at + marker.size();
  return dom.substr(from, dom.find('<', from) - from);
}

}  // namespace gpubench::e2e
