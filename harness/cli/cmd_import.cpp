// gpubench import FILE: one of
//   - another gpubench database (.db): its runs this database lacks are merged in;
//   - a run exported with `gpubench export RUN --format json`;
//   - a Google Benchmark JSON file (from any binary) becomes a new run; a file written by a
//     gpubench suite fills the run's GPU and version facts from its gpubench.* context;
//   - another tool's output (nccl-tests, ...: results/peers/), detected from the file's first
//     bytes or named with --format, read whole into a Google Benchmark document and stored as one.
// The first two are idempotent by run UUID (results/exchange/exchange.hpp). A Google Benchmark
// file is read once as a stream and stored in one transaction as it is read
// (results/ingest/ingest_stream.hpp), so bad input found half-way rolls back and changes nothing.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "results/exchange/exchange.hpp"
#include "results/ingest/import_facts.hpp"
#include "results/ingest/ingest.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "results/peers/peers.hpp"
#include "results/store.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::cli {

namespace {
struct ImportArgs {
  std::string file;
  std::string suite;
  bool suite_given = false;  // --suite was given (an empty value included)
  std::vector<std::string> tags;
  std::string note;
  bool with_baselines = false;
  std::string format;  // --format: a peer format's name (results/peers/peers.hpp); empty: detect
};

// Google Benchmark's context "date" ("2026-12-02T16:29:34+01:00") as UTC ISO 8601; empty when
// it has another shape (older versions print local time without an offset).
std::string date_to_utc(const std::string& date) {
  int y, mo, d, h, mi, s, oh = 0, om = 0;
  char sign = 0;
  if (std::sscanf(date.c_str(), "%d-%d-%dT%d:%d:%d%c%d:%d", &y, &mo, &d, &h, &mi, &s, &sign, &oh,
                  &om) != 9 ||
      (sign != '+' && sign != '-')) {
    return {};
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  time_t t = timegm(&tm);
  const long offset_s = (oh * 3600L + om * 60L) * (sign == '+' ? 1 : -1);
  t -= offset_s;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
  return buf;
}

// GPU and version facts a gpubench suite wrote into its context ("gpubench.devices" is a JSON
// array, or a string holding one: index, uuid, name, pci_bus_id, cc, sm_count, memory_bytes).
void facts_from_context(const nlohmann::json& c, results::RunInfo& info) {
  // Versions a file states (a peer tool's output: results/peers/README.md lists the keys).
  const std::pair<const char*, std::string results::SoftwareEnv::*> versions[] = {
      {"gpubench.version", &results::SoftwareEnv::gpubench_version},
      {"gpubench.driver_version", &results::SoftwareEnv::driver_version},
      {"gpubench.cuda_driver_version", &results::SoftwareEnv::cuda_driver_version},
      {"gpubench.cuda_runtime_version", &results::SoftwareEnv::cuda_runtime_version},
      {"gpubench.nccl_version", &results::SoftwareEnv::nccl_version}};
  for (const auto& [key, field] : versions) {
    if (auto v = c.find(key); v != c.end() && v->is_string() && !v->get<std::string>().empty()) {
      info.software.*field = v->get<std::string>();
    }
  }
  auto it = c.find("gpubench.devices");
  if (it == c.end()) return;
  nlohmann::json devices = *it;
  if (devices.is_string())
    devices = nlohmann::json::parse(devices.get<std::string>(), nullptr, false);
  if (!devices.is_array()) return;
  const auto h = c.find("host_name");
  const std::string host = h != c.end() && h->is_string() ? h->get<std::string>() : std::string();
  for (const nlohmann::json& d : devices) {
    if (!d.is_object()) continue;
    // A multi-node record (allreduce under a launcher, nccl-tests' rank list) names each GPU's
    // host: the run's GPUs are its own host's.
    if (d.contains("host") && d["host"].is_string() && !host.empty() && d["host"] != host) {
      continue;
    }
    results::GpuInfo g;
    // A suite's record holds CUDA ordinals, not NVML indices: the position stands in for the NVML
    // index, which nothing joins on (results are tied to GPUs by UUID at ingest).
    g.nvml_index = static_cast<int>(info.gpus.size());
    g.uuid = d.value("uuid", std::string(results::k_unknown));
    g.name = d.value("name", std::string(results::k_unknown));
    g.pci_bus_id = d.value("pci_bus_id", std::string(results::k_unknown));
    g.compute_capability = d.value("cc", std::string(results::k_unknown));
    if (d.contains("sm_count") && d["sm_count"].is_number_integer()) {
      g.sm_count = d["sm_count"].get<int>();
    }
    if (d.contains("memory_bytes") && d["memory_bytes"].is_number_integer()) {
      g.memory_bytes = d["memory_bytes"].get<int64_t>();
    }
    info.gpus.push_back(g);
  }
}

// Only a regular file is looked at: reading a pipe's (a FIFO's, /dev/stdin's) first bytes here
// would take them from the one read that parses it. SQLite cannot open a pipe anyway.
bool is_sqlite_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in.gcount() == 16 && std::string(header, 15) == "SQLite format 3";
}

// `database`: `file` is a database (merged again later), else an export (a snapshot of a run).
void print_summary(const std::string& file, bool database, const results::MergeSummary& sum,
                   Context& ctx) {
  *ctx.out << "imported " << file << ": " << sum.added.size() << " run(s) added, "
           << sum.skipped.size() << " already present (same UUID), " << sum.samples << " samples";
  if (sum.annotations > 0) {
    *ctx.out << ", " << sum.annotations << " annotation(s) added to runs already present";
  }
  if (sum.exclusions > 0) {
    *ctx.out << ", " << sum.exclusions
             << " exclusion(s) from history added to runs already present";
  }
  *ctx.out << '\n';
  for (const std::string& uuid : sum.added) *ctx.out << "  added " << uuid << '\n';
  for (const auto& [uuid, evidence] : sum.abandoned) {
    *ctx.out << "  left out " << uuid << ": `running` in " << file
             << " but abandoned there, it will not finish (" << evidence
             << "); any writing gpubench command on " << file << " (e.g. `gpubench baseline set`, "
             << "`gpubench annotate`, `gpubench run`) records it abandoned with its finished "
             << "suites, then import " << file << " again to bring it in\n";
  }
  for (const std::string& uuid : sum.running) {
    if (database) {
      *ctx.out << "  left out " << uuid << ": still running in " << file
               << "; import it again once the run has finished\n";
    } else {
      *ctx.out << "  left out " << uuid << ": it was still running when " << file
               << " was exported; export it again once the run has finished\n";
    }
  }
  for (const std::string& name : sum.baselines_added) *ctx.out << "  baseline " << name << '\n';
  for (const std::string& name : sum.baselines_kept) {
    *ctx.out << "  baseline not changed: " << name << '\n';
  }
}

// The run's facts from a Google Benchmark context (host, date, profile, suite, GPUs).
results::RunInfo run_info_from(const ImportArgs& args, const Context& ctx, const nlohmann::json& c,
                               std::string& suite) {
  results::RunInfo info;
  for (const auto& t : args.tags) info.tags.push_back(parse_tag(t));
  // Marked as imported (measured elsewhere, by whatever ran the file): `latest` and
  // baseline:previous-good skip it in a database with runs of its own (results/model.hpp).
  if (std::none_of(info.tags.begin(), info.tags.end(),
                   [](const auto& t) { return t.first == results::k_imported_tag_key; })) {
    info.tags.emplace_back(results::k_imported_tag_key,
                           std::filesystem::path(args.file).filename().string());
  }
  info.note = args.note;
  info.argv = ctx.argv;
  info.config.profile = results::k_unknown;
  suite = args.suite;
  if (c.is_object()) {
    if (c.contains("host_name") && c["host_name"].is_string()) {
      info.host.hostname = c["host_name"].get<std::string>();
    }
    if (c.contains("num_cpus") && c["num_cpus"].is_number_integer()) {
      info.host.threads = c["num_cpus"].get<int>();
    }
    if (c.contains("date") && c["date"].is_string()) {
      info.started_at = date_to_utc(c["date"].get<std::string>());
    }
    if (c.contains("gpubench.profile") && c["gpubench.profile"].is_string()) {
      info.config.profile = c["gpubench.profile"].get<std::string>();
    }
    if (suite.empty() && c.contains("gpubench.suite") && c["gpubench.suite"].is_string()) {
      suite = c["gpubench.suite"].get<std::string>();
    }
    // Another tool's output: the tool as a tag, so `compare tag:peer.tool=nccl-tests` selects
    // its runs (peer.version and peer.command stay in the suite run's stored context).
    if (auto t = c.find("peer.tool");
        t != c.end() && t->is_string() && !t->get<std::string>().empty() &&
        std::none_of(info.tags.begin(), info.tags.end(),
                     [](const auto& tag) { return tag.first == "peer.tool"; })) {
      info.tags.emplace_back("peer.tool", t->get<std::string>());
    }
    facts_from_context(c, info);
  }
  if (suite.empty()) suite = "imported";
  return info;
}

results::SuiteRunInfo suite_run_of(const ImportArgs& args, const results::RunInfo& info,
                                   const std::string& suite) {
  results::SuiteRunInfo sr;
  sr.suite = suite;
  sr.executable = std::filesystem::absolute(args.file).string();
  sr.started_at = info.started_at.empty() ? now_iso8601_utc() : info.started_at;
  sr.finished_at = sr.started_at;
  sr.status = results::SuiteStatus::ok;
  sr.reason = "imported from " + args.file;
  return sr;
}

void print_ingest(const ImportArgs& args, Context& ctx, int64_t run_id,
                  const results::IngestSummary& sum) {
  *ctx.out << "imported " << args.file << " as run " << run_id << ": " << sum.benchmarks
           << " benchmarks, " << sum.samples << " samples, " << sum.skipped << " skipped, "
           << sum.errors << " errors";
  if (sum.invalid > 0) {
    *ctx.out << ", " << sum.invalid << " invalid values kept aside (see 'gpubench show " << run_id
             << "')";
  }
  *ctx.out << "\n";
}

// Removes the database file again when this import created it and stored nothing: a failed
// import leaves no trace, not even an empty database.
class CreatedDatabase {
 public:
  explicit CreatedDatabase(const Context& ctx)
      : m_path(resolve_db_path(ctx)), m_created(!std::filesystem::exists(m_path)) {}
  ~CreatedDatabase() {
    if (!m_created || m_kept) return;
    try {
      results::Store store = results::Store::open(m_path, results::OpenMode::read_write);
      if (!store.list_runs(1).empty()) return;
    } catch (const Error&) {
      return;  // someone else's now, or unreadable: leave it
    }
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::error_code ec;
      std::filesystem::remove(m_path + suffix, ec);
    }
  }
  CreatedDatabase(const CreatedDatabase&) = delete;
  CreatedDatabase& operator=(const CreatedDatabase&) = delete;
  void keep() { m_kept = true; }

