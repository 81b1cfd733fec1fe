// gpubench show RUN: a run's environment, suites and results (median and spread per metric).
#include <CLI/CLI.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include "compare/aggregates.hpp"
#include "compare/noisy_series.hpp"
#include "compare/render/render.hpp"
#include "compare/run_problems.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/cli/nodes.hpp"
#include "harness/cli/p2p_matrix.hpp"
#include "harness/cli/run_json.hpp"
#include "harness/doctor/doctor.hpp"
#include "harness/run/runner.hpp"
#include "results/acceptance_facts.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {

namespace {
// The practical threshold `compare` uses by default (--threshold 0.02): series that two runs
// could not judge at it are listed as noisy.
constexpr double k_noisy_threshold = 0.02;

struct ShowArgs {
  std::string run;
  std::string format = "text";
};

template <typename T>
std::string opt_text(const std::optional<T>& v, const std::string& suffix = "") {
  return v ? std::to_string(*v) + suffix : std::string(results::k_unknown);
}

void print_environment(std::ostream& out, const results::RunDetail& d) {
  const auto& r = d.run;
  const auto& info = d.info;
  out << "run " << r.id << "  " << r.uuid << "  " << run_status_text(r) << '\n';
  if (!r.status_reason.empty()) out << "  " << r.status_reason << '\n';
  if (!r.history_excluded.empty()) {
    out << "  excluded from history: " << r.history_excluded << " ('gpubench history include "
        << r.id << "' undoes it)\n";
  }
  out << "  started " << r.started_at << ", finished "
      << (r.finished_at.empty() ? "-" : r.finished_at) << ", by " << info.user << ", profile "
      << info.config.profile << '\n';
  if (!r.tags.empty()) {
    std::vector<std::string> t;
    for (const auto& [k, v] : r.tags) t.push_back(k + "=" + v);
    out << "  tags: " << join(t, ", ") << '\n';
  }
  if (!r.note.empty()) out << "  note: " << r.note << '\n';
  const auto& h = info.host;
  out << "  host: " << h.hostname << ", " << h.cpu_model << " (" << opt_text(h.sockets)
      << " sockets, " << opt_text(h.cores) << " cores, " << opt_text(h.threads) << " threads), "
      << (h.memory_bytes ? format_bytes_binary(static_cast<double>(*h.memory_bytes))
                         : std::string(results::k_unknown))
      << " RAM, " << h.os << ", kernel " << h.kernel << ", governor " << h.governor << '\n';
  if (info.gpus.empty()) out << "  gpus: none\n";
  for (const auto& g : info.gpus) {
    // Memory size, power limit and clocks (issue 24): what a buyer and a fleet check compare.
    out << "  gpu " << g.nvml_index << ": " << g.name << " " << g.uuid << ", memory "
        << (g.memory_bytes ? format_bytes_binary(static_cast<double>(*g.memory_bytes))
                           : std::string(results::k_unknown))
        << ", " << opt_text(g.sm_count) << " SMs, cc " << g.compute_capability << ", SM clock max "
        << opt_text(g.max_sm_clock_mhz, " MHz") << " / application "
        << opt_text(g.app_sm_clock_mhz, " MHz") << " / default "
        << opt_text(g.default_sm_clock_mhz, " MHz") << ", memory clock max "
        << opt_text(g.max_mem_clock_mhz, " MHz") << ", power limit "
        << (g.power_limit_w ? format_significant(*g.power_limit_w) + " W"
                            : std::string(results::k_unknown))
        << ", ECC " << g.ecc << ", PCIe gen " << opt_text(g.pcie_gen) << " x"
        << opt_text(g.pcie_width) << ", NUMA " << opt_text(g.numa_node) << ", bus " << g.pci_bus_id
        << '\n';
  }
  const auto& s = info.software;
  out << "  software: driver " << s.driver_version << ", CUDA driver " << s.cuda_driver_version
      << ", CUDA runtime " << s.cuda_runtime_version << ", cuBLAS " << s.cublas_version << ", NCCL "
      << s.nccl_version << ", gpubench " << s.gpubench_version << " (git "
      << s.git_sha.substr(0, 12) << (s.git_dirty == "true" ? ", dirty" : "") << ")\n";
  if (!info.config.env.empty()) {
    std::vector<std::string> e;
    for (const auto& [k, v] : info.config.env) e.push_back(k + "=" + v);
    out << "  env: " << join(e, " ") << '\n';
  }
}

// Where the run's telemetry stands: the reason it was not recorded (runner.hpp's env key), or
// empty when it was (or the run predates telemetry and nothing says).
std::string telemetry_off_reason(const results::RunDetail& d) {
  const auto it = d.info.config.env.find(harness::k_telemetry_env_key);
  return it == d.info.config.env.end() ? std::string() : it->second;
}

// Whole numbers (NVML reports clocks, temperatures in integers) without a fraction.
std::string opt_number(const std::optional<double>& v, const std::string& unit) {
  if (!v) return results::k_unknown;
  if (*v == std::floor(*v) && std::fabs(*v) < 1e15) {
    return std::to_string(static_cast<int64_t>(*v)) + unit;
  }
  return format_significant(*v, 4) + unit;
}

// One line per GPU: samples, peaks, the lowest SM clock, throttled samples, error counters.
void print_telemetry(std::ostream& out, const results::RunDetail& d,
                     const std::vector<results::TelemetrySummary>& gpus) {
  if (gpus.empty()) {
    const std::string off = telemetry_off_reason(d);
    out << "telemetry " << (off.empty() ? "not recorded for this run" : off) << '\n';
    return;
  }
  for (const auto& g : gpus) {
    out << "telemetry gpu " << g.nvml_index;
    if (!g.gpu_uuid.empty()) out << " (" << g.gpu_uuid << ")";
    out << ": " << g.samples << " samples, max " << opt_number(g.max_temperature_c, " C")
        << ", max " << opt_number(g.max_power_w, " W") << ", SM clock "
        << opt_number(g.min_sm_clock_mhz, "") << "-" << opt_number(g.max_sm_clock_mhz, " MHz")
        << ", thermal/HW slowdown " << g.throttled_samples << "/" << g.throttle_known
        << ", power-limited " << g.power_limited_samples << "/" << g.throttle_known;
    if (!g.throttled_suites.empty()) out << " in " << join(g.throttled_suites, ", ");
    std::vector<std::string> counters;
    auto counter = [&](const char* name, const std::optional<int64_t>& v) {
      if (v && *v > 0) counters.push_back(std::string(name) + " +" + std::to_string(*v));
    };
    counter("ECC corrected", g.ecc_sbe_increase);
    counter("ECC uncorrected", g.ecc_dbe_increase);
    counter("retired pages", g.retired_pages_increase);
    counter("remapped rows", g.remapped_rows_increase);
    counter("PCIe replays", g.pcie_replay_increase);
    if (!counters.empty()) out << "; during the run: " << join(counters, ", ");
    if (g.remap_failure) out << "; ROW REMAP FAILED: send this GPU for service";
    if (g.remap_pending) out << "; a row remap is pending (reset the GPU)";
    out << '\n';
  }
}

nlohmann::json telemetry_json(const results::RunDetail& d,
                              const std::vector<results::TelemetrySummary>& gpus) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json list = nlohmann::json::array();
  for (const auto& g : gpus) {
    list.push_back({{"nvml_index", g.nvml_index},
                    {"gpu_uuid", g.gpu_uuid},
                    {"power_limited_samples", g.power_limited_samples},
                    {"remapped_rows_increase", opt(g.remapped_rows_increase)},
                    {"remap_pending", g.remap_pending},
                    {"remap_failure", g.remap_failure},
                    {"samples", g.samples},
                    {"max_temperature_c", opt(g.max_temperature_c)},
                    {"max_power_w", opt(g.max_power_w)},
                    {"min_sm_clock_mhz", opt(g.min_sm_clock_mhz)},
                    {"max_sm_clock_mhz", opt(g.max_sm_clock_mhz)},
                    {"throttled_samples", g.throttled_samples},
                    {"throttle_known_samples", g.throttle_known},
                    {"throttled_suites", g.throttled_suites},
                    {"ecc_corrected_increase", opt(g.ecc_sbe_increase)},
                    {"ecc_uncorrected_increase", opt(g.ecc_dbe_increase)},
                    {"retired_pages_increase", opt(g.retired_pages_increase)},
                    {"pcie_replay_increase", opt(g.pcie_replay_increase)}});
  }
  const std::string off = telemetry_off_reason(d);
  return {{"recorded", !gpus.empty()},
          {"reason", gpus.empty() ? (off.empty() ? "not recorded" : off) : ""},
          {"gpus", list}};
}

