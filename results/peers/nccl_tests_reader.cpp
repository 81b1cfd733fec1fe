// nccl-tests / rccl-tests *_perf text output read into sections (issue 40;
// peers_nccl_tests.cpp makes the document).
//
// The text is read line by line. A "# nThread .." line (or, in a paste without one, a column
// header) starts a section: one program's run. Its rank lines name the GPUs, its column header
// says which columns the rows hold (the root and redop columns, "#wrong" counts or the "error"
// values of versions before 2.13, per-iteration columns of 2.18+), and each row gives the
// out-of-place and in-place time, algbw and busbw of one size. Everything else (NCCL INFO/WARN
// lines, launcher output, shell prompts, markdown around a paste) is skipped, except what it
// states about versions, the program and the command line. A line of the table that does not
// read as a row is an error naming the line: a cut or edited table is refused, never guessed at.
#include "results/peers/nccl_tests_detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

namespace {

using nlohmann::json;

std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool is_number(std::string_view t) {
  return parse_double(t).has_value();
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& source) : m_text(text), m_source(source) {}

  void read() {
    std::size_t pos = 0;
    while (pos <= m_text.size()) {
      std::size_t end = m_text.find('\n', pos);
      if (end == std::string_view::npos) end = m_text.size();
      ++m_line;
      line(m_text.substr(pos, end - pos));
      pos = end + 1;
    }
  }

  NcclTestsText out;

  [[noreturn]] void fail(std::size_t line, const std::string& why, std::string_view text,
                         const std::string& fix) const {
    refuse_nccl_tests(m_source, line, why, text, fix);
  }

 private:
  NcclSection* current() { return out.sections.empty() ? nullptr : &out.sections.back(); }

  NcclSection& start_section() {
    out.sections.emplace_back();
    NcclSection& s = out.sections.back();
    s.line = m_line;
    s.program = std::move(m_pending_program);
    s.command = std::move(m_pending_command);
    m_pending_program.clear();
    m_pending_command.clear();
    return s;
  }

  void line(std::string_view raw) {
    std::vector<std::string_view> t = tokens_of(raw);
    if (t.empty()) return;
    // `srun --label` prefixes every line with "N: ".
    if (t.size() > 1 && t[0].size() > 1 && t[0].back() == ':' &&
        parse_int(t[0].substr(0, t[0].size() - 1))) {
      t.erase(t.begin());
    }
    bool comment = false;
    if (t[0][0] == '#') {
      comment = true;
      if (t[0].size() > 1) {
        t[0].remove_prefix(1);
      } else {
        t.erase(t.begin());
      }
      if (t.empty()) return;
    }
    if (t[0] == "nThread") return begin(t);
    if (comment) return comment_line(raw, t);
    if (raw.find(" NCCL INFO ") != std::string_view::npos ||
        raw.find(" NCCL WARN ") != std::string_view::npos) {
      return nccl_log(raw, t);
    }
    if (t.size() >= 2 && t[0] == "rccl-tests:" && t[1] == "Version") {
      out.tool = "rccl-tests";
      out.tool_version = t.size() > 2 ? std::string(t[2]) : std::string();
      return;
    }
    if (t.size() >= 4 && (t[0] == "RCCL" || t[0] == "NCCL") && t[1] == "version" && t[2] == ":") {
      if (t[0] == "RCCL") out.tool = "rccl-tests";
      out.nccl_version = std::string(t[3]);
      return;
    }
    if (failure_line(raw)) return;
    NcclSection* s = current();
    if (s != nullptr && s->columns && !s->footer && parse_int(t[0])) return row(*s, raw, t);
    program_mention(raw, t);
  }

