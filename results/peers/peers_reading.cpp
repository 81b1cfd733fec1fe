// The pieces the nvbandwidth, nvbench and CUDA samples readers share (peers_reading.hpp).
#include "results/peers/peers_reading.hpp"

#include <cmath>
#include <cstdio>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers::reading {

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  int number = 1;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, number++});
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::optional<double> number(std::string_view text) {
  std::optional<double> v = parse_double(text);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::optional<long long> integer(std::string_view text) {
  return parse_int(text);
}

namespace {
// A line as the error quotes it: at most 80 characters, control characters as '?'.
std::string quoted(std::string_view found) {
  std::string out;
  for (char c : found.substr(0, 80)) {
    out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
  }
  if (found.size() > 80) out += "...";
  return out;
}
}  // namespace

void refuse(const std::string& source, std::string_view format, int line,
            const std::string& expected, std::string_view found) {
  std::string why = line > 0 ? "line " + std::to_string(line) + ": " : "the file: ";
  why += "expected " + expected;
  why += found.empty() ? ", found nothing" : ", found '" + quoted(found) + "'";
  throw bad_input("cannot import " + source + " as " + std::string(format), why,
                  "give the tool's whole output as it printed it, or --format to read it as "
                  "another format");
}

void refuse_nothing_measured(const std::string& source, std::string_view format,
                             const std::string& why) {
  throw bad_input("cannot import " + source + " as " + std::string(format),
                  "nothing was measured: " + why,
                  "run the tool again until it prints a result table and import that output");
}

nlohmann::json metric(std::string_view name, std::string_view unit, std::string_view direction,
                      std::string_view description, std::string_view role) {
  return {{"name", name},
          {"unit", unit},
          {"direction", direction},
          {"description", description},
          {"role", role}};
}

nlohmann::json new_document(std::string_view suite, std::string_view tool) {
  nlohmann::json doc;
  // host_name, peer.version, peer.command: set by the reader only where the file states them
  // (an unknown fact is left out, never stored as an empty string).
  doc["context"] = {{"gpubench.suite", suite}, {"peer.tool", tool}};
  doc["benchmarks"] = nlohmann::json::array();
  return doc;
}

void set_metrics(nlohmann::json& document, const nlohmann::json& metrics) {
  document["context"]["gpubench.metrics"] = metrics.dump();
}

void set_devices(nlohmann::json& document, const nlohmann::json& devices) {
  document["context"]["gpubench.devices"] = devices.dump();
}

nlohmann::json iteration(const std::string& name, const nlohmann::json& counters,
                         long long repetitions, long long repetition_index, double real_time_us) {
  nlohmann::json out = {{"name", name},
                        {"run_name", name},
                        {"run_type", "iteration"},
                        {"repetitions", repetitions},
                        {"repetition_index", repetition_index},
                        {"threads", 1},
                        {"iterations", 1},
                        {"time_unit", "us"}};
  if (real_time_us > 0) {
    out["real_time"] = real_time_us;
    out["cpu_time"] = real_time_us;
  }
  for (const auto& [key, value] : counters.items()) out[key] = value;
  return out;
}

nlohmann::json not_measured(const std::string& name, const std::string& message) {
  nlohmann::json out = iteration(name, nlohmann::json::object());
  out["error_occurred"] = true;
  out["error_message"] = message;
  return out;
}

std::string pci_bus_id(std::string_view domain, std::string_view bus, std::string_view device) {
  auto hex = [](std::string_view s) -> std::optional<unsigned long> {
    if (s.empty() || s.size() > 8) return std::nullopt;
    unsigned long v = 0;
    for (char c : s) {
      int d = (c >= '0' && c <= '9')   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<unsigned long>(d);
    }
    return v;
  };
  auto d = hex(domain), b = hex(bus), dev = hex(device);
  if (!d || !b || !dev) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lx:%02lx:%02lx.0", *d, *b, *dev);
  return buf;
}

}  // namespace gpubench::results::peers::reading