 private:
  std::string m_path;
  bool m_created;
  bool m_kept = false;
};

// Stores a Google Benchmark file's entries while it is parsed: when the "benchmarks" array
// starts after the context (as Google Benchmark writes them), the run is begun in one
// transaction and each entry stored as soon as it is read, so memory stays flat however big the
// file. Any other shape (a run export, a foreign document, benchmarks before the context) is
// left in the document for the checks below. Destroyed unfinished, everything rolls back, and a
// database file this import created is removed again.
class StreamingImport : public results::EntrySink {
 public:
  StreamingImport(const ImportArgs& args, Context& ctx) : m_args(args), m_ctx(ctx) {}
  ~StreamingImport() override {
    m_import.reset();  // rolls back unless finished
    m_store.reset();   // closed before ~CreatedDatabase looks at the file
  }
  StreamingImport(const StreamingImport&) = delete;
  StreamingImport& operator=(const StreamingImport&) = delete;

  bool begin_entries(const nlohmann::json& head) override {
    auto c = head.find("context");
    if (c == head.end() || !c->is_object() || head.contains("run") || head.contains("results")) {
      return false;
    }
    // Everything from here on is storing: its errors are not the file's.
    guarded([&] {
      std::string suite;
      const results::RunInfo info = run_info_from(m_args, m_ctx, *c, suite);
      m_created = std::make_unique<CreatedDatabase>(m_ctx);
      m_store =
          std::make_unique<results::Store>(open_store(m_ctx, results::OpenMode::read_write_create));
      m_import = m_store->begin_import(info, suite_run_of(m_args, info, suite), *c, suite);
    });
    return true;
  }
  // On the parsing thread: m_import was set before begin_entries() returned, and prepare()
  // reads only what begin_import fixed.
  std::unique_ptr<results::EntryWork> prepare(const results::StreamedEntry& e,
                                              std::size_t index) override {
    return m_import->prepare(e, index);
  }
  void entry(const results::StreamedEntry& e, std::size_t index,
             results::EntryWork* work) override {
    guarded([&] { m_import->add(e, index, work); });
    ++m_entries;
  }

