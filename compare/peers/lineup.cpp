#include "compare/peers/lineup.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "compare/names.hpp"
#include "compare/stats/stats.hpp"
#include "util/error.hpp"
#include "util/median.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

using results::Param;
using results::ResultRow;

constexpr std::array<std::string_view, 6> k_peer_suites = {
    "nccl-tests", "nvbandwidth", "bandwidthTest", "p2pBandwidthLatencyTest", "nvbench", "pytorch"};

// What a side measures, in terms both sides share: the kind and its parameters without the size
// and the GPU (`key`), the size in bytes where the side states one, the GPU.
struct Quantity {
  std::string key;
  std::optional<double> bytes;
  int gpu = -1;          // CUDA ordinal; -1: the whole node (collectives)
  std::string gpu_text;  // "0", "0->1", ""
  std::string uuid;      // the GPU's UUID where known, else ""
  std::string label;     // for people, without the size
  double scale = 1;      // peer: factor to gpubench's counting
  std::string note;      // peer: how its method differs
};

const Param* find(const std::vector<Param>& params, std::string_view key) {
  for (const Param& p : params) {
    if (p.key == key) return &p;
  }
  return nullptr;
}
std::string text(const std::vector<Param>& params, std::string_view key) {
  const Param* p = find(params, key);
  return p ? p->text : "";
}
std::optional<double> number(const std::vector<Param>& params, std::string_view key) {
  const Param* p = find(params, key);
  return p ? p->number : std::nullopt;
}
int ordinal(const std::vector<Param>& params, std::string_view key) {
  const auto n = number(params, key);
  return n ? static_cast<int>(*n) : -1;
}
bool known(const std::string& s) {
  return !s.empty() && s != results::k_unknown;
}

// ---- gpubench's side ---------------------------------------------------------------------------
std::optional<Quantity> own_quantity(const ResultRow& r) {
  const auto& p = r.params;
  Quantity q;
  q.uuid = known(r.gpu_uuid) ? r.gpu_uuid : "";
  if (r.suite == "allreduce" && r.metric == "busbw_GB_per_s") {
    // The whole-node series only: no scope (multi-node parts), not the MPI host reference.
    if (find(p, "scope") || find(p, "device")) return std::nullopt;
    q.key = "collective/" + r.case_name + "/dtype:" + text(p, "dtype") +
            "/mode:" + text(p, "mode") + "/ranks:" + text(p, "ranks");
    q.bytes = number(p, "bytes");
    q.uuid.clear();
    q.label = r.case_name + " busbw " + text(p, "dtype") + " " + text(p, "mode") + " " +
              text(p, "ranks") + " ranks";
    return q;
  }
  if (r.suite == "transfer" && r.metric == "GB_per_s") {
    // Like for like: the copy-engine and SM cases nvbandwidth also has, NUMA-local host buffers,
    // peer access on (nvbandwidth enables it), one direction at a time.
    const std::string numa = text(p, "numa");
    if (!numa.empty() && numa != "local") return std::nullopt;
    if (find(p, "peer_access") && text(p, "peer_access") != "on") return std::nullopt;
    if (r.case_name.find("bidirectional") != std::string::npos) return std::nullopt;
    q.bytes = number(p, "bytes");
    q.gpu = ordinal(p, "device");
    q.gpu_text = text(p, "device");
    if (find(p, "src")) {
      q.key = "copy/" + r.case_name + "/src:" + text(p, "src") + "/dst:" + text(p, "dst");
      q.gpu_text = text(p, "src") + "->" + text(p, "dst");
      q.label = "GPU to GPU copy (" + r.case_name + ")";
    } else if (text(p, "memory") == "device") {
      q.key = "copy/" + r.case_name;
      q.label = "device copy (" + r.case_name + ")";
    } else {
      q.key = "copy/" + r.case_name + "/memory:" + text(p, "memory");
      q.label = text(p, "dir") + " " + text(p, "memory") + " (" + r.case_name + ")";
    }
    return q;
  }
  if (r.suite == "memory" && r.case_name == "device_copy" && r.metric == "GB_per_s") {
    q.key = "devmem/copy";
    q.bytes = number(p, "array_bytes");
    q.gpu = ordinal(p, "device");
    q.gpu_text = text(p, "device");
    q.label = "device memory copy (STREAM copy)";
    return q;
  }
  if (r.suite == "gemm" && r.case_name == "cublaslt" && r.metric == "TFLOP_per_s") {
    // PyTorch's matmul of a @ b.T is cuBLAS TN, as nn.Linear; hot L2 as any repeated matmul.
    if (text(p, "layout") != "tn" || text(p, "cache") != "hot" || find(p, "accum")) {
      return std::nullopt;
    }
    q.key = "matmul/dtype:" + text(p, "dtype") + "/m:" + text(p, "m") + "/n:" + text(p, "n") +
            "/k:" + text(p, "k");
    q.gpu = ordinal(p, "device");
    q.gpu_text = text(p, "device");
    q.label =
        "GEMM " + text(p, "dtype") + " " + text(p, "m") + "x" + text(p, "n") + "x" + text(p, "k");
    return q;
  }
  return std::nullopt;
}

