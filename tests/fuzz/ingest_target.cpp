#include "tests/fuzz/ingest_target.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include <unistd.h>

#include "results/exchange/exchange.hpp"
#include "results/ingest/ingest.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::fuzz {

namespace {

results::Store& store() {
  // One in-memory database for the whole process: runs pile up like a long-lived file would.
  static results::Store s = results::Store::open(":memory:", results::OpenMode::read_write_create);
  return s;
}

// Reads every entry a streamed parse hands over, as `gpubench import` does before storing it.
class ReadingSink : public results::EntrySink {
 public:
  bool begin_entries(const nlohmann::json& /*head*/) override { return true; }
  void entry(const results::StreamedEntry& entry, std::size_t /*index*/,
             results::EntryWork* /*work*/) override {
    (void)entry.to_json().dump();
  }
};

// The input as a file, for the streamed reader (one per process, rewritten each time).
std::filesystem::path input_file(const std::string& text) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gpubench-fuzz-" + std::to_string(getpid()));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

template <typename F>
void clean_refusal_only(F&& f) {
  try {
    f();
  } catch (const Error&) {
    // Clean refusal: what the CLI turns into a message and exit 2/3.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: ingest threw a non-gpubench exception: %s\n", e.what());
    std::abort();
  }
}

}  // namespace

void ingest_one(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The whole-document path (`gpubench run`): a Google Benchmark file, or an export as import
  // reads one.
  clean_refusal_only([&] {
    const nlohmann::json doc = results::parse_benchmark_json(text, "fuzz input");
    if (results::is_run_export(doc)) {
      (void)results::import_run_json(store(), doc, "fuzz input");
      return;
    }
    results::RunInfo info;
    info.user = "fuzz";
    results::SuiteRunInfo suite;
    suite.suite = "fuzz";
    suite.executable = "fuzz";
    int64_t run_id = 0;
    store().import_run(info, suite, doc, "fuzz", run_id);
    if (run_id > 0) (void)store().get_results(run_id);
  });
  // The streamed path (`gpubench import FILE`): the same bytes from a file, entries handed over.
  clean_refusal_only([&] {
    ReadingSink sink;
    const nlohmann::json doc = results::parse_benchmark_file(input_file(text), "fuzz input", &sink);
    (void)doc.dump();
  });
}

}  // namespace gpubench::fuzz
