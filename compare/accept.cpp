#include "compare/accept.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/render.hpp"
#include "compare/stats.hpp"
#include "compare/thresholds.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

[[noreturn]] void spec_error(const std::string& origin, int line, std::size_t column,
                             const std::string& why) {
  throw bad_input("syntax error in spec file " + origin + ":" + std::to_string(line) + ":" +
                      std::to_string(column),
                  why,
                  "write '<glob> <metric> >= <value> <unit>' or '<glob> <metric> >= <pct>% of "
                  "<peak> <unit>' per line");
}

struct Pooled {
  const results::ResultRow* first = nullptr;
  std::vector<double> values;
  std::size_t throttled = 0;
  bool error = false;
  bool skipped = false;
  std::string message;
};

std::map<Key, Pooled> pool(const Side& side) {
  std::map<Key, Pooled> out;
  for (const results::ResultRow& row : side.results) {
    if (row.metric == "cpu_time") continue;
    Pooled& p = out[{row.suite, row.benchmark, row.metric, device_label(row.device_index)}];
    if (!p.first) p.first = &row;
    p.values.insert(p.values.end(), row.values.begin(), row.values.end());
    for (int t : row.throttled) p.throttled += t == 1 ? 1 : 0;
    if (row.status == results::BenchmarkStatus::error) p.error = true;
    if (row.status == results::BenchmarkStatus::skipped) p.skipped = true;
    if (!row.message.empty()) p.message = row.message;
  }
  return out;
}

// The GPU of a result: its UUID (mapped at ingest from the suite's own record of its CUDA
// ordinals), with the PCI bus id the run recorded for that UUID. Never matched by index: the
// row's device index is a CUDA ordinal, the run's GPUs carry NVML indices.
void fill_device(AcceptCheck& c, const Side& run, const results::ResultRow& row) {
  c.gpu_uuid = row.gpu_uuid;
  if (row.gpu_pci_bus_id != results::k_unknown) c.pci_bus_id = row.gpu_pci_bus_id;
  if (c.gpu_uuid.empty() || run.runs.empty()) return;
  for (const results::GpuInfo& g : run.runs.front().info.gpus) {
    if (g.uuid == c.gpu_uuid && g.pci_bus_id != results::k_unknown) c.pci_bus_id = g.pci_bus_id;
  }
}

// A failed row remap (NVML) means the GPU can no longer take memory errors out of service: the
// "send this GPU for service" signal. Every GPU of the run whose telemetry saw one fails.
void remap_failure_checks(const Side& run, AcceptResult& result) {
  for (const results::RunDetail& d : run.runs) {
    for (const results::TelemetrySummary& t : d.telemetry) {
      if (!t.remap_failure) continue;
      AcceptCheck c;
      c.key = {"gpu", "row_remapping", "remap_failure", "nvml" + std::to_string(t.nvml_index)};
      c.gpu_uuid = t.gpu_uuid;
      for (const results::GpuInfo& g : d.info.gpus) {
        if (g.uuid == t.gpu_uuid) c.pci_bus_id = g.pci_bus_id;
      }
      c.pass = false;
      c.reason = "NVML reports a failed row remap on this GPU (run " + std::to_string(d.run.id) +
                 "): send it for service";
      result.checks.push_back(std::move(c));
    }
  }
}

// Returns false (with the reason set) when the series cannot be judged at all.
bool usable(AcceptCheck& c, const Pooled& p) {
  if (p.error) {
    c.reason = "failed: " + p.message;
  } else if (p.skipped) {
    c.reason = "skipped: " + p.message;
  } else if (p.throttled > 0) {
    c.reason = std::to_string(p.throttled) + " sample(s) ran throttled";
  } else if (p.values.size() < 2) {
    c.reason = "too few samples for an interval (" + std::to_string(p.values.size()) +
               "; need at least 2, better 5)";
  } else {
    return true;
  }
  return false;
}

