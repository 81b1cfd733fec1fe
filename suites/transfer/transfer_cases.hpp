// The transfer suite's case list, names, sweeps and accounting. CUDA-free: unit-tested everywhere.
//
// Names: transfer/<nvbandwidth-style case>/dir:<h2d|d2h|bidir|d2d|p2p>/memory:<kind>/engine:<ce|sm>
//        [/numa:<local|remote>][/peer_access:<on|off>/src:<i>/dst:<j>]/bytes:<n>/device:<d>
// The case part is nvbandwidth's testcase name where one matches (host_to_device_memcpy_ce, ...),
// so results line up with nvbandwidth's; the parameters let a filter find every h2d, pinned or
// SM case. `device:` is the GPU the case runs on (the source GPU for p2p).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suites/common/suite_support.hpp"
#include "util/median.hpp"  // median(), for the runners and their tests

namespace gpubench::transfer {

enum class Dir { h2d, d2h, bidir, d2d, p2p };
// pageable: malloc'd memory (the driver stages it); pinned: page-locked (cudaHostRegister);
// write_combined: cudaHostAllocWriteCombined; mapped: page-locked and mapped, read or written by a
// kernel directly (zero-copy); device: device memory (d2d, p2p).
enum class Memory { pageable, pinned, write_combined, mapped, device };
enum class Engine { ce, sm };
// Where the host buffer lives relative to the GPU's NUMA node. none: no host buffer (d2d, p2p).
enum class Numa { local, remote, none };
enum class PeerAccess { on, off };

const char* to_string(Dir d);
const char* to_string(Memory m);
const char* to_string(Engine e);
const char* to_string(Numa n);
const char* to_string(PeerAccess p);

struct TransferCase {
  Dir dir = Dir::h2d;
  Memory memory = Memory::pinned;
  Engine engine = Engine::ce;
  Numa numa = Numa::local;
  bool bidirectional = false;  // p2p only: both directions at once (bidir is always both)
  PeerAccess peer = PeerAccess::on;
  int src = 0;              // p2p: source GPU
  int dst = 0;              // p2p: destination GPU
  std::uint64_t bytes = 0;  // one direction's buffer
  int device = 0;           // the GPU the case runs on (p2p: src)
};

// nvbandwidth's testcase name for the case, or our own in its style where nvbandwidth has none
// (e.g. host_device_bidirectional_memcpy_ce reports both directions and their sum).
std::string case_label(const TransferCase& c);
// The full benchmark name (see the header comment).
std::string case_name(const TransferCase& c);

// Buffer sizes: 4 KiB -> 1 GiB by x4 (full); x16 steps plus 1 GiB (standard); 4 KiB, 1 MiB,
// 64 MiB, 256 MiB (quick). Peer-to-peer uses only the sizes >= 64 MiB of the profile.
std::vector<std::uint64_t> host_sizes(suite::Profile profile);
std::vector<std::uint64_t> p2p_sizes(suite::Profile profile);

// Which host placements to register. "local" everywhere; "remote" too in standard and full (or
// when asked): on a one-node host those cases are skipped with the reason.
enum class NumaRequest { local, remote, both };
std::optional<NumaRequest> numa_request_from_string(std::string_view text);  // local|remote|both
NumaRequest default_numa_request(suite::Profile profile);
// Removes --numa <v> / --numa=<v> from argv (adjusting argc) and combines it with `env_value`
// (GPUBENCH_NUMA; the flag wins). Unset: default_numa_request(profile). Throws gpubench::Error
// (bad_input) for a value other than local, remote or both.
NumaRequest take_numa_request(int& argc, char** argv, const char* env_value,
                              suite::Profile profile);

// Whether the staged peer copy (peer_access:off) of the ordered pair src -> dst is measured.
// Staged copies go through host memory at ~1/30 of a peer copy's rate, and the pairs grow as n^2
// (on 8 GPUs they were 2/3 of the quick profile's time): quick and standard measure them on the
// ring i -> i+1 of `devices` only (the last GPU back to the first), so every GPU is a source and a
// destination once; full, and any profile with 2 GPUs, measures every pair. peer_access:on is
// measured on every pair in every profile.
bool staged_pair_measured(suite::Profile profile, const std::vector<int>& devices, int src,
                          int dst);

// Standard measures a staged peer copy at the profile's smallest peer size only (256 MiB: a
// staged copy's rate does not change beyond it); quick has one size, full every size.
bool staged_size_measured(suite::Profile profile, std::uint64_t bytes);

// Whether the host cases of `device` are measured with the host buffer at `numa`. Standard
// measures numa:remote on the first selected GPU only (the NUMA penalty is the host's, and every
// GPU on a node shares it); quick (local unless asked) and full measure every GPU.
bool placement_measured(suite::Profile profile, const std::vector<int>& devices, int device,
                        Numa numa);

// Every host<->device and device-local case for `devices`, then the p2p pairs of
// p2p_pairs(devices, device_count) (staged copies on the pairs staged_pair_measured keeps).
std::vector<TransferCase> all_cases(suite::Profile profile, NumaRequest numa,
                                    const std::vector<int>& devices, int device_count = -1);

// The ordered peer-to-peer pairs: every (i, j), i != j, of `devices` when two or more are
// selected. One selected GPU N on a host of `device_count` GPUs: N -> every other GPU (its own
// links, not N -> N+1, a pair the user did not ask about). device_count < 0: `devices` is all
// there is. With no partner at all, one pair N -> N+1 so the cases appear and are skipped with
// the reason.
std::vector<std::pair<int, int>> p2p_pairs(const std::vector<int>& devices, int device_count);

// The GPUs on which a case launches the SM copy kernels, each of which must preload them before
// its first timed batch (a first launch inside one is refused: suites/common/launch_ledger.hpp):
// none for copy-engine cases; the case's GPU for host and device-local SM cases; for peer SM
// cases src, and dst too when bidirectional (the reverse direction is a kernel on dst).
std::vector<int> sm_copy_devices(const TransferCase& c);

// Whether gpu-check and the GPU tests may require pageable copies of `device` to be slower than
// pinned ones, from the suite's "gpubench.transfer.host_page_tables" context value ({"<device>":
// 0|1, ...}, transfer_main.cpp): not where the GPU reads host memory through the host's page
// tables (1: NVLink-C2C, e.g. GH200), where pageable copies are not staged and run like pinned
// ones. Absent, unreadable or 0: required (a PCIe host).
bool pageable_must_trail_pinned(const std::string& host_page_tables_context, int device);

// Small copies report time per copy (us_per_copy: copies queued back to back, so it is the
// pipelined cost of one more copy, not the latency of a lone copy), large ones bandwidth: the
// crossover is where the per-copy overhead (~2-10 us) stops dominating.
inline constexpr std::uint64_t k_latency_max_bytes = 64 * 1024;
bool reports_latency(std::uint64_t bytes);
bool reports_bandwidth(std::uint64_t bytes);

// Copies queued per timed sample: about 1 GiB of traffic, at least 1, at most 256 (below the
// timer's ~500-launch limit on one batch, leaving room for the bidirectional second stream).
std::uint64_t copies_per_sample(std::uint64_t bytes);

// Bidirectional copy-engine cases: copies timed per direction in one sample. Each stream queues
// this many timed copies and then as many again untimed, so each direction's timed copies run
// while the other direction is still busy (nvbandwidth doubles its interfering copy for the same
// reason); the two together stay within the batch limit.
std::uint64_t bidir_copies_per_sample(std::uint64_t bytes);

// Device-local copies: a copy whose working set (source + destination) fits in L2 measures L2,
// not device memory. dram: working set >= 4x L2 (GB_per_s, device memory bandwidth); cached:
// anything smaller (GB_per_s_cached: L2-resident or partly so, its own metric). l2_bytes <= 0:
// unknown, treated as dram.
enum class Residency { dram, cached };
Residency device_local_residency(std::uint64_t bytes, std::int64_t l2_bytes);

// Decimal GB/s of `bytes` moved in `seconds`; 0 when seconds <= 0.
double gb_per_s(double bytes, double seconds);

// Bidirectional accounting: each direction moves `bytes_each_way` per copy, `copies` times. With
// per-direction times (copy-engine cases, each direction's timed copies run while the other
// direction is still busy: bidir_copies_per_sample) the total is the sum of the two rates, as
// nvbandwidth's total; with only a span (one SM kernel doing both, or host-clock staged copies)
// it is both directions' bytes over the span.
struct BidirTimes {
  double forward_s = 0;  // h2d (or src->dst) stream: its timed copies; 0 when not timed apart
  double reverse_s = 0;  // d2h (or dst->src) stream
  double span_s = 0;     // both directions together
};
struct BidirRates {
  double forward_gb_per_s = 0;
  double reverse_gb_per_s = 0;
  double total_gb_per_s = 0;
};
BidirRates bidir_rates(std::uint64_t bytes_each_way, std::uint64_t copies, const BidirTimes& t);

// Which 32-bit words of a destination validation reads: `strided_count` words from 0 by an odd
// `stride` (so it walks every residue of any period), plus the last `tail_count` words. Both parts
// are contiguous or strided runs, so a device buffer is read with one cudaMemcpy2D and one copy.
struct SamplePlan {
  std::uint64_t stride = 1;
  std::uint64_t strided_count = 0;
  std::uint64_t tail_first = 0;
  std::uint64_t tail_count = 0;
};
SamplePlan sample_plan(std::uint64_t words, std::uint64_t samples = 4096, std::uint64_t tail = 256);

// Compares what was read (strided part, then tail part, as sample_plan lays them out) with the
// pattern seeded `seed`. Empty when all match; otherwise "validation failed: <n> of <m> sampled
// words differ; first at word <i>: expected 0x..., got 0x...".
std::string check_sampled_words(const SamplePlan& plan, const std::uint32_t* strided,
                                const std::uint32_t* tail, std::uint32_t seed);

// `count` page indices spread evenly over `pages` pages, first and last included, ascending and
// distinct (all of them when pages <= count): the pages whose NUMA node a placement check reads.
std::vector<std::uint64_t> spread_pages(std::uint64_t pages, std::uint64_t count);

// Per-sample validation (every sample, not only the warm-up): before sample k the sampled words
// of the source are rewritten with the pattern of sample_seed(base, k), outside the timed
// interval; after it the same words of the destination must hold that pattern, so a sample whose
// copy did not happen (or copied stale data) fails. Seeds differ for every k and from `base` (the
// seed of the initial fill).
std::uint32_t sample_seed(std::uint32_t base, std::uint64_t sample);
// The words of seed `seed` at the positions of `plan`: what to write into the source (strided
// part, then tail part) and what the destination must then hold.
struct SampledWords {
  std::vector<std::uint32_t> strided;
  std::vector<std::uint32_t> tail;
};
SampledWords sampled_pattern(const SamplePlan& plan, std::uint32_t seed);

}  // namespace gpubench::transfer