  bool started() const { return m_import != nullptr; }
  std::size_t entries() const { return m_entries; }
  // True when the error being handled came from storing (not from reading the file).
  bool failed_storing() const { return m_failed_storing; }
  std::pair<int64_t, results::StoredSuite> finish() {
    results::StoredSuite stored;
    guarded([&] { stored = m_import->finish(); });
    m_created->keep();
    return {m_import->run_id(), stored};
  }

 private:
  template <typename F>
  void guarded(F&& f) {
    try {
      f();
    } catch (...) {
      m_failed_storing = true;
      throw;
    }
  }

  const ImportArgs& m_args;
  Context& m_ctx;
  bool m_failed_storing = false;
  std::size_t m_entries = 0;
  std::unique_ptr<CreatedDatabase> m_created;  // destroyed last: after the store is closed
  std::unique_ptr<results::Store> m_store;
  std::unique_ptr<results::Store::RunImport> m_import;
};

// An empty "benchmarks" array would become a complete run of no samples that `latest` then
// points at: a benchmark binary that ran nothing is refused, never stored.
[[noreturn]] void nothing_to_import(const ImportArgs& args) {
  throw bad_input("cannot import '" + args.file + "'",
                  "its \"benchmarks\" array is empty: nothing to import",
                  "check that the benchmark binary ran something (a --benchmark_filter that "
                  "matches nothing writes an empty list); the database was not changed");
}

