#include "suites/transfer/transfer_cases.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

#include "kernels/copy/copy.hpp"
#include "util/error.hpp"

namespace gpubench::transfer {

namespace {
constexpr std::uint64_t k_kib = 1024;
constexpr std::uint64_t k_mib = 1024 * k_kib;
constexpr std::uint64_t k_gib = 1024 * k_mib;
}  // namespace

const char* to_string(Dir d) {
  switch (d) {
    case Dir::h2d:
      return "h2d";
    case Dir::d2h:
      return "d2h";
    case Dir::bidir:
      return "bidir";
    case Dir::d2d:
      return "d2d";
    case Dir::p2p:
      return "p2p";
  }
  return "h2d";
}

const char* to_string(Memory m) {
  switch (m) {
    case Memory::pageable:
      return "pageable";
    case Memory::pinned:
      return "pinned";
    case Memory::write_combined:
      return "write_combined";
    case Memory::mapped:
      return "mapped";
    case Memory::device:
      return "device";
  }
  return "pinned";
}

const char* to_string(Engine e) {
  return e == Engine::sm ? "sm" : "ce";
}

const char* to_string(Numa n) {
  switch (n) {
    case Numa::local:
      return "local";
    case Numa::remote:
      return "remote";
    case Numa::none:
      return "none";
  }
  return "none";
}

const char* to_string(PeerAccess p) {
  return p == PeerAccess::on ? "on" : "off";
}

std::string case_label(const TransferCase& c) {
  const std::string engine = to_string(c.engine);
  switch (c.dir) {
    case Dir::h2d:
      return "host_to_device_memcpy_" + engine;
    case Dir::d2h:
      return "device_to_host_memcpy_" + engine;
    case Dir::bidir:
      return "host_device_bidirectional_memcpy_" + engine;
    case Dir::d2d:
      return c.engine == Engine::ce ? "device_local_copy" : "device_local_copy_sm";
    case Dir::p2p:
      return std::string(c.bidirectional ? "device_to_device_bidirectional_memcpy_write_"
                                         : "device_to_device_memcpy_write_") +
             engine;
  }
  return "unknown";
}

std::string case_name(const TransferCase& c) {
  std::string name = "transfer/" + case_label(c) + "/dir:" + to_string(c.dir) +
                     "/memory:" + to_string(c.memory) + "/engine:" + to_string(c.engine);
  if (c.numa != Numa::none) name += std::string("/numa:") + to_string(c.numa);
  if (c.dir == Dir::p2p) {
    name += std::string("/peer_access:") + to_string(c.peer) + "/src:" + std::to_string(c.src) +
            "/dst:" + std::to_string(c.dst);
  }
  name += "/bytes:" + std::to_string(c.bytes) + "/device:" + std::to_string(c.device);
  return name;
}

std::vector<std::uint64_t> host_sizes(suite::Profile profile) {
  switch (profile) {
    case suite::Profile::quick:
      return {4 * k_kib, 1 * k_mib, 64 * k_mib, 256 * k_mib};
    case suite::Profile::standard:
      return {4 * k_kib, 64 * k_kib, 1 * k_mib, 16 * k_mib, 256 * k_mib, 1 * k_gib};
    case suite::Profile::full: {
      std::vector<std::uint64_t> sizes;
      for (std::uint64_t b = 4 * k_kib; b <= k_gib; b *= 4) sizes.push_back(b);
      return sizes;
    }
  }
  return {};
}

std::vector<std::uint64_t> p2p_sizes(suite::Profile profile) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t b : host_sizes(profile)) {
    if (b >= 64 * k_mib) out.push_back(b);
  }
  // Quick keeps one size per pair: the matrix is what matters, and it grows as n^2.
  if (profile == suite::Profile::quick && out.size() > 1) out.erase(out.begin(), out.end() - 1);
  return out;
}

