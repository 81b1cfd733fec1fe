// nvbandwidth's text and --json output, v0.4 onwards (peers_nvbandwidth.hpp).
//
// Each testcase prints "Running <testcase>." and one matrix or more, each under a title that says
// what its rows and columns are and which way the bytes go:
//   memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)      host -> GPU j
//   memcpy SM CPU(row) <- GPU(column) bandwidth (GB/s)      GPU j -> host
//   memcpy CE GPU(row) -> CPU(column) bandwidth (GB/s)      GPU i -> host (v0.10)
//   memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)      GPU j -> GPU i (read testcases)
//   memcpy CE GPU(row) <-> GPU(column) Total bandwidth ...  both ways at once (Read1/Read2/
//                                                           Write1/Write2/Total: one matrix each)
//   memcpy local GPU(column) bandwidth (GB/s)               GPU j -> GPU j
//   memcpy SM All Gpus -> GPU(column) total bandwidth ...   every GPU -> GPU j ("all")
//   memory latency SM CPU(row) <-> GPU(column) (ns)         latency, host and GPU j
// then "SUM <testcase> <value>" ("&&&& PERF <testcase> <value>GB/s" with --perfFormatter).
// A value becomes nvbandwidth/<testcase>[/matrix:<read1|..|total>]/src:<i|host|all>/
// dst:<j|host|all>[/bytes:<N>], metric GB_per_s (latency testcases: latency_ns); the SUM line
// nvbandwidth/<testcase>[/matrix:..]/sum. "host" is "host<k>" where a matrix has several CPU
// rows. bytes: the buffer size, where the printed command line states it (-b/--bufferSize, MiB);
// latency testcases use a fixed buffer and are left without. "N/A" cells (no peer access) are
// not values. Multi-node runs list "Process <rank> (<host>): device <d>: <name> (<pci>)"; their
// matrix indices are ranks, and each rank's GPU is stored with its host. The --json form holds
// the same matrices as strings; a bidirectional device testcase's three matrices are appended
// there into one, and are split again here.
#include "results/peers/peers_nvbandwidth.hpp"

#include <map>
#include <optional>

#include "results/peers/peers_reading.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

