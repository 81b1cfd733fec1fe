#include "harness/run/progress.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>

namespace gpubench::harness {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A result line's case name: its first word less an aggregate's suffix.
std::string case_name(std::string_view line) {
  const std::size_t end = line.find_first_of(" \t");
  std::string name(line.substr(0, end));
  for (const char* suffix : {"_mean", "_median", "_stddev", "_cv"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return name;
}

}  // namespace

void ConsoleCaseCounter::feed(std::string_view bytes) {
  m_partial.append(bytes);
  std::size_t start = 0;
  for (std::size_t nl = m_partial.find('\n'); nl != std::string::npos;
       nl = m_partial.find('\n', start)) {
    std::string_view line(m_partial.data() + start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == ' ' || line.front() == '\t') continue;
    // The rule of dashes under "Benchmark  Time  CPU  Iterations": result lines follow.
    if (line.find_first_not_of('-') == std::string_view::npos) {
      m_past_rule = true;
      continue;
    }
    // The header between the two rules ("Benchmark  Time  CPU  Iterations") is not a case.
    if (m_past_rule && line.rfind("Benchmark ", 0) != 0) m_names.insert(case_name(line));
  }
  m_partial.erase(0, start);
}

std::string duration_words(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + "m " + std::to_string(s % 60) + "s";
  return std::to_string(s / 3600) + "h " + std::to_string(s % 3600 / 60) + "m";
}

RunProgress::RunProgress(std::ostream& out, ProgressStyle style, double interval_s,
                         std::function<double()> now_s)
    : m_out(out),
      m_style(style),
      m_interval_s(interval_s),
      m_now_s(now_s ? std::move(now_s) : std::function<double()>(steady_seconds)) {}

std::string RunProgress::status_locked() const {
  const double elapsed = m_now_s() - m_started_s;
  std::string s;
  if (m_expected && m_expected->cases > 0) {
    s = std::to_string(std::min(m_cases, m_expected->cases)) + "/" +
        std::to_string(m_expected->cases) + " cases";
  } else if (m_cases > 0) {
    s = std::to_string(m_cases) + " cases";
  }
  if (!s.empty()) s += ", ";
  s += duration_words(elapsed);
  // The ETA: the plan's estimate scaled by the share of cases done, else the plan's estimate
  // less the time gone.
  if (m_expected && m_expected->seconds > 0) {
    double left = m_expected->seconds - elapsed;
    if (m_expected->cases > 0 && m_cases > 0) {
      left = elapsed * (m_expected->cases - std::min(m_cases, m_expected->cases)) / m_cases;
    }
    s += left > 0 ? ", about " + duration_words(left) + " left" : ", past the plan's estimate";
  }
  return s;
}

void RunProgress::write_status_locked(bool forced) {
  const double now = m_now_s();
  if (m_style == ProgressStyle::live) {
    // \r and erase-line: the suite's line redrawn in place.
    m_out << "\r\033[K" << m_label << " ... " << status_locked() << std::flush;
    return;
  }
  if (!forced && now - m_last_line_s < m_interval_s) return;
  m_last_line_s = now;
  m_out << "gpubench: " << m_label << " running: " << status_locked() << '\n' << std::flush;
}

void RunProgress::suite_started(const std::string& label,
                                std::optional<SuiteExpectation> expected) {
  std::lock_guard lock(m_mutex);
  m_label = label;
  m_expected = expected;
  m_cases = 0;
  m_started_s = m_now_s();
  m_last_line_s = m_started_s;
  m_running = true;
  if (m_style == ProgressStyle::live) {
    m_out << m_label << " ..." << std::flush;
    return;
  }
  m_out << "gpubench: " << m_label << " started";
  if (expected) {
    m_out << ": " << (expected->cases > 0 ? std::to_string(expected->cases) : "?")
          << " cases planned, about " << duration_words(expected->seconds);
  }
  m_out << '\n' << std::flush;
}

void RunProgress::cases_done(int cases) {
  std::lock_guard lock(m_mutex);
  if (!m_running) return;
  m_cases = cases;
  write_status_locked(false);
}

void RunProgress::suite_finished(const std::string& outcome) {
  std::lock_guard lock(m_mutex);
  m_running = false;
  if (m_style == ProgressStyle::live) {
    m_out << "\r\033[K" << m_label << " ... " << outcome << '\n' << std::flush;
    return;
  }
  m_out << "gpubench: " << m_label << " ended: " << outcome << '\n' << std::flush;
}

ConsoleWatcher::ConsoleWatcher(std::filesystem::path console,
                               std::function<void(int cases)> on_cases) {
  m_thread = std::thread([this, console = std::move(console), on_cases = std::move(on_cases)] {
    ConsoleCaseCounter counter;
    std::streamoff read = 0;
    std::unique_lock lock(m_mutex);
    while (!m_stop_cv.wait_for(lock, std::chrono::seconds(1), [this] { return m_stop; })) {
      lock.unlock();
      // What the suite wrote since the last look (the file appears when the child starts).
      std::ifstream in(console, std::ios::binary);
      if (in) {
        in.seekg(read);
        char buffer[4096];
        while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
          read += in.gcount();
          counter.feed(std::string_view(buffer, static_cast<std::size_t>(in.gcount())));
        }
      }
      on_cases(counter.cases());
      lock.lock();
    }
  });
}

ConsoleWatcher::~ConsoleWatcher() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_stop_cv.notify_all();
  m_thread.join();
}

void RunProgress::note(const std::string& line) {
  std::lock_guard lock(m_mutex);
  m_out << (m_style == ProgressStyle::live ? "" : "gpubench: ") << line << '\n' << std::flush;
}

}  // namespace gpubench::harness
