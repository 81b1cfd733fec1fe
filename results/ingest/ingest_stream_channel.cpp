// The hand-over between the parsing thread of a streamed import and the caller's thread, which
// calls the sink: Channel (ingest_stream_channel.hpp).
#include "results/ingest/ingest_stream_channel.hpp"

namespace gpubench::results::detail {

using nlohmann::json;

bool Channel::begin_entries(const json& head) {
  std::unique_lock lock(m_mutex);
  m_head = &head;
  m_begin_asked = true;
  m_caller_wakes.notify_one();
  m_parser_wakes.wait(lock, [&] { return !m_begin_asked || m_cancelled; });
  if (m_cancelled) throw Cancelled{};
  return m_begin_answer;
}

StreamedEntry& Channel::next_entry() {
  if (m_filling.count == m_filling.entries.size()) m_filling.entries.emplace_back();
  return m_filling.entries[m_filling.count];
}

void Channel::entry_done(std::size_t index) {
  if (m_filling.count == 0) m_filling.first = index;
  m_filling.works.push_back(m_sink.prepare(m_filling.entries[m_filling.count], index));
  if (++m_filling.count == k_batch) send();
}

void Channel::send() {
  if (m_filling.count == 0) return;
  Batch next;
  {
    std::unique_lock lock(m_mutex);
    m_parser_wakes.wait(lock, [&] { return m_full.size() < k_queued || m_cancelled; });
    if (m_cancelled) throw Cancelled{};
    m_full.push_back(std::move(m_filling));
    if (!m_spent.empty()) {
      next = std::move(m_spent.back());
      m_spent.pop_back();
    }
  }
  m_caller_wakes.notify_one();
  // The spent batch's entries are read into again (their lists and strings keep their
  // capacity); what prepare() made is freed on the thread that allocated it.
  next.count = 0;
  next.works.clear();
  m_filling = std::move(next);
}

void Channel::close() {
  {
    std::lock_guard lock(m_mutex);
    m_closed = true;
  }
  m_caller_wakes.notify_one();
}

void Channel::serve() {
  EntrySink& sink = m_sink;
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_caller_wakes.wait(lock, [&] { return m_begin_asked || !m_full.empty() || m_closed; });
    if (m_begin_asked) {
      const json* head = m_head;
      lock.unlock();
      const bool answer = sink.begin_entries(*head);
      lock.lock();
      m_begin_answer = answer;
      m_begin_asked = false;
      m_parser_wakes.notify_one();
    } else if (!m_full.empty()) {
      Batch batch = std::move(m_full.front());
      m_full.pop_front();
      m_parser_wakes.notify_one();
      lock.unlock();
      for (std::size_t k = 0; k < batch.count; ++k) {
        sink.entry(batch.entries[k], batch.first + k, batch.works[k].get());
      }
      lock.lock();
      m_spent.push_back(std::move(batch));
    } else {
      return;  // closed, and everything handed over
    }
  }
}

void Channel::cancel() {
  {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
  }
  m_parser_wakes.notify_one();
}

}  // namespace gpubench::results::detail
