// Two pieces of work at once (issue 27: one place for "half on a second thread, rethrow the first
// error"): `first` on the calling thread, `second` on another, both always finished before it
// returns, so neither outlives what it refers to.
#pragma once

#include <functional>

namespace gpubench {

// Runs `first` here and `second` on a second thread when `in_parallel` (else `second` after
// `first`, on this thread), waits for both, then rethrows `first`'s exception if it threw, else
// `second`'s: the error a sequential run would have met first.
void run_both(const std::function<void()>& first, const std::function<void()>& second,
              bool in_parallel = true);

}  // namespace gpubench