// ---- the peers' side ---------------------------------------------------------------------------
constexpr const char* k_nccl_note =
    "nccl-tests reports the mean over its processes of each one's time (-a 1); one process (-g N) "
    "times all its GPUs to the last, as gpubench's slowest GPU; under MPI, one GPU a rank, its "
    "figure is gpubench's busbw_mean_GB_per_s";
constexpr const char* k_nvbandwidth_host_note =
    "nvbandwidth: cudaMemcpyAsync from a cudaMallocHost buffer on the NUMA node it ran on, timed "
    "with events behind a spin kernel; gpubench: a NUMA-local pinned buffer";
constexpr const char* k_nvbandwidth_peer_note =
    "nvbandwidth's matrix row is the source GPU, the column the destination; both with peer access";
constexpr const char* k_nvbandwidth_local_note =
    "nvbandwidth's device_local_copy and gpubench's: copy-engine copies, bytes counted once";
constexpr const char* k_nvbandwidth_stream_note =
    "nvbandwidth counts a copy's bytes once, STREAM copy counts read and write: nvbandwidth x2 "
    "here; a copy engine against gpubench's SM kernel";
constexpr const char* k_bandwidth_test_note =
    "bandwidthTest: one cudaMemcpy(Async) loop timed with events, no spin kernel; versions that "
    "print MB/s count 2^20 bytes";
constexpr const char* k_bandwidth_test_d2d_note =
    "bandwidthTest counts a device copy's bytes twice (read and write): halved here";
constexpr const char* k_pytorch_copy_note =
    "PyTorch: tensor.copy_(non_blocking=True), each copy a launch of its own, timed with CUDA "
    "events; gpubench's copies queue behind a spin kernel";
constexpr const char* k_pytorch_matmul_note =
    "PyTorch: torch.matmul(a, b.T) with its own cuBLAS(Lt) heuristic, timed with CUDA events; "
    "gpubench: the best of a cuBLASLt algorithm search; fp32 is PyTorch with TF32 off";

std::string peer_gpu_uuid(const ResultRow& r, const results::RunDetail& run, int gpu) {
  if (known(r.gpu_uuid)) return r.gpu_uuid;
  // An import's GPUs are the file's device list in its order (cmd_import.cpp): position = index.
  if (gpu >= 0 && static_cast<std::size_t>(gpu) < run.info.gpus.size() &&
      known(run.info.gpus[static_cast<std::size_t>(gpu)].uuid)) {
    return run.info.gpus[static_cast<std::size_t>(gpu)].uuid;
  }
  return "";
}

