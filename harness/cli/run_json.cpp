#include "harness/cli/run_json.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "harness/cli/cli_common.hpp"
#include "results/params_json.hpp"

namespace gpubench::cli {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

namespace {

nlohmann::json run_member(const results::RunDetail& detail) {
  const results::RunRow& r = detail.run;
  const results::RunInfo& info = detail.info;
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [k, v] : r.tags) tags[k] = v;
  return {{"id", r.id},
          {"uuid", r.uuid},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"status", results::to_string(r.status)},
          {"status_reason", r.status_reason},
          {"owner_gone", r.owner_gone},
          // `history exclude`'s reason, null when the run counts in history.
          {"history_excluded",
           r.history_excluded.empty() ? nlohmann::json() : nlohmann::json(r.history_excluded)},
          {"user", info.user},
          {"argv", info.argv},
          {"tags", tags},
          {"note", r.note},
          {"profile", r.profile}};
}

nlohmann::json environment_member(const results::RunDetail& detail) {
  const results::RunInfo& info = detail.info;
  const auto& h = info.host;
  const auto& s = info.software;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : info.gpus) gpus.push_back(results::to_json(g));
  return {{"host",
           {{"hostname", h.hostname},
            {"cpu_model", h.cpu_model},
            {"sockets", opt(h.sockets)},
            {"cores", opt(h.cores)},
            {"threads", opt(h.threads)},
            {"memory_bytes", opt(h.memory_bytes)},
            {"kernel", h.kernel},
            {"os", h.os},
            {"governor", h.governor},
            {"arch", h.arch}}},
          {"gpus", gpus},
          {"software",
           {{"driver_version", s.driver_version},
            {"cuda_driver_version", s.cuda_driver_version},
            {"cuda_runtime_version", s.cuda_runtime_version},
            {"cublas_version", s.cublas_version},
            {"nccl_version", s.nccl_version},
            {"kernel", s.kernel},
            {"compiler", s.compiler},
            {"gpubench_version", s.gpubench_version},
            {"git_sha", s.git_sha},
            {"git_dirty", s.git_dirty}}},
          {"configuration",
           {{"profile", info.config.profile},
            {"env", info.config.env},
            {"clocks_locked", info.config.clocks_locked}}}};
}

nlohmann::json suites_member(const results::RunDetail& detail) {
  nlohmann::json suites = nlohmann::json::array();
  for (std::size_t i = 0; i < detail.suites.size(); ++i) {
    const auto& sr = detail.suites[i];
    suites.push_back({{"id", i < detail.suite_run_ids.size() ? detail.suite_run_ids[i] : 0},
                      {"suite", sr.suite},
                      {"executable", sr.executable},
                      {"status", results::to_string(sr.status)},
                      {"reason", sr.reason},
                      {"exit_code", opt(sr.exit_code)},
                      {"term_signal", opt(sr.term_signal)},
                      {"duration_s", sr.duration_s},
                      {"started_at", sr.started_at},
                      {"finished_at", sr.finished_at},
                      {"argv", sr.argv},
                      {"stderr_tail", sr.stderr_tail},
                      {"stdout_tail", sr.stdout_tail}});
    // How busy the machine was with other work meanwhile (issue 38); null when not recorded.
    suites.back()["machine_load"] =
        sr.load ? nlohmann::json{{"loadavg_1m_start", sr.load->loadavg_1m_start},
                                 {"loadavg_1m_end", sr.load->loadavg_1m_end},
                                 {"other_cpu_s", sr.load->other_cpu_s},
                                 {"other_cpus_busy", sr.load->other_cpus_busy()},
                                 {"wall_s", sr.load->wall_s}}
                : nlohmann::json();
  }
  return suites;
}

}  // namespace

std::string params_text(const std::vector<results::Param>& params) {
  std::string out;
  for (const auto& p : params) {
    if (!out.empty()) out += ';';
    out += p.key + "=" + p.text;
  }
  return out;
}

