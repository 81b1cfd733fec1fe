// gpubench import FILE: one of
//   - another gpubench database (.db): its runs this database lacks are merged in;
//   - a run exported with `gpubench export RUN --format json`;
//   - a Google Benchmark JSON file (from any binary) becomes a new run; a file written by a
//     gpubench suite fills the run's GPU and version facts from its gpubench.* context.
// The first two are idempotent by run UUID (results/exchange.hpp). The file is checked before
// the database is written, so bad input changes nothing.
#include <CLI/CLI.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/cli_common.hpp"
#include "harness/command.hpp"
#include "results/exchange.hpp"
#include "results/ingest.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {

namespace {
struct ImportArgs {
  std::string file;
  std::string suite;
  std::vector<std::string> tags;
  std::string note;
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
  if (c.contains("gpubench.version") && c["gpubench.version"].is_string()) {
    info.software.gpubench_version = c["gpubench.version"].get<std::string>();
  }
  auto it = c.find("gpubench.devices");
  if (it == c.end()) return;
  nlohmann::json devices = *it;
  if (devices.is_string())
    devices = nlohmann::json::parse(devices.get<std::string>(), nullptr, false);
  if (!devices.is_array()) return;
  for (const nlohmann::json& d : devices) {
    if (!d.is_object()) continue;
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

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in.gcount() == 16 && std::string(header, 15) == "SQLite format 3";
}

void print_summary(const std::string& file, const results::MergeSummary& sum, Context& ctx) {
  *ctx.out << "imported " << file << ": " << sum.added.size() << " run(s) added, "
           << sum.skipped.size() << " already present (same UUID), " << sum.samples << " samples\n";
  for (const std::string& uuid : sum.added) *ctx.out << "  added " << uuid << '\n';
}

void do_import(const ImportArgs& args, Context& ctx) {
  if (is_sqlite_file(args.file)) {
    results::Store store = open_store(ctx, results::OpenMode::read_write_create);
    print_summary(args.file, results::merge_database(store, args.file), ctx);
    return;
  }
  const std::string text = read_file(args.file);  // Error(bad_input) naming path and cause
  nlohmann::json doc;
  try {
    doc = results::parse_benchmark_json(text, args.file);  // tolerates Google Benchmark's NaN
  } catch (const Error& e) {
    throw bad_input(
        "cannot import '" + args.file + "'",
        "it is not valid JSON (" + std::to_string(text.size()) + " bytes; " + e.what() + ")",
        "pass a complete file written with --benchmark_out=FILE "
        "--benchmark_out_format=json; the database was not changed");
  }
  if (results::is_run_export(doc)) {
    results::Store store = open_store(ctx, results::OpenMode::read_write_create);
    print_summary(args.file, results::import_run_json(store, doc, args.file), ctx);
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
  results::RunInfo info;
  for (const auto& t : args.tags) info.tags.push_back(parse_tag(t));
  info.note = args.note;
  info.argv = ctx.argv;
  info.config.profile = results::k_unknown;
  std::string suite = args.suite;
  if (doc.contains("context") && doc["context"].is_object()) {
    const auto& c = doc["context"];
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
    facts_from_context(c, info);
  }
  if (suite.empty()) suite = "imported";

  results::Store store = open_store(ctx, results::OpenMode::read_write_create);
  results::SuiteRunInfo sr;
  sr.suite = suite;
  sr.executable = std::filesystem::absolute(args.file).string();
  sr.started_at = info.started_at.empty() ? now_iso8601_utc() : info.started_at;
  sr.finished_at = sr.started_at;
  sr.status = results::SuiteStatus::ok;
  sr.reason = "imported from " + args.file;
  // One transaction: the run, its suite and every sample, or nothing (bad content exits 2 and
  // the database is unchanged; a database failure exits 3, also unchanged).
  int64_t run_id = 0;
  results::StoredSuite stored;
  try {
    stored = store.import_run(info, sr, doc, suite, run_id);
  } catch (const Error& e) {
    if (e.code() != ExitCode::bad_input) throw;
    throw bad_input("cannot import '" + args.file + "'", e.what(),
                    "fix the file or import another one; the database was not changed");
  }
  const results::IngestSummary& sum = stored.summary;
  *ctx.out << "imported " << args.file << " as run " << run_id << ": " << sum.benchmarks
           << " benchmarks, " << sum.samples << " samples, " << sum.skipped << " skipped, "
           << sum.errors << " errors";
  if (sum.invalid > 0) {
    *ctx.out << ", " << sum.invalid << " invalid values kept aside (see 'gpubench show " << run_id
             << "')";
  }
  *ctx.out << "\n";
}
}  // namespace

void add_import_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "merge another gpubench database, import an exported run, or store a Google Benchmark JSON "
      "file as a run");
  cmd->add_option("file", args->file,
                  "another gpubench .db, a `gpubench export --format json` file, or Google "
                  "Benchmark JSON (--benchmark_out_format=json)")
      ->required();
  cmd->add_option("--suite", args->suite,
                  "suite name for benchmarks without a suite prefix (default: the file's "
                  "gpubench.suite, else 'imported')");
  cmd->add_option("--tag", args->tags, "k=v label stored with the run (repeatable)");
  cmd->add_option("--note", args->note, "free text stored with the run");
  cmd->callback([args, &ctx] { do_import(*args, ctx); });
}

}  // namespace gpubench::cli
