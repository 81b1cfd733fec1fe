// nccl-tests / rccl-tests *_perf text output -> a Google Benchmark document named in gpubench's
// scheme (issue 40): one "iteration" entry per size and place,
//   nccl-tests/<collective>/dtype:<d>/op:<op>/mode:<out_of_place|in_place>/bytes:<N>/ranks:<R>
//   [/root:<r>]
// with busbw, algbw and time as the tool printed them. The text is read into sections by
// nccl_tests_reader.cpp; this file checks that what was read is enough to name and keep each
// value, and writes the document.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "results/peers/nccl_tests_detail.hpp"
#include "results/peers/peers_nccl_tests.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

namespace {

using nlohmann::json;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Collectives whose "redop" column means nothing (nccl-tests 2.13+ prints "none", some versions
// "sum" for sendrecv): op:none, so one series across versions.
bool reduces(const std::string& collective) {
  return collective == "allreduce" || collective == "reduce" || collective == "reduce_scatter";
}
bool rooted(const std::string& collective) {
  return collective == "broadcast" || collective == "reduce" || collective == "gather" ||
         collective == "scatter";
}

bool under_launcher(const std::string& command) {
  for (const char* launcher : {"mpirun", "mpiexec", "srun", "orterun", "prun"}) {
    if (command.find(launcher) != std::string::npos) return true;
  }
  return false;
}

// "-g 8" / "-t 2" of a command line; 1 when absent (nccl-tests' defaults).
long long option_of(const std::string& command, const char* flag) {
  const std::vector<std::string> words = split(command, ' ');
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == flag) {
      if (const auto v = parse_int(words[i + 1]); v && *v > 0) return *v;
    }
  }
  return 1;
}

// The collective a section measured: its "# Collective test starting" line or a command line
// naming the program, else the file's name ("nccl_allreduce.log").
std::string collective_of(const NcclSection& s, const std::string& source) {
  if (!s.program.empty()) {
    if (auto c = nccl_collective_name(s.program)) return *c;
    refuse_nccl_tests(source, s.line, "unknown nccl-tests program '" + s.program + "'", {},
                      "gpubench reads all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
                      "alltoall, sendrecv, gather, scatter and hypercube _perf output (rccl-tests: "
                      "also alltoallv)");
  }
  std::string file = to_lower(std::filesystem::path(source).filename().string());
  file.erase(std::remove(file.begin(), file.end(), '-'), file.end());
  static const std::pair<const char*, const char*> k_hints[] = {
      {"all_reduce", "allreduce"},
      {"allreduce", "allreduce"},
      {"all_gather", "allgather"},
      {"allgather", "allgather"},
      {"reduce_scatter", "reduce_scatter"},
      {"reducescatter", "reduce_scatter"},
      {"alltoallv", "alltoallv"},
      {"alltoall", "alltoall"},
      {"broadcast", "broadcast"},
      {"sendrecv", "sendrecv"},
      {"hypercube", "hypercube"},
      {"scatter", "scatter"},
      {"gather", "gather"},
      {"reduce", "reduce"}};
  for (const auto& [hint, collective] : k_hints) {
    if (file.find(hint) != std::string::npos) return collective;
  }
  refuse_nccl_tests(source, s.line,
                    "the file does not say which nccl-tests program printed the table here (no "
                    "'# Collective test starting' line, no command line naming a *_perf program)",
                    {},
                    "keep the command line (or nccl-tests 2.17's '# Collective test starting' "
                    "line) in the file, or name the file after the program, e.g. "
                    "all_reduce_perf.txt");
}