std::optional<NumaRequest> numa_request_from_string(std::string_view text) {
  if (text == "local") return NumaRequest::local;
  if (text == "remote") return NumaRequest::remote;
  if (text == "both") return NumaRequest::both;
  return std::nullopt;
}

NumaRequest default_numa_request(suite::Profile profile) {
  return profile == suite::Profile::quick ? NumaRequest::local : NumaRequest::both;
}

namespace {
NumaRequest parse_numa(std::string_view value, const std::string& source) {
  if (const auto r = numa_request_from_string(value)) return *r;
  throw bad_input(source + " '" + std::string(value) + "' is not a NUMA placement",
                  "expected local, remote or both",
                  "pass e.g. --numa remote, or omit it for the profile's default");
}
}  // namespace

NumaRequest take_numa_request(int& argc, char** argv, const char* env_value,
                              suite::Profile profile) {
  NumaRequest request = default_numa_request(profile);
  if (env_value && *env_value) request = parse_numa(env_value, "GPUBENCH_NUMA");
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--numa") {
      if (i + 1 >= argc) {
        throw bad_input("--numa needs a value", "it was the last argument",
                        "pass --numa local, remote or both");
      }
      request = parse_numa(argv[++i], "--numa");
      continue;
    }
    if (arg.rfind("--numa=", 0) == 0) {
      request = parse_numa(arg.substr(7), "--numa");
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  return request;
}

std::vector<std::pair<int, int>> p2p_pairs(const std::vector<int>& devices, int device_count) {
  std::vector<std::pair<int, int>> pairs;
  if (devices.size() >= 2) {
    for (int i : devices) {
      for (int j : devices) {
        if (i != j) pairs.emplace_back(i, j);
      }
    }
    return pairs;
  }
  const int first = devices.empty() ? 0 : devices.front();
  for (int j = 0; j < device_count; ++j) {
    if (j != first) pairs.emplace_back(first, j);
  }
  if (pairs.empty()) pairs.emplace_back(first, first + 1);
  return pairs;
}

bool staged_pair_measured(suite::Profile profile, const std::vector<int>& devices, int src,
                          int dst) {
  if (profile == suite::Profile::full || devices.size() < 3) return true;
  // Quick and standard: the ring i -> i+1 (the last back to the first) of the selected GPUs.
  const auto it = std::find(devices.begin(), devices.end(), src);
  if (it == devices.end()) return false;
  const auto next = std::next(it) == devices.end() ? devices.begin() : std::next(it);
  return *next == dst;
}

bool placement_measured(suite::Profile profile, const std::vector<int>& devices, int device,
                        Numa numa) {
  if (numa != Numa::remote || profile != suite::Profile::standard || devices.empty()) return true;
  return device == devices.front();
}

bool staged_size_measured(suite::Profile profile, std::uint64_t bytes) {
  if (profile != suite::Profile::standard) return true;
  const std::vector<std::uint64_t> sizes = p2p_sizes(profile);
  return sizes.empty() || bytes == sizes.front();
}