[[noreturn]] void storing_failed(const ImportArgs& args, const Error& e) {
  if (e.code() != ExitCode::bad_input) throw;  // called inside a catch: rethrows as it is
  throw bad_input("cannot import '" + args.file + "'", e.what(),
                  "fix the file or import another one; the database was not changed");
}

// A suite name becomes part of benchmark names ("<suite>/<case>"), page and file names: one
// that is empty, holds a '/' or a control character (a newline) would not read back as itself.
void check_suite_name(const std::string& suite) {
  std::string why;
  if (suite.empty()) {
    why = "it is empty";
  } else if (suite.find('/') != std::string::npos) {
    why = "it holds a '/', which separates a benchmark name's parts";
  } else if (std::any_of(suite.begin(), suite.end(), [](char c) {
               return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
             })) {
    why = "it holds a control character (a newline, a tab, an escape)";
  }
  if (why.empty()) return;
  std::string shown;  // control characters as \xNN: the message must not carry them either
  for (const char c : suite.substr(0, 60)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      shown += hex;
    } else {
      shown += c;
    }
  }
  throw bad_input("bad --suite '" + shown + "'", why,
                  "give a plain name such as --suite mybench, or leave --suite out to use the "
                  "file's gpubench.suite (else 'imported')");
}

// The formats --format takes, for --help and errors: "nccl-tests (nccl-tests *_perf text), ...".
std::string peer_format_list() {
  std::vector<std::string> names;
  for (const results::peers::PeerFormat& f : results::peers::peer_formats()) {
    names.push_back(std::string(f.name) + " (" + std::string(f.description) + ")");
  }
  return names.empty() ? std::string("none yet") : join(names, ", ");
}

const results::peers::PeerFormat& forced_format(const std::string& name) {
  if (const results::peers::PeerFormat* f = results::peers::find_peer_format(name)) return *f;
  throw bad_input("unknown --format '" + visible_text(name.substr(0, 60)) + "'",
                  "the formats import reads besides gpubench's own are: " + peer_format_list(),
                  "give one of these names, or leave --format out to detect the format (a "
                  "gpubench database, an export and Google Benchmark JSON are always detected)");
}

// Up to k_detect_bytes of a regular file, for detection; empty for anything else: a pipe's first
// bytes would be taken from the one read that parses it (--format names a pipe's format).
std::string file_head(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  std::string head(results::peers::k_detect_bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

// A peer tool's output is read whole: these are kilobytes of text; the bound keeps a device that
// never ends (/dev/zero) from filling memory.
constexpr std::size_t k_max_peer_file_bytes = std::size_t{256} << 20;

std::string read_peer_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw bad_input("cannot import '" + path + "'", "it is a directory", "give a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw bad_input("cannot import '" + path + "'", errno_text(errno),
                    "check that the file exists and is readable");
  }
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > k_max_peer_file_bytes) {
      throw bad_input("cannot import '" + path + "'",
                      "it holds more than " + std::to_string(k_max_peer_file_bytes) +
                          " bytes, far more than a tool's text output (a device or a wrong file?)",
                      "give the tool's output file; the database was not changed");
    }
  }
  if (in.bad()) {
    throw bad_input("cannot import '" + path + "'", "I/O error while reading",
                    "check the file and the disk");
  }
  return text;
}

