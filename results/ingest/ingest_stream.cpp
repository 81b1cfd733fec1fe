// parse_benchmark_file (ingest_stream.hpp): a chunked reader that rewrites Google Benchmark's
// bare NaN / Infinity tokens on the fly, and a SAX handler that builds the document except for
// the entries of "benchmarks", which it hands to the sink as each one completes. With a sink,
// the parser runs on a thread of its own and hands entries over in batches (Channel,
// ingest_stream_channel.cpp), so parsing overlaps with what the sink does (storing them); the
// sink is only ever called on the caller's thread.
#include "results/ingest/ingest_stream.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "results/ingest/ingest.hpp"
#include "results/ingest/ingest_stream_channel.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using detail::Cancelled;
using detail::Channel;
using detail::Delivery;

namespace {

using nlohmann::json;

// The file's bytes in chunks, with the non-JSON tokens outside strings replaced by marker
// strings (as parse_benchmark_json does). The JSON parser reads it through Iterator.
class FilteredFile {
 public:
  explicit FilteredFile(const std::filesystem::path& path)
      : m_file(std::fopen(path.c_str(), "rb")) {
    if (m_file == nullptr) {
      throw bad_input("cannot read '" + path.string() + "'", errno_text(errno),
                      "check that the file exists and is readable");
    }
    m_path = path.string();
    refill();
  }
  ~FilteredFile() {
    if (m_file != nullptr) std::fclose(m_file);
  }
  FilteredFile(const FilteredFile&) = delete;
  FilteredFile& operator=(const FilteredFile&) = delete;

  // Only whitespace so far (an empty file gets its own message).
  bool blank() const { return m_blank; }

  // An input iterator over the filtered bytes; copies share the file (nlohmann keeps a begin and
  // an end iterator and compares them).
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    explicit Iterator(FilteredFile* f) : m_f(f) {}
    reference operator*() const { return *m_f->m_pos; }
    Iterator& operator++() {
      if (++m_f->m_pos == m_f->m_end) m_f->refill();
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    // Every iterator equals every other one at the end of the input, and none otherwise: the
    // parser only ever compares its current position with its end.
    bool operator==(const Iterator& other) const {
      return (m_f == nullptr || m_f->at_end()) == (other.m_f == nullptr || other.m_f->at_end());
    }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    FilteredFile* m_f;
  };
  Iterator begin() { return Iterator(this); }
  static Iterator end() { return Iterator(nullptr); }

 private:
  static constexpr std::size_t k_chunk = 1 << 20;
  // Longest token ("-Infinity"): raw bytes kept back at a chunk's end so a token is never split.
  static constexpr std::size_t k_lookahead = 9;

  bool at_end() const { return m_pos == m_end; }

  // Fills m_out from the raw bytes, rewriting tokens; leaves m_pos == m_end only at the end.
  void refill() {
    m_out.clear();
    while (m_out.empty()) {
      if (!m_eof) {
        // Keep the unprocessed tail, then read more behind it.
        m_raw.erase(m_raw.begin(), m_raw.begin() + static_cast<std::ptrdiff_t>(m_raw_pos));
        m_raw_pos = 0;
        const std::size_t have = m_raw.size();
        m_raw.resize(have + k_chunk);
        const std::size_t got = std::fread(m_raw.data() + have, 1, k_chunk, m_file);
        m_raw.resize(have + got);
        if (got < k_chunk) {
          if (std::ferror(m_file)) {
            throw bad_input("cannot read '" + m_path + "'", "I/O error while reading",
                            "check the file and the disk");
          }
          m_eof = true;
        }
      }
      const std::size_t limit =
          m_eof ? m_raw.size() : (m_raw.size() > k_lookahead ? m_raw.size() - k_lookahead : 0);
      filter(limit);
      if (m_eof && m_raw_pos >= m_raw.size()) break;
    }
    m_pos = m_out.data();
    m_end = m_out.data() + m_out.size();
  }

