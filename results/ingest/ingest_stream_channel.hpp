// Internal to results/: the hand-over of streamed entries from the parsing thread to the caller's
// thread (Channel, ingest_stream_channel.cpp), for parse_benchmark_file with a sink.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/ingest/ingest_stream.hpp"

namespace gpubench::results::detail {

// Where the handler sends the "benchmarks" array and its entries (the Channel to the thread that
// calls the sink).
class Delivery {
 public:
  virtual ~Delivery() = default;
  virtual bool begin_entries(const nlohmann::json& head) = 0;
  // The slot the next element is read into, then entry_done() when it is complete.
  virtual StreamedEntry& next_entry() = 0;
  virtual void entry_done(std::size_t index) = 0;
};

// Thrown on the parsing thread when the caller gave up (its sink threw): parsing stops.
struct Cancelled {};

// The hand-over between the parsing thread and the caller's thread: entries travel in batches
// through a bounded queue (memory stays flat however big the file), each with what the sink's
// prepare() made of it on the parsing thread; the question whether to stream "benchmarks" is
// answered by the caller; spent batches come back to the parsing thread, which frees what it
// allocated and reuses the batch.
class Channel : public Delivery {
 public:
  explicit Channel(EntrySink& sink) : m_sink(sink) {}

  // --- parsing thread ---
  bool begin_entries(const nlohmann::json& head) override;
  StreamedEntry& next_entry() override;
  void entry_done(std::size_t index) override;
  // Hands over the entries not yet sent (at the end of the input, or before reporting an error,
  // so that the sink sees every entry before it the way a direct parse shows them).
  void send();
  void close();

  // --- caller's thread ---
  // Calls the sink for everything the parser hands over, until it closes the channel. An
  // exception from the sink propagates (call cancel() then).
  void serve();
  void cancel();

 private:
  static constexpr std::size_t k_batch = 256;  // entries per hand-over
  static constexpr std::size_t k_queued = 4;   // batches waiting at most

  struct Batch {
    std::size_t first = 0;  // index of entries[0] in "benchmarks"
    std::size_t count = 0;  // entries in use (the others are kept for reuse)
    std::vector<StreamedEntry> entries;
    std::vector<std::unique_ptr<EntryWork>> works;  // what prepare() made of each
  };

  EntrySink& m_sink;
  std::mutex m_mutex;
  std::condition_variable m_parser_wakes;
  std::condition_variable m_caller_wakes;
  Batch m_filling;  // parsing thread only
  std::deque<Batch> m_full;
  std::vector<Batch> m_spent;
  const nlohmann::json* m_head = nullptr;
  bool m_begin_asked = false;
  bool m_begin_answer = false;
  bool m_closed = false;
  bool m_cancelled = false;
};

}  // namespace gpubench::results::detail
