// Reading a Google Benchmark JSON file as a stream, for files too big to hold as a document
// (`gpubench import` of a fleet's run: 200,000 benchmarks, tens of MB). The file is read in
// chunks and parsed once with nlohmann's SAX interface; the entries of the top-level
// "benchmarks" array can be handed over one at a time instead of being kept, so memory does not
// grow with the file. Google Benchmark's bare NaN / Infinity tokens become the same marker
// strings parse_benchmark_json makes (results/ingest.hpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::results {

class EntrySink {
 public:
  virtual ~EntrySink() = default;
  // The top-level "benchmarks" array starts. `head` is the document read so far (Google
  // Benchmark writes "context" first). Return true to receive its entries one at a time through
  // entry(); the returned document then holds an empty "benchmarks" array. Return false to keep
  // them in the document.
  virtual bool begin_entries(const nlohmann::json& head) = 0;
  // One element of "benchmarks" (index: its position), as soon as it is complete.
  virtual void entry(const nlohmann::json& entry, std::size_t index) = 0;
};

// Parses the file at `path`, streaming the "benchmarks" entries to `sink` when it asks for them
// (sink may be null: the whole document is returned). `source` names the input in errors.
// Throws Error(bad_input) naming the file and the cause when it cannot be read, is empty, is not
// JSON (the byte where the parser stopped) or holds a number beyond double's range; exceptions
// thrown by the sink propagate unchanged.
nlohmann::json parse_benchmark_file(const std::filesystem::path& path, const std::string& source,
                                    EntrySink* sink);

}  // namespace gpubench::results
