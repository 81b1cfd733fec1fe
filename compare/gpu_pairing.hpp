// Which GPU series of one side is which of the other (issue 38). A suite names a GPU by its CUDA
// ordinal (`device:N` in the benchmark name, ResultRow::device_index); CUDA numbers the GPUs it
// sees from 0, so when a GPU is lost every GPU after it takes the number before, and pairing by
// ordinal holds GPU-...4 against GPU-...3 and reports the last number as lost. The store keeps
// each row's GPU UUID (mapped at ingest from the suite's own device list), so whenever every GPU
// row of both sides names its UUID, series are paired by UUID; the CUDA ordinal is the fallback,
// and the note says so.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "results/store.hpp"

namespace gpubench::compare {

struct Side;

struct GpuPairing {
  bool by_uuid = false;
  // by_uuid: the base's CUDA ordinal of each of its GPUs (the first base row that names the UUID,
  // in the side's row order), the number its series are named by on both sides. A UUID whose
  // ordinal another base GPU already took has none: its series are named by the UUID.
  std::map<std::string, int> base_index;
  // For people, empty when no row of either side is a GPU's: "GPU series paired by UUID" or
  // "GPU series paired by CUDA index (device:N): candidate run 7 recorded no GPU UUID; ...".
  std::string note;
};

// True when the row names the GPU it ran on (a UUID, not empty and not "unknown").
bool knows_gpu(const results::ResultRow& row);

// How `base` and `candidate` pair their GPU series.
GpuPairing pair_gpus(const Side& base, const Side& candidate);

// The identity a row is paired under: its benchmark name and device label. By index (or a host
// row): the row's own name and "gpuN" / "host". By UUID: the name and label of the base's ordinal
// of the row's GPU ("device:4", "gpu4" for GPU-...4 that the candidate ran as device:3), or, for
// a GPU the base does not have, the row's own name with the UUID as its label (so it pairs with
// nothing of the base's).
struct PairedName {
  std::string benchmark;
  std::string device;
};
PairedName paired_name(const GpuPairing& pairing, const results::ResultRow& row);

// `benchmark` with its `device:N` component's N replaced by `index` ("a/device:3/b", 4 ->
// "a/device:4/b"); unchanged when it has none.
std::string with_device_index(std::string_view benchmark, int index);

}  // namespace gpubench::compare