std::vector<Quantity> peer_quantities(const ResultRow& r, const results::RunDetail& run) {
  const auto& p = r.params;
  std::vector<Quantity> out;
  if (r.suite == "nccl-tests" && r.metric == "busbw_GB_per_s") {
    const std::string op = text(p, "op");
    const bool reduces = r.case_name == "allreduce" || r.case_name == "reduce_scatter";
    if (reduces && op != "sum") return out;                     // gpubench's reductions are sums
    if (find(p, "root") && text(p, "root") != "0") return out;  // gpubench broadcasts from 0
    Quantity q;
    q.key = "collective/" + r.case_name + "/dtype:" + text(p, "dtype") +
            "/mode:" + text(p, "mode") + "/ranks:" + text(p, "ranks");
    q.bytes = number(p, "bytes");
    q.note = k_nccl_note;
    out.push_back(q);
    return out;
  }
  if (r.suite == "nvbandwidth" && r.metric == "GB_per_s") {
    const std::string tc = r.case_name;  // "<testcase>" ("<testcase>/sum" for a SUM line)
    const int src = ordinal(p, "src");
    const int dst = ordinal(p, "dst");
    Quantity q;
    q.bytes = number(p, "bytes");
    if (tc.rfind("host_to_device_memcpy_", 0) == 0 || tc.rfind("device_to_host_memcpy_", 0) == 0) {
      q.key = "copy/" + tc + "/memory:pinned";
      q.gpu = src >= 0 ? src : dst;
      q.note = k_nvbandwidth_host_note;
      out.push_back(q);
    } else if (tc == "device_to_device_memcpy_write_ce" ||
               tc == "device_to_device_memcpy_write_sm") {
      if (src < 0 || dst < 0) return out;
      q.key = "copy/" + tc + "/src:" + text(p, "src") + "/dst:" + text(p, "dst");
      q.gpu = src;
      q.note = k_nvbandwidth_peer_note;
      out.push_back(q);
    } else if (tc == "device_local_copy") {
      q.gpu = src >= 0 ? src : dst;
      q.key = "copy/device_local_copy";
      q.note = k_nvbandwidth_local_note;
      out.push_back(q);
      q.key = "devmem/copy";
      q.scale = 2;
      q.note = k_nvbandwidth_stream_note;
      out.push_back(q);
    }
  } else if (r.suite == "bandwidthTest" && r.metric == "GB_per_s") {
    Quantity q;
    q.bytes = number(p, "bytes");
    q.gpu = ordinal(p, "device");
    q.note = k_bandwidth_test_note;
    if (r.case_name == "h2d") {
      q.key = "copy/host_to_device_memcpy_ce/memory:" + text(p, "memory");
    } else if (r.case_name == "d2h") {
      q.key = "copy/device_to_host_memcpy_ce/memory:" + text(p, "memory");
    } else if (r.case_name == "d2d") {
      q.key = "copy/device_local_copy";
      q.scale = 0.5;
      q.note = k_bandwidth_test_d2d_note;
    } else {
      return out;
    }
    out.push_back(q);
  } else if (r.suite == "pytorch") {
    Quantity q;
    q.gpu = ordinal(p, "device");
    if (r.case_name == "matmul" && r.metric == "TFLOP_per_s") {
      q.key = "matmul/dtype:" + text(p, "dtype") + "/m:" + text(p, "m") + "/n:" + text(p, "n") +
              "/k:" + text(p, "k");
      q.note = k_pytorch_matmul_note;
    } else if (r.metric == "GB_per_s" && (r.case_name == "copy/h2d" || r.case_name == "copy/d2h")) {
      q.key = std::string("copy/") +
              (r.case_name == "copy/h2d" ? "host_to_device" : "device_to_host") +
              "_memcpy_ce/memory:" + text(p, "memory");
      q.bytes = number(p, "bytes");
      q.note = k_pytorch_copy_note;
    } else if (r.metric == "GB_per_s" && r.case_name == "copy/d2d") {
      q.key = "copy/device_local_copy";
      q.bytes = number(p, "bytes");
      q.note = k_pytorch_copy_note;
    } else {
      return out;
    }
    out.push_back(q);
  }
  for (Quantity& q : out) q.uuid = peer_gpu_uuid(r, run, q.gpu);
  return out;
}

// The row's usable values: ok samples not under a thermal or hardware slowdown.
std::vector<double> usable_values(const ResultRow& r) {
  std::vector<double> out;
  if (r.status != results::BenchmarkStatus::ok) return out;
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    if (i < r.throttled.size() && r.throttled[i] == 1) continue;
    if (r.values[i] > 0) out.push_back(r.values[i]);
  }
  return out;
}

struct Candidate {
  Quantity q;
  PeerSide side;
};

// Rows of one run pooled per (benchmark, metric): a run of several executions has a row each.
std::vector<std::pair<const ResultRow*, std::vector<double>>> pooled(
    const std::vector<ResultRow>& rows) {
  std::map<std::pair<std::string, std::string>, std::size_t> at;
  std::vector<std::pair<const ResultRow*, std::vector<double>>> out;
  for (const ResultRow& r : rows) {
    if (r.metric.empty()) continue;
    std::vector<double> v = usable_values(r);
    if (v.empty()) continue;
    auto [it, added] = at.try_emplace({r.benchmark, r.metric}, out.size());
    if (added) {
      out.emplace_back(&r, std::move(v));
    } else {
      auto& dest = out[it->second].second;
      dest.insert(dest.end(), v.begin(), v.end());
    }
  }
  return out;
}