namespace {

using namespace reading;
using nlohmann::json;

constexpr std::string_view k_format = "nvbandwidth";

struct Device {
  std::string name;
  std::string pci_bus_id;
  std::string host;  // multi-node: the rank's host
};

// What a matrix title says (see the table at the top).
struct Title {
  std::string row_kind;   // "CPU", "GPU" or "" (no row axis: local, All Gpus)
  std::string col_kind;   // "CPU" or "GPU"
  std::string arrow;      // "->", "<-", "<->"
  std::string qualifier;  // "read1", "total", ... or ""
  std::string fixed_src;  // "all" where the title names every GPU on one side
  std::string fixed_dst;
  bool local = false;    // "memcpy local GPU(column)": src = dst = the column
  bool latency = false;  // "(ns)" rather than "(GB/s)"
};

std::optional<Title> parse_title(std::string_view line) {
  const bool gbs = contains(line, "bandwidth (GB/s)");
  const bool ns = contains(line, "(ns)");
  if (!gbs && !ns) return std::nullopt;
  Title t;
  t.latency = ns && !gbs;
  for (const char* q : {"Read1", "Read2", "Write1", "Write2", "Total"}) {
    if (contains(line, std::string(" ") + q + " bandwidth")) t.qualifier = to_lower(q);
  }
  const std::size_t col = line.find("(column)");
  if (col == std::string_view::npos || col < 3) return std::nullopt;
  t.col_kind = std::string(line.substr(col - 3, 3));
  if (t.col_kind != "CPU" && t.col_kind != "GPU") return std::nullopt;
  const std::size_t row = line.find("(row)");
  if (row != std::string_view::npos && row >= 3) {
    t.row_kind = std::string(line.substr(row - 3, 3));
    const std::string_view between = line.substr(row + 5, col - 3 - (row + 5));
    for (const char* a : {"<->", "->", "<-"}) {
      if (contains(between, a)) {
        t.arrow = a;
        break;
      }
    }
    if (t.arrow.empty() || (t.row_kind != "CPU" && t.row_kind != "GPU")) return std::nullopt;
    return t;
  }
  if (contains(line, "memcpy local")) {
    t.local = true;
    return t;
  }
  // Every GPU on one side: "All Gpus -> GPU(column)", "All Gpus <- GPU(column)",
  // "GPU(column) -> All Gpus", "All -> All Gpus".
  if (contains(line, "All -> All")) {
    t.fixed_src = t.fixed_dst = "all";
  } else if (contains(line, "All Gpus -> ")) {
    t.fixed_src = "all";
  } else if (contains(line, "All Gpus <- ")) {
    t.fixed_dst = "all";
  } else if (contains(line, "(column) -> All")) {
    t.fixed_dst = "all";
  } else {
    return std::nullopt;
  }
  return t;
}

// A row or column label as a name part: "0" -> "0", "host" for the CPU side.
std::string endpoint(const std::string& kind, const std::string& label, std::size_t cpu_count) {
  if (kind == "CPU") return cpu_count > 1 ? "host" + label : "host";
  return to_lower(label);
}

struct Reader {
  std::string source;
  json doc = new_document("nvbandwidth", "nvbandwidth");
  std::map<int, Device> devices;
  std::string hostname;
  std::optional<long long> buffer_bytes;
  std::string testcase;              // the one "Running" now
  bool testcase_measured = false;    // a matrix was read for it
  std::vector<std::string> chatter;  // lines after "Running" that are not a matrix
  std::string failure;
  int values = 0;
  int waived = 0;
  std::vector<std::string> waived_names;
  bool any_latency = false;
  bool any_bandwidth = false;

  std::string base(const Title& t) const {
    std::string name = "nvbandwidth/" + testcase;
    if (!t.qualifier.empty()) name += "/matrix:" + t.qualifier;
    return name;
  }
  std::string bytes_part(const Title& t) const {
    if (t.latency || !buffer_bytes) return {};
    return "/bytes:" + std::to_string(*buffer_bytes);
  }
  void add_value(const Title& t, const std::string& src, const std::string& dst, double v) {
    const std::string name = base(t) + "/src:" + src + "/dst:" + dst + bytes_part(t);
    doc["benchmarks"].push_back(
        iteration(name, {{t.latency ? "latency_ns" : "GB_per_s", v}}, 1, 0));
    ++values;
    (t.latency ? any_latency : any_bandwidth) = true;
  }
  void add_sum(const Title& t, double v) {
    doc["benchmarks"].push_back(
        iteration(base(t) + "/sum" + bytes_part(t), {{t.latency ? "latency_ns" : "GB_per_s", v}}));
    ++values;
  }
  // The testcase ends (another starts, or the file ends) without a matrix: what it said is the
  // reason (an ASSERT, "Invalid value when checking the pattern").
  void close_testcase() {
    if (!testcase.empty() && !testcase_measured && !chatter.empty() && failure.empty()) {
      std::string said = chatter.front();
      for (const std::string& c : chatter) {
        if (contains(c, "ASSERT") || contains(to_lower(c), "error")) said = c;
      }
      failure = "nvbandwidth stopped in " + testcase + ": " + said;
    }
    testcase.clear();
    testcase_measured = false;
    chatter.clear();
  }