// Another tool's output: parsed whole (a broken table throws naming the line, before anything
// is stored), then stored as a suite's file is, in one transaction. A run the tool ended in an
// error (an NCCL error after some sizes) is stored with its suite and the run failed, the tool's
// message as the reason. PeerDocument::facts (dcgmi diag: acceptance facts per test and GPU) are
// stored in the same transaction as the run (results/acceptance_facts.hpp).
void import_peer(const ImportArgs& args, Context& ctx, const results::peers::PeerFormat& format) {
  const std::string text = read_peer_file(args.file);
  results::peers::PeerDocument peer;
  try {
    peer = format.parse(text, args.file);
  } catch (const Error& e) {
    if (e.code() != ExitCode::bad_input) throw;
    throw bad_input(
        e.what_failed(), e.why(),
        (e.fix().empty() ? std::string() : e.fix() + "; ") + "the database was not changed");
  }
  const nlohmann::json& doc = peer.document;
  const auto b = doc.find("benchmarks");
  if ((b == doc.end() || !b->is_array() || b->empty()) && peer.facts.empty()) {
    throw bad_input("cannot import '" + args.file + "'",
                    "it is " + std::string(format.name) + " output that measured nothing",
                    "import a run of the tool that finished at least one measurement; the "
                    "database was not changed");
  }
  std::string suite;
  const auto c = doc.find("context");
  const results::RunInfo info =
      run_info_from(args, ctx, c != doc.end() ? *c : nlohmann::json(), suite);
  results::SuiteRunInfo sr = suite_run_of(args, info, suite);
  if (!peer.failure.empty()) {
    sr.status = results::SuiteStatus::failed;
    sr.reason = peer.failure;
  }
  CreatedDatabase created(ctx);
  int64_t run_id = 0;
  results::StoredSuite stored;
  {
    results::Store store = open_store(ctx, results::OpenMode::read_write_create);
    try {
      stored = results::import_run_with_facts(store, info, sr, doc, suite, run_id, peer.facts);
      // As `gpubench run` ends a run whose suite failed (import_run stored it complete).
      if (!peer.failure.empty()) {
        store.record_run_outcome(run_id, results::RunStatus::failed, peer.failure);
      }
    } catch (const Error& e) {
      storing_failed(args, e);
    }
  }
  created.keep();
  print_ingest(args, ctx, run_id, stored.summary);
  if (!peer.facts.empty()) {
    const std::vector<std::string> items = results::summarize_acceptance_facts(peer.facts);
    *ctx.out << "  " << peer.facts.size() << " acceptance facts (" << peer.facts.front().source
             << "): " << items.front() << " (see 'gpubench show " << run_id << "')\n";
  }
  if (!peer.failure.empty()) {
    *ctx.out << "  stored as failed: " << peer.failure << "\n";
  }
}

