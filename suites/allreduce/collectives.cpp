#include "suites/allreduce/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpubench::allreduce {

const char* to_string(Collective collective) {
  switch (collective) {
    case Collective::allreduce:
      return "allreduce";
    case Collective::allgather:
      return "allgather";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::broadcast:
      return "broadcast";
  }
  return "allreduce";
}

const char* to_string(Placement placement) {
  return placement == Placement::in_place ? "in_place" : "out_of_place";
}

const char* to_string(Scope scope) {
  switch (scope) {
    case Scope::world:
      return "world";
    case Scope::intra_node:
      return "intra_node";
    case Scope::inter_node:
      return "inter_node";
  }
  return "world";
}

double bus_factor(Collective collective, int ranks) {
  if (ranks < 1) throw std::invalid_argument("bus_factor: ranks must be at least 1");
  const double n = ranks;
  switch (collective) {
    case Collective::allreduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::allgather:
    case Collective::reduce_scatter:
      return (n - 1.0) / n;
    case Collective::broadcast:
      return 1.0;
  }
  return 1.0;
}

namespace {
// One rank's share of `elements`, rounded down to a multiple of 16 bytes (of whole elements).
std::size_t aligned_share(std::size_t elements, int ranks, std::size_t element_bytes) {
  const std::size_t align = element_bytes >= 16 ? 1 : 16 / element_bytes;
  return elements / static_cast<std::size_t>(ranks) / align * align;
}
}  // namespace

std::optional<ElementCounts> element_counts(Collective collective, std::size_t bytes,
                                            std::size_t element_bytes, int ranks) {
  if (element_bytes == 0 || ranks < 1) return std::nullopt;
  const std::size_t elements = bytes / element_bytes;
  ElementCounts c;
  switch (collective) {
    case Collective::allreduce:
    case Collective::broadcast:
      c.send = c.recv = elements;
      c.bytes = elements * element_bytes;
      break;
    case Collective::allgather: {
      const std::size_t per_rank = aligned_share(elements, ranks, element_bytes);
      c.send = per_rank;
      c.recv = per_rank * static_cast<std::size_t>(ranks);
      c.bytes = c.recv * element_bytes;
      break;
    }
    case Collective::reduce_scatter: {
      const std::size_t per_rank = aligned_share(elements, ranks, element_bytes);
      c.recv = per_rank;
      c.send = per_rank * static_cast<std::size_t>(ranks);
      c.bytes = c.send * element_bytes;
      break;
    }
  }
  if (c.send == 0 || c.recv == 0) return std::nullopt;
  return c;
}

Bandwidth bandwidth(Collective collective, std::size_t bytes, int ranks, double time_s) {
  if (!(time_s > 0)) throw std::invalid_argument("bandwidth: time must be positive");
  Bandwidth b;
  b.algbw_GB_per_s = static_cast<double>(bytes) / time_s / 1e9;
  b.busbw_GB_per_s = b.algbw_GB_per_s * bus_factor(collective, ranks);
  return b;
}

std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes,
                                    std::size_t factor) {
  if (factor < 2) throw std::invalid_argument("size_sweep: factor must be at least 2");
  std::vector<std::size_t> out;
  if (min_bytes == 0) min_bytes = 1;
  for (std::size_t b = min_bytes; b <= max_bytes; b *= factor) {
    out.push_back(b);
    if (b > max_bytes / factor) break;  // the next step would overflow or pass max
  }
  return out;
}

std::vector<int> rank_counts(int available) {
  std::vector<int> out;
  for (int n = 1; n > 0 && n <= available; n *= 2) out.push_back(n);
  if (available >= 1 && out.back() != available) out.push_back(available);
  return out;
}

int crafted_value(int rank, std::size_t index) {
  return static_cast<int>((static_cast<std::size_t>(rank) * 3 + index) % 4);
}

int crafted_sum(int ranks, std::size_t index) {
  int sum = 0;
  for (int r = 0; r < ranks; ++r) sum += crafted_value(r, index);
  return sum;
}

const char* to_string(ElementType type) {
  switch (type) {
    case ElementType::fp32:
      return "fp32";
    case ElementType::bf16:
      return "bf16";
    case ElementType::fp16:
      return "fp16";
  }
  return "fp32";
}

std::size_t element_bytes(ElementType type) {
  return type == ElementType::fp32 ? 4 : 2;
}

