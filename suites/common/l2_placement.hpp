// Where a GPU case's working set lives between back-to-back calls (issue 36 item 3): a hot batch
// of calls over arrays that fit in L2 measures L2, not DRAM, and must never be reported as DRAM
// bandwidth. CUDA-free; used by the memory suite's device STREAM cases and the fusion suite's
// device cases, unit-tested on every machine.
//
// The rule, on the working set W (distinct bytes one call reads or writes) and the GPU's L2 size
// L (cudaDevAttrL2CacheSize):
//   W <= L / 2        l2_resident   the hot calls run from L2. Half, not all of L: H100/H200 split
//                                   L2 into two partitions and lines may sit in both, and other
//                                   data (the spin flag, the clock probe) shares it.
//   L / 2 < W < 4 L   l2_straddles  part of the working set survives between calls. At 4 L a
//                                   cyclic stream keeps about 2% of its lines under random
//                                   replacement (h = exp(-4 (1 - h))), about 20% at 2 L.
//   W >= 4 L          dram          the calls stream from DRAM: the figure is a DRAM bandwidth.
// With L unknown (0), the conservative rule: never resident (no L2 claim without the size), dram
// only at 4 x the largest L2 of current GPUs (k_largest_known_l2_bytes), straddles otherwise.
//
// How it is measured (issue 36 "shapes whose working set straddles L2 are measured cold"): a
// straddling working set measured hot gives whatever share of it the replacement policy and the
// physical placement of the buffers left in L2 after the previous call, which differs between
// runs. It is measured cold instead (CacheMode::cold): every call right after an L2 flush, in
// (flush, call) pairs with only the call timed (suites/common/cold_series.hpp), so every call
// starts from the same state, none of its data in L2. Resident and DRAM working sets stay hot:
// the first is an L2 figure by design, the second finds (almost) nothing in L2 either way. With L
// unknown nothing is flushed reliably (the flush is sized from L), so such a case stays hot.
//
// pct_of_peak of DRAM is reported for dram working sets only, never for a cold straddling one:
// a cold call reads its whole working set from DRAM, but its writes may still sit in L2 when its
// stop event fires (L2 is write-back; up to L of them need not reach DRAM inside the call), its
// reads first evict the flush's dirty lines (write-backs STREAM does not count), and a call of
// tens of microseconds is short enough for its ramp-up and tail to weigh. The first raises the
// figure, the others lower it: a cold GB_per_s is the rate of that call from a cold L2, not the
// DRAM's bandwidth, and is never divided by the DRAM peak.
#pragma once

#include <cstdint>
#include <string>

namespace gpubench::suite {

enum class L2Placement { resident, straddles, dram };

// The largest L2 of the GPUs gpubench targets: B200's 126 MB (H100/H200 50 MB, A100 40 MB).
inline constexpr std::uint64_t k_largest_known_l2_bytes = 126'000'000;

// The placement of a working set of `working_set_bytes` on a GPU with `l2_bytes` of L2 (0:
// unknown, the conservative rule above).
L2Placement l2_placement(std::uint64_t working_set_bytes, std::uint64_t l2_bytes);

// "l2_resident", "l2_straddles", "dram": the label's word for it.
const char* to_string(L2Placement placement);

// Whether a bandwidth measured over such a working set is a DRAM bandwidth (pct_of_peak of the
// DRAM peak is reported only then).
inline bool is_dram_bandwidth(L2Placement placement) {
  return placement == L2Placement::dram;
}

// How a case with this placement is measured (above): cold for a straddling working set on a GPU
// whose L2 size is known, hot otherwise.
enum class CacheMode { hot, cold };
CacheMode cache_mode(L2Placement placement, std::uint64_t l2_bytes);
// "cache:hot", "cache:cold": the label's word for it.
const char* to_string(CacheMode mode);

// Whether GB_per_s of a case measured this way over such a working set is a DRAM bandwidth, so
// pct_of_peak of the DRAM peak is reported: hot over a dram working set only.
inline bool is_dram_bandwidth(L2Placement placement, CacheMode mode) {
  return mode == CacheMode::hot && is_dram_bandwidth(placement);
}

// "l2_resident (working set 12.0 MiB, L2 50.0 MiB)" for labels; "L2 unknown" when l2_bytes is 0.
std::string describe_l2_placement(std::uint64_t working_set_bytes, std::uint64_t l2_bytes);

// Google Benchmark counter a case writes: 1 when its working set is l2_resident, else 0 (a
// parameter: it describes the measurement and is never compared).
inline constexpr const char* k_l2_resident_counter = "l2_resident";

}  // namespace gpubench::suite
