// What `gpubench run` says while it runs (issue 39): in a log (no terminal) a line when each
// suite execution starts and ends and, inside a long one, a line at most every 30 s; on a
// terminal one line per suite execution redrawn in place with cases done/total and the ETA from
// the run plan. Cases done are read from the suite's Google Benchmark console output as it grows.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>

namespace gpubench::harness {

// How progress is written: `lines` for a log (every line final, nothing redrawn), `live` for a
// terminal (the running suite's line redrawn with '\r').
enum class ProgressStyle { lines, live };

// What the run plan (run_plan.hpp) expects of one execution of a suite; cases 0: no plan.
struct SuiteExpectation {
  int cases = 0;
  double seconds = 0;  // the plan's estimate for one execution, process start included
};

// Counts the cases a Google Benchmark console output (--benchmark_format=console) has reported:
// the distinct names of the result lines after the header's rule of dashes; a case's
// repetitions and aggregates (_mean, _median, _stddev, _cv) count once. Fed in pieces as the
// file grows; a line is counted once complete.
class ConsoleCaseCounter {
 public:
  void feed(std::string_view bytes);
  int cases() const { return static_cast<int>(m_names.size()); }

 private:
  std::string m_partial;  // the bytes after the last newline
  bool m_past_rule = false;
  std::set<std::string> m_names;
};

// One run's progress on `out`. Thread-safe: cases_done comes from a watcher thread while
// suite_started/suite_finished come from the run loop. `now_s` (seconds, monotonic) is a test
// hook; `interval_s` is the most time between lines in a log.
class RunProgress {
 public:
  RunProgress(std::ostream& out, ProgressStyle style, double interval_s = 30,
              std::function<double()> now_s = {});
  ProgressStyle style() const { return m_style; }
  // `label` "[2/8] gemm (execution 1/3)"; `expected` from the plan (nullopt: none).
  void suite_started(const std::string& label, std::optional<SuiteExpectation> expected);
  // The cases the running suite has reported so far, about once a second: on a terminal the
  // line is redrawn; in a log a line is written when `interval_s` has passed since the last.
  void cases_done(int cases);
  // `outcome` "ok (40 benchmarks: 1 skipped, 0 failed; 118.2 s)" plus any reason.
  void suite_finished(const std::string& outcome);
  // A line of its own (a settle note, telemetry): ends a redrawn line first.
  void note(const std::string& line);

 private:
  void write_status_locked(bool forced);
  std::string status_locked() const;

  std::mutex m_mutex;
  std::ostream& m_out;
  ProgressStyle m_style;
  double m_interval_s;
  std::function<double()> m_now_s;
  std::string m_label;
  std::optional<SuiteExpectation> m_expected;
  int m_cases = 0;
  double m_started_s = 0;
  double m_last_line_s = 0;
  bool m_running = false;
};

// Reads a suite's console output file as it grows, on a thread of its own, and calls
// `on_cases` about once a second with the cases it has reported (ConsoleCaseCounter). Stops,
// and joins the thread, when destroyed.
class ConsoleWatcher {
 public:
  ConsoleWatcher(std::filesystem::path console, std::function<void(int cases)> on_cases);
  ~ConsoleWatcher();
  ConsoleWatcher(const ConsoleWatcher&) = delete;
  ConsoleWatcher& operator=(const ConsoleWatcher&) = delete;

 private:
  std::mutex m_mutex;
  std::condition_variable m_stop_cv;
  bool m_stop = false;
  std::thread m_thread;
};

// "1m 20s", "45 s", "2h 5m": a duration for people (seconds, rounded).
std::string duration_words(double seconds);

}  // namespace gpubench::harness
