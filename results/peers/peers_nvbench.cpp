// nvbench's --json file and its markdown tables (peers_nvbench.hpp).
//
// One state (a benchmark at one point of its axes on one device) becomes
// nvbench/<benchmark>/<axis>:<value>.../device:<D> (names and values lower-case, '/', ':' and
// spaces as '_'), with the summaries nvbench computed:
//   nv/cold/time/gpu/mean            gpu_time_us        (primary, lower; also the entry's time)
//   nv/cold/time/cpu/mean            cpu_time_us
//   nv/batch/time/gpu/mean           batch_gpu_time_us
//   nv/cold/time/gpu/stdev/relative  noise_pct          (parameter: how noisy, not how fast)
//   nv/cold/bw/global/bytes_per_second  GB_per_s        (decimal GB)
//   nv/cold/bw/item_rate             elements_per_s
// nvbench's times are seconds in the JSON; the markdown prints "25.321 us", "1.234 ms".
// A skipped state is an entry with its skip reason. Where a state names its sample file
// ("nv/json/bin:nv/cold/sample_times": float32 seconds, little-endian) and the file lies next
// to the JSON, its samples become the state's repetitions (gpu_time_us each) and the summaries
// an aggregate "mean" entry beside them; where it is not there, the summaries alone are stored
// and the context says how many sample files were missing (peer.sample_files).
#include "results/peers/peers_nvbench.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "results/peers/peers_reading.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