  void read_text(std::string_view text);
  void read_matrix(const std::vector<Line>& lines, std::size_t& i, const Title& t);
  void read_json(const json& root);
  PeerDocument finish();
};

// `b`: the option's value in MiB, as nvbandwidth's -b/--bufferSize takes it.
std::optional<long long> buffer_from_command(std::string_view command) {
  const std::vector<std::string_view> f = fields(command);
  for (std::size_t k = 0; k < f.size(); ++k) {
    std::string_view value;
    if ((f[k] == "-b" || f[k] == "--bufferSize") && k + 1 < f.size()) {
      value = f[k + 1];
    } else if (starts_with(f[k], "--bufferSize=")) {
      value = f[k].substr(13);
    } else {
      continue;
    }
    if (auto mib = integer(value); mib && *mib > 0) return *mib * 1024 * 1024;
  }
  return std::nullopt;
}

// "NVIDIA A100-SXM4-40GB (00000000:99:00)" -> name and PCI address; older versions print the
// name alone.
Device device_from(std::string_view text) {
  Device d;
  text = trim(text);
  const std::size_t open = text.rfind(" (");
  if (open != std::string_view::npos && text.back() == ')') {
    const std::vector<std::string> parts =
        split(text.substr(open + 2, text.size() - open - 3), ':');
    if (parts.size() == 3) {
      d.pci_bus_id = pci_bus_id(parts[0], parts[1], parts[2]);
      if (!d.pci_bus_id.empty()) text = text.substr(0, open);
    }
  }
  d.name = std::string(text);
  return d;
}

void Reader::read_matrix(const std::vector<Line>& lines, std::size_t& i, const Title& t) {
  const Line& title = lines[i];
  if (testcase.empty()) {
    refuse(source, k_format, title.number, "'Running <testcase>.' before the matrix", title.text);
  }
  ++i;
  if (i >= lines.size() || trim(lines[i].text).empty()) {
    refuse(source, k_format, i < lines.size() ? lines[i].number : title.number,
           "the column header of '" + std::string(trim(title.text)) + "'",
           i < lines.size() ? lines[i].text : "");
  }
  const std::vector<std::string_view> header = fields(lines[i].text);
  const std::size_t cols = header.size();
  std::vector<std::vector<std::optional<double>>> cells;
  std::vector<std::string> row_labels;
  for (++i; i < lines.size() && !trim(lines[i].text).empty(); ++i) {
    const std::vector<std::string_view> f = fields(lines[i].text);
    if (f.size() != cols + 1) {
      refuse(source, k_format, lines[i].number,
             "a row label and " + std::to_string(cols) + " values (one per column)", lines[i].text);
    }
    row_labels.emplace_back(f[0]);
    std::vector<std::optional<double>> row;
    for (std::size_t c = 1; c < f.size(); ++c) {
      if (f[c] == "N/A") {
        row.emplace_back(std::nullopt);
        continue;
      }
      std::optional<double> v = number(f[c]);
      if (!v) {
        refuse(source, k_format, lines[i].number,
               "a number or N/A in column " + std::string(header[c - 1]), lines[i].text);
      }
      row.push_back(v);
    }
    cells.push_back(std::move(row));
  }
  if (cells.empty()) {
    refuse(source, k_format, i < lines.size() ? lines[i].number : lines.back().number,
           "a row of '" + std::string(trim(title.text)) + "'",
           i < lines.size() ? lines[i].text : "");
  }
  // The matrix is whole only with its SUM line after it; a file that ends before is cut.
  std::size_t k = i;
  while (k < lines.size() && trim(lines[k].text).empty()) ++k;
  const std::vector<std::string_view> sum =
      k < lines.size() ? fields(lines[k].text) : std::vector<std::string_view>{};
  std::optional<double> sum_value;
  if (sum.size() == 3 && sum[0] == "SUM" && sum[1] == testcase) {
    sum_value = number(sum[2]);
  } else if (sum.size() == 4 && sum[0] == "&&&&" && sum[1] == "PERF" && sum[2] == testcase) {
    std::string_view v = sum[3];
    while (!v.empty() && (std::isalpha(static_cast<unsigned char>(v.back())) || v.back() == '/'))
      v.remove_suffix(1);
    sum_value = number(v);
  } else {
    refuse(source, k_format, k < lines.size() ? lines[k].number : lines.back().number,
           "'SUM " + testcase + " <value>' after the matrix (the table is cut)",
           k < lines.size() ? lines[k].text : "");
  }
  if (!sum_value) {
    refuse(source, k_format, lines[k].number, "a number after 'SUM " + testcase + "'",
           lines[k].text);
  }
  const std::size_t cpu_rows = t.row_kind == "CPU" ? cells.size() : 0;
  const std::size_t cpu_cols = t.col_kind == "CPU" ? cols : 0;
  // Bidirectional host testcases measure one way: the testcase's name says which.
  const bool gpu_first = starts_with(testcase, "device_to_host") ||
                         starts_with(testcase, "all_to_host") ||
                         starts_with(testcase, "multinode_device_to_host");
  for (std::size_t r = 0; r < cells.size(); ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (!cells[r][c]) continue;
      const std::string col = endpoint(t.col_kind, std::string(header[c]), cpu_cols);
      std::string src, dst;
      if (t.local) {
        src = dst = col;
      } else if (!t.fixed_src.empty() || !t.fixed_dst.empty()) {
        src = t.fixed_src.empty() ? col : t.fixed_src;
        dst = t.fixed_dst.empty() ? col : t.fixed_dst;
      } else {
        const std::string row = endpoint(t.row_kind, row_labels[r], cpu_rows);
        const bool row_first =
            t.arrow == "->" || (t.arrow == "<->" && !(gpu_first && t.row_kind == "CPU"));
        src = row_first ? row : col;
        dst = row_first ? col : row;
      }
      add_value(t, src, dst, *cells[r][c]);
    }
  }
  add_sum(t, *sum_value);
  testcase_measured = true;
  i = k;  // the SUM line
}

