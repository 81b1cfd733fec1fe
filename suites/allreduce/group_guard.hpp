// Keeps ncclGroupStart/ncclGroupEnd paired. NCCL's group state is per thread: a group left open
// by an exception would swallow every later NCCL call of the process into it. The guard ends the
// group in its destructor when end() was not called (the error from that end is dropped: an
// exception is already on its way). NCCL-free (a template over the two calls) so it is
// unit-tested without NCCL; nccl_cases.cpp instantiates it with the real functions.
#pragma once

#include <utility>
#include <vector>

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

// Starts one communicator per index inside one group, so their inits complete together (what
// ncclCommInitAll does, with a config). Each handle is handed to `adopt(index, handle)` as soon as
// its init call returned, before that call's status is checked: when an init fails or anything in
// the loop throws, the guard's group end starts the inits queued so far, and those handles are
// already owned by someone who can abort them (otherwise their init threads would wait in bootstrap
// for ranks that never come, holding GPU memory for the rest of the run).
//   init(index, Handle*) -> Status   queues one init (may throw)
//   adopt(index, Handle)             takes ownership (must not throw)
//   check(Status, Handle)            throws for a status that is neither success nor in progress
// Returns the group end's status; throws what start, init or check threw (the group ended).
template <class Handle, class Status, class Start, class End, class Init, class Adopt, class Check>
Status init_in_group(const std::vector<int>& indices, Start start, End end, Status ok, Init&& init,
                     Adopt&& adopt, Check&& check) {
  BasicGroupGuard<Status, Start, End> group(std::move(start), std::move(end), ok);
  if (!group.started()) check(group.start_status(), Handle{});
  for (int index : indices) {
    Handle handle{};
    const Status status = init(index, &handle);
    adopt(index, handle);
    check(status, handle);
  }
  return group.end();
}

}  // namespace gpubench::allreduce
