// What the fusion suite's device cases launch before timing, queue in spin-gated batches and
// capture into graphs, per variant (CUDA-free, so the preload rule is host-tested on the real case
// lists; see suites/common/launch_ledger.hpp for why a kernel's first launch must come first).
#pragma once

#include <cstddef>
#include <vector>

#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

// The variant whose kernels a call of `v` runs: graph replays v1's captured chain.
Variant kernels_of(Variant v);

// Variants a case launches once, outside any batch or capture, before anything else: its own
// (graph: v1, whose kernels its capture records) and v1, which is timed as the speed-up baseline
// when v1's own case did not run in this repetition (filtered out or failed).
std::vector<Variant> preload_variants(const FusionCase& c);
// Variants whose kernels a case queues in spin-gated batches: its own (graph: v1's) and v1 when
// the baseline is missing.
std::vector<Variant> gated_variants(const FusionCase& c, bool baseline_missing);
// Variants whose kernels a case records in stream capture (graph: v1).
std::vector<Variant> captured_variants(const FusionCase& c);

// Kernels (graph and memset nodes) one call of the case really enqueues: `captured_nodes` is the
// node count of one call captured as a graph (a graph replay's whole graph; a cuBLASLt call's own
// kernels, e.g. a split-K reduction), 0 when unknown; never fewer than kernels_per_call(c). Batch
// sizing counts these, not API calls, against the spin kernel's queue limit.
int enqueued_kernels_per_call(const FusionCase& c, std::size_t captured_nodes);

}  // namespace gpubench::fusion
