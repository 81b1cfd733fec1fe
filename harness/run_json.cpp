#include "harness/run_json.hpp"

#include <cstdio>

#include "harness/cli_common.hpp"

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
  const results::RunRow& r = detail.run;
  const results::RunInfo& info = detail.info;
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [k, v] : r.tags) tags[k] = v;
  nlohmann::json j;
  j["run"] = {{"id", r.id},
              {"uuid", r.uuid},
              {"started_at", r.started_at},
              {"finished_at", r.finished_at},
              {"status", results::to_string(r.status)},
              {"status_reason", r.status_reason},
              {"owner_gone", r.owner_gone},
              {"user", info.user},
              {"argv", info.argv},
              {"tags", tags},
              {"note", r.note},
              {"profile", r.profile}};
  const auto& h = info.host;
  const auto& s = info.software;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : info.gpus) gpus.push_back(results::to_json(g));
  j["environment"] = {{"host",
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
  }
  j["suites"] = suites;
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
  std::string out =
      "run_id,run_uuid,suite,benchmark,case,params,metric,unit,direction,device_index,gpu_uuid,"
      "status,repetition,value,throttled,message\n";
  const std::string prefix = std::to_string(detail.run.id) + "," + csv_field(detail.run.uuid) + ",";
  for (const auto& row : rows) {
    const std::string common = prefix + csv_field(row.suite) + "," + csv_field(row.benchmark) +
                               "," + csv_field(row.case_name) + "," +
                               csv_field(params_text(row.params)) + "," + csv_field(row.metric) +
                               "," + csv_field(row.unit) + "," + results::to_string(row.direction) +
                               "," + (row.device_index ? std::to_string(*row.device_index) : "") +
                               "," + csv_field(row.gpu_uuid) + "," +
                               results::to_string(row.status) + ",";
    if (row.values.empty()) {  // a skip or an error: one row that says so
      out += common + ",,," + csv_field(row.message) + "\n";
      continue;
    }
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      const int thr = i < row.throttled.size() ? row.throttled[i] : -1;
      out += common + std::to_string(i) + "," + number_text(row.values[i]) + "," +
             (thr < 0 ? "" : std::to_string(thr)) + "," + csv_field(row.message) + "\n";
    }
  }
  return out;
}

}  // namespace gpubench::cli
