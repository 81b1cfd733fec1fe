#include "compare/report/site.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>

#include "compare/render/render.hpp"
#include "compare/render/render_history.hpp"
#include "compare/render/render_history_html.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_style =
    "<style>body{font-family:sans-serif;margin:1.5em;max-width:72em}table{border-collapse:"
    "collapse}td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}"
    ".spark{font-family:monospace}.failed,.interrupted,.abandoned{color:#b00}"
    "nav a{margin-right:1em}</style>";

std::string page_head(const std::string& title, const std::string& up) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
         html_escape(title) + "</title>" + k_style + "</head><body>\n<nav><a href=\"" + up +
         "index.html\">index</a></nav>\n<h1>" + html_escape(title) + "</h1>\n";
}

// Writes `content` to `path` unless the file already holds exactly it. A temp file renamed over
// the page, so a reader never sees half a page; not fsynced (the site is regenerated from the
// database at will, and 10,000 fsyncs took 60 of a 10,000-series site's 80 s).
void put(const fs::path& path, const std::string& content, SiteSummary& summary) {
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) == content.size() &&
      read_file(path) == content) {
    ++summary.pages_unchanged;
    return;
  }
  const fs::path temp = path.string() + ".tmp";
  // The OS's own reason (issue 43: "disk full?" was said for a directory it may not write).
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    // A full disk or a failing device is the machine's problem (exit 3); a directory it may not
    // write (EACCES, EROFS) is the command line's (exit 2).
    const int e = errno;
    if (e == ENOSPC || e == EDQUOT || e == EIO) {
      throw infrastructure("cannot write the site page " + path.string(), errno_text(e),
                           "check the disk -o writes to");
    }
    throw bad_input("cannot write the site page " + path.string(), errno_text(e),
                    "give -o a directory you can write");
  }
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      ::close(fd);
      fs::remove(temp, ec);
      throw infrastructure("cannot write the site page " + path.string(), errno_text(e),
                           "check the disk -o writes to");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    fs::remove(temp, ec);
    throw infrastructure("cannot write the site page " + path.string(), errno_text(e),
                         "check the disk -o writes to");
  }
  fs::rename(temp, path, ec);
  if (ec) {
    throw infrastructure("cannot write the site page " + path.string(), ec.message(),
                         "check the directory -o names");
  }
  ++summary.pages_written;
}

// FNV-1a 64 of `parts`, each closed by a 0xff byte (no UTF-8 text holds one).
uint64_t fnv1a(std::initializer_list<std::string_view> parts) {
  uint64_t hash = 1469598103934665603ull;
  for (std::string_view part : parts) {
    for (unsigned char c : part) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;
    hash *= 1099511628211ull;
  }
  return hash;
}