bool same_gpu(const Quantity& own, const Quantity& peer) {
  if (!own.uuid.empty() && !peer.uuid.empty()) return own.uuid == peer.uuid;
  return own.gpu == peer.gpu;
}

std::string size_text(double bytes) {
  return format_bytes_binary(bytes);
}

// A PCI address in one spelling: NVML writes "00000000:18:00.0", sysfs and nccl-tests
// "0000:18:00.0" or "0000:18:00", some tools "18:00.0". Domain as a number, bus and device as
// written (lower case), function 0 when left out; "" when it is no address.
std::string canonical_bus_id(const std::string& id) {
  std::vector<std::string> parts = split(to_lower(id), ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3) return "";
  const std::string domain = parts[0].find_first_not_of('0') == std::string::npos
                                 ? "0"
                                 : parts[0].substr(parts[0].find_first_not_of('0'));
  std::string device = parts[2];
  if (device.find('.') == std::string::npos) device += ".0";
  return domain + ":" + parts[1] + ":" + device;
}

}  // namespace

bool is_peer_suite(std::string_view suite) {
  return std::find(k_peer_suites.begin(), k_peer_suites.end(), suite) != k_peer_suites.end();
}

std::vector<PeerLine> line_up(const LoadedRun& own, const LoadedRun& peer) {
  std::vector<Candidate> mine;
  for (auto& [row, values] : pooled(own.rows)) {
    if (auto q = own_quantity(*row)) {
      PeerSide side{own.detail.run.id, row->suite, row->benchmark, row->metric,
                    row->unit,         values,     median(values)};
      mine.push_back({std::move(*q), std::move(side)});
    }
  }
  std::vector<PeerLine> lines;
  for (auto& [row, values] : pooled(peer.rows)) {
    for (const Quantity& q : peer_quantities(*row, peer.detail)) {
      // The gpubench case of the same quantity on the same GPU: the same size where the peer
      // states one, else gpubench's largest (nvbandwidth's buffer size is not in every output).
      const Candidate* best = nullptr;
      for (const Candidate& c : mine) {
        if (c.q.key != q.key || !same_gpu(c.q, q)) continue;
        if (q.bytes) {
          if (c.q.bytes && *c.q.bytes == *q.bytes) best = &c;
        } else if (!best || c.q.bytes.value_or(0) > best->q.bytes.value_or(0)) {
          best = &c;
        }
        if (best && q.bytes) break;
      }
      if (!best) continue;
      PeerLine line;
      line.quantity = best->q.label;
      if (best->q.bytes) line.quantity += " " + size_text(*best->q.bytes);
      line.gpu = best->q.gpu_text;
      line.gpubench = best->side;
      line.peer = {
          peer.detail.run.id, row->suite, row->benchmark, row->metric, row->unit, values, 0};
      for (double& v : line.peer.values) v *= q.scale;
      line.peer.median = median(line.peer.values);
      line.peer_scale = q.scale;
      line.note = q.note;
      if (!q.bytes && best->q.bytes) {
        line.note += "; the peer's output states no buffer size: against gpubench's largest";
      }
      if (best->q.uuid.empty() || q.uuid.empty()) {
        if (best->q.gpu >= 0) line.note += "; GPUs matched by CUDA ordinal (a side names no UUID)";
      }
      const auto& a = line.peer.values;
      const auto& b = line.gpubench.values;
      line.ratio = line.gpubench.median / line.peer.median;
      if (a.size() >= k_peer_min_repetitions && b.size() >= k_peer_min_repetitions) {
        LogRatioOptions options;
        options.confidence = k_peer_confidence;
        const LogRatioEstimate e = log_ratio_estimate(a, b, options);
        if (e.valid) {
          line.ratio = e.ratio;
          line.ci_low = e.ci_low;
          line.ci_high = e.ci_high;
        }
      }
      lines.push_back(std::move(line));
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const PeerLine& x, const PeerLine& y) {
    return std::tie(x.gpubench.benchmark, x.peer.suite, x.peer.benchmark) <
           std::tie(y.gpubench.benchmark, y.peer.suite, y.peer.benchmark);
  });
  return lines;
}