  void begin(const std::vector<std::string_view>& t) {
    NcclSection& s = start_section();
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i] == "nThread") s.threads = parse_int(t[i + 1]);
      if (t[i] == "nGpus") s.gpus = parse_int(t[i + 1]);
      // "warmup iters: 5 iters: 20 agg iters: 1": the timed iterations are the bare "iters:".
      if (t[i] == "iters:" && (i == 0 || (t[i - 1] != "warmup" && t[i - 1] != "agg"))) {
        s.iters = parse_int(t[i + 1]);
      }
    }
  }

  void comment_line(std::string_view raw, const std::vector<std::string_view>& t) {
    if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
      m_pending_program = std::string(t[3]);
      return;
    }
    if (t.size() >= 3 && t[0] == "nccl-tests" && t[1] == "version") {
      out.tool_version = std::string(t[2]);
      for (const std::string_view tok : t) {
        if (tok.starts_with("nccl-library=")) {
          out.nccl_version = nccl_version_from_code(tok.substr(13));
        }
      }
      return;
    }
    NcclSection* s = current();
    if (t[0] == "Rank" && s != nullptr && !s->columns) return rank(*s, raw, t);
    if ((t[0] == "size" || t[0] == "bytes") && contains(t, "busbw")) return header(raw, t);
    if (t.size() >= 3 && t[0] == "Out" && t[1] == "of" && t[2] == "bounds" && s != nullptr) {
      s->footer = true;
      return;
    }
    if (t.size() >= 3 && t[0] == "Avg" && t[1] == "bus" && s != nullptr) s->footer = true;
  }

  static bool contains(const std::vector<std::string_view>& t, std::string_view word) {
    for (const std::string_view w : t) {
      if (w == word) return true;
    }
    return false;
  }

  // "#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB
  // HBM3"; older: no Group, no Pid, "[0x18]" (the bus number alone); rccl: "[0000:05:00.0]".
  void rank(NcclSection& s, std::string_view raw, const std::vector<std::string_view>& t) {
    NcclRankGpu g;
    const auto n = t.size() > 1 ? parse_int(t[1]) : std::nullopt;
    std::size_t i = 2;
    while (i < t.size() && t[i] != "on") ++i;
    if (!n || i + 3 >= t.size() || t[i + 2] != "device") {
      fail(m_line, "a rank line that does not read 'Rank N ... on HOST device D [BUS] NAME'", raw,
           "import the tool's output as it printed it");
    }
    g.rank = static_cast<int>(*n);
    g.host = std::string(t[i + 1]);
    if (auto d = parse_int(t[i + 3])) g.device = static_cast<int>(*d);
    std::size_t name_at = i + 4;
    if (name_at < t.size() && t[name_at].starts_with('[') && t[name_at].ends_with(']')) {
      g.pci_bus_id = bus_id(t[name_at].substr(1, t[name_at].size() - 2));
      ++name_at;
    }
    std::vector<std::string> name;
    for (std::size_t k = name_at; k < t.size(); ++k) name.emplace_back(t[k]);
    g.name = join(name, " ");
    s.ranks.push_back(std::move(g));
  }

  // "0000:04:00" (domain:bus:device) or "0000:05:00.0" as sysfs and gpubench write them;
  // "0x18" (old versions print only the bus number) is not an address: left out.
  static std::string bus_id(std::string_view b) {
    if (b.starts_with("0x")) return {};
    std::string out = to_lower(b);
    if (std::count(out.begin(), out.end(), ':') == 2 && out.find('.') == std::string::npos) {
      out += ".0";
    }
    return out;
  }

  void header(std::string_view raw, const std::vector<std::string_view>& t) {
    NcclSection* s = current();
    // A paste without the "# nThread" line, or a second table: a section of its own.
    if (s == nullptr || s->columns) s = &start_section();
    NcclColumns c;
    std::size_t first = t.size(), second = t.size();
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] == "time" || t[i] == "cputime") {
        if (first == t.size()) {
          first = i;
        } else if (second == t.size()) {
          second = i;
        }
      }
    }
    if (first == t.size() || second == t.size()) {
      fail(m_line, "a column header without the out-of-place and in-place time columns", raw,
           "import the tool's output as it printed it");
    }
    for (std::size_t i = 0; i < first; ++i) {
      if (t[i] == "redop" || t[i] == "op") c.redop = true;
      if (t[i] == "root") c.root = true;
    }
    c.group = second - first;
    for (std::size_t i = first; i < second; ++i) {
      const std::string_view w = t[i];
      if (w == "algbw") c.algbw = i - first;
      if (w == "busbw") c.busbw = i - first;
      if (w == "#wrong" || w == "error" || w == "res") {
        c.wrong = i - first;
        c.error_value = w != "#wrong";
      }
    }
    if (c.group < 4 || c.algbw >= c.group || c.busbw >= c.group || c.wrong >= c.group) {
      fail(m_line, "a column header without time, algbw, busbw and #wrong (or error) per place",
           raw, "import the tool's output as it printed it");
    }
    s->columns = c;
  }

  void row(NcclSection& s, std::string_view raw, const std::vector<std::string_view>& t) {
    const NcclColumns& c = *s.columns;
    const std::string fix =
        "a row cut short or edited by hand cannot be read: import the tool's output as it "
        "printed it";
    NcclRow r;
    r.line = m_line;
    r.bytes = *parse_int(t[0]);
    if (t.size() < 3 || !parse_int(t[1])) fail(m_line, "expected the element count", raw, fix);
    const auto dtype = nccl_dtype_name(t[2]);
    if (!dtype) {
      fail(m_line, "unknown data type '" + std::string(t[2]) + "'", raw,
           "nccl-tests' types are int8, uint8, int32, uint32, int64, uint64, half, float, "
           "double, bfloat16, f8e4m3, f8e5m2 (older: char, int); import the tool's output as it "
           "printed it");
    }
    r.dtype = *dtype;
    std::size_t i = 3;
    // Older alltoall prints a blank redop under its header's "redop": the column is absent.
    if (c.redop && i < t.size() && !is_number(t[i])) r.op = std::string(t[i++]);
    if (c.root) {
      const auto root = i < t.size() ? parse_int(t[i]) : std::nullopt;
      if (!root) fail(m_line, "expected the root rank", raw, fix);
      r.root = *root;
      ++i;
    }
    if (t.size() < i + 2 * c.group) {
      fail(m_line,
           "expected " + std::to_string(2 * c.group) +
               " values after the size, count and type columns (time, algbw, busbw and #wrong "
               "out of place, then in place), found " +
               std::to_string(t.size() - i),
           raw, fix);
    }
    r.out = place(raw, t, i, c, fix);
    r.in = place(raw, t, i + c.group, c, fix);
    s.rows.push_back(std::move(r));
  }

  NcclPlace place(std::string_view raw, const std::vector<std::string_view>& t, std::size_t at,
                  const NcclColumns& c, const std::string& fix) const {
    NcclPlace p;
    auto number = [&](std::size_t k, const char* what) {
      const auto v = parse_double(t[at + k]);
      if (!v) {
        fail(m_line,
             std::string("expected a number for ") + what + ", found '" + std::string(t[at + k]) +
                 "'",
             raw, fix);
      }
      return *v;
    };
    p.time_us = number(c.time, "time");
    p.algbw = number(c.algbw, "algbw");
    p.busbw = number(c.busbw, "busbw");
    std::string_view w = t[at + c.wrong];
    if (w.ends_with('*')) {
      p.flagged = true;
      w.remove_suffix(1);
    }
    if (w != "N/A") {
      const auto v = parse_double(w);
      if (!v) {
        fail(m_line,
             "expected a #wrong count (or error value) or N/A, found '" +
                 std::string(t[at + c.wrong]) + "'",
             raw, fix);
      }
      p.wrong = *v;
    }
    return p;
  }

  // "h: Test NCCL failure common.cu:392 'unhandled cuda error ...'", "Test CUDA failure ...",
  // NCCL 1's "NCCL failure all_reduce.cu:95 ...", " .. h pid 5068: Test failure common.cu:590".
  bool failure_line(std::string_view raw) {
    const bool named = raw.find("Test NCCL failure") != std::string_view::npos ||
                       raw.find("Test CUDA failure") != std::string_view::npos ||
                       trim(raw).starts_with("NCCL failure ");
    const bool trace = raw.find(": Test failure ") != std::string_view::npos;
    if (!named && !trace) return false;
    NcclSection* s = current();
    std::string text(trim(raw));
    if (named && !m_last_warn.empty()) text += " (last NCCL WARN: " + m_last_warn + ")";
    if (s == nullptr) {
      if (out.orphan_failure.empty() || (named && m_orphan_trace)) {
        out.orphan_failure = text;
        out.orphan_failure_line = m_line;
        m_orphan_trace = !named;
      }
      return true;
    }
    // After the footer: nccl-tests exits failing when values were out of bounds; those rows
    // are already marked invalid.
    if (s->footer) return true;
    if (s->failure.empty() || (named && m_trace_only)) {
      s->failure = text;
      s->failure_line = m_line;
      m_trace_only = !named;
    }
    return true;
  }

  void nccl_log(std::string_view raw, const std::vector<std::string_view>& t) {
    if (const auto w = raw.find(" NCCL WARN "); w != std::string_view::npos) {
      m_last_warn = std::string(trim(raw.substr(w + 11)));
      return;
    }
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
      if ((t[i] == "NCCL" || t[i] == "RCCL") && t[i + 1] == "version" && i + 2 < t.size() &&
          (i == 0 || t[i - 1] == "INFO")) {
        if (t[i] == "RCCL") out.tool = "rccl-tests";
        // "2.25.1+cuda12.8": the library's version; what follows '+' is the CUDA it was built
        // with, not the runtime in use.
        const std::string_view v = t[i + 2];
        if (out.nccl_version.empty()) out.nccl_version = std::string(v.substr(0, v.find('+')));
      }
      if (t[i] == "cudaDriverVersion") out.cuda_driver_version = cuda_version_from_int(t[i + 1]);
    }
  }

  // A command line naming a *_perf program: "$ ./build/all_reduce_perf -b 8 ...", "Running:
  // ... ./build/reduce_perf ...", an mpirun line. The program of the section that follows.
  void program_mention(std::string_view raw, const std::vector<std::string_view>& t) {
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!nccl_collective_name(t[i]) ||
          (!t[i].ends_with("_perf") && !t[i].ends_with("_perf_mpi"))) {
        continue;
      }
      std::string command(trim(raw));
      // Drop a shell prompt ("user@host:~/nccl-tests$ ") and quoting marks ("> ", "+ ").
      if (const auto prompt = command.find("$ ");
          prompt != std::string::npos && prompt < command.find(std::string(t[i]))) {
        command = std::string(trim(std::string_view(command).substr(prompt + 2)));
      }
      for (const char* mark : {"> ", "+ "}) {
        if (command.starts_with(mark)) command = std::string(trim(command.substr(2)));
      }
      NcclSection* s = current();
      if (s != nullptr && s->program.empty() && s->rows.empty() && !s->footer) {
        s->program = std::string(t[i]);
        s->command = command;
      } else {
        m_pending_program = std::string(t[i]);
        m_pending_command = command;
      }
      return;
    }
  }

  std::string_view m_text;
  const std::string& m_source;
  std::size_t m_line = 0;
  std::string m_pending_program, m_pending_command, m_last_warn;
  bool m_trace_only = false, m_orphan_trace = false;
};

}  // namespace