// "suite-a_b-<hash>.html": the readable part lower-cased letters and digits, the hash of the
// exact name, so a.b, a_b, a-b and A.B get pages of their own, on case-insensitive file systems
// too (issue 43: they shared one page).
std::string suite_page(const std::string& suite) {
  std::string name;
  for (char c : suite) {
    const auto u = static_cast<unsigned char>(c);
    name += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  char hash[24];
  std::snprintf(hash, sizeof hash, "-%016llx.html",
                static_cast<unsigned long long>(fnv1a({suite})));
  return "suite-" + name.substr(0, 64) + hash;
}

std::string run_page(int64_t id) {
  return "run-" + std::to_string(id) + ".html";
}

std::string medians_sparkline(const SeriesHistory& s) {
  std::vector<double> v;
  for (const RunPoint& p : s.points) v.push_back(p.median);
  return sparkline(v);
}

std::string change_line(const History& h, const SeriesHistory& s, const SeriesChange& c) {
  std::string text = "run " + std::to_string(h.runs[s.points[c.point].run].id) + ": " +
                     format_value(c.median_before) + " → " + format_value(c.median_after) + " " +
                     s.unit + ", " + change_pct(c.ratio);
  char buf[64];
  std::snprintf(buf, sizeof buf, " [%+.2f%%, %+.2f%%] (99%%)", (c.ci_low - 1) * 100,
                (c.ci_high - 1) * 100);
  text += buf;
  if (!c.differences.empty()) {
    text += "; " + c.differences.front().difference.field + " " +
            c.differences.front().difference.base + " → " +
            c.differences.front().difference.candidate;
  }
  return text;
}

std::string series_html(const History& h, const SeriesHistory& s) {
  std::ostringstream out;
  out << page_head(s.key.benchmark + " " + s.key.metric + " " + s.key.device, "../");
  out << "<p>" << html_escape(s.group) << "; " << html_escape(s.unit) << ", "
      << to_string(s.direction) << " is better; <a href=\"../" << suite_page(s.key.suite)
      << "\">suite " << html_escape(s.key.suite) << "</a></p>\n";
  history_chart_svg(out, h, s);
  out << "<h2>Change points</h2>\n";
  if (s.changes.empty()) out << "<p>none</p>\n";
  out << "<ul class=\"changes\">\n";
  for (const SeriesChange& c : s.changes) {
    const HistoryRun& run = h.runs[s.points[c.point].run];
    out << "<li><a href=\"../" << run_page(run.id) << "\">" << html_escape(change_line(h, s, c))
        << "</a>";
    for (const std::string& a : run.detail.annotations) out << " <em>" << html_escape(a) << "</em>";
    out << "</li>\n";
  }
  out << "</ul>\n</body></html>\n";
  return out.str();
}

std::string suite_html(const History& h, const std::string& suite,
                       const std::vector<std::size_t>& series) {
  std::ostringstream out;
  out << page_head("Suite " + suite, "");
  out << "<table><tr><th>series</th><th>group</th><th>history</th><th>change points</th></tr>\n";
  for (std::size_t i : series) {
    const SeriesHistory& s = h.series[i];
    out << "<tr><td><a href=\"series/" << series_page(s) << "\">"
        << html_escape(s.key.benchmark + " " + s.key.metric + " " + s.key.device) << "</a></td><td>"
        << html_escape(s.group) << "</td><td class=\"spark\">" << medians_sparkline(s)
        << "</td><td>" << s.changes.size() << "</td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
  return out.str();
}

std::string run_html(const History& h, std::size_t run, const RunChanges* changes) {
  const HistoryRun& r = h.runs[run];
  std::ostringstream out;
  out << page_head("What changed at run " + std::to_string(r.id), "");
  out << "<p>" << html_escape(r.started_at) << ", " << html_escape(r.group) << ", uuid "
      << html_escape(r.uuid) << "</p>\n";
  for (const std::string& a : r.detail.annotations)
    out << "<p>annotated: <em>" << html_escape(a) << "</em></p>\n";
  // The run before it in its group.
  std::size_t before = run;
  while (before > 0 && h.runs[before - 1].group != r.group) --before;
  out << "<h2>Environment differences to the previous run</h2>\n";
  if (before == 0) {
    out << "<p>first run of its group</p>\n";
  } else {
    const HistoryRun& p = h.runs[before - 1];
    std::vector<EnvDifference> diffs = environment_differences({p.detail}, {r.detail});
    append_doctor_differences({p.detail}, {r.detail}, diffs);
    out << "<p>run " << p.id << " → run " << r.id << "</p>\n<table><tr><th>field</th><th>before"
        << "</th><th>after</th></tr>\n";
    for (const EnvDifference& d : diffs) {
      out << "<tr><td>" << html_escape(d.field) << "</td><td>" << html_escape(d.base) << "</td><td>"
          << html_escape(d.candidate) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h2>Change points at this run</h2>\n";
  if (changes == nullptr) {
    out << "<p>none</p>\n";
  } else {
    out << "<p>" << html_escape(change_summary(*changes)) << "</p>\n<ul>\n";
    for (const auto& [si, ci] : changes->changes) {
      const SeriesHistory& s = h.series[si];
      out << "<li><a href=\"series/" << series_page(s) << "\">"
          << html_escape(s.key.benchmark + " " + s.key.metric + " " + s.key.device)
          << "</a>: " << html_escape(change_line(h, s, s.changes[ci])) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "</body></html>\n";
  return out.str();
}

std::string index_html(const History& h, const std::vector<results::RunRow>& runs,
                       const std::map<std::string, std::vector<std::size_t>>& suites,
                       const std::vector<RunChanges>& changes) {
  std::map<int64_t, std::size_t> history_index;
  for (std::size_t i = 0; i < h.runs.size(); ++i) history_index[h.runs[i].id] = i;
  std::map<std::size_t, const RunChanges*> change_of;
  for (const RunChanges& c : changes) change_of[c.run] = &c;
  std::ostringstream out;
  out << page_head("gpubench results", "");
  out << "<p>" << h.runs.size() << " runs of " << html_escape(h.options.selector) << ", "
      << h.series.size() << " series; <a href=\"history.json\">history.json</a></p>\n";
  out << "<h2>Change points by run</h2>\n<ul class=\"changes\">\n";
  if (changes.empty()) out << "<li>none</li>\n";
  for (const RunChanges& c : changes) {
    out << "<li><a href=\"" << run_page(h.runs[c.run].id) << "\">"
        << html_escape(run_headline(h, c)) << "</a>: " << html_escape(change_summary(c))
        << "</li>\n";
  }
  out << "</ul>\n<h2>Suites</h2>\n<ul>\n";
  for (const auto& [suite, series] : suites) {
    out << "<li><a href=\"" << suite_page(suite) << "\">" << html_escape(suite) << "</a> ("
        << series.size() << " series)</li>\n";
  }
  out << "</ul>\n<h2>Runs</h2>\n<table class=\"runs\"><tr><th>run</th><th>started</th><th>"
      << "status</th><th>host</th><th>GPUs</th><th>tags</th><th>change points</th><th>notes</th>"
      << "</tr>\n";
  for (const results::RunRow& r : runs) {
    std::vector<std::string> tags;
    for (const auto& [k, v] : r.tags) tags.push_back(k + "=" + v);
    auto in_history = history_index.find(r.id);
    out << "<tr><td>";
    if (in_history != history_index.end()) {
      out << "<a href=\"" << run_page(r.id) << "\">" << r.id << "</a>";
    } else {
      out << r.id;
    }
    const std::string status = results::to_string(r.status);
    out << "</td><td>" << html_escape(r.started_at) << "</td><td class=\"" << status << "\">"
        << status << "</td><td>" << html_escape(r.hostname) << "</td><td>"
        << html_escape(r.gpu_summary) << "</td><td>" << html_escape(join(tags, ", "))
        << "</td><td>";
    if (in_history != history_index.end()) {
      auto c = change_of.find(in_history->second);
      if (c != change_of.end()) out << c->second->series << " series";
      out << "</td><td>" << html_escape(join(h.runs[in_history->second].detail.annotations, "; "));
    } else {
      out << "</td><td>";
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
  return out.str();
}

}  // namespace

std::string series_page(const SeriesHistory& s) {
  // FNV-1a 64 of the identity: stable as runs are added, distinct in practice.
  const uint64_t hash = fnv1a({s.group, s.key.suite, s.key.benchmark, s.key.metric, s.key.device});
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx.html", static_cast<unsigned long long>(hash));
  return buf;
}

SiteSummary write_site(const fs::path& dir, const History& h,
                       const std::vector<results::RunRow>& runs,
                       const std::vector<fs::path>& keep) {
  std::map<std::string, std::vector<std::size_t>> suites;
  for (std::size_t i = 0; i < h.series.size(); ++i) suites[h.series[i].key.suite].push_back(i);
  // Every file the site writes, checked against `keep` before the first is written (issue 43:
  // a database named DIR/index.html became the index page).
  std::vector<fs::path> pages = {dir / "index.html", dir / "history.json"};
  for (const auto& entry : suites) pages.push_back(dir / suite_page(entry.first));
  for (const SeriesHistory& s : h.series) pages.push_back(dir / "series" / series_page(s));
  for (const HistoryRun& r : h.runs) pages.push_back(dir / run_page(r.id));
  for (const fs::path& page : pages) {
    for (const fs::path& file : keep) {
      if (!same_file(page, file) && !same_file(page.string() + ".tmp", file)) continue;
      throw bad_input("refusing to write the site into '" + dir.string() + "'",
                      "its page " + page.filename().string() + " would replace '" + file.string() +
                          "', the database this command reads",
                      "give -o another directory");
    }
  }
  std::error_code ec;
  fs::create_directories(dir / "series", ec);
  if (ec) {
    throw bad_input("cannot create the site directory", dir.string() + ": " + ec.message(),
                    "give -o a directory you can write");
  }
  SiteSummary summary;
  const std::vector<RunChanges> changes = changes_by_run(h);
  for (const auto& [suite, series] : suites) {
    put(dir / suite_page(suite), suite_html(h, suite, series), summary);
  }
  for (const SeriesHistory& s : h.series) {
    put(dir / "series" / series_page(s), series_html(h, s), summary);
  }
  std::map<std::size_t, const RunChanges*> change_of;
  for (const RunChanges& c : changes) change_of[c.run] = &c;
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    auto c = change_of.find(i);
    put(dir / run_page(h.runs[i].id), run_html(h, i, c == change_of.end() ? nullptr : c->second),
        summary);
  }
  std::ostringstream json;
  render_history(h, HistoryFormat::json, false, json);
  put(dir / "history.json", json.str(), summary);
  // The index last, once every page it links is written (issue 43: a failed write left an
  // index linking pages that were not there).
  put(dir / "index.html", index_html(h, runs, suites, changes), summary);
  return summary;
}

}  // namespace gpubench::compare
