// The checks an exported run passes before it is imported (exchange_detail.hpp): the limits the
// command line and ingest keep, and the agreement of the export's halves.
#include <algorithm>
#include <optional>

#include "results/exchange/exchange_detail.hpp"
#include "results/ingest/ingest.hpp"
#include "results/model.hpp"
#include "util/error.hpp"
#include "util/uuid.hpp"

namespace gpubench::results::exchange_detail {

using nlohmann::json;

namespace {

std::string text(const json& j, const char* key, const std::string& fallback = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

[[noreturn]] void bad_export(const std::string& source, const std::string& why) {
  throw bad_input("cannot import '" + source + "'", why,
                  "give a file written by `gpubench export RUN --format json`; the database was "
                  "not changed");
}

void check_text_limit(const std::string& source, const std::string& where, const std::string& s,
                      std::size_t limit) {
  if (s.size() <= limit) return;
  bad_export(source, where + " is " + std::to_string(s.size()) + " bytes long (at most " +
                         std::to_string(limit) + ")");
}

void check_uuid(const std::string& source, const std::string& where, const std::string& uuid) {
  if (is_uuid(uuid)) return;
  std::string shown = uuid.substr(0, 60);
  bad_export(source,
             where + " '" + shown + "' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
}

// A value of an exported row checked as the command line and ingest check it: UUIDs, the
// lengths of names, notes, tags, annotations and exclusion reasons, and the depth of JSON text
// columns.
void check_exported_value(const std::string& source, const std::string& table,
                          const std::string& column, const json& v, const std::string& at) {
  if (!v.is_string()) return;
  const std::string& s = v.get_ref<const std::string&>();
  const std::string where = at + "." + column;
  if (column == "context" || column == "params" || column == "env" || column == "argv" ||
      column == "detail") {
    check_json_depth(s, "'" + source + "'", where);
  }
  if (table == "runs" && column == "uuid") check_uuid(source, where, s);
  if (table == "benchmarks" && column == "name") {
    check_text_limit(source, where, s, k_max_benchmark_name_bytes);
  }
  if ((table == "runs" && column == "note") || (table == "run_tags" && column == "key") ||
      (table == "run_tags" && column == "value") || (table == "annotations" && column == "text") ||
      (table == "benchmark_outcomes" && column == "label") ||
      (table == "history_exclusions" && column == "reason")) {
    check_text_limit(source, where, s, k_max_text_bytes);
  }
}

// A value of an exported row that is not a number is refused (exit 2), never skipped: a skipped
// sample would import a run that silently differs from the one exported.
[[noreturn]] void not_a_value(const std::string& benchmark, const std::string& metric,
                              const std::string& field, const json& value) {
  std::string shown = value.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  throw bad_input("cannot import the run",
                  "result '" + benchmark + "' (metric '" + metric + "'): " + field + " is " +
                      shown + " (" + value.type_name() + "), not a number",
                  "fix the value or export the run again; nothing was imported");
}

// An export's "tables" and its "results" and "run" describe one run: they are written together,
// so a document where they disagree was edited or damaged, and which half to believe cannot be
// told. Refused: the run's UUID must match, every result value must be a number, and the
// results must hold as many repetition values as tables.samples holds iteration rows.
void check_tables_agree(const json& doc, const std::string& uuid, const std::string& source) {
  const json& tables = doc["tables"];
  if (!tables.is_object()) bad_export(source, "\"tables\" is not an object");
  auto column_of = [&](const json& t, const char* name) -> std::optional<std::size_t> {
    if (!t.is_object() || !t.contains("columns") || !t["columns"].is_array()) return std::nullopt;
    const json& columns = t["columns"];
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == name) return i;
    }
    return std::nullopt;
  };
  if (auto runs = tables.find("runs"); runs != tables.end()) {
    const auto at = column_of(*runs, "uuid");
    if (at && runs->contains("rows") && (*runs)["rows"].is_array()) {
      for (const json& row : (*runs)["rows"]) {
        if (row.is_array() && *at < row.size() && row[*at] != uuid) {
          bad_export(source, "tables.runs names run " + row[*at].dump().substr(0, 60) +
                                 ", not run.uuid '" + uuid + "'");
        }
      }
    }
  }
  std::size_t values = 0;
  for (const json& r : doc["results"]) {
    if (!r.is_object()) bad_export(source, "an entry of results is not an object");
    const std::string name = text(r, "benchmark", "");
    const std::string metric = text(r, "metric", "");
    const json& v = r.contains("values") ? r["values"] : json::array();
    if (!v.is_array()) not_a_value(name, metric, "values", v);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number()) not_a_value(name, metric, "values[" + std::to_string(i) + "]", v[i]);
    }
    values += v.size();
  }
  if (auto samples = tables.find("samples"); samples != tables.end()) {
    const auto kind = column_of(*samples, "kind");
    if (!kind || !samples->contains("rows") || !(*samples)["rows"].is_array()) return;
    std::size_t rows = 0;
    for (const json& row : (*samples)["rows"]) {
      if (row.is_array() && *kind < row.size() && row[*kind] == "iteration") ++rows;
    }
    if (rows != values) {
      bad_export(source, "tables.samples holds " + std::to_string(rows) +
                             " repetition values, results " + std::to_string(values));
    }
  }
}

}  // namespace gpubench::results::exchange_detail