void do_import(const ImportArgs& args, Context& ctx) {
  // Bad arguments before any reading: their own errors, not the file's.
  if (args.suite_given) check_suite_name(args.suite);
  for (const std::string& t : args.tags) parse_tag(t);
  check_note(args.note);
  check_utf8(args.suite, "--suite");
  resolve_db_path(ctx);
  if (!args.format.empty()) {
    import_peer(args, ctx, forced_format(args.format));
    return;
  }
  if (is_sqlite_file(args.file)) {
    CreatedDatabase created(ctx);  // a refused merge leaves no new database behind
    results::MergeSummary summary;
    {
      results::Store store = open_store(ctx, results::OpenMode::read_write_create);
      summary = results::merge_database(store, args.file, {args.with_baselines});
    }
    created.keep();
    print_summary(args.file, true, summary, ctx);
    return;
  }
  // Another tool's text, known by its first lines (before JSON parsing, which would call it
  // "not valid JSON").
  if (const results::peers::PeerFormat* peer =
          results::peers::detect_peer_format(file_head(args.file))) {
    import_peer(args, ctx, *peer);
    return;
  }
  // One pass over the file (Google Benchmark's NaN tolerated); its entries are stored as they
  // are read when it is Google Benchmark output.
  StreamingImport streaming(args, ctx);
  nlohmann::json doc;
  try {
    doc = results::parse_benchmark_file(args.file, args.file, &streaming);
  } catch (const results::JsonTooDeep&) {
    throw;  // says what is wrong as it is: the JSON is valid
  } catch (const Error& e) {
    if (streaming.failed_storing()) storing_failed(args, e);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(args.file, ec);
    if (ec) throw;  // unreadable: read_file's message names the path and the cause
    throw bad_input("cannot import '" + args.file + "'",
                    "it is not valid JSON (" + std::to_string(bytes) + " bytes; " + e.what() +
                        "), nor the output of another tool import reads: " + peer_format_list(),
                    "pass a complete file written with --benchmark_out=FILE "
                    "--benchmark_out_format=json, or one of those tools' output (--format NAME "
                    "when it is not detected, as from a pipe); the database was not changed");
  }
  if (streaming.started()) {
    if (streaming.entries() == 0) nothing_to_import(args);  // rolls back, as any error does
    try {
      const auto [run_id, stored] = streaming.finish();
      print_ingest(args, ctx, run_id, stored.summary);
    } catch (const Error& e) {
      storing_failed(args, e);
    }
    return;
  }
  if (results::is_run_export(doc)) {
    CreatedDatabase created(ctx);
    results::MergeSummary summary;
    {
      results::Store store = open_store(ctx, results::OpenMode::read_write_create);
      summary = results::import_run_json(store, doc, args.file, {args.with_baselines});
    }
    created.keep();
    print_summary(args.file, false, summary, ctx);
    return;
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    std::string found = doc.is_object()  ? "an object without a \"benchmarks\" array"
                        : doc.is_array() ? "a JSON array"
                                         : std::string("a JSON ") + doc.type_name();
    if (doc.is_object()) {
      std::vector<std::string> keys;
      for (auto it = doc.begin(); it != doc.end() && keys.size() < 8; ++it)
        keys.push_back(it.key());
      if (!keys.empty()) found += " (keys: " + join(keys, ", ") + ")";
    }
    throw bad_input("cannot import '" + args.file + "'",
                    "it is not Google Benchmark output, nor a `gpubench export --format json` run "
                    "or a gpubench database: found " +
                        found,
                    "pass a file written with --benchmark_out_format=json, `gpubench export` or "
                    "`gpubench run`; the database was not changed");
  }
  // Google Benchmark output whose context did not come first: the whole document, one
  // transaction (bad content exits 2 and the database is unchanged).
  if (doc["benchmarks"].empty()) nothing_to_import(args);
  std::string suite;
  const auto c = doc.find("context");
  const results::RunInfo info =
      run_info_from(args, ctx, c != doc.end() ? *c : nlohmann::json(), suite);
  CreatedDatabase created(ctx);
  int64_t run_id = 0;
  results::StoredSuite stored;
  {
    results::Store store = open_store(ctx, results::OpenMode::read_write_create);
    try {
      stored = store.import_run(info, suite_run_of(args, info, suite), doc, suite, run_id);
    } catch (const Error& e) {
      storing_failed(args, e);
    }
  }
  created.keep();
  print_ingest(args, ctx, run_id, stored.summary);
}
}  // namespace

void add_import_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "merge another gpubench database, import an exported run, or store a Google Benchmark JSON "
      "file or another tool's output (nccl-tests, ...) as a run");
  cmd->add_option("file", args->file,
                  "another gpubench .db, a `gpubench export --format json` file, Google "
                  "Benchmark JSON (--benchmark_out_format=json) or another tool's output "
                  "(see --format)")
      ->required();
  CLI::Option* suite =
      cmd->add_option("--suite", args->suite,
                      "suite name for benchmarks without a suite prefix (default: the file's "
                      "gpubench.suite, else 'imported'); no '/' or control characters");
  cmd->add_option("--tag", args->tags, "k=v label stored with the run (repeatable)");
  cmd->add_option("--note", args->note, "free text stored with the run");
  cmd->add_option(
      "--format", args->format,
      "read FILE as this tool's output instead of detecting its format: " + peer_format_list());
  cmd->add_flag("--with-baselines", args->with_baselines,
                "another database or an export: also copy its baselines of the runs merged (a "
                "name this database already uses is left as it is)");
  cmd->callback([args, suite, &ctx] {
    args->suite_given = suite->count() > 0;
    do_import(*args, ctx);
  });
}

}  // namespace gpubench::cli
