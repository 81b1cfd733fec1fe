// Acceptance output: text for people, JSON with every figure, JUnit (one case per GPU and
// benchmark, failures for what did not pass). Run problems (failed run or suite) come first in
// every format.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compare/accept/accept.hpp"
#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

std::string device_text(const Key& key, const std::string& uuid, const std::string& bus) {
  if (key.device == "host" || key.device.empty()) return "host";
  return key.device + " (" + (uuid.empty() ? "uuid unknown" : uuid) + ", bus " +
         (bus.empty() ? "unknown" : bus) + ")";
}

std::string verdict_line(const AcceptResult& r) {
  std::string line =
      "accept " + r.run_selection + " against " + r.reference + ": " +
      (r.passed() ? "PASS" : "FAIL") + " (" + std::to_string(r.count(CheckOutcome::pass)) +
      " pass, " + std::to_string(r.count(CheckOutcome::marginal)) + " marginal, " +
      std::to_string(r.count(CheckOutcome::fail)) + " fail of " + std::to_string(r.checks.size()) +
      " checks; " + std::to_string(r.outliers.size()) + " sibling outlier(s), " +
      std::to_string(r.missing.size()) + " missing" +
      (r.hardware.empty() ? ""
                          : ", " + std::to_string(r.hardware.size()) + " hardware problem(s)") +
      (r.facts.failed.empty() && r.facts.passed.empty()
           ? ""
           : ", " + std::to_string(r.facts.failed.size()) + " dcgm fact(s) failed") +
      ")";
  if (!r.problems.empty()) {
    line += r.options.allow_failed ? " [run problems allowed by --allow-failed]"
                                   : " [the run did not complete cleanly]";
  }
  if (r.count(CheckOutcome::marginal) > 0) {
    line += r.options.strict ? " [--strict: marginal fails]"
                             : " [marginal does not fail; --strict makes it]";
  }
  return line;
}

// "gpu3 (GPU-..., bus 0000:9B:00.0, index 3, NVIDIA H200)": every way to find the GPU.
std::string outlier_text(const SiblingOutlier& o) {
  std::string s = device_text(o.key, o.gpu_uuid, o.pci_bus_id);
  if (!s.empty() && s.back() == ')') {
    s.pop_back();
    s += ", index " + (o.index >= 0 ? std::to_string(o.index) : std::string("unknown")) + ", " +
         o.gpu_model + ")";
  }
  return s;
}

}  // namespace