void Reader::read_text(std::string_view text) {
  const std::vector<Line> lines = split_lines(text);
  json& ctx = doc["context"];
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    std::string_view rest;
    auto after = [&](std::string_view prefix) {
      if (!starts_with(line, prefix)) return false;
      rest = trim(line.substr(prefix.size()));
      return true;
    };
    if ((starts_with(line, "$ ") || starts_with(line, "# ")) && contains(line, "nvbandwidth")) {
      const std::string command(trim(line.substr(line.find("nvbandwidth"))));
      ctx["peer.command"] = command;
      buffer_bytes = buffer_from_command(command);
    } else if (after("nvbandwidth Version:")) {
      ctx["peer.version"] = std::string(rest);
    } else if (after("Built from Git version:")) {
      if (!rest.empty()) ctx["peer.git_version"] = std::string(rest);
    } else if (after("CUDA Runtime Version:") || after("CUDA Driver Version:")) {
      const bool runtime = starts_with(line, "CUDA Runtime");
      std::optional<long long> code = integer(rest);
      if (!code || *code <= 0) {
        refuse(source, k_format, lines[i].number, "a CUDA version number (12040)", raw);
      }
      ctx[runtime ? "gpubench.cuda_runtime_version" : "gpubench.cuda_driver_version"] =
          std::to_string(*code / 1000) + "." + std::to_string((*code % 1000) / 10);
    } else if (after("Driver Version:")) {
      ctx["gpubench.driver_version"] = std::string(rest);
    } else if (after("MPI version:")) {
      ctx["peer.mpi_version"] = std::string(rest);
    } else if (after("Device ") && contains(rest, ":")) {
      const std::size_t colon = rest.find(':');
      std::optional<long long> index = integer(rest.substr(0, colon));
      if (!index) refuse(source, k_format, lines[i].number, "'Device <n>: <name>'", raw);
      devices[static_cast<int>(*index)] = device_from(rest.substr(colon + 1));
      // nvbandwidth prints the host's name on the line before its device list (later versions).
      if (devices.size() == 1 && i > 0) {
        const std::vector<std::string_view> prev = fields(lines[i - 1].text);
        if (prev.size() == 1 && !contains(prev[0], ":")) hostname = std::string(prev[0]);
      }
    } else if (after("Process ") && contains(rest, "): device ")) {
      // "Process 0 (host-a): device 0: NVIDIA GB200 (00000008:06:00)"
      const std::size_t open = rest.find(" (");
      const std::size_t close = rest.find("): device ");
      std::optional<long long> rank = integer(trim(rest.substr(0, open)));
      const std::string_view dev = rest.substr(close + 10);
      const std::size_t colon = dev.find(':');
      if (!rank || open == std::string_view::npos || open > close ||
          colon == std::string_view::npos) {
        refuse(source, k_format, lines[i].number, "'Process <rank> (<host>): device <n>: <name>'",
               raw);
      }
      Device d = device_from(dev.substr(colon + 1));
      d.host = std::string(rest.substr(open + 2, close - open - 2));
      devices[static_cast<int>(*rank)] = d;
    } else if (after("Running ")) {
      close_testcase();
      testcase = std::string(rest);
      if (!testcase.empty() && testcase.back() == '.') testcase.pop_back();
    } else if (after("Waiving ")) {
      // v0.4: "Waiving <testcase>." (peer access missing, too few GPUs)
      std::string name(rest);
      if (!name.empty() && name.back() == '.') name.pop_back();
      doc["benchmarks"].push_back(
          not_measured("nvbandwidth/" + name, "skipped: waived by nvbandwidth"));
      waived_names.push_back(name);
      ++waived;
    } else if (starts_with(line, "Waived")) {
      // v0.5 onwards: "Waived:" for a testcase this system cannot run; its name is not printed.
      ++waived;
    } else if (std::optional<Title> t = parse_title(line); t && !starts_with(line, "SUM ")) {
      read_matrix(lines, i, *t);
    } else if (starts_with(line, "SUM ") || starts_with(line, "&&&& PERF ")) {
      refuse(source, k_format, lines[i].number, "a matrix before its SUM line", raw);
    } else if (starts_with(line, "NOTE:") || starts_with(line, "Additional system-specific") ||
               starts_with(line, "Performance can vary") ||
               starts_with(line, "COEFFICIENT_OF_VARIATION ") || starts_with(line, "MIN ") ||
               starts_with(line, "MAX ") || starts_with(line, "AVG ")) {
      continue;  // notes and statistics nvbandwidth prints around its results
    } else if (!testcase.empty() && !testcase_measured) {
      chatter.emplace_back(line);
    }
  }
  close_testcase();
}

