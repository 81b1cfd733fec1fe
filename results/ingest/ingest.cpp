// Ingest of Google Benchmark JSON output (any reporter version from 1.5 on) into the store.
//
// One benchmark entry becomes one sample per metric: real_time and cpu_time (converted to ns),
// then every user counter. Iteration rows are samples with kind 'iteration' and their
// repetition index; aggregate rows are samples with kind = aggregate_name, and a benchmark with
// only aggregate rows is stored as such (results/schema/aggregates.hpp). Errors and skips are
// outcomes, not samples. Everything happens in one transaction with statements prepared once
// and benchmark/metric ids cached, so a million samples take a few seconds.
//
// This file: the entry points, a document's context and the refusals of what is not Google
// Benchmark JSON; reading one entry is ingest_entry.cpp, storing it ingest_store.cpp.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/ingest/ingest.hpp"
#include "results/ingest/ingest_detail.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using nlohmann::json;

namespace detail {

[[noreturn]] void not_gb(const std::string& why) {
  throw bad_input("cannot ingest the JSON", why,
                  "give the output of a Google Benchmark binary run with "
                  "--benchmark_format=json or --benchmark_out=FILE");
}

const char* type_name(const json& j) {
  return j.type_name();
}

std::vector<std::pair<std::string, MetricDecl>> declared_metrics(const json& context) {
  std::vector<std::pair<std::string, MetricDecl>> out;
  auto it = context.find("gpubench.metrics");
  if (it == context.end()) return out;
  json arr = *it;
  if (arr.is_string()) {
    check_json_depth(arr.get_ref<const std::string&>(), "context 'gpubench.metrics'",
                     "the JSON text it holds");
    arr = json::parse(arr.get<std::string>(), nullptr, false);
    if (arr.is_discarded()) not_gb("context 'gpubench.metrics' is a string that is not JSON");
  }
  if (!arr.is_array()) {
    not_gb(std::string("context 'gpubench.metrics' is a ") + type_name(arr) + ", not an array");
  }
  for (const json& m : arr) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) {
      not_gb("an entry of context 'gpubench.metrics' has no string 'name'");
    }
    MetricDecl d;
    d.unit = m.value("unit", std::string());
    d.direction = direction_from_string(m.value("direction", std::string("unknown")))
                      .value_or(Direction::unknown);
    d.description = m.value("description", std::string());
    out.emplace_back(m["name"].get<std::string>(), std::move(d));
  }
  return out;
}

}  // namespace detail

IngestSummary Store::ingest_benchmark_json(int64_t suite_run_id, const json& doc,
                                           const std::string& default_suite) {
  Database& db = *m_db;
  Transaction tx(db);
  IngestSummary summary = detail::ingest_document(db, suite_run_id, doc, default_suite);
  tx.commit();
  return summary;
}

detail::DocumentIngest::DocumentIngest(Database& db, int64_t suite_run_id, const json& context,
                                       const std::string& default_suite)
    : m(std::make_unique<State>(db, suite_run_id, context, default_suite)) {}
detail::DocumentIngest::~DocumentIngest() = default;
void detail::DocumentIngest::add(const StreamedEntry& entry, size_t index, EntryWork* prepared) {
  if (prepared != nullptr) {
    m->add(static_cast<PreparedEntry&>(*prepared));
    return;
  }
  auto p = prepare(entry, index);
  m->add(static_cast<PreparedEntry&>(*p));
}
IngestSummary detail::DocumentIngest::finish() {
  return m->finish();
}

json detail::document_context(const json& doc) {
  if (!doc.is_object()) not_gb(std::string("the JSON is a ") + type_name(doc) + ", not an object");
  json context = json::object();
  if (auto c = doc.find("context"); c != doc.end()) {
    if (!c->is_object()) not_gb(std::string("'context' is a ") + type_name(*c) + ", not an object");
    context = *c;
  }
  return context;
}

IngestSummary detail::ingest_document(Database& db, int64_t suite_run_id, const json& doc,
                                      const std::string& default_suite) {
  if (!doc.is_object()) not_gb(std::string("the JSON is a ") + type_name(doc) + ", not an object");
  auto bench_it = doc.find("benchmarks");
  if (bench_it == doc.end()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : doc.items()) keys.push_back("'" + k + "'");
    not_gb("it has no 'benchmarks' array (top-level keys: " +
           (keys.empty() ? std::string("none") : join(keys, ", ")) + ")");
  }
  if (!bench_it->is_array()) {
    not_gb(std::string("'benchmarks' is a ") + type_name(*bench_it) + ", not an array");
  }
  DocumentIngest ingest(db, suite_run_id, document_context(doc), default_suite);
  const json& entries = *bench_it;
  for (size_t i = 0; i < entries.size(); ++i) ingest.add(entries[i], i);
  return ingest.finish();
}

}  // namespace gpubench::results
