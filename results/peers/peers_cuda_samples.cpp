// The CUDA samples' bandwidthTest and p2pBandwidthLatencyTest text (peers_cuda_samples.hpp).
//
// bandwidthTest prints, per direction and memory kind,
//    Host to Device Bandwidth, 1 Device(s)
//    PINNED Memory Transfers
//      Transfer Size (Bytes)  Bandwidth(GB/s)
//      32000000               24.5
// ("Bandwidth(MB/s)" up to CUDA 10: MiB/s, 2^20 bytes per second, converted to decimal GB/s
// here), or with --csv one line per size ("bandwidthTest-H2D-Pinned, Bandwidth = 12.4 GB/s,
// Time = 0.00081 s, Size = 10000000 bytes, NumDevsUsed = 1"). A value becomes
// bandwidthTest/<h2d|d2h|d2d>/memory:<pinned|pageable>/bytes:<N>/device:<D>, metric GB_per_s;
// D is the device it ran on, or "all" where it summed several (--device=all).
//
// p2pBandwidthLatencyTest prints square matrices, rows and columns being CUDA devices:
//    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)   row i writes to column j
//    Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)                i and j copy both ways
//    P2P=Enabled Latency (P2P Writes) Matrix (us)                      a "GPU" and a "CPU" part
// ("P2P Reads": column j is read by row i, so the source is j). A value becomes
// p2pBandwidthLatencyTest/<unidirectional|bidirectional|latency_gpu|latency_cpu>/
// p2p:<enabled|disabled>/src:<i>/dst:<j>, metric GB_per_s or latency_us; the diagonal (a GPU
// with itself) is kept, it is the device-local copy.
#include "results/peers/peers_cuda_samples.hpp"

#include <optional>

#include "results/peers/peers_reading.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

namespace {

using namespace reading;
using nlohmann::json;

// ---- bandwidthTest -------------------------------------------------------------------------

constexpr std::string_view k_bw = "bandwidthTest";

// MiB/s (bandwidthTest's "MB/s": 1e3 * bytes / (ms * 2^20)) as decimal GB/s.
constexpr double k_mib_per_s_in_gb_per_s = 1048576.0 / 1e9;

std::string direction_of(std::string_view line) {
  if (starts_with(line, "Host to Device")) return "h2d";
  if (starts_with(line, "Device to Host")) return "d2h";
  if (starts_with(line, "Device to Device")) return "d2d";
  return {};
}

// "bandwidthTest-H2D-Pinned, Bandwidth = 0.4 GB/s, Time = 0.00000 s, Size = 1000 bytes,
// NumDevsUsed = 1": direction, memory, GB/s, bytes, devices; nullopt if any part is missing.
struct CsvLine {
  std::string direction, memory;
  double gb_per_s = 0;
  long long bytes = 0;
  long long devices = 1;
};

std::optional<CsvLine> csv_line(std::string_view line) {
  const std::vector<std::string> parts = split(line, ',');
  if (parts.size() < 4) return std::nullopt;
  const std::vector<std::string> tag = split(trim(parts[0]), '-');
  if (tag.size() != 3 || tag[0] != "bandwidthTest") return std::nullopt;
  CsvLine out;
  out.direction = to_lower(tag[1]);
  out.memory = to_lower(tag[2]);
  if (out.direction != "h2d" && out.direction != "d2h" && out.direction != "d2d") {
    return std::nullopt;
  }
  bool have_bw = false, have_size = false;
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::vector<std::string_view> f = fields(parts[k]);
    if (f.size() >= 3 && f[0] == "Bandwidth" && f[1] == "=") {
      std::optional<double> v = number(f[2]);
      if (!v || f.size() < 4) return std::nullopt;
      out.gb_per_s = f[3] == "MB/s" ? *v * k_mib_per_s_in_gb_per_s : *v;
      have_bw = f[3] == "GB/s" || f[3] == "MB/s";
    } else if (f.size() >= 3 && f[0] == "Size" && f[1] == "=") {
      std::optional<long long> v = integer(f[2]);
      if (!v) return std::nullopt;
      out.bytes = *v;
      have_size = true;
    } else if (f.size() >= 3 && f[0] == "NumDevsUsed" && f[1] == "=") {
      out.devices = integer(f[2]).value_or(1);
    }
  }
  if (!have_bw || !have_size) return std::nullopt;
  return out;
}

}  // namespace

