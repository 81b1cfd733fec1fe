// Reading a Google Benchmark JSON file as a stream, for files too big to hold as a document
// (`gpubench import` of a fleet's run: 200,000 benchmarks, tens of MB). The file is read in chunks
// and parsed once with nlohmann's SAX interface; the entries of the top-level "benchmarks" array
// can be handed over one at a time instead of being kept, so memory does not grow with the file.
// Google Benchmark's bare NaN / Infinity tokens become the same marker strings parse_benchmark_json
// makes (results/ingest/ingest.hpp). With a sink, parsing runs on a thread of its own, ahead of the
// sink (which is always called on the caller's thread).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::results {

// One element of "benchmarks" as the stream read it, without building a document for it: an
// object's members in file order (a member that is itself an object or array is kept as a
// document), or the element itself when it is not an object. Reused from entry to entry.
class StreamedEntry {
 public:
  bool is_object() const { return m_object; }
  std::size_t size() const { return m_size; }
  const std::string& key(std::size_t k) const { return m_members[k].key; }
  const nlohmann::json& value(std::size_t k) const { return m_members[k].value; }
  // The element when it is not an object.
  const nlohmann::json& element() const { return m_element; }
  // The element as nlohmann's parser makes it (of a key given twice, the last value).
  nlohmann::json to_json() const;

  // --- filled by the parser ---
  void start_object() {
    m_object = true;
    m_size = 0;
  }
  // A new member (value null until set through the returned reference).
  nlohmann::json& add_member(const std::string& key);
  void set_element(nlohmann::json&& element) {
    m_object = false;
    m_size = 0;
    m_element = std::move(element);
  }

 private:
  struct Member {
    std::string key;
    nlohmann::json value;
  };
  bool m_object = false;
  std::size_t m_size = 0;
  std::vector<Member> m_members;  // the first m_size are this entry's; the rest keep capacity
  nlohmann::json m_element;
};

// What a sink makes of an entry on the parsing thread (EntrySink::prepare).
class EntryWork {
 public:
  virtual ~EntryWork() = default;
};

class EntrySink {
 public:
  virtual ~EntrySink() = default;
  // The top-level "benchmarks" array starts. `head` is the document read so far (Google
  // Benchmark writes "context" first). Return true to receive its entries one at a time through
  // entry(); the returned document then holds an empty "benchmarks" array. Return false to keep
  // them in the document.
  virtual bool begin_entries(const nlohmann::json& head) = 0;
  // Called on the parsing thread for each entry to be streamed, in order, before it reaches
  // entry(): the part of the sink's work that needs only the entry and what begin_entries()
  // fixed, so that it overlaps with entry() handling earlier ones. It must not touch what
  // entry() changes, and must not throw (a problem with the entry is for entry() to report).
  // Default: nothing to do.
  virtual std::unique_ptr<EntryWork> prepare(const StreamedEntry& /*entry*/,
                                             std::size_t /*index*/) {
    return nullptr;
  }
  // One element of "benchmarks" (index: its position), with what prepare() made of it (null
  // when it made nothing; valid during the call).
  virtual void entry(const StreamedEntry& entry, std::size_t index, EntryWork* work) = 0;
};

// Parses the file at `path`, streaming the "benchmarks" entries to `sink` when it asks for them
// (sink may be null: the whole document is returned). `source` names the input in errors.
// Throws Error(bad_input) naming the file and the cause when it cannot be read, is empty, is not
// JSON (the byte where the parser stopped) or holds a number beyond double's range; exceptions
// thrown by the sink propagate unchanged.
nlohmann::json parse_benchmark_file(const std::filesystem::path& path, const std::string& source,
                                    EntrySink* sink);

}  // namespace gpubench::results