// {"nvbandwidth": {"version", "git_version", "CUDA Runtime Version", "Driver Version",
//  "GPU Device list": ["0: <name> (<pci>): (<host>)"], "testcases": [{"name", "status",
//  "bandwidth_description", "bandwidth_matrix": [["25.13", "N/A"]], "sum", "error"}]}}
void Reader::read_json(const json& root) {
  const json& nvb = root.at("nvbandwidth");
  json& ctx = doc["context"];
  auto text = [&](const char* key) -> std::string {
    auto it = nvb.find(key);
    return it != nvb.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!text("version").empty()) ctx["peer.version"] = text("version");
  if (!text("git_version").empty()) ctx["peer.git_version"] = text("git_version");
  if (!text("Driver Version").empty()) ctx["gpubench.driver_version"] = text("Driver Version");
  if (!text("Hostname").empty()) hostname = text("Hostname");
  if (auto it = nvb.find("CUDA Runtime Version"); it != nvb.end() && it->is_number_integer()) {
    const long long code = it->get<long long>();
    ctx["gpubench.cuda_runtime_version"] =
        std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10);
  }
  if (auto it = nvb.find("GPU Device list"); it != nvb.end() && it->is_array()) {
    for (const json& entry : *it) {
      if (!entry.is_string()) continue;
      std::string_view s = entry.get_ref<const std::string&>();
      const std::size_t colon = s.find(": ");
      std::optional<long long> index = integer(s.substr(0, colon));
      if (colon == std::string_view::npos || !index) {
        refuse(source, k_format, 0, "'GPU Device list' entries '<n>: <name> (<pci>): (<host>)'", s);
      }
      std::string_view restv = s.substr(colon + 2);
      std::string host;
      if (const std::size_t h = restv.rfind("): (");
          h != std::string_view::npos && restv.back() == ')') {
        host = std::string(restv.substr(h + 4, restv.size() - h - 5));
        restv = restv.substr(0, h + 1);
      }
      Device d = device_from(restv);
      d.host = host;
      devices[static_cast<int>(*index)] = d;
      if (hostname.empty()) hostname = host;
    }
  }
  auto tests = nvb.find("testcases");
  if (tests == nvb.end() || !tests->is_array()) {
    if (auto e = nvb.find("error"); e != nvb.end() && e->is_string()) {
      refuse_nothing_measured(source, k_format, "nvbandwidth said: " + e->get<std::string>());
    }
    refuse(source, k_format, 0, "\"testcases\": [...] under \"nvbandwidth\"", "");
  }
  for (std::size_t n = 0; n < tests->size(); ++n) {
    const json& tc = (*tests)[n];
    const std::string where = "testcases[" + std::to_string(n) + "]";
    testcase = tc.value("name", std::string());
    const std::string status = tc.value("status", std::string());
    if (testcase.empty()) refuse(source, k_format, 0, where + " with a \"name\"", tc.dump());
    if (status == "Waived" || status == "Not Found") {
      doc["benchmarks"].push_back(not_measured("nvbandwidth/" + testcase,
                                               "skipped: " + to_lower(status) + " by nvbandwidth"));
      waived_names.push_back(testcase);
      ++waived;
      continue;
    }
    if (!tc.contains("bandwidth_matrix")) {
      if (failure.empty()) {
        failure = "nvbandwidth stopped in " + testcase + ": " +
                  tc.value("error", std::string("status ") + status);
      }
      continue;
    }
    std::optional<Title> t = parse_title(tc.value("bandwidth_description", std::string()));
    const json& m = tc["bandwidth_matrix"];
    if (!t || !m.is_array() || m.empty() || !m[0].is_array()) {
      refuse(source, k_format, 0,
             where + " with a \"bandwidth_description\" and a \"bandwidth_matrix\" of rows",
             tc.dump().substr(0, 200));
    }
    const std::size_t cols = m[0].size();
    for (std::size_t r = 0; r < m.size(); ++r) {
      if (!m[r].is_array() || m[r].size() != cols) {
        refuse(source, k_format, 0,
               where + ".bandwidth_matrix[" + std::to_string(r) + "] with " + std::to_string(cols) +
                   " values",
               m[r].dump());
      }
    }
    double sum = 0;
    if (auto s = tc.find("sum"); s != tc.end() && s->is_number()) {
      sum = s->get<double>();
    } else {
      refuse(source, k_format, 0, where + " with a numeric \"sum\"", tc.dump().substr(0, 200));
    }
    // A bidirectional device testcase's three matrices (Read1 or Write1, Read2 or Write2, Total)
    // land in one "bandwidth_matrix", one after the other, under the last one's description and
    // sum (nvbandwidth's json_output.cpp appends each matrix's rows): split them again. The
    // first two sums are added up here as nvbandwidth adds them for its text (N/A as 0).
    std::vector<Title> titles = {*t};
    if (!t->qualifier.empty() && t->row_kind == "GPU" && m.size() == 3 * cols) {
      const bool write = contains(testcase, "write");
      titles = {*t, *t, *t};
      titles[0].qualifier = write ? "write1" : "read1";
      titles[1].qualifier = write ? "write2" : "read2";
      titles[2].qualifier = "total";
    }
    const std::size_t rows = m.size() / titles.size();
    for (std::size_t part = 0; part < titles.size(); ++part) {
      // The matrix as the text prints it, so both forms are read by one set of rules; a bad
      // cell is refused naming the testcase and row (a JSON file has no lines worth counting).
      std::string lines_text = tc["bandwidth_description"].get<std::string>() + "\n";
      for (std::size_t c = 0; c < cols; ++c) lines_text += " " + std::to_string(c);
      lines_text += "\n";
      double part_sum = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        lines_text += std::to_string(r);
        for (const json& cell : m[part * rows + r]) {
          const std::string v = cell.is_string() ? cell.get<std::string>() : cell.dump();
          lines_text += " " + v;
          part_sum += number(v).value_or(0.0);
        }
        lines_text += "\n";
      }
      const bool last = part + 1 == titles.size();
      lines_text += "\nSUM " + testcase + " " + std::to_string(last ? sum : part_sum) + "\n";
      const std::vector<Line> lines = split_lines(lines_text);
      std::size_t i = 0;
      const std::string saved = source;
      source = saved + " (" + where + ", '" + testcase + "')";
      read_matrix(lines, i, titles[part]);
      source = saved;
    }
  }
}