nlohmann::json run_to_json(const results::RunDetail& detail,
                           const std::vector<results::ResultRow>& rows) {
  nlohmann::json j;
  j["run"] = run_member(detail);
  j["environment"] = environment_member(detail);
  j["suites"] = suites_member(detail);
  nlohmann::json results = nlohmann::json::array();
  for (const auto& row : rows) {
    const SampleStats st = summarize(row.values);
    nlohmann::json params = nlohmann::json::object();
    for (const auto& p : row.params) {
      params[p.key] = p.number ? nlohmann::json(*p.number) : nlohmann::json(p.text);
    }
    nlohmann::json item = {{"suite", row.suite},
                           {"suite_run", row.suite_run_id},
                           {"role", results::to_string(row.role)},
                           {"benchmark", row.benchmark},
                           {"case", row.case_name},
                           {"params", params},
                           {"metric", row.metric},
                           {"unit", row.unit},
                           {"direction", results::to_string(row.direction)},
                           {"device_index", opt(row.device_index)},
                           {"gpu_uuid", row.gpu_uuid},
                           {"status", results::to_string(row.status)},
                           {"message", row.message},
                           {"values", row.values},
                           {"throttled", row.throttled},
                           {"aggregates", row.aggregates}};
    // The sample states per value (1, 0, -1 unknown; suites/README.md "Sample states"), the
    // CUDA ordinal under its own name and the GPU's PCI bus.
    item["power_limited"] = row.power_limited;
    item["clock_below_expected"] = row.clock_below_expected;
    item["cuda_ordinal"] = opt(row.device_index);
    item["gpu_pci_bus_id"] = row.gpu_pci_bus_id;
    // Aggregates only (results/schema/aggregates.hpp): its statistics are not repetitions.
    item["kind"] = row.aggregate_only ? "aggregate" : "repetitions";
    if (!row.complexity.empty()) item["complexity"] = row.complexity;
    if (st.n > 0) {
      item["median"] = st.median;
      item["min"] = st.min;
      item["max"] = st.max;
      item["cv"] = st.cv;
    }
    results.push_back(std::move(item));
  }
  j["results"] = results;
  return j;
}

std::string run_to_csv(const results::RunDetail& detail,
                       const std::vector<results::ResultRow>& rows) {
  std::ostringstream out;
  write_run_csv(out, detail, rows_of(rows));
  return out.str();
}

RowSource rows_of(results::Store& store, int64_t run_id) {
  return [&store, run_id](const std::function<void(const results::ResultRow&)>& fn) {
    store.for_each_result(run_id, [&fn](results::ResultRow& row) { fn(row); });
  };
}

RowSource rows_of(const std::vector<results::ResultRow>& rows) {
  return [&rows](const std::function<void(const results::ResultRow&)>& fn) {
    for (const results::ResultRow& row : rows) fn(row);
  };
}

namespace {

// One entry of "results", keys in sorted order (as nlohmann's object writes them); the same
// members as run_to_json's entries.
void write_result(JsonWriter& w, const results::ResultRow& row, bool telemetry_flag,
                  std::vector<const results::Param*>& params) {
  const SampleStats st = summarize(row.values);
  w.begin_object();
  w.key("aggregates").begin_object();
  for (const auto& [k, v] : row.aggregates) w.key(k).number(v);
  w.end_object();
  w.key("benchmark").string(row.benchmark);
  w.key("case").string(row.case_name);
  w.key("clock_below_expected").integer_array(row.clock_below_expected);
  if (!row.complexity.empty()) w.key("complexity").string(row.complexity);
  w.key("cuda_ordinal").optional_integer(row.device_index);
  if (st.n > 0) w.key("cv").number(st.cv);
  w.key("device_index").optional_integer(row.device_index);
  w.key("direction").string(results::to_string(row.direction));
  w.key("gpu_pci_bus_id").string(row.gpu_pci_bus_id);
  w.key("gpu_uuid").string(row.gpu_uuid);
  w.key("kind").string(row.aggregate_only ? "aggregate" : "repetitions");
  if (st.n > 0) w.key("max").number(st.max);
  if (st.n > 0) w.key("median").number(st.median);
  w.key("message").string(row.message);
  w.key("metric").string(row.metric);
  if (st.n > 0) w.key("min").number(st.min);
  w.key("params");
  results::write_params(w, row.params, params);
  w.key("power_limited").integer_array(row.power_limited);
  w.key("role").string(results::to_string(row.role));
  w.key("status").string(results::to_string(row.status));
  w.key("suite").string(row.suite);
  w.key("suite_run").integer(row.suite_run_id);
  if (telemetry_flag) {
    if (row.telemetry_throttled) {
      w.key("telemetry_throttled").boolean(*row.telemetry_throttled);
    } else {
      w.key("telemetry_throttled").null();
    }
  }
  w.key("throttled").integer_array(row.throttled);
  w.key("unit").string(row.unit);
  w.key("values").number_array(row.values);
  w.end_object();
}

}  // namespace

