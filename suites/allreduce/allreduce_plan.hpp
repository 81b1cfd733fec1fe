// The allreduce suite's run plan (suites/common/plan.hpp) for one process driving every GPU of
// the server (gpubench run without --launcher): the same series, collectives, dtypes, placements
// and sizes as register_nccl_cases and register_host_reference build for a world of one rank.
#pragma once

#include "suites/allreduce/collectives.hpp"
#include "suites/allreduce/sweep.hpp"
#include "suites/common/plan.hpp"

namespace gpubench::allreduce {

// Seconds of one NCCL case per repetition: buffers per rank, then (warm-ups + iterations) calls,
// each timed alone: latency + bytes x bus factor / busbw (one rank: a device-local copy).
double planned_repetition_seconds(Collective collective, std::size_t bytes, int ranks,
                                  const SweepPlan& sweep, const suite::ModelRates& r);

suite::SuitePlan plan_allreduce(const suite::PlanRequest& request, bool nccl_built);

}  // namespace gpubench::allreduce
