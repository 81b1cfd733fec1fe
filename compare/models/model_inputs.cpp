// The prices and weights files of `gpubench models` (compare/models/models.hpp), and the log-scale
// arithmetic of its figures.
#include <algorithm>
#include <cmath>
#include <string>

#include "compare/models/models.hpp"
#include "compare/stats/stats.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::compare {
namespace {

double quantile(double confidence, double df) {
  const double p = (1 + confidence) / 2;
  return std::isfinite(df) ? student_t_quantile(p, df) : normal_quantile(p);
}

std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// ASCII letters upper-cased ("usd" and "USD" are one currency); other bytes as they are.
std::string to_upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

std::vector<std::string> split_on(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t at; (at = line.find(sep, from)) != std::string::npos; from = at + 1) {
    out.push_back(trimmed(line.substr(from, at - from)));
  }
  out.push_back(trimmed(line.substr(from)));
  return out;
}

// A positive finite number, or nullopt.
std::optional<double> positive(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v) && v > 0) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Lines without comments and blanks, with their 1-based numbers.
std::vector<std::pair<int, std::string>> content_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  int number = 0;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    std::string line(text.substr(from, end - from));
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    line = trimmed(line);
    if (!line.empty()) out.emplace_back(number, line);
    from = end + 1;
  }
  return out;
}

}  // namespace

