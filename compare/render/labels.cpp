// Chart labels and ordering for people (svg.hpp): compact_labels, short_number, natural_less;
// and short_names (render.hpp), the names of text and Markdown tables.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "compare/names.hpp"
#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare::svg {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Splits "memory/triad/bytes:1024/iterations:10/manual_time" into its segments without the
// run-control ones.
std::vector<std::string> segments(const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& part : split(name, '/')) {
    std::string key = part.substr(0, part.find(':'));
    if (is_run_control_param(key)) continue;
    out.push_back(part);
  }
  return out;
}

std::string shorten_segment(const std::string& segment) {
  std::size_t colon = segment.find(':');
  if (colon == std::string::npos) return segment;
  return segment.substr(0, colon + 1) + short_number(segment.substr(colon + 1));
}

}  // namespace

std::string short_number(const std::string& text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), is_digit) || text.size() > 18) {
    return text;
  }
  const long long v = std::stoll(text);
  if (v < 10000) return text;
  static const std::pair<long long, const char*> k_binary[] = {
      {1LL << 40, "Ti"}, {1LL << 30, "Gi"}, {1LL << 20, "Mi"}, {1LL << 10, "Ki"}};
  for (const auto& [unit, suffix] : k_binary) {
    if (v >= unit && v % unit == 0 && (v / unit & (v / unit - 1)) == 0) {
      return std::to_string(v / unit) + suffix;
    }
  }
  static const std::pair<long long, const char*> k_decimal[] = {
      {1000000000000LL, "T"}, {1000000000LL, "G"}, {1000000LL, "M"}, {1000LL, "k"}};
  for (const auto& [unit, suffix] : k_decimal) {
    if (v >= unit && v % unit == 0) return std::to_string(v / unit) + suffix;
  }
  return text;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      std::string_view da(a.data() + i, ie - i), db(b.data() + j, je - j);
      while (da.size() > 1 && da.front() == '0') da.remove_prefix(1);
      while (db.size() > 1 && db.front() == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> compact_labels(const std::vector<std::string>& benchmarks,
                                        const std::vector<std::string>& suffixes) {
  const std::size_t n = benchmarks.size();
  std::vector<std::vector<std::string>> segs(n);
  for (std::size_t i = 0; i < n; ++i) segs[i] = segments(benchmarks[i]);
  // Leading segments shared by every row (keep at least one segment per row).
  std::size_t common = 0;
  if (n > 1) {
    for (;; ++common) {
      bool same = true;
      for (std::size_t i = 0; i < n && same; ++i) {
        same = common + 1 < segs[i].size() && segs[i][common] == segs[0][common];
      }
      if (!same) break;
    }
  }
  const bool same_suffix =
      n > 1 && std::all_of(suffixes.begin(), suffixes.end(),
                           [&](const std::string& s) { return s == suffixes.front(); });
  auto build = [&](std::size_t i, bool shorten) {
    std::vector<std::string> parts;
    for (std::size_t k = common; k < segs[i].size(); ++k) {
      parts.push_back(shorten ? shorten_segment(segs[i][k]) : segs[i][k]);
    }
    std::string label = join(parts, "/");
    if (i < suffixes.size() && !same_suffix && !suffixes[i].empty()) label += " " + suffixes[i];
    return label;
  };
  std::vector<std::string> out(n);
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < n; ++i) seen[out[i] = build(i, true)]++;
  for (std::size_t i = 0; i < n; ++i) {
    if (seen[out[i]] > 1) out[i] = build(i, false);  // shortening merged two rows: keep digits
  }
  std::map<std::string, int> again;
  for (std::size_t i = 0; i < n; ++i) again[out[i]]++;
  for (std::size_t i = 0; i < n; ++i) {
    if (again[out[i]] > 1) {
      out[i] = benchmarks[i] + (i < suffixes.size() ? " " + suffixes[i] : "");  // full identity
    }
  }
  return out;
}

}  // namespace gpubench::compare::svg

namespace gpubench::compare {

ShortNames short_names(const std::vector<std::string>& names, Shorten shorten) {
  ShortNames out;
  std::vector<std::string> unique;
  for (const std::string& n : names) {
    if (out.name.emplace(n, n).second) unique.push_back(n);
  }
  if ((shorten == Shorten::when_width_limited && output_width() == 0) || unique.empty()) {
    return out;  // --wide: every name whole
  }
  // Where nothing is shared by all, names as the charts label them (run-control segments
  // dropped, leading shared segments dropped, numbers short, still unique).
  const std::vector<std::string> labels = svg::compact_labels(unique, {});
  for (std::size_t i = 0; i < unique.size(); ++i) out.name[unique[i]] = labels[i];
  if (unique.size() < 2) return out;
  const std::size_t n = unique.size();
  std::vector<std::vector<std::string>> segs(n);
  for (std::size_t i = 0; i < n; ++i) segs[i] = svg::segments(unique[i]);
  const bool same_shape = std::all_of(segs.begin(), segs.end(), [&](const auto& s) {
    return s.size() == segs.front().size() && !s.empty();
  });
  // keep[k]: segment k differs between names (same shape), or k is past the shared leading ones.
  std::vector<bool> keep;
  std::vector<std::string> pattern;
  if (same_shape) {
    for (std::size_t k = 0; k < segs.front().size(); ++k) {
      bool same = true, same_key = true;
      const std::string& first = segs.front()[k];
      const std::string key = first.substr(0, first.find(':'));
      for (const auto& s : segs) {
        same = same && s[k] == first;
        same_key = same_key && first.find(':') != std::string::npos &&
                   s[k].substr(0, s[k].find(':')) == key;
      }
      keep.push_back(!same);
      pattern.push_back(same ? first : same_key ? key + ":*" : "*");
    }
  } else {
    std::size_t common = 0;
    for (;; ++common) {
      bool same = true;
      for (std::size_t i = 0; i < n && same; ++i) {
        same = common + 1 < segs[i].size() && segs[i][common] == segs[0][common];
      }
      if (!same) break;
      pattern.push_back(segs[0][common]);
    }
    pattern.push_back("*");
  }
  if (pattern.size() == 1 ||
      static_cast<std::size_t>(std::count(pattern.begin(), pattern.end(), "*")) == pattern.size()) {
    return out;  // nothing shared: names as they are
  }
  const auto build = [&](std::size_t i, bool short_numbers) {
    std::vector<std::string> parts;
    const std::size_t from = same_shape ? 0 : pattern.size() - 1;
    for (std::size_t k = from; k < segs[i].size(); ++k) {
      if (same_shape && !keep[k]) continue;
      parts.push_back(short_numbers ? svg::shorten_segment(segs[i][k]) : segs[i][k]);
    }
    return join(parts, "/");
  };
  for (bool short_numbers : {true, false}) {
    std::set<std::string> seen;
    std::vector<std::string> shortened;
    for (std::size_t i = 0; i < n; ++i) {
      shortened.push_back(build(i, short_numbers));
      seen.insert(shortened.back());
    }
    if (seen.size() != n) continue;  // two names differ only in what was dropped
    for (std::size_t i = 0; i < n; ++i) out.name[unique[i]] = shortened[i];
    out.pattern = join(pattern, "/");
    return out;
  }
  return out;
}

}  // namespace gpubench::compare
