// The arithmetic of collective benchmarks, CUDA- and MPI-free so it is unit-tested everywhere:
// bus factors, sizes, sweeps, crafted inputs, knees, scaling and slow-rank naming.
//
// Sizes follow nccl-tests: a case's `bytes` is the size of the largest buffer a rank touches:
//   allreduce, broadcast: the buffer (count elements on every rank);
//   allgather: the receive buffer (ranks x send count elements);
//   reduce_scatter: the send buffer (ranks x receive count elements).
// algbw = bytes / time (decimal GB/s); busbw = algbw x bus factor, where the factor makes busbw
// comparable with the link's speed whatever the rank count (METHODOLOGY rule 12):
//   allreduce 2(n-1)/n, allgather and reduce_scatter (n-1)/n, broadcast 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/median.hpp"  // median(), for the sweep, the reports and their tests

namespace gpubench::allreduce {

enum class Collective { allreduce, allgather, reduce_scatter, broadcast };
inline constexpr Collective k_all_collectives[] = {Collective::allreduce, Collective::allgather,
                                                   Collective::reduce_scatter,
                                                   Collective::broadcast};
const char* to_string(Collective collective);  // "allreduce", "allgather", ...

enum class Placement { out_of_place, in_place };
const char* to_string(Placement placement);  // "out_of_place", "in_place"

// Which ranks a series runs on. Multi-node runs add the two halves of the topology:
//   world       the first n ranks (the rank-count sweep);
//   intra_node  every node's ranks among themselves, all nodes at once (ranks = ranks per node);
//   inter_node  one rank per node (its local rank 0) across the nodes (ranks = nodes).
enum class Scope { world, intra_node, inter_node };
const char* to_string(Scope scope);  // "world", "intra_node", "inter_node"

// Bus factor for `ranks` participants (0 for one rank in reducing/gathering collectives: nothing
// crosses a bus). Throws std::invalid_argument for ranks < 1.
double bus_factor(Collective collective, int ranks);

// Element counts of one case: what each rank sends and receives.
struct ElementCounts {
  std::size_t send = 0;
  std::size_t recv = 0;
  std::size_t bytes = 0;  // the case's size after rounding (see header comment)
};
// Rounds `bytes` down to whole elements; for allgather/reduce_scatter each rank's share is rounded
// down to a multiple of 16 bytes, as nccl-tests does (aligned per-rank slices). Returns nullopt
// when nothing is left (e.g. 64 B of fp32 over 8 ranks).
std::optional<ElementCounts> element_counts(Collective collective, std::size_t bytes,
                                            std::size_t element_bytes, int ranks);

struct Bandwidth {
  double algbw_GB_per_s = 0;
  double busbw_GB_per_s = 0;
};
// Decimal GB/s (1e9 bytes/s). Throws std::invalid_argument for time_s <= 0.
Bandwidth bandwidth(Collective collective, std::size_t bytes, int ranks, double time_s);

// min, min*factor, ... up to and including max (if reached exactly). factor >= 2.
std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes,
                                    std::size_t factor = 2);

// 1, 2, 4, ... and `available` itself when it is not a power of two. Empty for available < 1.
std::vector<int> rank_counts(int available);

// Crafted inputs (nccl-tests' idea): small integers, exactly representable in fp32, fp16 and
// bf16, so every result is exactly predictable. Value of element `index` on `rank`: 0..3.
int crafted_value(int rank, std::size_t index);
// crafted_value(rank, index) == crafted_value(rank, index % k_crafted_period).
inline constexpr std::size_t k_crafted_period = 4;
// Exact expected sum over `ranks` ranks of element `index` (allreduce, reduce_scatter).
int crafted_sum(int ranks, std::size_t index);
// (The NCCL cases use kernels/collective_check, which picks values 0..3 or 0..1 per dtype and
// rank count so that every sum stays exact; the host reference is fp32, exact to 2^24.)

// Element encodings of the crafted inputs (exact for the small integers above; bf16 and fp16 of
// any integer up to 256 are exact). Bit patterns as the GPU stores them.
enum class ElementType { fp32, bf16, fp16 };
const char* to_string(ElementType type);  // "fp32", "bf16", "fp16" (the dtype in case names)
std::size_t element_bytes(ElementType type);
std::uint16_t bf16_bits(float value);  // truncation: exact for values with <= 8 significant bits
float bf16_value(std::uint16_t bits);
std::uint16_t fp16_bits(float value);  // exact for integers 0..2048; throws std::invalid_argument
                                       // for anything else
float fp16_value(std::uint16_t bits);  // normal and subnormal numbers, zero, inf
// Writes `count` crafted elements of `rank` (starting at element `first`) into `out` in `type`.
void fill_crafted(ElementType type, int rank, std::size_t first, std::size_t count, void* out);
// The value of element `i` of `data` (of `type`) as float.
float element_value(ElementType type, const void* data, std::size_t i);

// The knee: the smallest size whose busbw reaches `fraction` of the sweep's peak busbw.
// points: (bytes, busbw) in any order. nullopt when empty or the peak is not positive.
std::optional<std::size_t> knee_bytes(std::vector<std::pair<std::size_t, double>> points,
                                      double fraction = 0.9);

// busbw(n) / busbw(2): how much of the two-rank bus bandwidth n ranks keep. nullopt when the
// two-rank figure is not positive.
std::optional<double> scaling_efficiency(double busbw_n, double busbw_two);

// One rank's own time for a case (median over its iterations) and where it ran.
struct RankTime {
  int rank = 0;
  int local_rank = 0;    // rank within its node
  std::string host;      // host name
  std::string gpu_uuid;  // "GPU-..."; "none" for the host reference
  double time_s = 0;
};

struct SlowRank {
  RankTime rank;
  double ratio_to_median = 1;  // its time / the median rank's time
};

// The rank whose own time exceeds the median rank's by more than `threshold` (1.10 = 10% slower),
// the slowest if several do. nullopt with fewer than two ranks or when none stands out.
std::optional<SlowRank> find_slow_rank(const std::vector<RankTime>& ranks, double threshold = 1.10);
// The mean of the ranks' own times: what nccl-tests reports by default (all_reduce_perf -a 1
// averages its processes' times; one process driving several GPUs with -g times them together,
// until the last finishes). nullopt when empty or not positive.
std::optional<double> mean_rank_time_s(const std::vector<RankTime>& ranks);
// "rank 3 (host node02, local rank 1, GPU GPU-...) took 1.42x the median rank's time"
std::string describe(const SlowRank& slow);

// `allreduce/<collective>/dtype:<dtype>/mode:<placement>/bytes:<n>/ranks:<n>[/scope:<scope>]
// [/device:host]` (scope only when not world).
std::string case_name(Collective collective, std::string_view dtype, Placement placement,
                      std::size_t bytes, int ranks, bool host_reference,
                      Scope scope = Scope::world);

}  // namespace gpubench::allreduce