  void filter(std::size_t limit) {
    static constexpr std::pair<std::string_view, std::string_view> k_tokens[] = {
        {"-Infinity", "\"\\u0001-Infinity\""},
        {"Infinity", "\"\\u0001Infinity\""},
        {"-NaN", "\"\\u0001NaN\""},
        {"NaN", "\"\\u0001NaN\""}};
    const char* raw = m_raw.data();
    std::size_t i = m_raw_pos;
    m_out.reserve(limit - i + 64);
    while (i < limit) {
      const char c = raw[i];
      if (m_in_string) {
        // Copy the run of ordinary string bytes in one go.
        std::size_t j = i;
        while (j < limit && raw[j] != '"' && raw[j] != '\\') ++j;
        m_out.append(raw + i, j - i);
        if (j >= limit) {
          i = j;
          break;
        }
        if (raw[j] == '\\') {
          // The escaped byte is here: before the end of the file, `limit` keeps k_lookahead
          // bytes back.
          m_out.append(raw + j, std::min<std::size_t>(2, m_raw.size() - j));
          i = j + 2;
        } else {
          m_out += '"';
          m_in_string = false;
          i = j + 1;
        }
        m_blank = false;
        continue;
      }
      if (c == '"') {
        m_in_string = true;
        m_blank = false;
        m_out += c;
        ++i;
        continue;
      }
      if (c == 'N' || c == 'I' || c == '-') {
        const std::string_view rest(raw + i, m_raw.size() - i);
        bool replaced = false;
        for (const auto& [token, marker] : k_tokens) {
          if (rest.substr(0, token.size()) == token) {
            m_out.append(marker);
            i += token.size();
            replaced = true;
            break;
          }
        }
        m_blank = false;
        if (replaced) continue;
      }
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') m_blank = false;
      m_out += c;
      ++i;
    }
    m_raw_pos = std::min(i, m_raw.size());
  }

  std::string m_path;
  std::FILE* m_file;
  std::vector<char> m_raw;
  std::size_t m_raw_pos = 0;
  bool m_eof = false;
  bool m_in_string = false;
  bool m_blank = true;
  std::string m_out;
  const char* m_pos = nullptr;
  const char* m_end = nullptr;
};

// Builds the document like nlohmann's DOM parser, except that the elements of the top-level
// "benchmarks" array go to the sink one by one when it asks for them: an object element is read
// into a StreamedEntry (its members in a reused list, no document built for it), any other
// element as a document.
class Handler {
 public:
  explicit Handler(Delivery* sink) : m_sink(sink) {}