void sibling_check(const Side& run, const std::map<Key, Pooled>& pooled,
                   const AcceptOptions& options, AcceptResult& result) {
  std::map<std::tuple<std::string, std::string, std::string>,
           std::vector<const std::pair<const Key, Pooled>*>>
      groups;
  for (const auto& entry : pooled) {
    if (entry.first.device == "host" || entry.second.values.empty() || entry.second.error) continue;
    groups[{entry.first.suite, entry.first.benchmark, entry.first.metric}].push_back(&entry);
  }
  for (const auto& [id, members] : groups) {
    if (members.size() < 3) continue;  // with two GPUs neither is "the" outlier
    for (const auto* m : members) {
      std::vector<double> others;
      for (const auto* o : members) {
        if (o != m) others.push_back(median(o->second.values));
      }
      double sib = median(others);
      double mine = median(m->second.values);
      results::Direction dir = m->second.first->direction;
      if (dir == results::Direction::unknown || !(sib > 0)) continue;
      double shortfall = dir == results::Direction::higher ? 1.0 - mine / sib : mine / sib - 1.0;
      double cv = coefficient_of_variation(m->second.values);
      double margin = std::max(options.sibling_tolerance, std::isnan(cv) ? 0.0 : 3.0 * cv);
      if (shortfall > margin) {
        AcceptCheck c;
        fill_device(c, run, *m->second.first);
        result.outliers.push_back({m->first, c.gpu_uuid, c.pci_bus_id, mine, sib, shortfall});
      }
    }
  }
}

}  // namespace

std::vector<SpecRule> parse_spec(std::string_view text, const std::string& origin) {
  std::vector<SpecRule> rules;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    std::string line = raw;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::vector<std::pair<std::string, std::size_t>> tokens;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) tokens.emplace_back(line.substr(start, i - start), start + 1);
    }
    if (tokens.empty()) continue;
    auto col_after = [&](std::size_t k) { return tokens[k].second + tokens[k].first.size(); };
    if (tokens.size() < 5) {
      spec_error(origin, line_no, col_after(tokens.size() - 1),
                 "incomplete rule: expected glob, metric, >= or <=, value and unit");
    }
    SpecRule r;
    r.glob = tokens[0].first;
    r.metric = tokens[1].first;
    r.line = line_no;
    r.text = std::string(trim(line));
    if (tokens[2].first != ">=" && tokens[2].first != "<=") {
      spec_error(origin, line_no, tokens[2].second,
                 "expected >= or <=, found '" + tokens[2].first + "'");
    }
    r.at_least = tokens[2].first == ">=";
    const std::string& value = tokens[3].first;
    std::size_t unit_at = 4;
    if (!value.empty() && value.back() == '%' && tokens.size() >= 7 && tokens[4].first == "of") {
      std::optional<double> pct = parse_double(value.substr(0, value.size() - 1));
      std::optional<double> peak = parse_double(tokens[5].first);
      if (!pct)
        spec_error(origin, line_no, tokens[3].second, "'" + value + "' is not a percentage");
      if (!peak || *peak <= 0) {
        spec_error(origin, line_no, tokens[5].second,
                   "'" + tokens[5].first + "' is not a peak figure");
      }
      r.limit = *pct / 100.0 * *peak;
      unit_at = 6;
    } else {
      std::optional<double> v = parse_double(value);
      if (!v) spec_error(origin, line_no, tokens[3].second, "'" + value + "' is not a number");
      r.limit = *v;
    }
    if (tokens.size() != unit_at + 1) {
      spec_error(
          origin, line_no,
          tokens.size() > unit_at + 1 ? tokens[unit_at + 1].second : col_after(tokens.size() - 1),
          tokens.size() > unit_at + 1
              ? "unexpected '" + tokens[unit_at + 1].first + "' after the unit"
              : "missing unit");
    }
    r.unit = tokens[unit_at].first;
    rules.push_back(std::move(r));
  }
  if (rules.empty()) {
    throw bad_input("spec file " + origin + " has no rules", "every line is empty or a comment",
                    "add lines like 'memory/triad/* GB_per_s >= 3000 GB/s'");
  }
  return rules;
}

std::vector<SpecRule> load_spec(const std::string& path) {
  return parse_spec(read_file(path), path);
}

bool AcceptResult::passed() const {
  if (!outliers.empty() || !missing.empty()) return false;
  return std::all_of(checks.begin(), checks.end(), [](const AcceptCheck& c) { return c.pass; });
}

