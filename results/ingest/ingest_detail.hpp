// Internal to results/ingest/: what ingest.cpp (entry points, refusals), ingest_entry.cpp (reading
// an entry), ingest_store.cpp (storing the entries) and store_ingest.cpp (the Store's entry points)
// share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/ingest/ingest_gpu.hpp"
#include "results/ingest/ingest_store.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "results/metric_roles.hpp"
#include "results/model.hpp"
#include "results/sample_gpus.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"

namespace gpubench::results::detail {

// --- ingest.cpp: the refusals, a document's context ---

// Throws Error(bad_input): the input is not Google Benchmark JSON, because of `why`.
[[noreturn]] void not_gb(const std::string& why);

const char* type_name(const nlohmann::json& j);

// The declared metrics from context["gpubench.metrics"] (a JSON array or a string holding one),
// in declaration order.
std::vector<std::pair<std::string, MetricDecl>> declared_metrics(const nlohmann::json& context);

// --- DocumentIngest::State: read (ingest_entry.cpp), add and finish (ingest_store.cpp) ---

struct Outcome {
  int64_t position = 0;
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;
  std::string complexity;       // big_o of its BigO row (results/schema/aggregates.hpp)
  std::string label;            // the first label of its rows (benchmark_outcomes.label, schema v6)
  int64_t next_repetition = 0;  // for files that do not number them
  std::optional<int64_t> device;  // the device of its rows
};

// An entry's members sorted out in one walk over them (ingest_entry.cpp).
struct EntryFields;

// What one entry says, read without the database (DocumentIngest::prepare): on the parsing
// thread of a streamed import, while the entries before it are stored.
struct PreparedEntry final : EntryWork {
  std::exception_ptr problem;  // what is wrong with the entry; add() throws it
  std::string identity;        // the benchmark's name
  bool aggregate = false;
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;
  std::string gpu_uuid;  // a UUID the entry names
  std::string big_o;     // the complexity a BigO row names ("N", "NlgN")
  std::string label;     // Google Benchmark's label of the row, at most k_max_text_bytes
  // Everything but the benchmark, GPU and counted repetition, which need the database or the
  // entries before this one.
  Ingester::SampleState state;
  struct Value {
    std::string metric;
    double value = 0;
    bool valid = true;
    std::string raw, reason;  // of an invalid value
  };
  std::vector<Value> values;  // in storing order
};

IngestSummary ingest_document(Database& db, int64_t suite_run_id, const nlohmann::json& doc,
                              const std::string& default_suite);
// The document's "context" object (an empty object without one). Throws Error(bad_input) when
// the document is not an object or its context is not one.
nlohmann::json document_context(const nlohmann::json& doc);

// A document's benchmarks stored one entry at a time, as ingest_document does for a whole
// document: construct with its context (records it and the declared metrics), add() each entry
// of "benchmarks" in order with its index, then finish() (outcomes, per-run series medians).
// Inside a transaction the caller holds; an exception leaves it to be rolled back.
class DocumentIngest {
 public:
  DocumentIngest(Database& db, int64_t suite_run_id, const nlohmann::json& context,
                 const std::string& default_suite);
  ~DocumentIngest();
  DocumentIngest(const DocumentIngest&) = delete;
  DocumentIngest& operator=(const DocumentIngest&) = delete;
  // Reads an entry without the database: thread-safe (it uses only what the constructor fixed),
  // so a stream reads entries on one thread while add() stores earlier ones on another. Never
  // throws for the entry's content: add() throws what is wrong with it, in entry order.
  std::unique_ptr<EntryWork> prepare(const StreamedEntry& entry, size_t index) const;
  // `prepared`: what prepare() made of this entry, or null (it is read here then).
  void add(const StreamedEntry& entry, size_t index, EntryWork* prepared);
  // An entry of a whole document.
  void add(const nlohmann::json& entry, size_t index);
  IngestSummary finish();

 private:
  struct State;
  std::unique_ptr<State> m;
};

// One document's benchmarks, stored entry by entry (whole documents and streamed files alike).
struct DocumentIngest::State {
  State(Database& db_, int64_t suite_run_id_, const nlohmann::json& context,
        const std::string& default_suite)
      : db(db_),
        suite_run_id(suite_run_id_),
        suite(suite_of(context, default_suite)),
        declared(declared_metrics(context)),
        devices(suite_devices(context)),
        in(db_, suite_run_id_) {
    for (const auto& [name, decl] : declared) in.declare(name, decl);
    gpubench_file = in.has_declarations();
    // The GPUs of multi-GPU samples, read again by classify_samples: refused here when malformed.
    (void)sample_device_sets(context);
    {
      Statement st = db.prepare("UPDATE suite_runs SET context = ?1 WHERE id = ?2");
      st.bind(1, context.dump()).bind(2, suite_run_id).run();
    }
    record_metric_roles(db, suite_run_id, context);
  }

  static std::string suite_of(const nlohmann::json& context, const std::string& default_suite) {
    if (auto s = context.find("gpubench.suite"); s != context.end() && s->is_string()) {
      return s->get<std::string>();
    }
    return default_suite;
  }

  // Reads only what the constructor fixed (declared, gpubench_file): safe on another thread.
  void read(const EntryFields& f, size_t i, PreparedEntry& p) const;
  // Throws bad_input for an element that is not an object.
  static void expect_object(bool object, const char* type, size_t i) {
    if (!object) {
      not_gb("benchmarks[" + std::to_string(i) + "] is a " + type + ", not an object");
    }
  }
  void add(PreparedEntry& p);
  IngestSummary finish();

  Database& db;
  int64_t suite_run_id;
  std::string suite;
  std::vector<std::pair<std::string, MetricDecl>> declared;
  std::unordered_map<int64_t, SuiteDevice> devices;
  Ingester in;
  bool gpubench_file = false;
  std::unordered_map<int64_t, Outcome> outcomes;
  std::vector<int64_t> order;  // benchmark ids in order of first appearance
};

}  // namespace gpubench::results::detail
