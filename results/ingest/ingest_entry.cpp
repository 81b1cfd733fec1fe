// Reading one Google Benchmark entry without the database (DocumentIngest::State::read): its
// fields, checked, become a PreparedEntry; on the parsing thread of a streamed import.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "results/ingest/ingest.hpp"
#include "results/ingest/ingest_detail.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "util/error.hpp"
#include "util/sample_state.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using detail::not_gb;
using detail::type_name;
using nlohmann::json;

namespace {

// Keys of a benchmark entry that are not user counters, and where EntryFields keeps them.
enum Meta : std::size_t {
  k_name,
  k_family_index,
  k_per_family_instance_index,
  k_run_name,
  k_run_type,
  k_repetitions,
  k_repetition_index,
  k_threads,
  k_iterations,
  k_real_time,
  k_cpu_time,
  k_time_unit,
  k_aggregate_name,
  k_aggregate_unit,
  k_error_occurred,
  k_error_message,
  k_skipped,
  k_skip_message,
  k_label,
  k_big_o,
  k_device_index,
  k_gpu_uuid,
  k_meta_count
};
constexpr std::string_view k_meta_keys[k_meta_count] = {"name",
                                                        "family_index",
                                                        "per_family_instance_index",
                                                        "run_name",
                                                        "run_type",
                                                        "repetitions",
                                                        "repetition_index",
                                                        "threads",
                                                        "iterations",
                                                        "real_time",
                                                        "cpu_time",
                                                        "time_unit",
                                                        "aggregate_name",
                                                        "aggregate_unit",
                                                        "error_occurred",
                                                        "error_message",
                                                        "skipped",
                                                        "skip_message",
                                                        "label",
                                                        "big_o",
                                                        "device_index",
                                                        "gpu_uuid"};

// k_meta_count when `key` is a user counter's.
std::size_t meta_index(std::string_view key) {
  for (std::size_t k = 0; k < k_meta_count; ++k) {
    if (k_meta_keys[k].size() == key.size() && k_meta_keys[k] == key) return k;
  }
  return k_meta_count;
}

}  // namespace

namespace detail {

// An entry's members sorted out in one walk over them (one walk costs less than a lookup per
// field): the meta members by Meta index (null when absent), and every other member in name
// order. A key given twice counts with its last value, as in nlohmann's documents.
struct EntryFields {
  const json* meta[k_meta_count] = {};
  std::vector<std::pair<std::string_view, const json*>> others;

  // A document's object (a std::map: in name order, each key once).
  void read(const json& e) {
    start();
    for (auto it = e.begin(); it != e.end(); ++it) add(it.key(), &*it);
  }
  // A streamed entry's members, in file order.
  void read(const StreamedEntry& e) {
    start();
    for (std::size_t k = 0; k < e.size(); ++k) add(e.key(k), &e.value(k));
    if (others.size() > 1) {
      std::stable_sort(others.begin(), others.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::size_t kept = 0;
      for (std::size_t k = 0; k < others.size(); ++k) {
        if (k + 1 < others.size() && others[k + 1].first == others[k].first) continue;
        others[kept++] = others[k];  // the last of a key given twice
      }
      others.resize(kept);
    }
  }
  const json* operator[](Meta k) const { return meta[k]; }

 private:
  void start() {
    std::fill(std::begin(meta), std::end(meta), nullptr);
    others.clear();
  }
  void add(std::string_view key, const json* value) {
    const std::size_t k = meta_index(key);
    if (k == k_meta_count) {
      others.emplace_back(key, value);
    } else {
      meta[k] = value;
    }
  }
};

}  // namespace detail

namespace {

// A member that is not a meta key is a counter, and a counter is a number (or Google Benchmark's
// "NaN"/"inf" strings, kept as invalid values). Anything else ([[1]], "fast", null, true) is
// refused: dropping it would store the benchmark as if the counter had never been reported.
[[noreturn]] void not_a_counter(size_t entry, std::string_view benchmark, std::string_view key,
                                const json& value) {
  std::string shown = value.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  throw bad_input("cannot ingest the JSON",
                  "benchmarks[" + std::to_string(entry) + "] ('" + std::string(benchmark) +
                      "'): counter '" + std::string(key) + "' is " + shown + " (" +
                      value.type_name() + "), not a number",
                  "fix the value or remove the counter from the file; gpubench refuses a value "
                  "rather than drop it");
}

double time_unit_to_ns(const std::string& unit, size_t entry) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  not_gb("benchmarks[" + std::to_string(entry) + "] has unknown time_unit '" + unit + "'");
}

// "device_index=1,gpu_uuid=GPU-..." style labels (',', ';' or ' ' separated).
void parse_label(const std::string& label, std::optional<int64_t>& device, std::string& gpu_uuid) {
  std::string token;
  auto flush = [&] {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) {
      const std::string key(trim(token.substr(0, eq)));
      const std::string value(trim(token.substr(eq + 1)));
      if (key == "device_index" && !device) {
        if (auto v = parse_int(value)) device = *v;
      } else if (key == "gpu_uuid" && gpu_uuid.empty()) {
        gpu_uuid = value;
      }
    }
    token.clear();
  };
  for (char c : label) {
    if (c == ',' || c == ';' || c == ' ') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
}

// A label as benchmark_outcomes keeps it: at most k_max_text_bytes (a label is for people, and
// names are refused beyond that size too), a longer one cut at a UTF-8 character boundary.
std::string label_kept(std::string_view label) {
  if (label.size() <= k_max_text_bytes) return std::string(label);
  std::size_t end = k_max_text_bytes;
  while (end > 0 && (static_cast<unsigned char>(label[end]) & 0xC0) == 0x80) --end;
  return std::string(label.substr(0, end));
}

std::optional<int64_t> int_field(const json* it, std::string_view key, size_t entry) {
  if (it == nullptr || it->is_null()) return std::nullopt;
  auto where = [&] { return "benchmarks[" + std::to_string(entry) + "]." + std::string(key); };
  if (!it->is_number()) {
    not_gb(where() + " is a " + type_name(*it) + ", not a number");
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    not_gb(where() + " is " + it->dump() + ", out of range for a whole number");
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    // 2^63 is the first double past int64's range.
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != std::trunc(v)) {
      not_gb(where() + " is " + it->dump() + ", not a whole number in range");
    }
    return static_cast<int64_t>(v);
  }
  return it->get<int64_t>();
}

