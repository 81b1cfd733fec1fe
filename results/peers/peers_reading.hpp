// What the readers of nvbandwidth, nvbench and the CUDA samples share: the text cut into numbered
// lines, strict numbers, the refusal that names the line and what was expected, and the pieces of
// the Google Benchmark document every reader builds (context, metrics, one entry per value).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::results::peers::reading {

struct Line {
  std::string_view text;  // without its end of line ("\n" or "\r\n")
  int number = 0;         // 1-based, as an editor shows it
};

std::vector<Line> split_lines(std::string_view text);
// Whitespace-separated fields (spaces and tabs).
std::vector<std::string_view> fields(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool contains(std::string_view text, std::string_view part);

// The whole of `text` as a number ("25.13", "1.2e-05"); nullopt for anything else ("N/A", "12x").
std::optional<double> number(std::string_view text);
std::optional<long long> integer(std::string_view text);

// Throws Error(bad_input): "cannot import SOURCE as FORMAT (line N: expected WHAT, found 'GOT';
// give the tool's whole output as it printed it, or --format to read it as another format)".
// line 0: the file as a whole ("the file: expected ...").
[[noreturn]] void refuse(const std::string& source, std::string_view format, int line,
                         const std::string& expected, std::string_view found);
// A file of the format in which nothing was measured (every testcase waived, the tool stopped
// before its first result): refused, naming what the tool said.
[[noreturn]] void refuse_nothing_measured(const std::string& source, std::string_view format,
                                          const std::string& why);

// One metric as a gpubench suite declares it in "gpubench.metrics".
nlohmann::json metric(std::string_view name, std::string_view unit, std::string_view direction,
                      std::string_view description, std::string_view role);

// {"context": {gpubench.suite, peer.tool}, "benchmarks": []}; the reader adds what the file
// states (host_name, date, versions, devices, peer.version, peer.command).
nlohmann::json new_document(std::string_view suite, std::string_view tool);
// Sets "gpubench.metrics" and "gpubench.devices" (JSON text, as suites write them).
void set_metrics(nlohmann::json& document, const nlohmann::json& metrics);
void set_devices(nlohmann::json& document, const nlohmann::json& devices);

// One "iteration" entry, `counters` as user counters. real_time and cpu_time only when a reader
// passes the tool's time (> 0 us): these tools mostly state rates, and a made-up 0 us time would
// be stored as a measured sample of real_time (ingest keeps an entry without them).
nlohmann::json iteration(const std::string& name, const nlohmann::json& counters,
                         long long repetitions = 1, long long repetition_index = 0,
                         double real_time_us = 0);
// An entry for a case the tool did not measure: error_occurred, error_message `message`
// ("skipped: <the tool's reason>").
nlohmann::json not_measured(const std::string& name, const std::string& message);

// A PCI address as cudaDeviceGetPCIBusId writes it ("0000:99:00.0"), so a peer's GPU matches a
// gpubench suite's record of it; empty when `domain`, `bus` or `device` are not hex numbers.
std::string pci_bus_id(std::string_view domain, std::string_view bus, std::string_view device);

}  // namespace gpubench::results::peers::reading