AcceptResult accept_against_reference(const Side& run, const Side& reference,
                                      const AcceptOptions& options) {
  AcceptResult result;
  result.run_selection = run.selection;
  result.reference = reference.selection;
  std::map<Key, Pooled> mine = pool(run);
  // Reference values pooled over its devices: the reference is the class, not a GPU.
  std::map<Key, Pooled> ref;
  for (auto& [key, p] : pool(reference)) {
    Key k = key;
    k.device = key.device == "host" ? "host" : "gpu";
    Pooled& dst = ref[k];
    if (!dst.first)
      dst = p;
    else
      dst.values.insert(dst.values.end(), p.values.begin(), p.values.end());
  }
  std::map<Key, bool> seen;
  for (const auto& [key, p] : mine) {
    Key rk = key;
    rk.device = key.device == "host" ? "host" : "gpu";
    auto it = ref.find(rk);
    if (it == ref.end()) continue;  // not in the reference: nothing to accept against
    seen[rk] = true;
    results::Direction dir = p.first->direction;
    if (dir == results::Direction::unknown) continue;
    AcceptCheck c;
    c.key = key;
    c.unit = p.first->unit;
    c.direction = dir;
    c.n = p.values.size();
    fill_device(c, run, *p.first);
    if (p.first->unit != it->second.first->unit) {
      throw bad_input("cannot accept " + key.benchmark + " " + key.metric,
                      "the unit is '" + p.first->unit + "' in the run and '" +
                          it->second.first->unit + "' in the reference");
    }
    c.median = p.values.empty() ? NAN : median(p.values);
    c.reference = median(it->second.values);
    bool higher = dir == results::Direction::higher;
    c.required =
        higher ? c.reference * (1.0 - options.tolerance) : c.reference / (1.0 - options.tolerance);
    if (usable(c, p)) {
      RatioEstimate r = ratio_of_medians(it->second.values, p.values, options.confidence);
      if (!r.valid) {
        c.reason = "no interval (reference has < 2 samples or values are not positive)";
      } else {
        c.bound = higher ? c.reference * r.ci_low : c.reference * r.ci_high;
        c.pass = higher ? c.bound >= c.required : c.bound <= c.required;
        c.reason = std::string(c.pass ? "" : "worse than the reference: ") + "bound " +
                   format_value(c.bound) + " vs required " + format_value(c.required) + " " +
                   c.unit;
      }
    }
    result.checks.push_back(std::move(c));
  }
  for (const auto& [key, p] : ref) {
    if (!seen.count(key))
      result.missing.push_back({key, "in the reference, not measured in the run"});
  }
  sibling_check(run, mine, options, result);
  remap_failure_checks(run, result);
  return result;
}

AcceptResult accept_against_spec(const Side& run, const std::vector<SpecRule>& spec,
                                 const std::string& spec_name, const AcceptOptions& options) {
  AcceptResult result;
  result.run_selection = run.selection;
  result.reference = "spec " + spec_name;
  std::map<Key, Pooled> mine = pool(run);
  std::vector<bool> used(spec.size(), false);
  for (const auto& [key, p] : mine) {
    const SpecRule* rule = nullptr;
    for (std::size_t i = spec.size(); i-- > 0;) {
      if (spec[i].metric == key.metric && glob_match(spec[i].glob, key.benchmark)) {
        rule = &spec[i];
        used[i] = true;
        break;
      }
    }
    if (!rule) continue;
    if (rule->unit != p.first->unit) {
      throw bad_input("spec line " + std::to_string(rule->line) + " does not fit " + key.benchmark,
                      "the rule's unit is '" + rule->unit + "' but " + key.metric + " is in '" +
                          p.first->unit + "'",
                      "write the limit in " + p.first->unit);
    }
    AcceptCheck c;
    c.key = key;
    c.unit = p.first->unit;
    c.direction = p.first->direction;
    c.n = p.values.size();
    c.reference = rule->limit;
    c.required = rule->limit;
    fill_device(c, run, *p.first);
    c.median = p.values.empty() ? NAN : median(p.values);
    if (usable(c, p)) {
      bool ok = true;
      std::vector<double> logs;
      for (double v : p.values) {
        if (!(v > 0))
          ok = false;
        else
          logs.push_back(std::log(v));
      }
      if (!ok) {
        c.reason = "values are not all positive; no interval";
      } else {
        double se = stddev(logs) / std::sqrt(static_cast<double>(logs.size()));
        double q = se == 0 ? 0
                           : student_t_quantile(0.5 + options.confidence / 2.0,
                                                static_cast<double>(logs.size() - 1));
        c.bound = std::exp(std::log(c.median) + (rule->at_least ? -q : q) * se);
        c.pass = rule->at_least ? c.bound >= rule->limit : c.bound <= rule->limit;
        c.reason =
            (c.pass ? "" : std::string(rule->at_least ? "below floor: " : "above ceiling: ")) +
            "bound " + format_value(c.bound) + " vs " + (rule->at_least ? ">= " : "<= ") +
            format_value(rule->limit) + " " + c.unit + " (spec line " + std::to_string(rule->line) +
            ")";
      }
    }
    result.checks.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < spec.size(); ++i) {
    if (!used[i]) {
      result.missing.push_back({{"", spec[i].glob, spec[i].metric, ""},
                                "spec line " + std::to_string(spec[i].line) + " matched nothing"});
    }
  }
  sibling_check(run, mine, options, result);
  remap_failure_checks(run, result);
  return result;
}

}  // namespace gpubench::compare
