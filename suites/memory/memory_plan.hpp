// The memory suite's run plan (suites/common/plan.hpp): the host sweep of this machine's CPUs and,
// when built with CUDA, the device sweep for the server's GPUs.
#pragma once

#include "suites/common/plan.hpp"

namespace gpubench::suites::memory {

suite::SuitePlan plan_memory(const suite::PlanRequest& request);

}  // namespace gpubench::suites::memory