// The rows build_p2p_matrices needs, kept while the run's rows stream past: the rows that can be
// matrix cells, and the first UUID seen for each CUDA ordinal.
class P2pRows {
 public:
  void add(const results::ResultRow& r) {
    if (harness::is_p2p_result(r)) m_rows.push_back(r);
    if (r.device_index && !r.gpu_uuid.empty()) m_uuids.emplace(*r.device_index, r.gpu_uuid);
  }
  bool empty() const { return m_rows.empty(); }
  std::vector<harness::P2pMatrix> build() const {
    if (m_rows.empty()) return {};
    std::vector<results::ResultRow> rows;  // stubs first: the first UUID of an ordinal wins
    for (const auto& [ordinal, uuid] : m_uuids) {
      results::ResultRow stub;  // no src/dst: it only names the GPU of an ordinal
      stub.device_index = ordinal;
      stub.gpu_uuid = uuid;
      rows.push_back(std::move(stub));
    }
    rows.insert(rows.end(), m_rows.begin(), m_rows.end());
    return harness::build_p2p_matrices(rows);
  }

 private:
  std::vector<results::ResultRow> m_rows;
  std::map<int, std::string> m_uuids;  // CUDA ordinal -> UUID, first seen in result order
};

// The run's peer-to-peer matrices before its results are written (show --format json): only
// benchmarks with src: and dst: parameters are read, and only when there are some, every row
// once more for the GPUs' UUIDs.
std::vector<harness::P2pMatrix> p2p_matrices(results::Store& store, int64_t id) {
  P2pRows p2p;
  store.for_each_result(
      id, [&p2p](results::ResultRow& r) { p2p.add(r); },
      [](const results::ResultRow& r) { return harness::is_p2p_result(r); });
  if (p2p.empty()) return {};
  P2pRows all;
  store.for_each_result(id, [&all](results::ResultRow& r) { all.add(r); });
  return all.build();
}