namespace {

// A check fails the acceptance: FAIL, a skip, or MARGINAL under --strict.
bool check_fails(const AcceptCheck& c, const AcceptOptions& o) {
  return c.outcome == CheckOutcome::fail || (o.strict && c.outcome == CheckOutcome::marginal);
}

// How far the run is from its reference, > 0 better (the median against the reference median or
// the spec's bound, oriented by direction); worst first sorts ascending. NaN-free: unknown is 0.
double goodness(const AcceptCheck& c) {
  if (!(c.reference > 0) || !(c.median > 0) || !std::isfinite(c.median)) return 0;
  const double r = c.median / c.reference;
  return c.direction == results::Direction::lower ? 1.0 / r - 1.0 : r - 1.0;
}

// One line per GPU that fails (failing checks, skips, sibling outliers; worst first), one per
// GPU with only MARGINAL checks, and one for all the others (issue 39: the GPU to pull is the
// first thing read).
std::vector<std::string> gpu_lines(const AcceptResult& r) {
  struct Gpu {
    std::string uuid, bus;
    std::size_t checks = 0, failing = 0, marginal = 0, outliers = 0;
  };
  std::map<std::string, Gpu, bool (*)(const std::string&, const std::string&)> gpus(
      svg::natural_less);
  for (const AcceptCheck& c : r.checks) {
    if (c.key.device.empty() || c.key.device == "host") continue;
    Gpu& g = gpus[c.key.device];
    if (g.uuid.empty()) g.uuid = c.gpu_uuid;
    if (g.bus.empty()) g.bus = c.pci_bus_id;
    ++g.checks;
    if (check_fails(c, r.options)) {
      ++g.failing;
    } else if (c.outcome == CheckOutcome::marginal) {
      ++g.marginal;
    }
  }
  for (const SiblingOutlier& o : r.outliers) {
    Gpu& g = gpus[o.key.device];
    if (g.uuid.empty()) g.uuid = o.gpu_uuid;
    if (g.bus.empty()) g.bus = o.pci_bus_id;
    ++g.outliers;
  }
  std::vector<std::string> uuids;
  for (const auto& [device, g] : gpus) {
    if (!g.uuid.empty() && g.uuid != results::k_unknown) uuids.push_back(g.uuid);
  }
  const std::map<std::string, std::string> short_uuid = short_uuids(uuids);
  std::vector<std::pair<std::size_t, std::string>> bad;  // (failing + outliers, line)
  std::vector<std::string> marginal, good;
  std::size_t good_checks = 0;
  for (const auto& [device, g] : gpus) {
    const auto it = short_uuid.find(g.uuid);
    const std::string name = device + (it == short_uuid.end() ? "" : " " + it->second) +
                             (g.bus.empty() ? "" : " (bus " + g.bus + ")");
    if (g.failing + g.outliers > 0) {
      std::vector<std::string> why;
      if (g.failing > 0) {
        why.push_back(std::to_string(g.failing) + " of " + std::to_string(g.checks) +
                      (g.checks == 1 ? " check fails" : " checks fail"));
      }
      if (g.outliers > 0) {
        why.push_back(std::to_string(g.outliers) + " sibling outlier" +
                      (g.outliers == 1 ? "" : "s"));
      }
      bad.emplace_back(g.failing + g.outliers, name + ": FAIL (" + join(why, ", ") + ")");
    } else if (g.marginal > 0) {
      marginal.push_back(name + ": MARGINAL (" + std::to_string(g.marginal) + " of " +
                         std::to_string(g.checks) + " checks; --strict fails them)");
    } else {
      good.push_back(device);
      good_checks += g.checks;
    }
  }
  std::stable_sort(bad.begin(), bad.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (const auto& [n, line] : bad) out.push_back(line);
  for (const std::string& line : marginal) out.push_back(line);
  if (!good.empty()) {
    out.push_back(std::to_string(good.size()) + (good.size() == 1 ? " GPU" : " GPUs") + " PASS (" +
                  join(good, ", ") + "; " + std::to_string(good_checks) + " checks)");
  }
  return out;
}

}  // namespace

void render_accept_text(const AcceptResult& r, std::ostream& out, Detail detail) {
  for (const auto& h : r.hardware) out << "HARDWARE " << h << '\n';
  for (const auto& p : r.problems) out << "PROBLEM " << p << '\n';
  out << verdict_line(r) << '\n';
  for (const std::string& line : gpu_lines(r)) out << "per GPU: " << line << '\n';
  std::vector<std::string> all_names;
  for (const auto& c : r.checks) all_names.push_back(c.key.benchmark);
  for (const auto& o : r.outliers) all_names.push_back(o.key.benchmark);
  const ShortNames names = short_names(all_names, Shorten::when_width_limited);
  if (!names.pattern.empty()) out << "names: " << names.pattern << " (* as in each line)\n";
  // Skipped benchmarks are grouped by reason: 83 identical lines say less than one.
  std::map<std::string, std::vector<const AcceptCheck*>> skipped;
  for (const auto& c : r.checks) {
    if (c.skipped) skipped[c.reason].push_back(&c);
  }
  for (const auto& [reason, checks] : skipped) {
    out << "  FAIL " << checks.size() << " benchmark(s) " << reason << ": "
        << text_name(checks.front()->key.benchmark) << (checks.size() > 1 ? " ..." : "") << '\n';
  }
  // Failing checks worst first, then the MARGINAL ones; each reason on its own line.
  std::vector<const AcceptCheck*> listed;
  for (const auto& c : r.checks) {
    if (!c.skipped && c.outcome != CheckOutcome::pass) listed.push_back(&c);
  }
  std::stable_sort(listed.begin(), listed.end(), [&](const AcceptCheck* a, const AcceptCheck* b) {
    const bool fa = check_fails(*a, r.options), fb = check_fails(*b, r.options);
    if (fa != fb) return fa;
    return goodness(*a) < goodness(*b);
  });
  for (const AcceptCheck* c : listed) {
    out << "  " << to_string(c->outcome) << ' ' << names.name.at(c->key.benchmark) << ' '
        << c->key.metric << " on " << device_text(c->key, c->gpu_uuid, c->pci_bus_id) << ": "
        << format_value(c->median) << ' ' << c->unit << '\n'
        << "      " << c->reason << '\n';
  }
  for (const auto& o : r.outliers) {
    out << "  OUTLIER " << outlier_text(o) << " on " << names.name.at(o.key.benchmark) << " "
        << o.key.metric << ": " << format_value(o.median) << " vs "
        << format_value(o.siblings_median) << " (MAD " << format_value(o.siblings_mad)
        << ") for its " << o.siblings << " siblings of the same model ("
        << format_value(o.shortfall * 100.0) << "% worse)\n";
  }
  for (const auto& m : r.missing) {
    out << "  MISSING " << text_name(m.key.benchmark) << " " << m.key.metric << ": " << m.reason
        << '\n';
  }
  for (const auto& f : r.facts.failed) out << "  FAIL " << f << '\n';
  for (const auto& e : r.environment) out << "  ENVIRONMENT " << e << '\n';
  // Passing checks and DCGM facts (issue 40) are counted; --all lists them (issue 39).
  const std::size_t passed = r.count(CheckOutcome::pass) + r.facts.passed.size();
  if (passed == 0) return;
  if (detail == Detail::summary) {
    out << passed << (passed == 1 ? " check" : " checks") << " PASS (--all lists them)\n";
    return;
  }
  out << "passed:\n";
  for (const auto& f : r.facts.passed) out << "  PASS " << f << '\n';
  for (const auto& c : r.checks) {
    if (c.outcome != CheckOutcome::pass) continue;
    out << "  PASS " << names.name.at(c.key.benchmark) << " " << c.key.metric << " on "
        << device_text(c.key, c.gpu_uuid, c.pci_bus_id) << ": " << c.reason << '\n';
  }
}

// The one writer of the acceptance JSON (issue 27): check by check as it is produced (issue 16:
// one check per GPU and benchmark of a fleet's acceptance run), keys in the sorted order of a
// nlohmann object, so accept_json's dump(2) is the same bytes.
void render_accept_json(const AcceptResult& r, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object();
  w.key("acceptance_facts")
      .value({{"failed", r.facts.failed}, {"passed", r.facts.passed}});  // dcgm spec lines
  w.key("allow_failed").boolean(r.options.allow_failed);
  w.key("checks").begin_array();
  for (const auto& c : r.checks) {
    w.begin_object();
    w.key("benchmark").string(c.key.benchmark);
    w.key("device").string(c.key.device);
    w.key("direction").string(direction_text(c.direction));
    w.key("gpu_uuid").string(c.gpu_uuid);
    w.key("high").number(c.high);
    w.key("low").number(c.low);
    w.key("median").number(c.median);
    w.key("metric").string(c.key.metric);
    w.key("n").unsigned_integer(c.n);
    w.key("outcome").string(to_string(c.outcome));
    w.key("pass").boolean(c.outcome == CheckOutcome::pass);
    w.key("pci_bus_id").string(c.pci_bus_id);
    w.key("per_execution").boolean(c.per_execution);
    w.key("reason").string(c.reason);
    w.key("reference").number(c.reference);
    w.key("repetitions_needed").unsigned_integer(c.repetitions_needed);
    w.key("required").number(c.required);
    w.key("suite").string(c.key.suite);
    w.key("unit").string(c.unit);
    w.end_object();
  }
  w.end_array();
  w.key("counts").value({{"pass", r.count(CheckOutcome::pass)},
                         {"marginal", r.count(CheckOutcome::marginal)},
                         {"fail", r.count(CheckOutcome::fail)}});
  w.key("environment").value(r.environment);
  w.key("hardware").value(r.hardware);
  w.key("missing").begin_array();
  for (const auto& m : r.missing) {
    w.begin_object();
    w.key("benchmark").string(m.key.benchmark);
    w.key("metric").string(m.key.metric);
    w.key("reason").string(m.reason);
    w.end_object();
  }
  w.end_array();
  w.key("passed").boolean(r.passed());
  w.key("problems").value(r.problems);
  w.key("reference").string(r.reference);
  w.key("run").string(r.run_selection);
  w.key("sibling_outliers").begin_array();
  for (const auto& o : r.outliers) {
    w.begin_object();
    w.key("benchmark").string(o.key.benchmark);
    w.key("device").string(o.key.device);
    w.key("gpu_model").string(o.gpu_model);
    w.key("gpu_uuid").string(o.gpu_uuid);
    w.key("index").value(o.index);
    w.key("median").number(o.median);
    w.key("metric").string(o.key.metric);
    w.key("pci_bus_id").string(o.pci_bus_id);
    w.key("shortfall").number(o.shortfall);
    w.key("siblings").unsigned_integer(o.siblings);
    w.key("siblings_mad").number(o.siblings_mad);
    w.key("siblings_median").number(o.siblings_median);
    w.end_object();
  }
  w.end_array();
  w.key("strict").boolean(r.options.strict);
  w.key("tolerance").number(r.options.tolerance);
  w.end_object();
  w.finish();
  out << '\n';
}

void render_accept_junit(const AcceptResult& r, std::ostream& out) {
  bool problems_fail = !r.problems.empty() && !r.options.allow_failed;
  std::size_t failures = r.outliers.size() + r.missing.size() + r.problems.size() +
                         r.hardware.size() + r.facts.failed.size();
  for (const auto& c : r.checks) {
    failures +=
        c.outcome == CheckOutcome::fail || (r.options.strict && c.outcome == CheckOutcome::marginal)
            ? 1
            : 0;
  }
  if (!problems_fail) failures -= r.problems.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"gpubench accept "
      << html_escape(r.run_selection) << "\" tests=\""
      << r.checks.size() + r.outliers.size() + r.missing.size() + r.problems.size() +
             r.hardware.size() + r.facts.failed.size() + r.facts.passed.size()
      << "\" failures=\"" << failures << "\">\n";
  for (const auto& f : r.facts.failed) {
    out << "  <testcase classname=\"dcgm\" name=\"" << html_escape(f)
        << "\"><failure message=\"dcgm\">" << html_escape(f) << "</failure></testcase>\n";
  }
  for (const auto& f : r.facts.passed) {
    out << "  <testcase classname=\"dcgm\" name=\"" << html_escape(f) << "\"/>\n";
  }
  for (const auto& h : r.hardware) {
    out << "  <testcase classname=\"hardware\" name=\"" << html_escape(h)
        << "\"><failure message=\"hardware\">" << html_escape(h) << "</failure></testcase>\n";
  }
  for (const auto& p : r.problems) {
    out << "  <testcase classname=\"run\" name=\"" << html_escape(p) << "\">";
    if (problems_fail) {
      out << "<failure message=\"run problem\">" << html_escape(p) << "</failure>";
    } else {
      out << "<skipped message=\"allowed by --allow-failed\"/>";
    }
    out << "</testcase>\n";
  }
  for (const auto& c : r.checks) {
    out << "  <testcase classname=\"" << html_escape(c.key.suite) << "\" name=\""
        << html_escape(c.key.benchmark + " " + c.key.metric + " " +
                       device_text(c.key, c.gpu_uuid, c.pci_bus_id))
        << "\">";
    bool fails = c.outcome == CheckOutcome::fail ||
                 (r.options.strict && c.outcome == CheckOutcome::marginal);
    if (fails) {
      out << "<failure message=\"" << to_string(c.outcome) << "\">" << html_escape(c.reason)
          << "</failure>";
    } else if (c.outcome == CheckOutcome::marginal) {
      out << "<system-out>MARGINAL: " << html_escape(c.reason) << "</system-out>";
    }
    out << "</testcase>\n";
  }
  for (const auto& o : r.outliers) {
    out << "  <testcase classname=\"siblings\" name=\""
        << html_escape(o.key.benchmark + " " + outlier_text(o))
        << "\"><failure message=\"sibling outlier\">" << format_value(o.shortfall * 100.0)
        << "% worse than its siblings</failure></testcase>\n";
  }
  for (const auto& m : r.missing) {
    out << "  <testcase classname=\"missing\" name=\"" << html_escape(m.key.benchmark)
        << "\"><failure message=\"missing\">" << html_escape(m.reason) << "</failure></testcase>\n";
  }
  out << "</testsuite>\n";
}

nlohmann::json accept_json(const AcceptResult& r) {
  std::ostringstream text;
  render_accept_json(r, text);
  return nlohmann::json::parse(text.str());
}

}  // namespace gpubench::compare