int ranks_of(const NcclSection& s, const std::string& source) {
  if (!s.ranks.empty()) return static_cast<int>(s.ranks.size());
  // Without the rank list: one process drives nThread x nGpus ranks, as its header or command
  // line says; under a launcher the process count is not in the text.
  if (!under_launcher(s.command)) {
    if (s.threads && s.gpus) return static_cast<int>(*s.threads * *s.gpus);
    if (!s.command.empty()) {
      return static_cast<int>(option_of(s.command, "-t") * option_of(s.command, "-g"));
    }
  }
  refuse_nccl_tests(source, s.line,
                    "the number of ranks is not stated (no '#  Rank N ... device D' lines, and "
                    "no single-process command line or '# nThread N nGpus G' line to count them "
                    "from)",
                    {}, "import the tool's output with its '# Using devices' rank list");
}

json metrics() {
  return json::array(
      {{{"name", "busbw_GB_per_s"},
        {"unit", "GB/s"},
        {"direction", "higher"},
        {"role", "primary"},
        {"description",
         "nccl-tests' bus bandwidth as printed: algbw x the collective's bus factor (allreduce "
         "2(n-1)/n), from the time averaged over ranks (the tool's -a 1 default)"}},
       {{"name", "algbw_GB_per_s"},
        {"unit", "GB/s"},
        {"direction", "higher"},
        {"role", "secondary"},
        {"description", "nccl-tests' algorithm bandwidth as printed: bytes / time, decimal"}},
       {{"name", "time_us"},
        {"unit", "us"},
        {"direction", "lower"},
        {"role", "secondary"},
        {"description",
         "nccl-tests' time per operation as printed: the mean over its timed iterations"}}});
}

json devices_of(const NcclSection& s) {
  json out = json::array();
  for (const NcclRankGpu& g : s.ranks) {
    // index = the rank, as gpubench's allreduce suite numbers a launcher's GPUs.
    json d = {{"index", g.rank}, {"rank", g.rank}, {"host", g.host}, {"name", g.name}};
    if (g.device) d["cuda_device"] = *g.device;
    if (!g.pci_bus_id.empty()) d["pci_bus_id"] = g.pci_bus_id;
    out.push_back(std::move(d));
  }
  return out;
}

struct Entry {
  std::string name;
  json body;
};

}  // namespace

