// Acceptance output: text for people, JSON with every figure, JUnit (one case per GPU and
// benchmark, failures for what did not pass).
#include <cmath>
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/accept.hpp"
#include "compare/render.hpp"

namespace gpubench::compare {
namespace {

std::string device_text(const Key& key, const std::string& uuid, const std::string& bus) {
  if (key.device == "host") return "host";
  return key.device + " (" + (uuid.empty() ? "uuid unknown" : uuid) + ", bus " +
         (bus.empty() ? "unknown" : bus) + ")";
}

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

}  // namespace

void render_accept_text(const AcceptResult& r, std::ostream& out) {
  std::size_t failed = 0;
  for (const auto& c : r.checks) failed += c.pass ? 0 : 1;
  out << "accept " << r.run_selection << " against " << r.reference << ": "
      << (r.passed() ? "PASS" : "FAIL") << " (" << r.checks.size() - failed << " of "
      << r.checks.size() << " checks passed, " << r.outliers.size() << " sibling outlier(s), "
      << r.missing.size() << " missing)\n";
  for (const auto& c : r.checks) {
    if (c.pass) continue;
    out << "  FAIL " << c.key.benchmark << " " << c.key.metric << " on "
        << device_text(c.key, c.gpu_uuid, c.pci_bus_id) << ": median " << format_value(c.median)
        << " " << c.unit << "; " << c.reason << '\n';
  }
  for (const auto& o : r.outliers) {
    out << "  OUTLIER " << device_text(o.key, o.gpu_uuid, o.pci_bus_id) << " on " << o.key.benchmark
        << " " << o.key.metric << ": " << format_value(o.median) << " vs "
        << format_value(o.siblings_median) << " for its siblings ("
        << format_value(o.shortfall * 100.0) << "% worse)\n";
  }
  for (const auto& m : r.missing) {
    out << "  MISSING " << m.key.benchmark << " " << m.key.metric << ": " << m.reason << '\n';
  }
  std::size_t shown = 0;
  for (const auto& c : r.checks) {
    if (!c.pass) continue;
    if (shown++ == 0) out << "passed:\n";
    out << "  ok   " << c.key.benchmark << " " << c.key.metric << " on "
        << device_text(c.key, c.gpu_uuid, c.pci_bus_id) << ": " << c.reason << '\n';
  }
}

void render_accept_json(const AcceptResult& r, std::ostream& out) {
  nlohmann::json doc;
  doc["run"] = r.run_selection;
  doc["reference"] = r.reference;
  doc["passed"] = r.passed();
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    checks.push_back({{"suite", c.key.suite},
                      {"benchmark", c.key.benchmark},
                      {"metric", c.key.metric},
                      {"device", c.key.device},
                      {"gpu_uuid", c.gpu_uuid},
                      {"pci_bus_id", c.pci_bus_id},
                      {"unit", c.unit},
                      {"direction", direction_text(c.direction)},
                      {"n", c.n},
                      {"median", number(c.median)},
                      {"bound", number(c.bound)},
                      {"reference", number(c.reference)},
                      {"required", number(c.required)},
                      {"pass", c.pass},
                      {"reason", c.reason}});
  }
  doc["checks"] = checks;
  nlohmann::json outliers = nlohmann::json::array();
  for (const auto& o : r.outliers) {
    outliers.push_back({{"benchmark", o.key.benchmark},
                        {"metric", o.key.metric},
                        {"device", o.key.device},
                        {"gpu_uuid", o.gpu_uuid},
                        {"pci_bus_id", o.pci_bus_id},
                        {"median", number(o.median)},
                        {"siblings_median", number(o.siblings_median)},
                        {"shortfall", number(o.shortfall)}});
  }
  doc["sibling_outliers"] = outliers;
  nlohmann::json missing = nlohmann::json::array();
  for (const auto& m : r.missing) {
    missing.push_back(
        {{"benchmark", m.key.benchmark}, {"metric", m.key.metric}, {"reason", m.reason}});
  }
  doc["missing"] = missing;
  out << doc.dump(2) << '\n';
}

void render_accept_junit(const AcceptResult& r, std::ostream& out) {
  std::size_t failures = r.outliers.size() + r.missing.size();
  for (const auto& c : r.checks) failures += c.pass ? 0 : 1;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"gpubench accept "
      << html_escape(r.run_selection) << "\" tests=\""
      << r.checks.size() + r.outliers.size() + r.missing.size() << "\" failures=\"" << failures
      << "\">\n";
  for (const auto& c : r.checks) {
    out << "  <testcase classname=\"" << html_escape(c.key.suite) << "\" name=\""
        << html_escape(c.key.benchmark + " " + c.key.metric + " " +
                       device_text(c.key, c.gpu_uuid, c.pci_bus_id))
        << "\">";
    if (!c.pass) out << "<failure message=\"acceptance\">" << html_escape(c.reason) << "</failure>";
    out << "</testcase>\n";
  }
  for (const auto& o : r.outliers) {
    out << "  <testcase classname=\"siblings\" name=\""
        << html_escape(o.key.benchmark + " " + device_text(o.key, o.gpu_uuid, o.pci_bus_id))
        << "\"><failure message=\"sibling outlier\">" << format_value(o.shortfall * 100.0)
        << "% worse than its siblings</failure></testcase>\n";
  }
  for (const auto& m : r.missing) {
    out << "  <testcase classname=\"missing\" name=\"" << html_escape(m.key.benchmark)
        << "\"><failure message=\"missing\">" << html_escape(m.reason) << "</failure></testcase>\n";
  }
  out << "</testsuite>\n";
}

}  // namespace gpubench::compare