bool detect_bandwidth_test(std::string_view head) {
  return contains(head, "[CUDA Bandwidth Test]") ||
         (contains(head, "Transfer Size (Bytes)") && contains(head, "Bandwidth(")) ||
         contains(head, "bandwidthTest-H2D-") || contains(head, "bandwidthTest-D2H-") ||
         contains(head, "bandwidthTest-D2D-");
}

PeerDocument parse_bandwidth_test(std::string_view text, const std::string& source) {
  json doc = new_document("bandwidthTest", "bandwidthTest");
  json& ctx = doc["context"];
  json devs = json::array();
  std::string direction, memory;
  long long devices_in_use = 1;
  int values = 0;
  std::string result;
  std::vector<std::string> errors;
  auto device_part = [&](long long in_use) {
    if (in_use > 1 || devs.size() != 1) return std::string(in_use > 1 ? "all" : "0");
    return std::to_string(devs[0]["index"].get<long long>());
  };
  auto add = [&](const std::string& dir, const std::string& mem, long long bytes, double gbs,
                 long long in_use) {
    const std::string name = "bandwidthTest/" + dir + "/memory:" + mem +
                             "/bytes:" + std::to_string(bytes) + "/device:" + device_part(in_use);
    doc["benchmarks"].push_back(iteration(name, {{"GB_per_s", gbs}}));
    ++values;
  };
  const std::vector<Line> lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (contains(line, "$ ") && contains(line.substr(line.rfind("$ ")), "bandwidthTest")) {
      // The prompt line with the command ("user@host:dir$ ./bandwidthTest --mode=range").
      ctx["peer.command"] = std::string(trim(line.substr(line.rfind("$ ") + 2)));
    } else if (starts_with(line, "Device ") && contains(line, ":") &&
               !contains(line, "Bandwidth")) {
      const std::size_t colon = line.find(':');
      std::optional<long long> index = integer(trim(line.substr(7, colon - 7)));
      if (!index) refuse(source, k_bw, lines[i].number, "'Device <n>: <name>'", raw);
      devs.push_back({{"index", *index}, {"name", std::string(trim(line.substr(colon + 1)))}});
    } else if (std::string d = direction_of(line); !d.empty() && contains(line, "Bandwidth,")) {
      direction = d;
      // "Host to Device Bandwidth, 1 Device(s)"
      const std::vector<std::string_view> f = fields(line.substr(line.find(',') + 1));
      devices_in_use = f.empty() ? 1 : integer(f[0]).value_or(1);
    } else if (contains(line, "Memory Transfers")) {
      memory = to_lower(fields(line).at(0));
      if (memory != "pinned" && memory != "pageable") {
        refuse(source, k_bw, lines[i].number, "'PINNED' or 'PAGEABLE Memory Transfers'", raw);
      }
    } else if (starts_with(line, "Transfer Size (Bytes)")) {
      const bool mib = contains(line, "(MB/s)");
      if (!mib && !contains(line, "(GB/s)")) {
        refuse(source, k_bw, lines[i].number, "'Bandwidth(GB/s)' or 'Bandwidth(MB/s)'", raw);
      }
      if (direction.empty() || memory.empty()) {
        refuse(source, k_bw, lines[i].number,
               "'<direction> Bandwidth, N Device(s)' and '<memory> Memory Transfers' before "
               "the table",
               raw);
      }
      int rows = 0;
      for (++i; i < lines.size(); ++i) {
        const std::vector<std::string_view> f = fields(lines[i].text);
        if (f.empty()) break;
        if (!std::isdigit(static_cast<unsigned char>(f[0][0]))) break;
        std::optional<long long> bytes = integer(f[0]);
        std::optional<double> v = f.size() == 2 ? number(f[1]) : std::nullopt;
        if (!bytes || !v) {
          refuse(source, k_bw, lines[i].number,
                 "'<transfer size in bytes> <bandwidth>' (two numbers)", lines[i].text);
        }
        add(direction, memory, *bytes, mib ? *v * k_mib_per_s_in_gb_per_s : *v, devices_in_use);
        ++rows;
      }
      if (rows == 0) {
        refuse(source, k_bw, i < lines.size() ? lines[i].number : lines.back().number,
               "a row '<transfer size in bytes> <bandwidth>' under the table's header (the "
               "table is cut)",
               i < lines.size() ? lines[i].text : "");
      }
      --i;
    } else if (starts_with(line, "bandwidthTest-")) {
      std::optional<CsvLine> c = csv_line(line);
      if (!c) {
        refuse(source, k_bw, lines[i].number,
               "'bandwidthTest-<H2D|D2H|D2D>-<Pinned|Pageable>, Bandwidth = <x> GB/s, ..., "
               "Size = <n> bytes, NumDevsUsed = <d>'",
               raw);
      }
      add(c->direction, c->memory, c->bytes, c->gb_per_s, c->devices);
    } else if (starts_with(line, "Result = ")) {
      result = std::string(trim(line.substr(9)));
    } else if (contains(to_lower(line), "error") || starts_with(line, "!!")) {
      errors.emplace_back(line);
    }
  }
  set_devices(doc, devs);
  set_metrics(doc, json::array({metric("GB_per_s", "GB/s", "higher",
                                       "bandwidthTest's copy bandwidth at the transfer size "
                                       "(decimal GB/s; d2d counts each byte read and written)",
                                       "primary")}));
  if (values == 0) {
    refuse_nothing_measured(source, k_bw,
                            errors.empty() ? "no 'Transfer Size (Bytes)' table in the file"
                                           : "bandwidthTest said: " + errors.front());
  }
  PeerDocument out;
  out.format = std::string(k_bw);
  if (result == "FAIL") {
    out.failure = "bandwidthTest reported Result = FAIL" +
                  (errors.empty() ? std::string() : ": " + errors.front());
  }
  out.document = std::move(doc);
  return out;
}