std::vector<TransferCase> all_cases(suite::Profile profile, NumaRequest numa,
                                    const std::vector<int>& devices, int device_count) {
  std::vector<Numa> placements;
  if (numa != NumaRequest::remote) placements.push_back(Numa::local);
  if (numa != NumaRequest::local) placements.push_back(Numa::remote);
  const bool quick = profile == suite::Profile::quick;

  // (direction, memory, engine) of the host cases, in the order users read them.
  struct Shape {
    Dir dir;
    Memory memory;
    Engine engine;
    bool in_quick;
  };
  const Shape host_shapes[] = {
      {Dir::h2d, Memory::pinned, Engine::ce, true},
      {Dir::d2h, Memory::pinned, Engine::ce, true},
      {Dir::h2d, Memory::pageable, Engine::ce, true},
      {Dir::d2h, Memory::pageable, Engine::ce, true},
      {Dir::h2d, Memory::write_combined, Engine::ce, true},
      {Dir::bidir, Memory::pinned, Engine::ce, true},
      {Dir::h2d, Memory::mapped, Engine::sm, true},
      {Dir::d2h, Memory::mapped, Engine::sm, true},
      {Dir::bidir, Memory::mapped, Engine::sm, false},
  };
  std::vector<TransferCase> out;
  for (int device : devices) {
    for (const Shape& s : host_shapes) {
      if (quick && !s.in_quick) continue;
      for (Numa n : placements) {
        if (!placement_measured(profile, devices, device, n)) continue;
        for (std::uint64_t bytes : host_sizes(profile)) {
          TransferCase c;
          c.dir = s.dir;
          c.memory = s.memory;
          c.engine = s.engine;
          c.numa = n;
          c.bytes = bytes;
          c.device = device;
          out.push_back(c);
        }
      }
    }
    for (Engine e : {Engine::ce, Engine::sm}) {
      if (quick && e == Engine::sm) continue;
      for (std::uint64_t bytes : host_sizes(profile)) {
        TransferCase c;
        c.dir = Dir::d2d;
        c.memory = Memory::device;
        c.engine = e;
        c.numa = Numa::none;
        c.bytes = bytes;
        c.device = device;
        out.push_back(c);
      }
    }
  }
  // Peer to peer: every ordered pair, with and without peer access, one way and both ways.
  const std::vector<std::pair<int, int>> pairs = p2p_pairs(devices, device_count);
  // SM (a kernel on the source GPU writing through the peer mapping) needs peer access; it is in
  // standard and full only (quick keeps the copy-engine matrix).
  std::vector<std::pair<Engine, PeerAccess>> p2p_shapes = {{Engine::ce, PeerAccess::on},
                                                           {Engine::ce, PeerAccess::off}};
  if (!quick) p2p_shapes.emplace_back(Engine::sm, PeerAccess::on);
  for (const auto& [src, dst] : pairs) {
    for (bool both_ways : {false, true}) {
      for (const auto& [engine, p] : p2p_shapes) {
        if (p == PeerAccess::off && !staged_pair_measured(profile, devices, src, dst)) continue;
        for (std::uint64_t bytes : p2p_sizes(profile)) {
          if (p == PeerAccess::off && !staged_size_measured(profile, bytes)) continue;
          TransferCase c;
          c.dir = Dir::p2p;
          c.memory = Memory::device;
          c.engine = engine;
          c.numa = Numa::none;
          c.bidirectional = both_ways;
          c.peer = p;
          c.src = src;
          c.dst = dst;
          c.bytes = bytes;
          c.device = src;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

std::vector<int> sm_copy_devices(const TransferCase& c) {
  if (c.engine != Engine::sm) return {};
  if (c.dir != Dir::p2p) return {c.device};
  if (c.bidirectional) return {c.src, c.dst};
  return {c.src};
}

bool pageable_must_trail_pinned(const std::string& host_page_tables_context, int device) {
  const nlohmann::json table =
      nlohmann::json::parse(host_page_tables_context, nullptr, /*allow_exceptions=*/false);
  if (!table.is_object()) return true;
  const auto it = table.find(std::to_string(device));
  return it == table.end() || !it->is_number_integer() || it->get<int>() == 0;
}

bool reports_latency(std::uint64_t bytes) {
  return bytes <= k_latency_max_bytes;
}

bool reports_bandwidth(std::uint64_t bytes) {
  return bytes > k_latency_max_bytes;
}

std::uint64_t copies_per_sample(std::uint64_t bytes) {
  const std::uint64_t copies = k_gib / std::max<std::uint64_t>(bytes, 1);
  return std::clamp<std::uint64_t>(copies, 1, 256);
}

std::uint64_t bidir_copies_per_sample(std::uint64_t bytes) {
  return std::max<std::uint64_t>(1, copies_per_sample(bytes) / 2);
}

Residency device_local_residency(std::uint64_t bytes, std::int64_t l2_bytes) {
  if (l2_bytes <= 0) return Residency::dram;
  const std::uint64_t working_set = 2 * bytes;
  return working_set >= 4 * static_cast<std::uint64_t>(l2_bytes) ? Residency::dram
                                                                 : Residency::cached;
}

double gb_per_s(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

BidirRates bidir_rates(std::uint64_t bytes_each_way, std::uint64_t copies, const BidirTimes& t) {
  const double one_way = static_cast<double>(bytes_each_way) * static_cast<double>(copies);
  BidirRates r;
  r.forward_gb_per_s = gb_per_s(one_way, t.forward_s);
  r.reverse_gb_per_s = gb_per_s(one_way, t.reverse_s);
  r.total_gb_per_s = t.forward_s > 0 && t.reverse_s > 0 ? r.forward_gb_per_s + r.reverse_gb_per_s
                                                        : gb_per_s(2 * one_way, t.span_s);
  return r;
}

SamplePlan sample_plan(std::uint64_t words, std::uint64_t samples, std::uint64_t tail) {
  SamplePlan p;
  if (words == 0) return p;
  p.stride = std::max<std::uint64_t>(1, words / std::max<std::uint64_t>(samples, 1)) | 1u;
  p.strided_count = (words + p.stride - 1) / p.stride;
  p.tail_count = std::min(words, tail);
  p.tail_first = words - p.tail_count;
  return p;
}

std::vector<std::uint64_t> spread_pages(std::uint64_t pages, std::uint64_t count) {
  const std::uint64_t n = std::min(pages, count);
  std::vector<std::uint64_t> out;
  out.reserve(n);
  // (pages - 1) * k / (n - 1) rises by at least 1 per step while n <= pages.
  for (std::uint64_t k = 0; k < n; ++k) out.push_back(n == 1 ? 0 : (pages - 1) * k / (n - 1));
  return out;
}

std::string check_sampled_words(const SamplePlan& plan, const std::uint32_t* strided,
                                const std::uint32_t* tail, std::uint32_t seed) {
  std::uint64_t wrong = 0;
  std::uint64_t first_index = 0;
  std::uint32_t first_expected = 0, first_got = 0;
  auto check = [&](std::uint64_t index, std::uint32_t got) {
    const std::uint32_t expected = kernels::copy::pattern_word(seed, index);
    if (got == expected) return;
    if (wrong++ == 0) {
      first_index = index;
      first_expected = expected;
      first_got = got;
    }
  };
  for (std::uint64_t k = 0; k < plan.strided_count; ++k) check(k * plan.stride, strided[k]);
  for (std::uint64_t k = 0; k < plan.tail_count; ++k) check(plan.tail_first + k, tail[k]);
  if (wrong == 0) return {};
  char text[160];
  std::snprintf(text, sizeof text,
                "validation failed: %llu of %llu sampled words differ; first at word %llu: "
                "expected 0x%08x, got 0x%08x",
                static_cast<unsigned long long>(wrong),
                static_cast<unsigned long long>(plan.strided_count + plan.tail_count),
                static_cast<unsigned long long>(first_index), first_expected, first_got);
  return text;
}

std::uint32_t sample_seed(std::uint32_t base, std::uint64_t sample) {
  // An odd multiplier walks all 2^32 values before repeating, and + 1 keeps sample 0 off `base`.
  return base + 0x9e3779b9u * static_cast<std::uint32_t>(sample + 1);
}

SampledWords sampled_pattern(const SamplePlan& plan, std::uint32_t seed) {
  SampledWords w;
  w.strided.resize(plan.strided_count);
  w.tail.resize(plan.tail_count);
  for (std::uint64_t k = 0; k < plan.strided_count; ++k) {
    w.strided[k] = kernels::copy::pattern_word(seed, k * plan.stride);
  }
  for (std::uint64_t k = 0; k < plan.tail_count; ++k) {
    w.tail[k] = kernels::copy::pattern_word(seed, plan.tail_first + k);
  }
  return w;
}

}  // namespace gpubench::transfer