void do_show(const ShowArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const int64_t id = store.resolve_run(args.run);
  const results::RunDetail detail = store.get_run(id);
  const std::vector<results::TelemetrySummary> telemetry = store.get_telemetry_summary(id);
  // Text is rendered whole (issue 26): its first line then says what was measured, and lines
  // longer than the output width wrap.
  std::ostringstream text;
  std::ostream& out = args.format == "json" ? *ctx.out : text;
  if (args.format == "json") {
    // Written as the results are read (issue 16); the same document run_to_json would give,
    // with each result's telemetry flag and the members below.
    JsonWriter w(out);
    write_run_json(
        w, detail, rows_of(store, id), true,
        {{"telemetry", [&](JsonWriter& o) { o.value(telemetry_json(detail, telemetry)); }},
         {"p2p_matrices",
          [&](JsonWriter& o) { o.value(harness::p2p_matrices_json(p2p_matrices(store, id))); }},
         {"doctor", [&](JsonWriter& o) { o.value(harness::doctor_json(detail.doctor)); }},
         {"acceptance_facts",
          [&](JsonWriter& o) {
            o.value(results::acceptance_facts_json(
                results::get_acceptance_facts(store.database(), id)));
          }},
         {"nodes",
          [&](JsonWriter& o) {
            o.value(harness::suite_nodes_json(harness::read_suite_nodes(store, id)));
          }},
         {"invalid_samples",
          [&](JsonWriter& o) {
            nlohmann::json inv = nlohmann::json::array();
            for (const auto& v : store.get_invalid_samples(id)) {
              inv.push_back({{"suite", v.suite},
                             {"benchmark", v.benchmark},
                             {"metric", v.metric},
                             {"kind", v.kind},
                             {"repetition", v.repetition ? nlohmann::json(*v.repetition) : nullptr},
                             {"value", v.raw},
                             {"reason", v.reason}});
            }
            o.value(inv);
          }},
         {"problems", [&](JsonWriter& o) { o.value(compare::run_problems(detail)); }},
         // Series noisy between executions (issue 35): a second pass over the run's rows.
         {"noisy_series",
          [&](JsonWriter& o) {
            compare::NoisySeriesFinder finder;
            store.for_each_result(id, [&](const results::ResultRow& r) { finder.add(r); });
            nlohmann::json list = nlohmann::json::array();
            for (const compare::NoisySeries& n : finder.find(k_noisy_threshold)) {
              list.push_back({{"suite", n.key.suite},
                              {"benchmark", n.key.benchmark},
                              {"metric", n.key.metric},
                              {"device", n.key.device},
                              {"executions", n.executions},
                              {"execution_cv", n.execution_cv},
                              {"mde", n.mde},
                              {"threshold", k_noisy_threshold},
                              {"executions_needed", n.executions_needed == 0
                                                        ? nlohmann::json(nullptr)
                                                        : nlohmann::json(n.executions_needed)}});
            }
            o.value(list);
          }}});
    w.finish();
    out << '\n';
    return;
  }
  // A failed, interrupted or running run, or a failed suite, comes first (issue 9).
  for (const std::string& p : compare::run_problems(detail)) out << "PROBLEM " << p << '\n';
  print_environment(out, detail);
  out << '\n';
  // One line per suite: its executions (suite runs, in id order) together: the first status
  // that is not ok, their count, their time, the first reason (issue 35).
  std::vector<std::vector<std::string>> suite_rows;
  std::map<std::string, std::size_t> suite_row;
  std::map<std::string, double> suite_seconds;
  std::map<std::string, int> executions_seen;
  std::vector<std::string> execution_label(detail.suites.size());
  for (std::size_t i = 0; i < detail.suites.size(); ++i) {
    const results::SuiteRunInfo& s = detail.suites[i];
    const int execution = ++executions_seen[s.suite];
    execution_label[i] = s.suite + " execution " + std::to_string(execution);
    auto [it, fresh] = suite_row.emplace(s.suite, suite_rows.size());
    if (fresh) suite_rows.push_back({s.suite, results::to_string(s.status), "", "", s.reason});
    std::vector<std::string>& row = suite_rows[it->second];
    suite_seconds[s.suite] += s.duration_s;
    if (s.status != results::SuiteStatus::ok && row[1] == results::to_string(results::SuiteStatus::ok)) {
      row[1] = results::to_string(s.status);
      row[4] = "execution " + std::to_string(execution) + ": " + s.reason;
    } else if (row[4].empty() && !s.reason.empty()) {
      row[4] = s.reason;
    }
  }
  for (auto& row : suite_rows) {
    row[2] = std::to_string(executions_seen[row[0]]);
    row[3] = duration_text(suite_seconds[row[0]]);
  }
  print_table(out, {"suite", "status", "executions", "duration", "reason"}, suite_rows);
  // How busy the machine was with other work while each suite ran (issue 38): a result a
  // neighbour's job slowed down is explained here. Per suite the busiest of its executions.
  std::vector<std::string> load_parts;
  std::map<std::string, const results::MachineLoad*> busiest;
  std::vector<std::string> load_order;
  for (const results::SuiteRunInfo& s : detail.suites) {
    if (!s.load) continue;
    auto [it, fresh] = busiest.emplace(s.suite, &*s.load);
    if (fresh) load_order.push_back(s.suite);
    if (s.load->other_cpus_busy() > it->second->other_cpus_busy()) it->second = &*s.load;
  }
  for (const std::string& suite : load_order) {
    const results::MachineLoad& m = *busiest[suite];
    load_parts.push_back(suite + " " + format_significant(m.other_cpus_busy(), 2) +
                         " CPUs busy elsewhere (load average " +
                         format_significant(m.loadavg_1m_start, 3) + " -> " +
                         format_significant(m.loadavg_1m_end, 3) + ")");
  }
  if (!load_parts.empty()) out << "machine load: " << join(load_parts, "; ") << '\n';
  for (std::size_t i = 0; i < detail.suites.size(); ++i) {
    const results::SuiteRunInfo& s = detail.suites[i];
    const std::string name = executions_seen[s.suite] > 1 ? execution_label[i] : s.suite;
    if (s.status != results::SuiteStatus::ok && !s.stderr_tail.empty()) {
      out << "\nstderr of " << name << " (last lines):\n" << s.stderr_tail;
      if (s.stderr_tail.back() != '\n') out << '\n';
    }
    if (s.status != results::SuiteStatus::ok && !s.stdout_tail.empty()) {
      out << "\nstdout of " << name << " (last lines):\n" << s.stdout_tail;
      if (s.stdout_tail.back() != '\n') out << '\n';
    }
  }
  // Values kept aside as invalid. NaN in Google Benchmark's own aggregate rows (the cv of a
  // counter that is 0 in every repetition is 0/0) are expected and never used (statistics come
  // from the repetitions): one line at the end, not a table at the top (issue 26).
  std::vector<results::InvalidSample> invalid;
  std::map<std::string, std::set<std::string>> expected_nan;  // aggregate kind -> metrics
  std::size_t expected_count = 0;
  for (results::InvalidSample& v : store.get_invalid_samples(id)) {
    if (v.kind != "iteration" && v.raw == "NaN") {
      expected_nan[v.kind].insert(v.metric);
      ++expected_count;
    } else {
      invalid.push_back(std::move(v));
    }
  }
  if (!invalid.empty()) {
    out << "\n"
        << invalid.size() << " reported value" << (invalid.size() == 1 ? "" : "s")
        << " kept aside as invalid (not in any statistic):\n";
    std::vector<std::vector<std::string>> inv_rows;
    for (const auto& v : invalid) {
      inv_rows.push_back({v.benchmark, v.metric, v.kind,
                          v.repetition ? std::to_string(*v.repetition) : "-", v.raw, v.reason});
    }
    print_table(out, {"benchmark", "metric", "kind", "rep", "value", "reason"}, inv_rows,
                FirstColumn::may_stack);
  }
  out << '\n';
  // Multi-rank suites (--launcher): every node and rank they ran on, and their sweep summary.
  if (const auto nodes = harness::read_suite_nodes(store, id); !nodes.empty()) {
    harness::print_suite_nodes(out, nodes);
    out << '\n';
  }
  print_telemetry(out, detail, telemetry);
  harness::print_doctor_summary(out, detail.doctor);
  // What another tool stated about the node and GPUs (dcgmi diag, imported; issue 40): the count
  // first, then each result that is not a pass.
  if (const auto facts = results::get_acceptance_facts(store.database(), id); !facts.empty()) {
    const std::vector<std::string> items = results::summarize_acceptance_facts(facts);
    out << "acceptance facts (" << facts.front().source << "): " << items.front() << '\n';
    for (std::size_t i = 1; i < items.size(); ++i) out << "  " << items[i] << '\n';
  }
  out << '\n';
  bool any_t = false;
  auto t_mark = [&any_t](const results::ResultRow& r) {
    const bool t = r.telemetry_throttled.value_or(false);
    any_t = any_t || t;
    return std::string(t ? "T" : "");
  };
  // The table's cells, one line per series: the rows of its executions (one suite run each)
  // pooled as they stream from the store (only their values are kept).
  std::vector<std::vector<std::string>> result_rows;
  // Identical skips are one line each ("83 cases skipped: no NVIDIA driver ..."), not 83 rows.
  std::map<std::string, std::set<std::string>> skips;  // why -> benchmark names
  P2pRows p2p;
  compare::RunTally tally;
  compare::NoisySeriesFinder noisy;
  struct Pooled {
    std::string benchmark, metric, unit, t_mark, note;
    std::vector<double> values;
    int throttled = 0, power = 0, clock = 0;
    std::set<int64_t> executions;
    bool failed = false;
  };
  std::vector<Pooled> pooled;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::size_t> at;
  std::set<std::pair<std::string, std::string>> failed_seen;
  store.for_each_result(id, [&](const results::ResultRow& r) {
    p2p.add(r);
    tally.add(r.benchmark, r.status, r.message);
    noisy.add(r);
    if (r.status == results::BenchmarkStatus::skipped) {
      std::string why = r.message.rfind("skipped: ", 0) == 0 ? r.message.substr(9) : r.message;
      skips[why].insert(r.benchmark);
      return;
    }
    const auto key = std::make_tuple(r.suite, r.benchmark, r.metric,
                                     compare::device_label(r.device_index));
    auto found = at.find(key);
    if (found == at.end()) {
      found = at.emplace(key, pooled.size()).first;
      Pooled fresh;
      fresh.benchmark = r.benchmark;
      fresh.metric = r.metric;
      fresh.unit = r.unit;
      pooled.push_back(std::move(fresh));
    }
    Pooled& p = pooled[found->second];
    if (!t_mark(r).empty()) p.t_mark = "T";
    if (r.status != results::BenchmarkStatus::ok) {
      if (!p.failed) p.note = std::string(results::to_string(r.status)) + ": " + r.message;
      p.failed = true;
      return;
    }
    if (r.values.empty()) {  // aggregates only or a complexity fit (compare/aggregates.hpp)
      if (p.note.empty()) p.note = compare::aggregates_note(r);
      return;
    }
    p.values.insert(p.values.end(), r.values.begin(), r.values.end());
    p.executions.insert(r.suite_run_id);
    for (int t : r.throttled) p.throttled += t == 1;
    for (int t : r.power_limited) p.power += t == 1;
    for (int t : r.clock_below_expected) p.clock += t == 1;
  });
  for (const Pooled& p : pooled) {
    if (p.failed || p.values.empty()) {
      result_rows.push_back(
          {p.benchmark, p.metric, p.unit, "", "", "", "", "0", "", p.t_mark, p.note});
      continue;
    }
    const SampleStats st = summarize(p.values);
    std::vector<std::string> marks;
    const std::string of = "/" + std::to_string(p.values.size());
    if (p.throttled > 0)
      marks.push_back("thermal/HW slowdown (invalid) " + std::to_string(p.throttled) + of);
    if (p.power > 0) marks.push_back("power-limited " + std::to_string(p.power) + of);
    if (p.clock > 0) marks.push_back("clock below expected " + std::to_string(p.clock) + of);
    result_rows.push_back({p.benchmark, p.metric, p.unit, format_significant(st.median, 4),
                           format_significant(st.min, 4), format_significant(st.max, 4),
                           st.n >= 2 ? format_significant(st.cv * 100, 2) : "-",
                           std::to_string(st.n), std::to_string(p.executions.size()), p.t_mark,
                           join(marks, ", ")});
  }
  if (result_rows.empty() && skips.empty()) {
    out << "no results stored for this run\n";
  } else if (!result_rows.empty()) {
    std::vector<std::string> names;
    for (const auto& row : result_rows) names.push_back(row[0]);
    const std::map<std::string, std::string> name = compare::text_names(names);
    for (auto& row : result_rows) row[0] = name.at(row[0]);
    // Too wide: names lose their common prefix, then min, max and exec are left out (a line
    // says so), then cells wrap; no number is cut (issue 39).
    TableFit fit;
    fit.names = 0;
    fit.may_drop = {4, 5, 8};
    print_table(out,
                {"benchmark", "metric", "unit", "median", "min", "max", "cv%", "n", "exec", "T",
                 "note"},
                result_rows, fit);
    if (any_t) {
      out << "\nT: NVML telemetry saw thermal/HW slowdown on this result's GPU (any GPU "
             "for host results) while its suite ran.\n   Telemetry is matched per suite run, not "
             "per benchmark: this result itself may or may not have run throttled.\n";
    }
  }
  for (const auto& [why, names] : skips) {
    out << (result_rows.empty() ? "" : "\n") << names.size()
        << (names.size() == 1 ? " case" : " cases") << " skipped: " << why << " (e.g. "
        << compare::text_name(*names.begin()) << ")\n";
  }
  harness::print_p2p_matrices(out, p2p.build());
  // Series whose executions spread so far that two runs like this one could not detect a change
  // of the default threshold, and what would (issue 35).
  const std::vector<compare::NoisySeries> noisy_found = noisy.find(k_noisy_threshold);
  if (!noisy_found.empty()) {
    out << "\n" << noisy_found.size() << " of " << noisy.sized()
        << " series are noisy between executions (separate processes of their suite): a "
           "comparison of two runs like this one cannot detect a "
        << format_significant(k_noisy_threshold * 100, 2) << "% change in them:\n";
    for (const std::string& line : compare::noisy_series_lines(noisy_found, k_noisy_threshold)) {
      out << "  " << compare::text_name(line) << "\n";
    }
  }
  if (expected_count > 0) {
    std::vector<std::string> where;
    for (const auto& [kind, metrics] : expected_nan) {
      where.push_back(kind + " of " +
                      join(std::vector<std::string>(metrics.begin(), metrics.end()), ", "));
    }
    out << "\nnote: " << expected_count << " NaN in Google Benchmark's own aggregate rows ("
        << join(where, "; ")
        << "): expected where a counter is 0 in every repetition (its cv is 0/0); not used, "
           "statistics come from the repetitions\n";
  }
  // PROBLEM lines stay first (a script reads the first line), then what was measured.
  const std::string body = text.str();
  std::size_t problems_end = 0;
  while (body.compare(problems_end, 8, "PROBLEM ") == 0) {
    const std::size_t eol = body.find('\n', problems_end);
    problems_end = eol == std::string::npos ? body.size() : eol + 1;
  }
  write_output(ctx, "", OutputKind::for_people,
               wrap_lines(body.substr(0, problems_end) + tally.line(id, detail.suites) + "\n" +
                              body.substr(problems_end),
                          output_width()));
}
}  // namespace

void add_show_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand("show", "show one run: environment, suites, results");
  cmd->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->callback([args, &ctx] { do_show(*args, ctx); });
}

}  // namespace gpubench::cli