PeerDocument parse_nccl_tests(std::string_view text, const std::string& source) {
  const NcclTestsText read = read_nccl_tests_text(text, source);
  std::vector<std::string> failures;
  std::size_t first_failure_line = 0;
  if (!read.orphan_failure.empty()) {
    failures.push_back(read.orphan_failure);
    first_failure_line = read.orphan_failure_line;
  }
  bool measured = false;
  for (const NcclSection& s : read.sections) {
    if (!s.failure.empty()) {
      failures.push_back(s.failure);
      if (first_failure_line == 0) first_failure_line = s.failure_line;
    }
    measured = measured || !s.rows.empty();
  }
  if (!measured) {
    std::size_t line = first_failure_line != 0 ? first_failure_line
                       : read.sections.empty() ? 1
                                               : read.sections.front().line;
    const std::string why =
        !failures.empty() ? "nothing was measured: the run ended before its first result with '" +
                                failures.front() + "'"
                          : "nothing was measured: no result row follows the column header";
    refuse_nccl_tests(source, line, why, {},
                      "fix what the tool's error says and import the output of a run that "
                      "measured at least one size");
  }

  std::vector<Entry> entries;
  const NcclSection* described = nullptr;  // the section whose rank list describes the run
  std::string command;
  for (const NcclSection& s : read.sections) {
    if (s.rows.empty()) continue;
    const std::string collective = collective_of(s, source);
    const int ranks = ranks_of(s, source);
    if (described == nullptr || s.ranks.size() > described->ranks.size()) described = &s;
    if (command.empty()) command = s.command;
    for (const NcclRow& r : s.rows) {
      std::string base = "nccl-tests/" + collective + "/dtype:" + r.dtype +
                         "/op:" + (reduces(collective) && !r.op.empty() ? to_lower(r.op) : "none");
      const std::string tail =
          "/bytes:" + std::to_string(r.bytes) + "/ranks:" + std::to_string(ranks) +
          (rooted(collective) && r.root && *r.root >= 0 ? "/root:" + std::to_string(*r.root)
                                                        : std::string());
      for (const auto& [mode, p] :
           {std::pair{"out_of_place", &r.out}, std::pair{"in_place", &r.in}}) {
        Entry e;
        e.name = base + "/mode:" + mode + tail;
        e.body = {{"name", e.name},
                  {"run_name", e.name},
                  {"run_type", "iteration"},
                  {"threads", 1},
                  {"iterations", s.iters.value_or(1)},
                  {"time_unit", "us"}};
        std::string invalid;
        if (!std::isfinite(p->time_us) || !std::isfinite(p->algbw) || !std::isfinite(p->busbw)) {
          invalid = "invalid: nccl-tests printed time " + number_text(p->time_us) + " us, algbw " +
                    number_text(p->algbw) + ", busbw " + number_text(p->busbw) + " GB/s (line " +
                    std::to_string(r.line) + ")";
        } else if (p->wrong && s.columns->error_value) {
          const double bound = nccl_error_bound(r.dtype, ranks);
          if (*p->wrong > bound || p->flagged) {
            invalid = "invalid: error " + number_text(*p->wrong) + " above nccl-tests' bound " +
                      number_text(bound) + " for " + r.dtype + " over " + std::to_string(ranks) +
                      " ranks (out of bounds; busbw " + number_text(p->busbw) +
                      " GB/s not kept, line " + std::to_string(r.line) + ")";
          }
        } else if (p->wrong && (*p->wrong > 0 || p->flagged)) {
          invalid = "invalid: nccl-tests counted " + number_text(*p->wrong) +
                    " wrong elements (#wrong; busbw " + number_text(p->busbw) +
                    " GB/s not kept, line " + std::to_string(r.line) + ")";
        }
        if (invalid.empty()) {
          e.body["real_time"] = p->time_us;
          e.body["cpu_time"] = p->time_us;
          e.body["busbw_GB_per_s"] = p->busbw;
          e.body["algbw_GB_per_s"] = p->algbw;
          e.body["time_us"] = p->time_us;
        } else {
          e.body["real_time"] = 0;
          e.body["cpu_time"] = 0;
          e.body["error_occurred"] = true;
          e.body["error_message"] = invalid;
        }
        entries.push_back(std::move(e));
      }
    }
  }
  // A size printed twice (old versions round tiny sizes down to 0 bytes; a log of repeated runs)
  // is a repetition of the same case.
  std::map<std::string, int> count, seen;
  for (const Entry& e : entries) ++count[e.name];
  json benchmarks = json::array();
  for (Entry& e : entries) {
    e.body["repetitions"] = count[e.name];
    e.body["repetition_index"] = seen[e.name]++;
    benchmarks.push_back(std::move(e.body));
  }

  json context = {{"gpubench.suite", "nccl-tests"},
                  {"gpubench.metrics", metrics().dump()},
                  {"peer.tool", read.tool}};
  if (!read.tool_version.empty()) context["peer.version"] = read.tool_version;
  if (!command.empty()) context["peer.command"] = command;
  if (!read.nccl_version.empty()) context["gpubench.nccl_version"] = read.nccl_version;
  if (!read.cuda_driver_version.empty()) {
    context["gpubench.cuda_driver_version"] = read.cuda_driver_version;
  }
  if (described != nullptr && !described->ranks.empty()) {
    context["host_name"] = described->ranks.front().host;
    context["gpubench.devices"] = devices_of(*described).dump();
    std::vector<std::string> hosts;
    for (const NcclRankGpu& g : described->ranks) {
      if (std::find(hosts.begin(), hosts.end(), g.host) == hosts.end()) hosts.push_back(g.host);
    }
    if (hosts.size() > 1) context["peer.hosts"] = join(hosts, ",");
  }

  PeerDocument doc;
  doc.format = "nccl-tests";
  doc.document = {{"context", std::move(context)}, {"benchmarks", std::move(benchmarks)}};
  doc.failure = join(failures, "; ");
  return doc;
}

}  // namespace gpubench::results::peers