// ---- p2pBandwidthLatencyTest ---------------------------------------------------------------

namespace {

constexpr std::string_view k_p2p = "p2pBandwidthLatencyTest";

struct P2pTitle {
  std::string kind;  // unidirectional, bidirectional, latency (GPU/CPU parts follow)
  bool enabled = false;
  bool reads = false;  // "P2P Reads": the column is the source
};

std::optional<P2pTitle> p2p_title(std::string_view line) {
  if (!contains(line, "Matrix (")) return std::nullopt;
  P2pTitle t;
  if (starts_with(line, "Unidirectional P2P=")) {
    t.kind = "unidirectional";
  } else if (starts_with(line, "Bidirectional P2P=")) {
    t.kind = "bidirectional";
  } else if (starts_with(line, "P2P=") && contains(line, "Latency")) {
    t.kind = "latency";
  } else {
    return std::nullopt;
  }
  t.enabled = contains(line, "P2P=Enabled");
  t.reads = contains(line, "P2P Reads");
  return t;
}

}  // namespace

bool detect_p2p_bandwidth_latency_test(std::string_view head) {
  return contains(head, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]") ||
         contains(head, "P2P=Disabled Bandwidth Matrix (GB/s)") ||
         contains(head, "P2P=Enabled Bandwidth Matrix (GB/s)");
}