namespace {

using namespace reading;
using nlohmann::json;

constexpr std::string_view k_format = "nvbench";

// A name part: lower-case, with the characters that separate parts ('/', ':') and blanks as '_'.
std::string part(std::string_view text) {
  std::string out;
  for (char c : to_lower(trim(text))) {
    if (c == '/' || c == ':' || c == ' ' || c == '\t' || c == '(' || c == ')' || c == '=') {
      if (!out.empty() && out.back() != '_') out += '_';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

json metrics_json() {
  json m = json::array();
  m.push_back(metric("gpu_time_us", "us", "lower",
                     "nvbench's mean isolated GPU time of the kernel (CUDA events, cold cache)",
                     "primary"));
  m.push_back(metric("cpu_time_us", "us", "lower",
                     "nvbench's mean isolated time measured on the host", "secondary"));
  m.push_back(metric("batch_gpu_time_us", "us", "lower",
                     "nvbench's mean GPU time per launch in a batch of back-to-back launches",
                     "secondary"));
  m.push_back(metric("noise_pct", "%", "lower",
                     "relative standard deviation of the isolated GPU times", "parameter"));
  m.push_back(metric("GB_per_s", "GB/s", "higher",
                     "global memory bytes read and written per second, as the benchmark declared "
                     "them",
                     "secondary"));
  m.push_back(metric("elements_per_s", "elements/s", "higher",
                     "elements processed per second, as the benchmark declared them", "secondary"));
  return m;
}

// ---- JSON ----------------------------------------------------------------------------------

struct JsonReader {
  std::string source;
  std::filesystem::path dir;  // where sample files are looked for
  json doc = new_document("nvbench", "nvbench");
  int states = 0;
  int measured = 0;
  int sample_files_read = 0;
  int sample_files_missing = 0;
  std::string first_missing;

  [[noreturn]] void bad(const std::string& where, const std::string& expected, const json& found) {
    refuse(source, k_format, 0, expected + " at " + where, found.dump().substr(0, 120));
  }

  // The "value" of a summary's data, a number written as a string ("0.0010094458717434867").
  double value_of(const json& summary, const std::string& where) {
    auto data = summary.find("data");
    if (data == summary.end() || !data->is_array()) bad(where, "a \"data\" array", summary);
    for (const json& d : *data) {
      if (d.value("name", std::string()) != "value") continue;
      const json& v = d.contains("value") ? d["value"] : json();
      std::optional<double> n;
      if (v.is_string()) n = number(v.get<std::string>());
      if (v.is_number()) n = v.get<double>();
      if (!n) bad(where, "a number as the summary's \"value\"", d);
      return *n;
    }
    bad(where, "a data entry named \"value\"", summary);
  }

  std::string data_string(const json& summary, const char* name) {
    if (!summary.contains("data") || !summary["data"].is_array()) return {};
    for (const json& d : summary["data"]) {
      if (d.value("name", std::string()) == name && d.contains("value")) {
        return d["value"].is_string() ? d["value"].get<std::string>() : d["value"].dump();
      }
    }
    return {};
  }

  // float32 seconds, little-endian; nullopt when absent or not `count` values long.
  std::optional<std::vector<double>> read_samples(const std::string& filename, long long count) {
    if (dir.empty() || filename.empty() || count <= 0) return std::nullopt;
    std::filesystem::path p(filename);
    std::error_code ec;
    if (p.is_relative()) {
      // Current nvbench writes the path relative to the JSON's directory
      // ("result.json-bin/0.bin"); older versions wrote it as given on the command line
      // ("out/result.json-bin/0.bin"), whose last two parts lie next to the JSON.
      const std::filesystem::path written = p;
      p = dir / written;
      if (!std::filesystem::is_regular_file(p, ec) && written.has_parent_path()) {
        p = dir / written.parent_path().filename() / written.filename();
      }
    }
    if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
    if (std::filesystem::file_size(p, ec) != static_cast<std::uintmax_t>(count) * 4) {
      return std::nullopt;
    }
    std::ifstream in(p, std::ios::binary);
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(count));
    for (long long k = 0; k < count; ++k) {
      unsigned char b[4];
      if (!in.read(reinterpret_cast<char*>(b), 4)) return std::nullopt;
      const std::uint32_t bits =
          static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
          (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
      float f = 0;
      std::memcpy(&f, &bits, sizeof f);
      out.push_back(static_cast<double>(f));
    }
    return out;
  }

  void read_state(const std::string& bench, const json& st, const std::string& where) {
    ++states;
    const std::string state_name = st.value("name", std::string());
    // The device: "device" (nvbench 0.1 on), else "Device=<n>" in the state's name.
    std::string device;
    if (st.contains("device") && st["device"].is_number_integer()) {
      device = std::to_string(st["device"].get<long long>());
    } else if (const std::size_t at = state_name.find("Device="); at != std::string::npos) {
      device = std::string(fields(std::string_view(state_name).substr(at + 7)).at(0));
    }
    std::string name = "nvbench/" + part(bench);
    if (st.contains("axis_values") && st["axis_values"].is_array()) {
      for (const json& a : st["axis_values"]) {
        const std::string value = a.contains("value") && a["value"].is_string()
                                      ? a["value"].get<std::string>()
                                  : a.contains("value") ? a["value"].dump()
                                                        : std::string();
        name += "/" + part(a.value("name", std::string("axis"))) + ":" + part(value);
      }
    }
    if (!device.empty()) name += "/device:" + part(device);
    if (st.value("is_skipped", false)) {
      doc["benchmarks"].push_back(
          not_measured(name, "skipped: " + st.value("skip_reason", std::string("by nvbench"))));
      return;
    }
    json counters = json::object();
    std::string sample_file;
    long long sample_count = 0;
    if (st.contains("summaries") && st["summaries"].is_array()) {
      const json& summaries = st["summaries"];
      for (std::size_t k = 0; k < summaries.size(); ++k) {
        const json& s = summaries[k];
        const std::string tag = s.value("tag", std::string());
        const std::string at = where + ".summaries[" + std::to_string(k) + "] ('" + tag + "')";
        if (tag == "nv/cold/time/gpu/mean") counters["gpu_time_us"] = value_of(s, at) * 1e6;
        if (tag == "nv/cold/time/cpu/mean") counters["cpu_time_us"] = value_of(s, at) * 1e6;
        if (tag == "nv/batch/time/gpu/mean") {
          counters["batch_gpu_time_us"] = value_of(s, at) * 1e6;
        }
        if (tag == "nv/cold/time/gpu/stdev/relative") {
          counters["noise_pct"] = value_of(s, at) * 100;
        }
        if (tag == "nv/cold/bw/global/bytes_per_second") {
          counters["GB_per_s"] = value_of(s, at) / 1e9;
        }
        if (tag == "nv/cold/bw/item_rate") counters["elements_per_s"] = value_of(s, at);
        if (tag == "nv/json/bin:nv/cold/sample_times") {
          sample_file = data_string(s, "filename");
          sample_count = integer(data_string(s, "size")).value_or(0);
        }
      }
    }
    if (counters.empty()) {
      doc["benchmarks"].push_back(not_measured(
          name,
          "skipped: nvbench wrote none of the summaries this import reads (GPU, CPU or "
          "batch time, bandwidth, element rate)"));
      return;
    }
    ++measured;
    const double time_us = counters.value("gpu_time_us", 0.0);
    std::optional<std::vector<double>> samples;
    if (!sample_file.empty()) {
      samples = read_samples(sample_file, sample_count);
      if (samples) {
        ++sample_files_read;
      } else {
        ++sample_files_missing;
        if (first_missing.empty()) first_missing = sample_file;
      }
    }
    if (!samples) {
      json e = iteration(name, counters, 1, 0, time_us);
      if (counters.contains("cpu_time_us")) e["cpu_time"] = counters["cpu_time_us"];
      doc["benchmarks"].push_back(e);
      return;
    }
    const long long n = static_cast<long long>(samples->size());
    for (long long k = 0; k < n; ++k) {
      const double us = (*samples)[static_cast<std::size_t>(k)] * 1e6;
      doc["benchmarks"].push_back(iteration(name, {{"gpu_time_us", us}}, n, k, us));
    }
    json mean = iteration(name, counters, n, 0, time_us);
    mean["run_type"] = "aggregate";
    mean["aggregate_name"] = "mean";
    mean.erase("repetition_index");
    doc["benchmarks"].push_back(mean);
  }

  void read(const json& root) {
    json& ctx = doc["context"];
    if (root.contains("meta") && root["meta"].is_object()) {
      const json& meta = root["meta"];
      if (meta.contains("argv") && meta["argv"].is_array()) {
        std::vector<std::string> argv;
        for (const json& a : meta["argv"])
          argv.push_back(a.is_string() ? a.get<std::string>() : a.dump());
        ctx["peer.command"] = join(argv, " ");
      }
      const json v = meta.value("version", json::object()).value("nvbench", json::object());
      if (v.contains("string") && v["string"].is_string()) {
        std::string version = v["string"].get<std::string>();
        if (v.contains("git_version") && v["git_version"].is_string()) {
          version += " (" + v["git_version"].get<std::string>() + ")";
        }
        ctx["peer.version"] = version;
      }
    }
    json devs = json::array();
    if (root.contains("devices") && root["devices"].is_array()) {
      for (const json& d : root["devices"]) {
        json e = json::object();
        if (d.contains("id") && d["id"].is_number_integer()) e["index"] = d["id"];
        if (d.contains("name") && d["name"].is_string()) e["name"] = d["name"];
        devs.push_back(e);
      }
    }
    set_devices(doc, devs);
    set_metrics(doc, metrics_json());
    const json& benches = root["benchmarks"];
    for (std::size_t b = 0; b < benches.size(); ++b) {
      const json& bench = benches[b];
      const std::string where = "benchmarks[" + std::to_string(b) + "]";
      if (!bench.is_object() || !bench.contains("name") || !bench["name"].is_string()) {
        bad(where, "a benchmark with a \"name\"", bench);
      }
      if (!bench.contains("states") || !bench["states"].is_array()) {
        bad(where, "a \"states\" array", bench);
      }
      const json& st = bench["states"];
      for (std::size_t s = 0; s < st.size(); ++s) {
        read_state(bench["name"].get<std::string>(), st[s],
                   where + ".states[" + std::to_string(s) + "]");
      }
    }
    if (sample_files_read + sample_files_missing > 0) {
      std::string note = std::to_string(sample_files_read) + " read";
      if (sample_files_missing > 0) {
        note += ", " + std::to_string(sample_files_missing) + " not next to the file (e.g. " +
                first_missing + "): summaries only";
      }
      ctx["peer.sample_files"] = note;
    }
  }
};

// ---- markdown ------------------------------------------------------------------------------

// "25.321 us" -> 25.321, "1.234 ms" -> 1234: microseconds.
std::optional<double> duration_us(std::string_view cell) {
  const std::vector<std::string_view> f = fields(cell);
  if (f.size() != 2) return std::nullopt;
  std::optional<double> v = number(f[0]);
  if (!v) return std::nullopt;
  if (f[1] == "s") return *v * 1e6;
  if (f[1] == "ms") return *v * 1e3;
  if (f[1] == "us") return *v;
  if (f[1] == "ns") return *v * 1e-3;
  return std::nullopt;
}

// "82.778 GB/s" -> 82.778 (decimal GB/s).
std::optional<double> rate_gb_per_s(std::string_view cell) {
  const std::vector<std::string_view> f = fields(cell);
  if (f.size() != 2) return std::nullopt;
  std::optional<double> v = number(f[0]);
  if (!v) return std::nullopt;
  for (auto [unit, scale] :
       {std::pair{"PB/s", 1e6}, std::pair{"TB/s", 1e3}, std::pair{"GB/s", 1.0},
        std::pair{"MB/s", 1e-3}, std::pair{"KB/s", 1e-6}, std::pair{"B/s", 1e-9}}) {
    if (f[1] == unit) return *v * scale;
  }
  return std::nullopt;
}

// "10.347G" -> 1.0347e10 elements per second.
std::optional<double> item_rate(std::string_view cell) {
  cell = trim(cell);
  double scale = 1;
  if (!cell.empty()) {
    switch (cell.back()) {
      case 'P':
        scale = 1e15;
        break;
      case 'T':
        scale = 1e12;
        break;
      case 'G':
        scale = 1e9;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'K':
        scale = 1e3;
        break;
      default:
        break;
    }
    if (scale != 1) cell.remove_suffix(1);
  }
  std::optional<double> v = number(cell);
  if (!v) return std::nullopt;
  return *v * scale;
}

std::vector<std::string_view> cells(std::string_view row) {
  row = trim(row);
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = row.find('|', start);
    out.push_back(trim(row.substr(start, bar == std::string_view::npos ? row.npos : bar - start)));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

PeerDocument parse_markdown(std::string_view text, const std::string& source) {
  json doc = new_document("nvbench", "nvbench");
  json devs = json::array();
  std::string bench;
  std::string device;
  int values = 0;
  bool in_results = false;
  const std::vector<Line> lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i].text);
    if (line == "# Benchmark Results") {
      in_results = true;
    } else if (starts_with(line, "## [") && !in_results) {
      // "## [0] `NVIDIA GPU`" in "# Devices"
      const std::size_t close = line.find(']');
      std::optional<long long> index = integer(line.substr(4, close - 4));
      std::string name(trim(line.substr(close + 1)));
      if (name.size() >= 2 && name.front() == '`' && name.back() == '`') {
        name = name.substr(1, name.size() - 2);
      }
      if (index) devs.push_back({{"index", *index}, {"name", name}});
    } else if (in_results && starts_with(line, "## ")) {
      bench = std::string(trim(line.substr(3)));
      device.clear();
    } else if (in_results && starts_with(line, "### [")) {
      const std::size_t close = line.find(']');
      device = std::string(line.substr(5, close - 5));
    } else if (in_results && starts_with(line, "|")) {
      if (bench.empty()) {
        refuse(source, k_format, lines[i].number, "'## <benchmark>' before its table", line);
      }
      const std::vector<std::string_view> header = cells(line);
      ++i;
      if (i >= lines.size() || !starts_with(trim(lines[i].text), "|-")) {
        refuse(source, k_format, i < lines.size() ? lines[i].number : lines[i - 1].number,
               "the table's '|---|' line under its header", i < lines.size() ? lines[i].text : "");
      }
      // Axis columns come before the first summary column ("Samples", a time, a rate).
      std::size_t first_summary = header.size();
      for (std::size_t c = 0; c < header.size(); ++c) {
        if (header[c] == "Samples" || header[c] == "CPU Time" || header[c] == "GPU Time" ||
            header[c] == "Batch GPU") {
          first_summary = c;
          break;
        }
      }
      int rows = 0;
      for (++i; i < lines.size() && starts_with(trim(lines[i].text), "|"); ++i) {
        const std::vector<std::string_view> row = cells(lines[i].text);
        if (row.size() != header.size()) {
          refuse(source, k_format, lines[i].number,
                 std::to_string(header.size()) + " cells, one per header column", lines[i].text);
        }
        std::string name = "nvbench/" + part(bench);
        for (std::size_t c = 0; c < first_summary; ++c) {
          std::string_view v = row[c];
          if (const std::size_t eq = v.find(" = "); eq != std::string_view::npos) {
            v = v.substr(eq + 3);  // power-of-two axes: "2^8 = 256"
          }
          name += "/" + part(header[c]) + ":" + part(v);
        }
        if (!device.empty()) name += "/device:" + part(device);
        json counters = json::object();
        std::string previous;
        for (std::size_t c = first_summary; c < header.size(); ++c) {
          const std::string h(header[c]);
          auto need = [&](std::optional<double> v, const char* what) {
            if (!v) {
              refuse(source, k_format, lines[i].number,
                     std::string(what) + " in column '" + h + "'", lines[i].text);
            }
            return *v;
          };
          if (h == "GPU Time") counters["gpu_time_us"] = need(duration_us(row[c]), "a time");
          if (h == "CPU Time") counters["cpu_time_us"] = need(duration_us(row[c]), "a time");
          if (h == "Batch GPU") {
            counters["batch_gpu_time_us"] = need(duration_us(row[c]), "a time");
          }
          if (h == "Noise" && previous == "GPU Time") {
            std::string_view pct = row[c];
            if (!pct.empty() && pct.back() == '%') pct.remove_suffix(1);
            counters["noise_pct"] = need(number(pct), "a percentage");
          }
          if (h == "GlobalMem BW") counters["GB_per_s"] = need(rate_gb_per_s(row[c]), "a rate");
          if (h == "Elem/s") counters["elements_per_s"] = need(item_rate(row[c]), "a rate");
          previous = h;
        }
        if (counters.empty()) {
          refuse(source, k_format, lines[i].number,
                 "a 'GPU Time', 'CPU Time' or 'Batch GPU' column", line);
        }
        const double time_us = counters.value("gpu_time_us", 0.0);
        doc["benchmarks"].push_back(iteration(name, counters, 1, 0, time_us));
        ++rows;
        ++values;
      }
      if (rows == 0) {
        refuse(source, k_format, i < lines.size() ? lines[i].number : lines.back().number,
               "a row of the table under '" + std::string(line) + "' (the table is cut)",
               i < lines.size() ? lines[i].text : "");
      }
      --i;
    }
  }
  if (values == 0) refuse(source, k_format, 0, "'# Benchmark Results' with a table", "");
  set_devices(doc, devs);
  set_metrics(doc, metrics_json());
  PeerDocument out;
  out.format = std::string(k_format);
  out.document = std::move(doc);
  return out;
}

bool looks_like_json(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

}  // namespace

bool detect_nvbench(std::string_view head) {
  if (looks_like_json(head)) {
    return contains(head, "\"benchmarks\"") && contains(head, "\"states\"") &&
           (contains(head, "\"summaries\"") || contains(head, "\"axis_values\""));
  }
  return contains(head, "# Benchmark Results") ||
         (contains(head, "| GPU Time") && contains(head, "| Samples"));
}

PeerDocument parse_nvbench(std::string_view text, const std::string& source) {
  if (!looks_like_json(text)) return parse_markdown(text, source);
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("benchmarks") ||
      !root["benchmarks"].is_array()) {
    refuse(source, k_format, 0, "a JSON object with a \"benchmarks\" array (nvbench --json)",
           text.substr(0, 80));
  }
  JsonReader r;
  r.source = source;
  std::error_code ec;
  if (!source.empty() && std::filesystem::is_regular_file(source, ec)) {
    r.dir = std::filesystem::path(source).parent_path();
    if (r.dir.empty()) r.dir = ".";
  }
  r.read(root);
  if (r.measured == 0) {
    refuse_nothing_measured(source, k_format,
                            std::to_string(r.states) +
                                " state(s), every one skipped or "
                                "without a time");
  }
  PeerDocument out;
  out.format = std::string(k_format);
  out.document = std::move(r.doc);
  return out;
}

}  // namespace gpubench::results::peers