void write_run_json(JsonWriter& w, const results::RunDetail& detail, const RowSource& rows,
                    bool telemetry_flag, std::vector<JsonMember> extra) {
  extra.emplace_back("run", [&](JsonWriter& out) { out.value(run_member(detail)); });
  extra.emplace_back("environment",
                     [&](JsonWriter& out) { out.value(environment_member(detail)); });
  extra.emplace_back("suites", [&](JsonWriter& out) { out.value(suites_member(detail)); });
  extra.emplace_back("results", [&](JsonWriter& out) {
    std::vector<const results::Param*> params;
    out.begin_array();
    rows([&](const results::ResultRow& row) { write_result(out, row, telemetry_flag, params); });
    out.end_array();
  });
  // Sorted like a nlohmann object; a key given twice keeps its last writer, as operator[] does.
  std::stable_sort(extra.begin(), extra.end(),
                   [](const JsonMember& a, const JsonMember& b) { return a.first < b.first; });
  w.begin_object();
  for (std::size_t i = 0; i < extra.size(); ++i) {
    if (i + 1 < extra.size() && extra[i + 1].first == extra[i].first) continue;
    w.key(extra[i].first);
    extra[i].second(w);
  }
  w.end_object();
}

void write_run_csv(std::ostream& out, const results::RunDetail& detail, const RowSource& rows) {
  // suite_run (last, so the columns before it keep their places): the suite run a row belongs
  // to, which tells the executions of a suite apart (issue 35: one suite run each).
  out << "run_id,run_uuid,suite,benchmark,case,params,metric,unit,direction,device_index,"
         "gpu_uuid,status,repetition,value,throttled,message,suite_run\n";
  const std::string prefix = std::to_string(detail.run.id) + "," + csv_field(detail.run.uuid) + ",";
  std::string buf;
  rows([&](const results::ResultRow& row) {
    std::string common = prefix + csv_field(row.suite) + "," + csv_field(row.benchmark) + "," +
                         csv_field(row.case_name) + "," + csv_field(params_text(row.params)) + "," +
                         csv_field(row.metric) + "," + csv_field(row.unit) + "," +
                         results::to_string(row.direction) + "," +
                         (row.device_index ? std::to_string(*row.device_index) : "") + "," +
                         csv_field(row.gpu_uuid) + "," + results::to_string(row.status) + ",";
    const std::string end = csv_field(row.message) + "," + std::to_string(row.suite_run_id) + "\n";
    if (row.values.empty()) {  // a skip or an error: one row that says so
      buf += common + ",,," + end;
    }
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      const int thr = i < row.throttled.size() ? row.throttled[i] : -1;
      buf += common;
      buf += std::to_string(i) + "," + number_text(row.values[i]) + "," +
             (thr < 0 ? "" : std::to_string(thr)) + "," + end;
    }
    if (buf.size() >= (std::size_t{1} << 20)) {
      out << buf;
      buf.clear();
    }
  });
  out << buf;
}

}  // namespace gpubench::cli