PeerDocument parse_p2p_bandwidth_latency_test(std::string_view text, const std::string& source) {
  json doc = new_document("p2pBandwidthLatencyTest", "p2pBandwidthLatencyTest");
  json& ctx = doc["context"];
  json devs = json::array();
  int values = 0;
  bool latency = false;
  const std::vector<Line> lines = split_lines(text);
  // Reads one square matrix whose header is lines[i] ("   D\D     0      1", "   GPU     0 ...").
  auto read_matrix = [&](std::size_t& i, const P2pTitle& t, const std::string& kind) {
    const std::vector<std::string_view> header = fields(lines[i].text);
    const std::size_t n = header.size() - 1;
    for (std::size_t r = 0; r < n; ++r) {
      ++i;
      const std::string expected = "row " + std::to_string(r) + " of " + std::to_string(n) +
                                   " ('<device> <" + std::to_string(n) + " values>')";
      if (i >= lines.size()) refuse(source, k_p2p, lines.back().number, expected, "");
      const std::vector<std::string_view> f = fields(lines[i].text);
      if (f.size() != n + 1 || !integer(f[0])) {
        refuse(source, k_p2p, lines[i].number, expected + " (the matrix is cut)", lines[i].text);
      }
      for (std::size_t c = 1; c <= n; ++c) {
        std::optional<double> v = number(f[c]);
        if (!v) {
          refuse(source, k_p2p, lines[i].number, "a number in column " + std::string(header[c]),
                 lines[i].text);
        }
        std::string src(f[0]), dst(header[c]);
        if (t.reads) std::swap(src, dst);
        const std::string name = "p2pBandwidthLatencyTest/" + kind +
                                 "/p2p:" + (t.enabled ? "enabled" : "disabled") + "/src:" + src +
                                 "/dst:" + dst;
        const bool is_latency = starts_with(kind, "latency");
        doc["benchmarks"].push_back(
            iteration(name, {{is_latency ? "latency_us" : "GB_per_s", *v}}));
        latency = latency || is_latency;
        ++values;
      }
    }
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (contains(line, "$ ") &&
        contains(line.substr(line.rfind("$ ")), "p2pBandwidthLatencyTest")) {
      ctx["peer.command"] = std::string(trim(line.substr(line.rfind("$ ") + 2)));
    } else if (starts_with(line, "Device: ")) {
      // "Device: 0, NVIDIA RTX 6000 Ada Generation, pciBusID: c1, pciDeviceID: 0,
      // pciDomainID:0"
      const std::vector<std::string> parts = split(line.substr(8), ',');
      std::optional<long long> index = parts.empty() ? std::nullopt : integer(trim(parts[0]));
      if (!index || parts.size() < 2) {
        refuse(source, k_p2p, lines[i].number, "'Device: <n>, <name>, pciBusID: <bus>, ...'", raw);
      }
      json d = {{"index", *index}, {"name", std::string(trim(parts[1]))}};
      std::string bus, dev = "0", domain = "0";
      for (const std::string& p : parts) {
        const std::size_t colon = p.find(':');
        if (colon == std::string::npos) continue;
        const std::string key(trim(std::string_view(p).substr(0, colon)));
        const std::string value(trim(std::string_view(p).substr(colon + 1)));
        if (key == "pciBusID") bus = value;
        if (key == "pciDeviceID") dev = value;
        if (key == "pciDomainID") domain = value;
      }
      if (std::string pci = pci_bus_id(domain, bus, dev); !pci.empty()) d["pci_bus_id"] = pci;
      devs.push_back(d);
    } else if (line == "P2P Connectivity Matrix") {
      // 1/0 per pair: what cudaDeviceCanAccessPeer said, not a measurement.
      ++i;
      while (i + 1 < lines.size() &&
             integer(fields(lines[i + 1].text).empty() ? std::string_view()
                                                       : fields(lines[i + 1].text)[0])) {
        ++i;
      }
    } else if (std::optional<P2pTitle> t = p2p_title(line)) {
      ++i;
      const std::string_view head =
          i < lines.size() && !fields(lines[i].text).empty() ? fields(lines[i].text)[0] : "";
      if (head != "D\\D" && head != "GPU" && head != "CPU") {
        refuse(source, k_p2p, i < lines.size() ? lines[i].number : lines.back().number,
               "the matrix header '   D\\D     0      1' under '" + std::string(line) + "'",
               i < lines.size() ? lines[i].text : "");
      }
      if (t->kind != "latency") {
        read_matrix(i, *t, t->kind);
        continue;
      }
      // Latency: a "GPU" part, then after a blank line a "CPU" part (older versions: one
      // "D\D" matrix, the GPU's).
      read_matrix(i, *t, head == "CPU" ? "latency_cpu" : "latency_gpu");
      std::size_t k = i + 1;
      while (k < lines.size() && trim(lines[k].text).empty()) ++k;
      if (k < lines.size() && !fields(lines[k].text).empty() && fields(lines[k].text)[0] == "CPU") {
        i = k;
        read_matrix(i, *t, "latency_cpu");
      }
    }
  }
  set_devices(doc, devs);
  json metrics = json::array({metric("GB_per_s", "GB/s", "higher",
                                     "p2pBandwidthLatencyTest's copy bandwidth between the two "
                                     "devices (bidirectional: both ways together)",
                                     "primary")});
  if (latency) {
    metrics.push_back(metric("latency_us", "us", "lower",
                             "p2pBandwidthLatencyTest's latency of one small write between the "
                             "two devices",
                             "primary"));
  }
  set_metrics(doc, metrics);
  if (values == 0) {
    refuse_nothing_measured(source, k_p2p, "no bandwidth or latency matrix in the file");
  }
  PeerDocument out;
  out.format = std::string(k_p2p);
  out.document = std::move(doc);
  return out;
}

}  // namespace gpubench::results::peers
