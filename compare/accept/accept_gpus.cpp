// Acceptance checks of a run's GPUs as such: which GPU a result ran on, each GPU against its
// siblings of the same model, and failed row remaps.
#include "compare/accept/accept_detail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "compare/accept/accept.hpp"
#include "compare/hardware.hpp"
#include "compare/stats/stats.hpp"

namespace gpubench::compare::accept_detail {

// The GPU of a result: its UUID (mapped at ingest from the suite's own record of its CUDA
// ordinals), with the PCI bus id the run recorded for that UUID. Never matched by index: the
// row's device index is a CUDA ordinal, the run's GPUs carry NVML indices.
void fill_device(AcceptCheck& c, const Side& run, const results::ResultRow& row) {
  c.gpu_uuid = row.gpu_uuid;
  if (row.gpu_pci_bus_id != results::k_unknown) c.pci_bus_id = row.gpu_pci_bus_id;
  if (c.gpu_uuid.empty() || run.runs.empty()) return;
  for (const results::GpuInfo& g : run.runs.front().info.gpus) {
    if (g.uuid == c.gpu_uuid && g.pci_bus_id != results::k_unknown) c.pci_bus_id = g.pci_bus_id;
  }
}

// A failed row remap (NVML) means the GPU can no longer take memory errors out of service: the
// "send this GPU for service" signal. Every GPU of the run whose telemetry saw one fails.
void remap_failure_checks(const Side& run, AcceptResult& result) {
  for (const results::RunDetail& d : run.runs) {
    for (const results::TelemetrySummary& t : d.telemetry) {
      if (!t.remap_failure) continue;
      AcceptCheck c;
      c.key = {"gpu", "row_remapping", "remap_failure", "nvml" + std::to_string(t.nvml_index)};
      c.gpu_uuid = t.gpu_uuid;
      for (const results::GpuInfo& g : d.info.gpus) {
        if (g.uuid == t.gpu_uuid) c.pci_bus_id = g.pci_bus_id;
      }
      c.outcome = CheckOutcome::fail;
      c.reason = "NVML reports a failed row remap on this GPU (run " + std::to_string(d.run.id) +
                 "): send it for service";
      result.checks.push_back(std::move(c));
    }
  }
}

namespace {

// The GPU a row ran on, as the run recorded it (nullptr when not recorded).
const results::GpuInfo* gpu_of(const Side& run, const results::ResultRow& row) {
  if (row.gpu_uuid.empty() || run.runs.empty()) return nullptr;
  for (const results::GpuInfo& g : run.runs.front().info.gpus) {
    if (g.uuid == row.gpu_uuid) return &g;
  }
  return nullptr;
}

}  // namespace

// Each GPU's median against the median of its siblings: the same benchmark with `device:N`
// removed, on the other GPUs of the same model in the run. Worse by more than the larger of the
// sibling tolerance, 3x the GPU's own CV and 3x the siblings' robust spread (1.4826 MAD / median)
// makes it an outlier.
void sibling_check(const Side& run, const std::map<Key, Pooled>& pooled,
                   const AcceptOptions& options, AcceptResult& result) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           std::vector<const std::pair<const Key, Pooled>*>>
      groups;
  for (const auto& entry : pooled) {
    if (entry.first.device == "host" || entry.second.values.empty() || entry.second.error) continue;
    // One verdict per benchmark: its primary metric(s), as the checks (real_time says it again).
    if (entry.second.first->role == results::MetricRole::secondary) continue;
    const results::GpuInfo* g = gpu_of(run, *entry.second.first);
    const std::string model = g ? g->name : std::string(results::k_unknown);
    groups[{entry.first.suite, without_device(entry.first.benchmark), entry.first.metric, model}]
        .push_back(&entry);
  }
  for (const auto& [id, members] : groups) {
    if (members.size() < 3) continue;  // with two GPUs neither is "the" outlier
    for (const auto* m : members) {
      std::vector<double> others;
      for (const auto* o : members) {
        if (o != m) others.push_back(median(o->second.values));
      }
      const double sib = median(others);
      std::vector<double> deviations;
      for (double v : others) deviations.push_back(std::fabs(v - sib));
      const double mad = median(deviations);
      const double mine = median(m->second.values);
      results::Direction dir = m->second.first->direction;
      if (dir == results::Direction::unknown || !(sib > 0)) continue;
      double shortfall = dir == results::Direction::higher ? 1.0 - mine / sib : mine / sib - 1.0;
      double cv = coefficient_of_variation(m->second.values);
      double margin = std::max(
          {options.sibling_tolerance, std::isnan(cv) ? 0.0 : 3.0 * cv, 3.0 * 1.4826 * mad / sib});
      if (shortfall > margin) {
        AcceptCheck c;
        fill_device(c, run, *m->second.first);
        SiblingOutlier o;
        o.key = m->first;
        o.gpu_uuid = c.gpu_uuid;
        o.pci_bus_id = c.pci_bus_id;
        const results::GpuInfo* g = gpu_of(run, *m->second.first);
        o.index = g ? g->nvml_index : m->second.first->device_index.value_or(-1);
        o.gpu_model = std::get<3>(id);
        o.siblings = others.size();
        o.median = mine;
        o.siblings_median = sib;
        o.siblings_mad = mad;
        o.shortfall = shortfall;
        result.outliers.push_back(std::move(o));
      }
    }
  }
}

}  // namespace gpubench::compare::accept_detail
