// Shared parts of the large-report layout (render_large.hpp).
#include "compare/render/render_large.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

#include "compare/render/render.hpp"
#include "util/fs.hpp"

namespace gpubench::compare {
namespace {

std::string full(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The q-quantile of sorted values (linear between neighbours).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  double at = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(at));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

std::string sidecar_path(const std::string& output, std::string_view suffix) {
  if (output.empty() || output == "-") return "";
  std::filesystem::path p(output);
  return (p.parent_path() / (p.stem().string() + std::string(suffix))).string();
}

std::string sidecar_name(const std::string& sidecar) {
  return std::filesystem::path(sidecar).filename().string();
}

double change_percent(const Entry& e) {
  if (!std::isfinite(e.ratio) || e.ratio <= 0) return NAN;
  std::optional<double> s = e.speedup();
  return ((s ? *s : e.ratio) - 1.0) * 100.0;
}

LargeGroups group_large(const Comparison& cmp) {
  LargeGroups g;
  std::map<Verdict, std::vector<const Entry*>> by;
  for (const Entry* e : entries_in_order(cmp)) {
    if (e->verdict == Verdict::unchanged) {
      g.unchanged.push_back(e);
    } else if (e->verdict == Verdict::inconclusive) {
      g.inconclusive.push_back(e);
    } else {
      by[e->verdict].push_back(e);
    }
  }
  for (Verdict v : {Verdict::regression, Verdict::improvement, Verdict::changed, Verdict::invalid,
                    Verdict::missing}) {
    std::vector<const Entry*>& all = by[v];
    if (all.empty()) continue;
    VerdictGroup group;
    group.verdict = v;
    group.size = all.size();
    if (all.size() > k_max_full_rows) {
      // Largest change first; unknown (invalid, missing: no ratio) keep their order, last.
      auto size_of = [](const Entry* e) {
        return std::isfinite(e->ratio) && e->ratio > 0 ? std::fabs(std::log(e->ratio)) : -1.0;
      };
      std::stable_sort(all.begin(), all.end(), [&](const Entry* a, const Entry* b) {
        return size_of(a) > size_of(b);
      });
      group.compact.assign(all.begin() + static_cast<std::ptrdiff_t>(k_max_full_rows), all.end());
      all.resize(k_max_full_rows);
    }
    group.full = std::move(all);
    g.listed.push_back(std::move(group));
  }
  // Worst first: the inconclusive entries nearest to a regression lead; unknown last.
  std::stable_sort(g.inconclusive.begin(), g.inconclusive.end(),
                   [](const Entry* a, const Entry* b) {
                     double x = change_percent(*a), y = change_percent(*b);
                     if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
                     return x < y;
                   });
  return g;
}

std::vector<Distribution> distributions(std::vector<std::pair<std::string, double>> values) {
  std::map<std::string, std::vector<double>> by_suite;
  for (auto& [suite, v] : values) {
    if (std::isfinite(v)) by_suite[suite].push_back(v);
  }
  std::vector<Distribution> out;
  for (auto& [suite, v] : by_suite) {
    std::sort(v.begin(), v.end());
    Distribution d;
    d.suite = suite;
    d.total = v.size();
    d.min = v.front();
    d.max = v.back();
    d.median = quantile(v, 0.5);
    d.p05 = quantile(v, 0.05);
    d.p95 = quantile(v, 0.95);
    double lo = quantile(v, 0.005), hi = quantile(v, 0.995);
    if (!(hi > lo)) {  // one value (or all equal): a bin around it
      lo -= 0.05;
      hi += 0.05;
    }
    // Round the ends out to a multiple of a round step (1, 2, 2.5 or 5 x 10^k), so the chart's
    // five ticks (the ends and every quarter) read as round numbers.
    double raw = (hi - lo) / 4, mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * mag;
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    }
    lo = std::floor(lo / step) * step;
    while (lo + 4 * step < hi) step *= 2;
    hi = lo + 4 * step;
    const std::size_t bins = k_histogram_bins;
    for (std::size_t i = 0; i <= bins; ++i) {
      d.edges.push_back(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(bins));
    }
    d.counts.assign(bins, 0);
    for (double x : v) {
      double f = (x - lo) / (hi - lo) * static_cast<double>(bins);
      auto i = static_cast<std::ptrdiff_t>(std::floor(f));
      i = std::clamp<std::ptrdiff_t>(i, 0, static_cast<std::ptrdiff_t>(bins) - 1);
      ++d.counts[static_cast<std::size_t>(i)];
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string compact_line(const Entry& e, Interval interval) {
  // Columns padded to their usual width only (-12.34%, [-12.34%, +12.34%], 10/10): at 200,000
  // lines every byte of padding is 0.2 MB.
  std::string line = change_pct(e.ratio);
  line.resize(std::max<std::size_t>(line.size(), 7), ' ');
  if (interval == Interval::shown) {
    std::string lo = change_pct(e.ci_low), hi = change_pct(e.ci_high);
    std::string ci = std::isfinite(e.ci_low) && std::isfinite(e.ci_high)
                         ? "[" + lo.substr(0, lo.size() - 1) + ", " + hi.substr(0, hi.size() - 1) + "]"
                         : "—";
    ci.resize(std::max<std::size_t>(ci.size(), 16), ' ');
    line += ' ' + ci;
  }
  std::string n = std::to_string(e.base.n) + '/' + std::to_string(e.candidate.n);
  n.resize(std::max<std::size_t>(n.size(), 5), ' ');
  line += ' ' + n + ' ' + e.key.benchmark + ' ' + e.key.metric + (e.primary ? "" : " (secondary)") +
          ' ' + e.key.device;
  return line;
}

void write_entries_csv(const std::vector<const Entry*>& entries, std::ostream& out) {
  out << "suite,benchmark,metric,device,unit,direction,primary,base_median,candidate_median,"
         "ratio,ci_low,ci_high,p_value,q_value,base_n,candidate_n,verdict\n";
  for (const Entry* e : entries) {
    out << csv_field(e->key.suite) << ',' << csv_field(e->key.benchmark) << ','
        << csv_field(e->key.metric) << ',' << csv_field(e->key.device) << ',' << csv_field(e->unit)
        << ',' << direction_text(e->direction) << ',' << (e->primary ? "true" : "false") << ','
        << full(e->base.median) << ',' << full(e->candidate.median) << ',' << full(e->ratio) << ','
        << full(e->ci_low) << ',' << full(e->ci_high) << ',' << full(e->p_value) << ','
        << full(e->q_value) << ',' << e->base.n << ',' << e->candidate.n << ','
        << to_string(e->verdict) << '\n';
  }
}

void write_sidecar(const std::string& path, const std::string& text) {
  write_file_atomic(path, text);
}

}  // namespace gpubench::compare
