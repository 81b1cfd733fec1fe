// Keeps ncclGroupStart/ncclGroupEnd paired. NCCL's group state is per thread: a group left open
// by an exception would swallow every later NCCL call of the process into it. The guard ends the
// group in its destructor when end() was not called (the error from that end is dropped: an
// exception is already on its way). NCCL-free (a template over the two calls) so it is
// unit-tested without NCCL; nccl_cases.cpp instantiates it with the real functions.
#pragma once

#include <utility>

namespace gpubench::allreduce {

// Start, End: callables returning a status; `Ok` is the success value.
template <class Status, class Start, class End>
class BasicGroupGuard {
 public:
  // Calls start(); `started()` says whether it succeeded (a failed start leaves nothing to end).
  BasicGroupGuard(Start start_fn, End end_fn, Status ok) : m_end(std::move(end_fn)), m_ok(ok) {
    m_status = start_fn();
    m_open = m_status == m_ok;
    if (!m_open) m_end_status = m_status;  // end() then reports why the group never started
  }
  BasicGroupGuard(const BasicGroupGuard&) = delete;
  BasicGroupGuard& operator=(const BasicGroupGuard&) = delete;
  ~BasicGroupGuard() {
    if (m_open) (void)m_end();
  }

  bool started() const noexcept { return m_open || m_ended; }
  Status start_status() const noexcept { return m_status; }
  // Ends the group once and returns End's status (later calls return the first status).
  Status end() {
    if (m_open) {
      m_open = false;
      m_ended = true;
      m_end_status = m_end();
    }
    return m_end_status;
  }

 private:
  End m_end;
  Status m_ok;
  Status m_status{};
  Status m_end_status{};
  bool m_open = false;
  bool m_ended = false;
};

}  // namespace gpubench::allreduce