bool detect_nccl_tests(std::string_view head) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::vector<std::string_view> t = tokens_of(head.substr(pos, end - pos));
    pos = end + 1;
    if (t.size() > 1 && t[0].ends_with(':') && parse_int(t[0].substr(0, t[0].size() - 1))) {
      t.erase(t.begin());  // srun --label
    }
    if (t.empty()) continue;
    if (t[0] == "rccl-tests:" && t.size() > 1 && t[1] == "Version") return true;
    if (t[0][0] != '#') continue;
    if (t[0].size() > 1) {
      t[0].remove_prefix(1);
    } else {
      t.erase(t.begin());
    }
    if (t.size() >= 4 && t[0] == "nThread" && t[2] == "nGpus") return true;
    if (t.size() >= 3 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
      return true;
    }
    if (t.size() >= 6 && (t[0] == "size" || t[0] == "bytes") && t[1] == "count" &&
        std::find(t.begin(), t.end(), "busbw") != t.end()) {
      return true;
    }
  }
  return false;
}

NcclTestsText read_nccl_tests_text(std::string_view text, const std::string& source) {
  Reader reader(text, source);
  reader.read();
  return std::move(reader.out);
}

void refuse_nccl_tests(const std::string& source, std::size_t line, const std::string& why,
                       std::string_view text, const std::string& fix) {
  const std::string shown(trim(text).substr(0, 120));
  throw bad_input("cannot import '" + source + "' as nccl-tests output",
                  "line " + std::to_string(line) + ": " + why +
                      (shown.empty() ? std::string() : " (read: '" + shown + "')"),
                  fix);
}

}  // namespace gpubench::results::peers
