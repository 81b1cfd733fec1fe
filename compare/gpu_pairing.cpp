#include "compare/gpu_pairing.hpp"

#include <cstdint>
#include <cstdio>
#include <set>

#include "compare/compare.hpp"
#include "results/model.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

bool knows_gpu(const results::ResultRow& row) {
  return !row.gpu_uuid.empty() && row.gpu_uuid != results::k_unknown;
}

namespace {

// The first run of `side` with a GPU row that does not name its GPU, or 0 when every one does.
// `gpu_rows` counts the side's GPU rows.
int64_t run_without_uuids(const Side& side, std::size_t& gpu_rows) {
  std::map<int64_t, int64_t> run_of;  // suite run id -> run id
  for (const results::RunDetail& r : side.runs) {
    for (int64_t id : r.suite_run_ids) run_of.emplace(id, r.run.id);
  }
  for (const results::ResultRow& row : side.results) {
    if (!row.device_index) continue;
    ++gpu_rows;
    if (!knows_gpu(row)) {
      const auto it = run_of.find(row.suite_run_id);
      return it == run_of.end() ? -1 : it->second;
    }
  }
  return 0;
}

// The device label of a GPU the base lacks: its UUID, which is data (an import may hold anything),
// while renderers print labels as they are ("gpu3", "host"). Characters other than letters,
// digits and . _ - : become '_' and, so two such UUIDs stay apart, the label then ends with a hash
// of the whole UUID.
std::string uuid_label(const std::string& uuid) {
  std::string out = uuid;
  bool replaced = false;
  for (char& c : out) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-' || c == ':';
    if (!safe) {
      c = '_';
      replaced = true;
    }
  }
  if (out.size() > 64) {
    out.resize(64);
    replaced = true;
  }
  if (replaced) {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bit
    for (unsigned char c : uuid) hash = (hash ^ c) * 1099511628211ull;
    char tail[20];
    std::snprintf(tail, sizeof tail, "~%016llx", static_cast<unsigned long long>(hash));
    out += tail;
  }
  return out;
}

}  // namespace

GpuPairing pair_gpus(const Side& base, const Side& candidate) {
  GpuPairing out;
  std::size_t base_rows = 0, candidate_rows = 0;
  const int64_t base_gap = run_without_uuids(base, base_rows);
  const int64_t candidate_gap = run_without_uuids(candidate, candidate_rows);
  if (base_rows == 0 && candidate_rows == 0) return out;  // nothing ran on a GPU
  if (base_gap != 0 || candidate_gap != 0) {
    const bool b = base_gap != 0;
    const int64_t run = b ? base_gap : candidate_gap;
    out.note = std::string("GPU series paired by CUDA index (device:N), not by GPU UUID: ") +
               (b ? "base" : "candidate") +
               (run > 0 ? " run " + std::to_string(run) : std::string(" side")) +
               " has results with no GPU UUID (stored by a suite that did not list its devices); "
               "if a GPU was lost, the indices after it name other GPUs";
    return out;
  }
  out.by_uuid = true;
  std::set<int> taken;
  for (const results::ResultRow& row : base.results) {
    if (!row.device_index || out.base_index.count(row.gpu_uuid)) continue;
    if (!taken.insert(*row.device_index).second) continue;  // another GPU had this ordinal first
    out.base_index.emplace(row.gpu_uuid, *row.device_index);
  }
  out.note = "GPU series paired by GPU UUID";
  return out;
}

std::string with_device_index(std::string_view benchmark, int index) {
  std::vector<std::string> parts = split(benchmark, '/');
  for (std::string& part : parts) {
    if (part.starts_with("device:")) part = "device:" + std::to_string(index);
  }
  return join(parts, "/");
}

PairedName paired_name(const GpuPairing& pairing, const results::ResultRow& row) {
  if (!pairing.by_uuid || !row.device_index) {
    return {row.benchmark, device_label(row.device_index)};
  }
  const auto it = pairing.base_index.find(row.gpu_uuid);
  if (it == pairing.base_index.end()) return {row.benchmark, uuid_label(row.gpu_uuid)};
  if (it->second == *row.device_index) return {row.benchmark, device_label(row.device_index)};
  return {with_device_index(row.benchmark, it->second), device_label(it->second)};
}

}  // namespace gpubench::compare