  json take() { return std::move(m_root); }
  bool streamed() const { return m_streaming != nullptr; }

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(json::number_integer_t v) { return value(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(v); }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) { return value(v); }
  bool string(json::string_t& v) {
    if (!m_stack.empty() && m_stack.back() == &m_entry_level && m_member->is_string()) {
      m_member->get_ref<json::string_t&>().swap(v);  // the member's string keeps its buffer
      return true;
    }
    return value(std::move(v));
  }
  bool binary(json::binary_t& v) { return value(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) {
    if (!nest()) return false;
    if (m_streaming != nullptr && m_stack.back() == m_streaming) {
      m_flat = &m_sink->next_entry();
      m_flat->start_object();
      m_stack.push_back(&m_entry_level);
      return true;
    }
    m_stack.push_back(place(json::object()));
    return true;
  }
  bool key(json::string_t& k) {
    if (m_stack.back() == &m_entry_level) {
      m_member = &m_flat->add_member(k);
      return true;
    }
    json& object = *m_stack.back();
    if (m_stack.size() == 1) m_top_key = k;
    m_member = &object[k];
    return true;
  }
  bool end_object() {
    if (m_stack.back() == &m_entry_level) {
      m_stack.pop_back();
      m_flat = nullptr;
      m_sink->entry_done(m_entries++);
      return true;
    }
    m_stack.pop_back();
    deliver_if_entry();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    if (!nest()) return false;
    const bool benchmarks = m_stack.size() == 1 && m_stack.back()->is_object() &&
                            m_top_key == "benchmarks" && m_streaming == nullptr;
    json* array = place(json::array());
    m_stack.push_back(array);
    if (benchmarks && m_sink != nullptr && m_sink->begin_entries(m_root)) m_streaming = array;
    return true;
  }
  bool end_array() {
    m_stack.pop_back();
    deliver_if_entry();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    m_error_byte = position;
    m_error_id = e.id;
    m_error_what = e.what();
    return false;
  }

  // Where the input nested deeper than k_max_json_depth; empty when it did not.
  const std::string& too_deep_at() const { return m_too_deep_at; }
  std::size_t error_byte() const { return m_error_byte; }
  int error_id() const { return m_error_id; }
  const std::string& error_what() const { return m_error_what; }

 private:
  // A new level of arrays and objects: false (the parse stops) beyond k_max_json_depth, before
  // the document is one that nlohmann's recursive copy and dump could not handle.
  bool nest() {
    if (m_stack.size() < k_max_json_depth) return true;
    if (m_stack.size() > 1 && m_stack[1] == m_streaming) {
      m_too_deep_at = "in benchmarks[" + std::to_string(m_entries) + "]";
    } else if (m_stack.size() > 1 && m_stack[0]->is_object()) {
      m_too_deep_at = "under \"" + m_top_key.substr(0, 60) + "\"";
    } else {
      m_too_deep_at = "in the top-level array";
    }
    return false;
  }

  // Where a new value goes: the root, the current array, the current member (of a document or
  // of the entry being read), or the element being built for the sink.
  json* place(json&& v) {
    if (m_stack.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    json* top = m_stack.back();
    if (top == m_streaming) {
      m_entry = std::move(v);
      return &m_entry;
    }
    if (top->is_array()) {
      top->push_back(std::move(v));
      return &top->back();
    }
    *m_member = std::move(v);
    return m_member;
  }
  template <typename T>
  bool value(T&& v) {
    place(json(std::forward<T>(v)));
    deliver_if_entry();
    return true;
  }
  // After a value completes: when it was a whole element of the streamed array (not an object:
  // those are read member by member), hand it over.
  void deliver_if_entry() {
    if (m_streaming == nullptr || m_stack.empty() || m_stack.back() != m_streaming) return;
    m_sink->next_entry().set_element(std::move(m_entry));
    m_entry = json();
    m_sink->entry_done(m_entries++);
  }

  Delivery* m_sink;
  json m_entry_level;               // on the stack while an object element's members are read
  StreamedEntry* m_flat = nullptr;  // that element
  json m_root;
  std::vector<json*> m_stack;
  json* m_member = nullptr;
  std::string m_top_key;
  json* m_streaming = nullptr;  // the "benchmarks" array whose elements go to the sink
  json m_entry;
  std::size_t m_entries = 0;
  std::string m_too_deep_at;
  std::size_t m_error_byte = 0;
  int m_error_id = 0;
  std::string m_error_what;
};

}  // namespace

json StreamedEntry::to_json() const {
  if (!m_object) return m_element;
  json out = json::object();
  for (std::size_t k = 0; k < m_size; ++k) out[m_members[k].key] = m_members[k].value;
  return out;
}

json& StreamedEntry::add_member(const std::string& key) {
  if (m_size == m_members.size()) m_members.emplace_back();
  Member& m = m_members[m_size++];
  m.key.assign(key);  // reuses the slot's buffer
  return m.value;     // the parser sets it next (a key is always followed by its value)
}

namespace {

json parse_filtered(FilteredFile& file, const std::string& source, Delivery* delivery) {
  Handler handler(delivery);
  const bool ok = json::sax_parse(file.begin(), FilteredFile::end(), &handler);
  if (!ok) {
    if (!handler.too_deep_at().empty()) too_deep(source, handler.too_deep_at());
    // nlohmann refuses numbers beyond double's range (1e400) instead of making them infinite.
    if (handler.error_id() == 406) {
      throw bad_input("cannot read " + source,
                      "it holds a number too large to convert (" + handler.error_what() + ")",
                      "fix the value in the file; gpubench does not round it to infinity");
    }
    throw bad_input("cannot read " + source,
                    file.blank() ? std::string("it is empty")
                                 : "it is not valid JSON (truncated or not JSON; parser stopped at "
                                   "byte " +
                                       std::to_string(handler.error_byte()) + ")",
                    "give the complete output of a Google Benchmark binary run with "
                    "--benchmark_format=json or --benchmark_out=FILE");
  }
  return handler.take();
}

}  // namespace

json parse_benchmark_file(const std::filesystem::path& path, const std::string& source,
                          EntrySink* sink) {
  FilteredFile file(path);  // a missing file fails here, on the caller's thread
  if (sink == nullptr) return parse_filtered(file, source, nullptr);

  Channel channel(*sink);
  json doc;
  std::exception_ptr parse_error;
  std::thread parser([&] {
    try {
      doc = parse_filtered(file, source, &channel);
    } catch (const Cancelled&) {
    } catch (...) {
      parse_error = std::current_exception();
    }
    try {
      channel.send();
    } catch (const Cancelled&) {
    }
    channel.close();
  });
  try {
    channel.serve();
  } catch (...) {
    channel.cancel();
    parser.join();
    throw;
  }
  parser.join();
  if (parse_error) std::rethrow_exception(parse_error);
  return doc;
}

}  // namespace gpubench::results