// "NaN", "-Infinity", "-5500000": a rejected value as people read it.
std::string raw_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// The string member (empty when absent or null); a view into the entry.
std::string_view string_field(const json* it, std::string_view key, size_t entry) {
  if (it == nullptr || it->is_null()) return {};
  if (!it->is_string()) {
    not_gb("benchmarks[" + std::to_string(entry) + "]." + std::string(key) + " is a " +
           type_name(*it) + ", not a string");
  }
  return it->get_ref<const std::string&>();
}

bool bool_field(const json* it) {
  return it != nullptr && it->is_boolean() && it->get<bool>();
}

}  // namespace

// Counters a gpubench suite reports per sample as the state it ran under (METHODOLOGY rule 5)
// fill sample columns instead of becoming metrics: util/sample_state.hpp names them, case-exact.
// Only for files that declare gpubench.metrics: in a foreign file they are ordinary counters.
void detail::DocumentIngest::State::read(const EntryFields& f, size_t i, PreparedEntry& p) const {
  auto where = [i] { return "benchmarks[" + std::to_string(i) + "]"; };
  std::string_view identity = string_field(f[k_run_name], "run_name", i);
  if (identity.empty()) identity = string_field(f[k_name], "name", i);
  if (identity.empty()) not_gb(where() + " has no 'name'");
  if (identity.size() > k_max_benchmark_name_bytes) {
    not_gb(where() + "'s name is " + std::to_string(identity.size()) + " bytes long, starting '" +
           std::string(identity.substr(0, 40)) + "…' (a benchmark name is at most " +
           std::to_string(k_max_benchmark_name_bytes) + " bytes)");
  }
  const std::string_view run_type = string_field(f[k_run_type], "run_type", i);
  const bool aggregate = run_type == "aggregate";
  const std::string_view aggregate_name = string_field(f[k_aggregate_name], "aggregate_name", i);
  if (aggregate && !aggregate_name.empty()) {
    // "<name>_<aggregate_name>"
    if (identity.size() > aggregate_name.size() + 1 && identity.ends_with(aggregate_name) &&
        identity[identity.size() - aggregate_name.size() - 1] == '_') {
      identity.remove_suffix(aggregate_name.size() + 1);
    }
  }
  p.identity = identity;
  p.aggregate = aggregate;

  // Errors and skips: GB reports them with zero times; they are outcomes, not samples.
  if (bool_field(f[k_error_occurred])) {
    p.message = string_field(f[k_error_message], "error_message", i);
    p.status = BenchmarkStatus::error;
    if (p.message.rfind("skipped:", 0) == 0) {  // gpubench::suite::skip() on GB 1.7
      p.status = BenchmarkStatus::skipped;
      p.message = std::string(trim(p.message.substr(8)));
    }
  } else if (bool_field(f[k_skipped])) {  // Google Benchmark >= 1.8
    p.status = BenchmarkStatus::skipped;
    p.message = string_field(f[k_skip_message], "skip_message", i);
  }
  if (p.status != BenchmarkStatus::ok) return;

  // Device: a "device_index" counter or key, a "gpu_uuid" key, or either in the label.
  // In aggregate rows a device_index counter is itself aggregated (its stddev is 0, its cv
  // NaN), so only mean/median rows may name the device; the others inherit it (add()).
  Ingester::SampleState& s = p.state;
  s.kind = aggregate
               ? (aggregate_name.empty() ? std::string("aggregate") : std::string(aggregate_name))
               : std::string("iteration");
  const bool central = !aggregate || s.kind == "mean" || s.kind == "median";
  if (central) s.device_index = int_field(f[k_device_index], "device_index", i);
  p.gpu_uuid = string_field(f[k_gpu_uuid], "gpu_uuid", i);
  if (const std::string_view label = string_field(f[k_label], "label", i); !label.empty()) {
    parse_label(std::string(label), s.device_index, p.gpu_uuid);
    p.label = label_kept(label);
  }
  s.iterations = int_field(f[k_iterations], "iterations", i);
  s.threads = int_field(f[k_threads], "threads", i);
  if (!aggregate) s.repetition = int_field(f[k_repetition_index], "repetition_index", i);

  std::vector<std::pair<std::string_view, double>> counters;
  for (const auto& [key, value_ptr] : f.others) {
    const json& value = *value_ptr;
    const std::optional<double> non_finite =
        value.is_string() ? non_finite_value(value) : std::nullopt;
    if (!value.is_number() && !non_finite) not_a_counter(i, identity, key, value);
    const double v = non_finite ? *non_finite : value.get<double>();
    if (const auto field = sample_state::field_of(key); gpubench_file && field) {
      using sample_state::Field;
      // The stddev of a clock is not a clock; a window is only a repetition's own.
      if (!central || (aggregate && sample_state::is_window(*field))) continue;
      const std::optional<int64_t> flag = v != 0 ? 1 : 0;
      switch (*field) {
        case Field::sm_clock_mhz:
          s.sm_clock_mhz = v;
          break;
        case Field::temperature_c:
          s.temperature_c = v;
          break;
        case Field::power_w:
          s.power_w = v;
          break;
        case Field::throttle_reasons:
          s.throttle_reasons = static_cast<int64_t>(v);
          break;
        case Field::power_limited:
          s.power_limited = flag;
          break;
        case Field::thermal_or_hw_slowdown:
          s.thermal_or_hw_slowdown = flag;
          break;
        case Field::clock_below_expected:
          s.clock_below_expected = flag;
          break;
        case Field::window_start_s:
          s.window_start_s = v;
          break;
        case Field::window_end_s:
          s.window_end_s = v;
          break;
      }
      // `throttled` is the invalid mark: a thermal or hardware slowdown.
      s.throttled = s.thermal_or_hw_slowdown;
      continue;
    }
    counters.emplace_back(key, v);
  }
  // Declared metrics first, in declaration order; then other counters by name.
  std::stable_sort(counters.begin(), counters.end(), [&](const auto& a, const auto& b) {
    auto rank = [&](std::string_view n) {
      for (size_t k = 0; k < declared.size(); ++k) {
        if (declared[k].first == n) return k;
      }
      return declared.size();
    };
    return rank(a.first) < rank(b.first);
  });

  // cv aggregates are ratios; every other time value is in time_unit.
  const bool percentage = string_field(f[k_aggregate_unit], "aggregate_unit", i) == "percentage";
  const std::string unit(string_field(f[k_time_unit], "time_unit", i));
  const double scale = percentage ? 1.0 : time_unit_to_ns(unit.empty() ? "ns" : unit, i);
  if (s.kind == "BigO") {
    // A complexity fit's coefficients are times in time_unit, stored in ns like every time.
    p.big_o = string_field(f[k_big_o], "big_o", i);
    for (auto& [key, v] : counters) {
      if (key == "real_coefficient" || key == "cpu_coefficient") v *= scale;
    }
  }
  for (const Meta time : {k_real_time, k_cpu_time}) {
    const std::string key(k_meta_keys[time]);
    const json* t = f[time];
    if (t == nullptr) continue;
    const std::optional<double> non_finite = non_finite_value(*t);
    if (!t->is_number() && !non_finite) {
      not_gb(where() + "." + key + " is a " + type_name(*t) + ", not a number");
    }
    const double raw = non_finite ? *non_finite : t->get<double>();
    const double v = raw * scale;
    if (!std::isfinite(v)) {
      p.values.push_back(
          {key, v, false, raw_text(raw),
           key + " is " + raw_text(raw) + (std::isfinite(raw) ? " (overflows in ns)" : "")});
    } else if (v < 0) {
      p.values.push_back({key, v, false, raw_text(raw),
                          key + " is negative (" + raw_text(raw) + " " +
                              (unit.empty() ? "ns" : unit) + "); a time cannot be"});
    } else {
      p.values.push_back({key, v, true, {}, {}});
    }
  }
  for (const auto& [key, v] : counters) {
    if (std::isfinite(v)) {
      p.values.push_back({std::string(key), v, true, {}, {}});
    } else {
      p.values.push_back({std::string(key), v, false, raw_text(v),
                          "counter " + std::string(key) + " is " + raw_text(v)});
    }
  }
}

std::unique_ptr<EntryWork> detail::DocumentIngest::prepare(const StreamedEntry& entry,
                                                           size_t index) const {
  auto p = std::make_unique<PreparedEntry>();
  try {
    State::expect_object(entry.is_object(), entry.element().type_name(), index);
    EntryFields f;
    f.read(entry);
    m->read(f, index, *p);
  } catch (...) {
    p->problem = std::current_exception();
  }
  return p;
}
void detail::DocumentIngest::add(const json& entry, size_t index) {
  State::expect_object(entry.is_object(), entry.type_name(), index);
  EntryFields f;
  f.read(entry);
  PreparedEntry p;
  m->read(f, index, p);
  m->add(p);
}

}  // namespace gpubench::results
