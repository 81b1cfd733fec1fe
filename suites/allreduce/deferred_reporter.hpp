// A Google Benchmark JSON file reporter that holds everything until the run ends, then writes the
// same JSON the standard reporter would, with context added at the end (the sweep summary, slow
// ranks) included. Google Benchmark writes the context first, before any result is known; this
// reporter lets facts learned from the results be stored in the context.
//
// Cost: nothing is written if the process dies before Finalize(); the harness then records the
// suite as failed with its stderr, which is what a crashed multi-rank run is anyway.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <optional>
#include <vector>

namespace gpubench::allreduce {

class DeferredJsonReporter : public benchmark::BenchmarkReporter {
 public:
  // before_write: called once in Finalize(), before the JSON is written (add context there).
  explicit DeferredJsonReporter(std::function<void()> before_write)
      : m_before_write(std::move(before_write)) {}

  bool ReportContext(const Context& context) override {
    m_context.emplace(context);
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    m_runs.insert(m_runs.end(), runs.begin(), runs.end());
  }
  void Finalize() override {
    if (m_before_write) m_before_write();
    benchmark::JSONReporter json;
    json.SetOutputStream(&GetOutputStream());
    json.SetErrorStream(&GetErrorStream());
    if (m_context) json.ReportContext(*m_context);
    if (!m_runs.empty()) json.ReportRuns(m_runs);
    json.Finalize();
  }

 private:
  std::function<void()> m_before_write;
  std::optional<Context> m_context;
  std::vector<Run> m_runs;
};

}  // namespace gpubench::allreduce