PeerDocument Reader::finish() {
  json& ctx = doc["context"];
  if (!hostname.empty()) ctx["host_name"] = hostname;
  if (buffer_bytes) ctx["peer.buffer_bytes"] = std::to_string(*buffer_bytes);
  if (waived > 0) ctx["peer.waived_testcases"] = std::to_string(waived);
  json devs = json::array();
  for (const auto& [index, d] : devices) {
    json e = {{"index", index}, {"name", d.name}};
    if (!d.pci_bus_id.empty()) e["pci_bus_id"] = d.pci_bus_id;
    if (!d.host.empty()) e["host"] = d.host;
    devs.push_back(e);
  }
  set_devices(doc, devs);
  json metrics = json::array();
  metrics.push_back(metric("GB_per_s", "GB/s", "higher",
                           "nvbandwidth's bandwidth for the testcase, source and destination "
                           "(median of its samples unless run with --useMean)",
                           "primary"));
  if (any_latency) {
    metrics.push_back(metric("latency_ns", "ns", "lower",
                             "nvbandwidth's pointer-chase latency for the testcase", "primary"));
  }
  set_metrics(doc, metrics);
  if (values == 0) {
    if (!failure.empty()) refuse_nothing_measured(source, k_format, failure);
    std::string why = waived > 0 ? "every testcase was waived" : "no result matrix in the file";
    if (!waived_names.empty()) why += " (" + join(waived_names, ", ") + ")";
    refuse_nothing_measured(source, k_format, why);
  }
  PeerDocument out;
  out.format = std::string(k_format);
  out.document = std::move(doc);
  out.failure = failure;
  return out;
}

