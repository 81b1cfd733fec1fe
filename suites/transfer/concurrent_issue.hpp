// Issuing two directions of a copy from two host threads at once (CUDA-free).
//
// Why: a peer copy without peer access is staged by the driver through host memory and may make
// the calling thread drive it, so "bidirectional" copies issued one after the other from one thread
// could run one direction at a time and report about one direction's rate as the sum. Each
// direction gets its own thread, as an application with a thread per GPU has.
#pragma once

#include <functional>

namespace gpubench::transfer {

// Runs `first` on the calling thread and `second` on a helper thread, released together: the
// helper is created and waiting before the clock starts, so thread start-up is outside the
// interval. Each function should return only when its work is done (issue, then wait for its
// stream). Returns the seconds (steady clock) from the release until both returned. If either
// throws, waits for the other, then rethrows (the calling thread's exception first).
double time_concurrently(const std::function<void()>& first, const std::function<void()>& second);

}  // namespace gpubench::transfer