std::string peer_mismatch(const results::RunDetail& own, const results::RunDetail& peer) {
  const std::string& a = own.info.host.hostname;
  const std::string& b = peer.info.host.hostname;
  if (!known(a) || !known(b)) return "the host is unknown on one side";
  if (short_host(a) != short_host(b)) return "another host (" + b + ")";
  // The same GPUs where both runs name them: every GPU the peer names is one of the run's.
  for (const bool by_uuid : {true, false}) {
    std::set<std::string> mine;
    std::vector<std::pair<std::string, std::string>> theirs;  // (compared form, as stated)
    const auto id_of = [by_uuid](const results::GpuInfo& g) {
      if (by_uuid) return known(g.uuid) ? to_lower(g.uuid) : std::string();
      return known(g.pci_bus_id) ? canonical_bus_id(g.pci_bus_id) : std::string();
    };
    for (const auto& g : own.info.gpus) {
      if (const std::string id = id_of(g); !id.empty()) mine.insert(id);
    }
    for (const auto& g : peer.info.gpus) {
      if (const std::string id = id_of(g); !id.empty()) {
        theirs.emplace_back(id, by_uuid ? g.uuid : g.pci_bus_id);
      }
    }
    if (mine.empty() || theirs.empty()) continue;
    for (const auto& [id, stated] : theirs) {
      if (!mine.count(id)) {
        return std::string("other GPUs (") + (by_uuid ? "UUID " : "PCI bus id ") + stated +
               " is not in the run)";
      }
    }
    return "";
  }
  return "";
}

PeerLineup peer_lineup(results::Store& store, int64_t run_id) {
  PeerLineup lineup;
  LoadedRun own{store.get_run(run_id), {}};
  for (const auto& s : own.detail.suites) {
    if (is_peer_suite(s.suite)) {
      throw bad_input("run " + std::to_string(run_id) + " is a peer run (" + s.suite + ")",
                      "peers lines up a gpubench run against the peer runs of its host",
                      "name a gpubench run (gpubench runs lists them), or leave RUN out for the "
                      "latest");
    }
  }
  lineup.run_id = run_id;
  lineup.host = own.detail.info.host.hostname;
  std::set<std::string> tools_seen;
  bool own_loaded = false;
  for (const results::RunRow& row : store.list_runs()) {  // newest first
    if (row.id == run_id || short_host(row.hostname) != short_host(lineup.host)) continue;
    if (row.status != results::RunStatus::complete) continue;
    // Peers come in through `gpubench import`, which tags every run it makes: a store of
    // gpubench's own runs costs no more than this loop.
    if (std::none_of(row.tags.begin(), row.tags.end(),
                     [](const auto& t) { return t.first == results::k_imported_tag_key; })) {
      continue;
    }
    LoadedRun peer{store.get_run(row.id), {}};
    std::string tool;
    for (const auto& s : peer.detail.suites) {
      if (is_peer_suite(s.suite)) tool = s.suite;
    }
    if (tool.empty() || tools_seen.count(tool)) continue;  // not a peer, or an older one
    PeerRunUse use;
    use.run_id = row.id;
    use.tool = tool;
    use.started_at = row.started_at;
    use.left_out = peer_mismatch(own.detail, peer.detail);
    if (use.left_out.empty()) {
      tools_seen.insert(tool);
      if (!own_loaded) own.rows = store.get_results(run_id);
      own_loaded = true;
      peer.rows = store.get_results(row.id);
      std::vector<PeerLine> lines = line_up(own, peer);
      use.lines = lines.size();
      for (PeerLine& l : lines) lineup.lines.push_back(std::move(l));
    }
    lineup.peer_runs.push_back(std::move(use));
  }
  // By quantity (gpubench's benchmark), then tool: one quantity's peers side by side.
  std::stable_sort(lineup.lines.begin(), lineup.lines.end(),
                   [](const PeerLine& x, const PeerLine& y) {
                     return std::tie(x.gpubench.benchmark, x.peer.suite) <
                            std::tie(y.gpubench.benchmark, y.peer.suite);
                   });
  return lineup;
}

}  // namespace gpubench::compare
