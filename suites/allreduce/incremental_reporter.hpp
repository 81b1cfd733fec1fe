// A Google Benchmark JSON file reporter that keeps the file valid while the suite runs: after a
// case finishes it rewrites the whole document (context + every run so far) to a temporary file
// and renames it over the --benchmark_out path, so a suite killed by --timeout-per-suite, a
// launcher or a signal leaves a complete JSON file of the cases it finished, which the harness
// ingests as usual (harness/run/runner.cpp reads the file whatever the exit status). At the end the
// context gains what the run learned (the sweep summary) before the last write.
//
// Cost: each run is formatted once (kept as text); a rewrite copies the text so far. After a
// rewrite that took d seconds the next one waits until `cost_factor` x d has passed (20 by
// default: rewriting takes at most ~5% of the run), except after a failed or skipped run, when a
// series ends (the first case of a new series: a case name without its bytes:<n> component), and
// once more at the end. A kill loses at most the cases of the series under way, and of those only
// the last 20 rewrite-durations (milliseconds for the thousand-case quick sweep; longer on a
// loaded machine, where a rewrite is slow, but never a finished series).
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::allreduce {

class IncrementalJsonReporter : public benchmark::BenchmarkReporter {
 public:
  // path: the --benchmark_out file. before_final_write: called once in Finalize() (add context
  // there). now_s: a clock in seconds (tests pass a fake).
  IncrementalJsonReporter(std::string path, std::function<void()> before_final_write,
                          double cost_factor = 20.0, std::function<double()> now_s = {});

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  int writes() const noexcept { return m_writes; }

 private:
  void write_document();

  std::string m_path;
  std::function<void()> m_before_final_write;
  double m_cost_factor;
  std::function<double()> m_now_s;
  std::optional<Context> m_context;
  std::vector<std::string> m_run_texts;  // each ReportRuns batch, formatted once
  double m_next_write_s = -1e300;
  std::string m_series;  // the series of the last batch
  bool m_dirty = false;
  int m_writes = 0;
};

// The series a case belongs to: its name without the bytes:<n> component
// ("allreduce/allreduce/dtype:fp32/mode:in_place/bytes:2048/ranks:2" ->
// "allreduce/allreduce/dtype:fp32/mode:in_place/ranks:2"); "" for a name without a size.
std::string series_of_case(const std::string& name);

// The value of --benchmark_out=<path> in argv, or "" when absent.
std::string benchmark_out_path(int argc, char** argv);

}  // namespace gpubench::allreduce
