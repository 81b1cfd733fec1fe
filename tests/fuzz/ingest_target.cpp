#include "tests/fuzz/ingest_target.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "results/ingest/ingest.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::fuzz {

namespace {

results::Store& store() {
  // One in-memory database for the whole process: runs pile up like a long-lived file would.
  static results::Store s = results::Store::open(":memory:", results::OpenMode::read_write_create);
  return s;
}

}  // namespace

void ingest_one(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = results::parse_benchmark_json(text, "fuzz input");
    results::RunInfo info;
    info.user = "fuzz";
    results::SuiteRunInfo suite;
    suite.suite = "fuzz";
    suite.executable = "fuzz";
    int64_t run_id = 0;
    store().import_run(info, suite, doc, "fuzz", run_id);
    if (run_id > 0) (void)store().get_results(run_id);
  } catch (const Error&) {
    // Clean refusal: what the CLI turns into a message and exit 2/3.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: ingest threw a non-gpubench exception: %s\n", e.what());
    std::abort();
  }
}

}  // namespace gpubench::fuzz
