// A benchmark's typed parameters written as the JSON object the one-document renderers build
// (`params[key] = number or text`): keys in sorted order, the last value of a repeated key. Shared
// by the streamed show/export and compare JSON (util/json_writer.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "results/model.hpp"
#include "util/json_writer.hpp"

namespace gpubench::results {

// Writes `params` as an object value (after w.key(...)); `scratch` is reused between calls.
inline void write_params(JsonWriter& w, const std::vector<Param>& params,
                         std::vector<const Param*>& scratch) {
  scratch.clear();
  for (const Param& p : params) scratch.push_back(&p);
  std::stable_sort(scratch.begin(), scratch.end(),
                   [](const Param* a, const Param* b) { return a->key < b->key; });
  w.begin_object();
  for (std::size_t i = 0; i < scratch.size(); ++i) {
    if (i + 1 < scratch.size() && scratch[i + 1]->key == scratch[i]->key) continue;
    w.key(scratch[i]->key);
    if (scratch[i]->number) {
      w.number(*scratch[i]->number);
    } else {
      w.string(scratch[i]->text);
    }
  }
  w.end_object();
}

}  // namespace gpubench::results