bool looks_like_json(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

}  // namespace

bool detect_nvbandwidth(std::string_view head) {
  if (looks_like_json(head)) {
    return contains(head, "\"nvbandwidth\"") &&
           (contains(head, "\"testcases\"") || contains(head, "\"GPU Device list\"") ||
            contains(head, "\"git_version\""));
  }
  if (contains(head, "nvbandwidth Version:")) return true;
  for (const Line& l : split_lines(head)) {
    if (parse_title(trim(l.text)) && contains(head, "Running ") &&
        (contains(l.text, "memcpy ") || contains(l.text, "latency"))) {
      return true;
    }
  }
  return false;
}

PeerDocument parse_nvbandwidth(std::string_view text, const std::string& source) {
  Reader r;
  r.source = source;
  if (looks_like_json(text)) {
    json root = json::parse(text, nullptr, false);
    if (root.is_discarded() || !root.is_object() || !root.contains("nvbandwidth") ||
        !root["nvbandwidth"].is_object()) {
      refuse(source, k_format, 0, "a JSON object {\"nvbandwidth\": {...}} (nvbandwidth --json)",
             text.substr(0, 80));
    }
    r.read_json(root);
  } else {
    r.read_text(text);
  }
  return r.finish();
}

}  // namespace gpubench::results::peers
