#include "suites/allreduce/incremental_reporter.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpubench::allreduce {

IncrementalJsonReporter::IncrementalJsonReporter(std::string path,
                                                 std::function<void()> before_final_write,
                                                 double cost_factor, std::function<double()> now_s)
    : m_path(std::move(path)),
      m_before_final_write(std::move(before_final_write)),
      m_cost_factor(cost_factor),
      m_now_s(std::move(now_s)) {
  if (!m_now_s) {
    m_now_s = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

bool IncrementalJsonReporter::ReportContext(const Context& context) {
  m_context.emplace(context);
  return true;
}

void IncrementalJsonReporter::ReportRuns(const std::vector<Run>& runs) {
  if (runs.empty()) return;
  // A fresh JSONReporter formats the batch as comma-separated objects (its first batch has no
  // leading comma); the document joins batches with ",\n" as Google Benchmark does.
  std::ostringstream text, ignored;
  benchmark::JSONReporter json;
  json.SetOutputStream(&text);
  json.SetErrorStream(&ignored);
  json.ReportRuns(runs);
  m_run_texts.push_back(text.str());
  m_dirty = true;
  bool urgent = false;
  for (const Run& r : runs) urgent = urgent || r.error_occurred;
  // A finished series is written whatever the throttle says: a loaded machine makes rewrites slow
  // and the throttle long, and a kill must not take whole series with it.
  const std::string series = series_of_case(runs.front().benchmark_name());
  if (!m_series.empty() && !series.empty() && series != m_series) urgent = true;
  m_series = series;
  const double before = m_now_s();
  if (urgent || before >= m_next_write_s) {
    write_document();
    const double after = m_now_s();
    m_next_write_s = after + m_cost_factor * (after - before);
  }
}

void IncrementalJsonReporter::Finalize() {
  if (m_before_final_write) m_before_final_write();
  m_dirty = true;
  write_document();
}

void IncrementalJsonReporter::write_document() {
  if (!m_dirty || m_path.empty()) return;
  std::ostringstream doc, ignored;
  {
    benchmark::JSONReporter json;  // context (with the custom context as it is now) and brackets
    json.SetOutputStream(&doc);
    json.SetErrorStream(&ignored);
    if (m_context) json.ReportContext(*m_context);
    for (std::size_t i = 0; i < m_run_texts.size(); ++i) {
      if (i > 0) doc << ",\n";
      doc << m_run_texts[i];
    }
    json.Finalize();
  }
  const std::string tmp = m_path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << doc.str();
    out.flush();
    if (!out) {
      std::fprintf(stderr, "gpubench: warning: cannot write %s; results stay in memory\n",
                   tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), m_path.c_str()) != 0) {
    std::fprintf(stderr, "gpubench: warning: cannot rename %s to %s: %s\n", tmp.c_str(),
                 m_path.c_str(), std::strerror(errno));
    return;
  }
  m_dirty = false;
  ++m_writes;
}

std::string series_of_case(const std::string& name) {
  const std::size_t at = name.find("/bytes:");
  if (at == std::string::npos) return "";
  const std::size_t end = name.find('/', at + 1);
  return name.substr(0, at) + (end == std::string::npos ? "" : name.substr(end));
}

std::string benchmark_out_path(int argc, char** argv) {
  static const char k_flag[] = "--benchmark_out=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], k_flag, sizeof k_flag - 1) == 0) return argv[i] + sizeof k_flag - 1;
  }
  return "";
}

}  // namespace gpubench::allreduce