std::uint16_t bf16_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}

float bf16_value(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

std::uint16_t fp16_bits(float value) {
  if (value == 0.0f) return 0;
  if (!(value > 0.0f) || value > 2048.0f || value != std::floor(value)) {
    throw std::invalid_argument("fp16_bits: only integers 0..2048 are encoded");
  }
  const int k = static_cast<int>(value);
  int e = 0;
  while ((k >> (e + 1)) != 0) ++e;  // k in [2^e, 2^(e+1))
  const int mantissa = ((k << 10) >> e) & 0x3FF;
  return static_cast<std::uint16_t>(((e + 15) << 10) | mantissa);
}

float fp16_value(std::uint16_t bits) {
  const int sign = (bits >> 15) & 1;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  float value = 0;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? std::nanf("") : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -value : value;
}

void fill_crafted(ElementType type, int rank, std::size_t first, std::size_t count, void* out) {
  for (std::size_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(crafted_value(rank, first + i));
    switch (type) {
      case ElementType::fp32:
        static_cast<float*>(out)[i] = v;
        break;
      case ElementType::bf16:
        static_cast<std::uint16_t*>(out)[i] = bf16_bits(v);
        break;
      case ElementType::fp16:
        static_cast<std::uint16_t*>(out)[i] = fp16_bits(v);
        break;
    }
  }
}

float element_value(ElementType type, const void* data, std::size_t i) {
  switch (type) {
    case ElementType::fp32:
      return static_cast<const float*>(data)[i];
    case ElementType::bf16:
      return bf16_value(static_cast<const std::uint16_t*>(data)[i]);
    case ElementType::fp16:
      return fp16_value(static_cast<const std::uint16_t*>(data)[i]);
  }
  return 0;
}

std::optional<std::size_t> knee_bytes(std::vector<std::pair<std::size_t, double>> points,
                                      double fraction) {
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end());
  double peak = 0;
  for (const auto& p : points) peak = std::max(peak, p.second);
  if (!(peak > 0)) return std::nullopt;
  for (const auto& p : points) {
    if (p.second >= fraction * peak) return p.first;
  }
  return std::nullopt;
}

std::optional<double> scaling_efficiency(double busbw_n, double busbw_two) {
  if (!(busbw_two > 0)) return std::nullopt;
  return busbw_n / busbw_two;
}

std::optional<double> mean_rank_time_s(const std::vector<RankTime>& ranks) {
  if (ranks.empty()) return std::nullopt;
  double sum = 0;
  for (const RankTime& r : ranks) sum += r.time_s;
  const double mean = sum / static_cast<double>(ranks.size());
  if (!(mean > 0)) return std::nullopt;
  return mean;
}

std::optional<SlowRank> find_slow_rank(const std::vector<RankTime>& ranks, double threshold) {
  if (ranks.size() < 2) return std::nullopt;
  std::vector<double> times;
  for (const auto& r : ranks) times.push_back(r.time_s);
  const double mid = median(times);
  if (!(mid > 0)) return std::nullopt;
  const auto slowest =
      std::max_element(ranks.begin(), ranks.end(),
                       [](const RankTime& a, const RankTime& b) { return a.time_s < b.time_s; });
  const double ratio = slowest->time_s / mid;
  if (!(ratio > threshold)) return std::nullopt;
  return SlowRank{*slowest, ratio};
}

std::string describe(const SlowRank& slow) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", slow.ratio_to_median);
  return "rank " + std::to_string(slow.rank.rank) + " (host " + slow.rank.host + ", local rank " +
         std::to_string(slow.rank.local_rank) + ", GPU " + slow.rank.gpu_uuid + ") took " + ratio +
         " the median rank's time";
}

std::string case_name(Collective collective, std::string_view dtype, Placement placement,
                      std::size_t bytes, int ranks, bool host_reference, Scope scope) {
  std::string name = "allreduce/";
  name += to_string(collective);
  name += "/dtype:";
  name += dtype;
  name += "/mode:";
  name += to_string(placement);
  name += "/bytes:" + std::to_string(bytes) + "/ranks:" + std::to_string(ranks);
  if (scope != Scope::world) name += std::string("/scope:") + to_string(scope);
  if (host_reference) name += "/device:host";
  return name;
}

}  // namespace gpubench::allreduce