double LogEstimate::low(double confidence) const {
  if (!valid() || !(var >= 0) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  return std::exp(mean_log - quantile(confidence, df) * std::sqrt(var));
}
double LogEstimate::high(double confidence) const {
  if (!valid() || !(var >= 0) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  return std::exp(mean_log + quantile(confidence, df) * std::sqrt(var));
}

LogEstimate pooled_estimate(const std::vector<double>& units,
                            const std::vector<double>& repetitions) {
  LogEstimate e;
  const bool one = units.size() == 1;
  const std::vector<double>& spread = one ? repetitions : units;
  if (units.empty()) return e;
  std::vector<double> logs;
  for (double v : spread) {
    if (v > 0) logs.push_back(std::log(v));
  }
  std::vector<double> unit_logs;
  for (double v : units) {
    if (v > 0) unit_logs.push_back(std::log(v));
  }
  if (unit_logs.size() != units.size()) return e;
  e.mean_log = mean(unit_logs);
  e.n = units.size();
  e.within_run_only = one;
  if (logs.size() < 2) {
    e.var = std::numeric_limits<double>::quiet_NaN();  // no spread to judge by
    return e;
  }
  const double resolution = log_resolution(spread, {});
  const double s = stddev(logs);
  const double s2 = std::max(s * s, resolution * resolution / 12);
  e.var = s2 / static_cast<double>(logs.size());
  e.df = static_cast<double>(logs.size() - 1);
  return e;
}

LogEstimate weighted_sum(const std::vector<std::pair<double, LogEstimate>>& terms) {
  LogEstimate e;
  if (terms.empty()) return e;
  double m = 0, var = 0, denominator = 0;
  std::size_t n = std::numeric_limits<std::size_t>::max();
  bool within = false;
  for (const auto& [w, t] : terms) {
    if (!t.valid()) return e;
    m += w * t.mean_log;
    const double part = w * w * t.var;
    var += part;
    if (std::isfinite(t.df) && t.df > 0) denominator += part * part / t.df;
    n = std::min(n, t.n);
    within = within || t.within_run_only;
  }
  e.mean_log = m;
  e.var = var;
  e.df = denominator > 0 ? var * var / denominator : std::numeric_limits<double>::infinity();
  e.n = n;
  e.within_run_only = within;
  return e;
}

std::string ratio_wording(const LogEstimate& ratio, double confidence) {
  if (!ratio.valid()) return "unknown";
  const double lo = ratio.low(confidence), hi = ratio.high(confidence);
  char text[64];
  if (std::isfinite(lo) && lo > 1) {
    std::snprintf(text, sizeof text, "%.2fx faster", ratio.value());
  } else if (std::isfinite(hi) && hi < 1) {
    std::snprintf(text, sizeof text, "%.2fx (slower)", ratio.value());
  } else {
    std::snprintf(text, sizeof text, "%.2fx (no clear difference)", ratio.value());
  }
  return text;
}

std::string advantage_text(const LogEstimate& ratio, double confidence, const std::string& model,
                           const std::string& reference, const std::string& lead,
                           const std::string& aspect) {
  if (!ratio.valid()) return aspect + ": unknown";
  const double r = ratio.value(), lo = ratio.low(confidence), hi = ratio.high(confidence);
  auto pct = [](double v, bool sign) {
    char text[32];
    std::snprintf(text, sizeof text, sign ? "%+.1f%%" : "%.1f%%", 100 * (v - 1));
    return std::string(text);
  };
  const bool interval = std::isfinite(lo) && std::isfinite(hi);
  if (interval && lo > 1) {
    return model + " " + pct(r, false) + " " + lead + " [" + pct(lo, false) + ", " +
           pct(hi, false) + "]";
  }
  if (interval && hi < 1) {
    return reference + " " + pct(1 / r, false) + " " + lead + " [" + pct(1 / hi, false) + ", " +
           pct(1 / lo, false) + "]";
  }
  if (!interval) {
    return model + " " + pct(r, true) + " " + aspect + " against " + reference +
           " (no interval: no spread to judge by)";
  }
  return "no clear difference " + aspect + " (" + model + " " + pct(r, true) + " [" +
         pct(lo, true) + ", " + pct(hi, true) + "])";
}

std::pair<std::string, double> parse_rate(const std::string& text) {
  const auto eq = text.find('=');
  const std::string example = "e.g. --currency USD --rate EUR=1.08 (1 EUR = 1.08 USD)";
  if (eq == std::string::npos || eq == 0) {
    throw bad_input("bad --rate '" + text + "'", "it is not CURRENCY=RATE", example);
  }
  const auto rate = positive(trimmed(text.substr(eq + 1)));
  if (!rate || *rate > 1e12) {
    throw bad_input("bad --rate '" + text + "'",
                    "the rate '" + text.substr(eq + 1) + "' is not a number > 0", example);
  }
  return {to_upper(trimmed(text.substr(0, eq))), *rate};
}

void convert_prices(std::vector<PriceEntry>& prices, const std::string& target_currency,
                    const CurrencyRates& rates, const std::string& file) {
  const std::string target = to_upper(target_currency);
  if (target.empty()) {
    for (const PriceEntry& p : prices) {
      if (p.currency == prices.front().currency) continue;
      // Per USD against per EUR is no comparison: a ratio of the two would be off by the rate.
      throw bad_input("mixed currencies in " + file,
                      "line " + std::to_string(prices.front().line) + " is in " +
                          prices.front().currency + ", line " + std::to_string(p.line) + " in " +
                          p.currency + ", so per-price figures would not compare",
                      "convert them: --currency " + prices.front().currency + " --rate " +
                          p.currency + "=RATE (RATE: " + prices.front().currency + " per 1 " +
                          p.currency + "), or give every price in one currency");
    }
    return;
  }
  for (PriceEntry& p : prices) {
    if (p.currency == target) continue;
    const auto rate = std::find_if(rates.begin(), rates.end(),
                                   [&](const auto& r) { return r.first == p.currency; });
    if (rate == rates.end()) {
      throw bad_input(
          "no rate for " + p.currency + " (" + file + ":" + std::to_string(p.line) + ")",
          "--currency " + target + " converts every price, and " + p.currency + " has no --rate",
          "add --rate " + p.currency + "=RATE (RATE: " + target + " per 1 " + p.currency + ")");
    }
    p.written_price = p.price;
    p.written_currency = p.currency;
    p.rate = rate->second;
    p.price *= rate->second;
    p.currency = target;
  }
}

std::vector<PriceEntry> parse_prices(std::string_view text, const std::string& file) {
  check_utf8(text, "prices file '" + file + "'");
  // A spreadsheet's "CSV UTF-8" starts with a byte order mark: not part of the header.
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);
  std::vector<PriceEntry> out;
  const std::string example = "e.g. 'H100,25000,USD' or 'H200,32000,USD,700'";
  for (const auto& [number, line] : content_lines(text)) {
    const std::string where = file + ":" + std::to_string(number);
    const std::vector<std::string> f = split_on(line, ',');
    if (out.empty() && to_lower(f[0]) == "model") continue;  // header
    if (f.size() < 3 || f.size() > 4) {
      throw bad_input("bad prices line " + where,
                      "'" + line + "' has " + std::to_string(f.size()) +
                          " fields, expected model,price,currency[,power_w]",
                      example);
    }
    if (f[0].empty()) throw bad_input("bad prices line " + where, "the model is empty", example);
    const auto price = positive(f[1]);
    if (!price) {
      throw bad_input("bad prices line " + where, "price '" + f[1] + "' is not a number > 0",
                      example);
    }
    if (f[2].empty()) throw bad_input("bad prices line " + where, "the currency is empty", example);
    std::optional<double> power_w;
    if (f.size() == 4 && !f[3].empty()) {
      power_w = positive(f[3]);
      if (!power_w) {
        throw bad_input("bad prices line " + where, "power_w '" + f[3] + "' is not watts > 0",
                        example);
      }
    }
    PriceEntry p{f[0], *price, to_upper(f[2]), power_w, number, std::nullopt, "", 1};
    for (const PriceEntry& other : out) {
      if (to_lower(other.model) == to_lower(p.model)) {
        throw bad_input("bad prices line " + where,
                        "model '" + p.model + "' is priced again (first on line " +
                            std::to_string(other.line) + ")",
                        "keep one price per model");
      }
    }
    out.push_back(p);
  }
  if (out.empty()) {
    throw bad_input("no prices in " + file, "it has no model,price,currency line", example);
  }
  return out;
}

const PriceEntry* find_price(const std::vector<PriceEntry>& prices, const std::string& gpu_model) {
  const PriceEntry* best = nullptr;
  const std::string name = to_lower(gpu_model);
  for (const PriceEntry& p : prices) {
    if (name.find(to_lower(p.model)) != std::string::npos &&
        (!best || p.model.size() > best->model.size())) {
      best = &p;
    }
  }
  return best;
}

std::vector<WeightEntry> parse_weights(std::string_view text, const std::string& file) {
  check_utf8(text, "weights file '" + file + "'");
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);
  std::vector<WeightEntry> out;
  const std::string example = "e.g. 'gemm/*/dtype:bf16/m:8192/* 70' or 'allreduce 20'";
  for (const auto& [number, line] : content_lines(text)) {
    const std::string where = file + ":" + std::to_string(number);
    const auto space = line.find_last_of(" \t");
    if (space == std::string::npos) {
      throw bad_input("bad weights line " + where, "'" + line + "' has no weight", example);
    }
    WeightEntry w;
    w.pattern = trimmed(line.substr(0, space));
    w.line = number;
    // A pattern holds no blank (issue 43: 'memory 1 2' became the pattern 'memory 1').
    if (w.pattern.find_first_of(" \t") != std::string::npos) {
      throw bad_input("bad weights line " + where,
                      "'" + line + "' has more than two fields, expected PATTERN WEIGHT", example);
    }
    const auto weight = positive(line.substr(space + 1));
    if (!weight) {
      throw bad_input("bad weights line " + where,
                      "weight '" + line.substr(space + 1) + "' is not a number > 0", example);
    }
    // Weights are relative: beyond 1e9 times another they are no longer a mix, and their sum
    // must stay finite (1e308 twice overflowed to a meaningless composite).
    if (*weight > k_max_weight) {
      throw bad_input(
          "bad weights line " + where,
          "weight '" + line.substr(space + 1) + "' is above 1e9 (weights are relative shares)",
          example);
    }
    w.weight = *weight;
    for (const WeightEntry& other : out) {
      if (other.pattern == w.pattern) {
        throw bad_input("bad weights line " + where,
                        "pattern '" + w.pattern + "' is weighted again (first on line " +
                            std::to_string(other.line) + ")",
                        "keep one weight per pattern");
      }
    }
    out.push_back(w);
  }
  if (out.empty())
    throw bad_input("no weights in " + file, "it has no PATTERN WEIGHT line", example);
  double total = 0;
  for (const WeightEntry& w : out) total += w.weight;
  for (WeightEntry& w : out) w.weight /= total;
  return out;
}

}  // namespace gpubench::compare
