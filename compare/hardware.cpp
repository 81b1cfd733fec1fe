#include "compare/hardware.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compare/compare.hpp"
#include "compare/gpu_pairing.hpp"
#include "results/model.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::compare {

int check_expect_gpus(int value, const std::string& option) {
  if (value < 1) {
    throw bad_input(option + " must be at least 1", "got " + std::to_string(value),
                    "give the number of GPUs the server has, e.g. " + option + " 8");
  }
  return value;
}

bool is_spec_hardware_line(std::string_view first_word) {
  return first_word.starts_with("expect_");
}

ExpectedHardware parse_spec_hardware(std::string_view text, const std::string& origin) {
  check_utf8(text, "spec file '" + origin + "'");
  ExpectedHardware out;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    std::string line = raw;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const std::string body(trim(line));
    const std::size_t space = body.find_first_of(" \t");
    const std::string word = body.substr(0, space);
    if (!is_spec_hardware_line(word)) continue;
    const std::string value(space == std::string::npos ? "" : trim(body.substr(space)));
    const std::string where = "spec file " + origin + ":" + std::to_string(line_no);
    const std::string example =
        "write 'expect_gpus 8' or 'expect_gpu_model \"H200\"' (`gpubench accept --help`)";
    if (word == "expect_gpus") {
      std::optional<long long> n = parse_int(value);
      if (!n || *n < 1 || *n > 4096) {
        throw bad_input("bad expect_gpus in " + where,
                        "'" + value + "' is not a number of GPUs (1 or more)", example);
      }
      out.gpus = static_cast<int>(*n);
      out.source = "spec " + origin + " line " + std::to_string(line_no);
    } else if (word == "expect_gpu_model") {
      std::string model = value;
      if (model.size() >= 2 && model.front() == '"' && model.back() == '"') {
        model = model.substr(1, model.size() - 2);
      }
      if (std::string(trim(model)).empty() || model.find('"') != std::string::npos) {
        throw bad_input("bad expect_gpu_model in " + where,
                        "'" + value + "' is not a quoted model name", example);
      }
      out.gpu_model = model;
      out.model_source = "spec " + origin + " line " + std::to_string(line_no);
    } else {
      throw bad_input("unknown '" + word + "' in " + where,
                      "the hardware lines are expect_gpus and expect_gpu_model", example);
    }
  }
  return out;
}

ExpectedHardware expected_from_reference(const Side& reference) {
  ExpectedHardware out;
  std::set<std::string> models;
  for (const results::RunDetail& r : reference.runs) {
    const int n = static_cast<int>(r.info.gpus.size());
    if (n > 0 && (!out.gpus || n > *out.gpus)) {
      out.gpus = n;
      out.source = "reference run " + std::to_string(r.run.id);
    }
    for (const results::GpuInfo& g : r.info.gpus) models.insert(g.name);
  }
  if (models.size() == 1 && *models.begin() != results::k_unknown) {
    out.gpu_model = *models.begin();
    out.model_source = out.source;
  }
  return out;
}

std::vector<std::string> run_hardware_problems(results::Store& store, const results::RunDetail& run,
                                               const std::vector<results::ResultRow>& rows,
                                               const ExpectedHardware& expected) {
  std::vector<std::string> out;
  if (!expected.any()) return out;
  out = hardware_problems(
      expected, run.info.gpus,
      missing_gpus(store, run.info.host.hostname, run.run.id, run.info.gpus, run.run.started_at));
  if (expected.gpus) {
    if (auto skips = lost_device_skips(rows)) out.push_back(*skips);
  }
  return out;
}

std::vector<MissingGpu> missing_gpus(results::Store& store, const std::string& hostname,
                                     int64_t run_id, const std::vector<results::GpuInfo>& present,
                                     const std::string& before) {
  std::set<std::string> here;
  for (const results::GpuInfo& g : present) here.insert(g.uuid);
  // Newest first by start time (ids follow import order, not time: a run imported later may have
  // started earlier). Only runs that started before `before` (ties: a smaller id) count: a GPU
  // seen in a rerun after the run is no evidence of what the run should have had, and "last seen
  // run N" must name a run from before it (issue 38).
  results::Statement st = store.database().prepare(
      "SELECT g.uuid, g.pci_bus_id, g.name, r.id FROM run_gpus rg "
      "JOIN gpu_devices g ON g.id = rg.gpu_device_id JOIN runs r ON r.id = rg.run_id "
      "JOIN hosts h ON h.id = r.host_id WHERE h.hostname = ?1 AND rg.run_id <> ?2 "
      "AND (?3 = '' OR julianday(?3) IS NULL OR julianday(r.started_at) < julianday(?3) "
      "OR (julianday(r.started_at) = julianday(?3) AND r.id < ?2)) "
      "ORDER BY julianday(r.started_at) DESC, r.id DESC, g.uuid");
  st.bind(1, std::string_view(hostname)).bind(2, run_id).bind(3, std::string_view(before));
  std::vector<MissingGpu> out;
  std::set<std::string> named;
  while (st.step()) {
    MissingGpu m{st.column_text(0), st.column_text(1), st.column_text(2), st.column_int64(3)};
    if (m.uuid.empty() || m.uuid == results::k_unknown || here.count(m.uuid)) continue;
    if (!named.insert(m.uuid).second) continue;  // seen in a newer run already
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

bool model_matches(const std::string& name, const std::string& model) {
  return to_lower(name).find(to_lower(model)) != std::string::npos;
}

std::string gpu_where(const results::GpuInfo& g) {
  std::string s = g.uuid + " (index " + std::to_string(g.nvml_index);
  if (g.pci_bus_id != results::k_unknown) s += ", bus " + g.pci_bus_id;
  return s + ")";
}

}  // namespace

std::vector<std::string> hardware_problems(const ExpectedHardware& expected,
                                           const std::vector<results::GpuInfo>& gpus,
                                           const std::vector<MissingGpu>& missing) {
  std::vector<std::string> out;
  std::vector<const results::GpuInfo*> usable;
  const std::string& model_source =
      expected.model_source.empty() ? expected.source : expected.model_source;
  for (const results::GpuInfo& g : gpus) {
    if (!expected.gpu_model.empty() && !model_matches(g.name, expected.gpu_model)) {
      out.push_back("wrong GPU model: " + gpu_where(g) + " is \"" + g.name + "\", expected \"" +
                    expected.gpu_model + "\"" +
                    (model_source.empty() ? "" : " (" + model_source + ")"));
      continue;
    }
    usable.push_back(&g);
  }
  if (expected.gpus && static_cast<int>(usable.size()) < *expected.gpus) {
    // Another model's GPUs are named on their own lines above; here they are not counted, and
    // the count says so ("found 0 \"H200\"" on an H100 server is not "found 0 GPUs").
    const std::size_t other_model = gpus.size() - usable.size();
    const std::string model = other_model == 0 ? std::string() : " \"" + expected.gpu_model + "\"";
    std::string line = "incomplete: expected " + std::to_string(*expected.gpus) + model +
                       " GPUs, found " + std::to_string(usable.size()) + model;
    if (other_model > 0) {
      line += " (" + std::to_string(other_model) + " GPU(s) of another model, named above)";
    }
    const std::size_t short_by = static_cast<std::size_t>(*expected.gpus) - usable.size();
    std::vector<std::string> named;
    for (std::size_t i = 0; i < missing.size() && i < short_by; ++i) {
      named.push_back(missing[i].uuid + ", last seen run " +
                      std::to_string(missing[i].last_seen_run));
    }
    if (!named.empty()) line += " (missing " + join(named, "; ") + ")";
    if (!expected.source.empty()) {
      line += " [expected by " + expected.source +
              (other_model > 0 && model_source != expected.source ? "; model by " + model_source
                                                                  : std::string()) +
              "]";
    }
    out.push_back(std::move(line));
  } else if (!expected.gpus && !expected.gpu_model.empty() && gpus.empty()) {
    // A model is a promise of at least one GPU of it: a server with none (no driver, every GPU
    // lost) must not pass because no GPU was there to be the wrong model. (GPUs of another
    // model are named above.)
    std::string line = "incomplete: expected \"" + expected.gpu_model + "\" GPU(s), found none";
    if (!model_source.empty()) line += " [expected by " + model_source + "]";
    out.push_back(std::move(line));
  }
  return out;
}

results::DoctorCheck expected_gpus_check(const ExpectedHardware& expected, std::size_t found,
                                         const std::vector<std::string>& problems) {
  results::DoctorCheck c;
  c.name = "gpu.expected_count";
  c.area = "GPU state";
  c.status = problems.empty() ? results::CheckStatus::pass : results::CheckStatus::fail;
  c.value = problems.empty() ? std::to_string(found) + " GPU(s)" : problems.front();
  c.expected = (expected.gpus ? std::to_string(*expected.gpus) : std::string("any number of")) +
               (expected.gpu_model.empty() ? "" : " \"" + expected.gpu_model + "\"") + " GPU(s) (" +
               expected.source + ")";
  if (!problems.empty()) {
    c.fix =
        "reseat or replace the missing GPU, or reload the driver (nvidia-smi lists what it "
        "sees); until then this server's results are incomplete";
  }
  return c;
}

bool no_device_reason(std::string_view message) {
  const std::string m = to_lower(message);
  for (const char* needle :
       {"no cuda device", "no nvidia driver", "no usable nvidia driver", "nvidia driver older",
        "no usable gpu", "no gpu", "gpu is lost", "fallen off the bus", "fell off the bus",
        "cudaerrornodevice", "cudaerrorinsufficientdriver", "no cuda-capable device"}) {
    if (m.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::optional<std::string> lost_device_skips(const std::vector<results::ResultRow>& rows) {
  std::set<std::pair<std::string, std::string>> benchmarks;
  std::string first;
  for (const results::ResultRow& row : rows) {
    if (row.status == results::BenchmarkStatus::ok || !no_device_reason(row.message)) continue;
    benchmarks.insert({row.suite, row.benchmark});
    if (first.empty()) first = row.message;
  }
  if (benchmarks.empty()) return std::nullopt;
  return "incomplete: " + std::to_string(benchmarks.size()) +
         " GPU benchmark(s) skipped or failed for want of a GPU: " + first;
}

std::string without_device(std::string_view benchmark) {
  std::vector<std::string> kept;
  for (const std::string& part : split(benchmark, '/')) {
    if (part.starts_with("device:")) continue;
    kept.push_back(part);
  }
  return join(kept, "/");
}

namespace {

// What the candidate shows of its GPUs and its no-device skips.
struct CandidateView {
  std::set<std::string> uuids;   // GPUs of its runs
  std::set<std::string> suites;  // suites with any row
  // (suite, benchmark without device:N) -> a no-device skip message
  std::map<std::pair<std::string, std::string>, std::string> lost;
};

CandidateView view_of(const Side& candidate) {
  CandidateView v;
  for (const results::RunDetail& r : candidate.runs) {
    for (const results::GpuInfo& g : r.info.gpus) v.uuids.insert(g.uuid);
  }
  for (const results::ResultRow& row : candidate.results) {
    v.suites.insert(row.suite);
    if (row.status != results::BenchmarkStatus::ok && no_device_reason(row.message)) {
      v.lost.try_emplace(std::pair{row.suite, without_device(row.benchmark)}, row.message);
    }
  }
  return v;
}

}  // namespace

void count_lost_hardware(const Side& base, const Side& candidate, Comparison& cmp) {
  if (cmp.removed.empty()) return;
  const CandidateView view = view_of(candidate);
  // The removed series of GPUs and why each is lost (empty: not lost, stays removed).
  std::map<Key, std::string> lost;
  std::set<Key> removed;
  for (const Unmatched& u : cmp.removed) {
    removed.insert(u.key);
    if (u.key.device == "host" || !view.suites.count(u.key.suite)) continue;
    if (auto it = view.lost.find({u.key.suite, without_device(u.key.benchmark)});
        it != view.lost.end()) {
      lost[u.key] = "lost with its GPU: the candidate skipped it (" + it->second + ")";
    }
  }
  // Per suite, a GPU that measured it on base and is gone from the candidate's runs. CUDA numbers
  // the remaining GPUs from 0, so losing GPU 3 of 8 removes the series of `device:7`, whose own
  // GPU is still there (as device 6): the suite's removed GPU series are lost all the same.
  // Paired by UUID (compare/gpu_pairing.hpp), the numbers no longer shift: only the lost GPU's own
  // series are removed.
  const GpuPairing pairing = pair_gpus(base, candidate);
  std::map<std::string, std::string> gone_by_suite;
  for (const results::ResultRow& row : base.results) {
    if (pairing.by_uuid || !row.device_index || row.gpu_uuid.empty() ||
        row.gpu_uuid == results::k_unknown || view.uuids.count(row.gpu_uuid) ||
        !view.suites.count(row.suite)) {
      continue;
    }
    gone_by_suite.try_emplace(row.suite, row.gpu_uuid);
  }
  std::map<Key, Entry> made;
  for (const results::ResultRow& row : base.results) {
    PairedName name = paired_name(pairing, row);
    const Key key{row.suite, std::move(name.benchmark), row.metric, std::move(name.device)};
    if (!removed.count(key) || key.device == "host" || !view.suites.count(key.suite)) continue;
    if (!lost.count(key)) {
      const bool own_gpu_known = !row.gpu_uuid.empty() && row.gpu_uuid != results::k_unknown;
      if (own_gpu_known && !view.uuids.count(row.gpu_uuid)) {
        lost[key] = "lost with its GPU: " + row.gpu_uuid +
                    " (device:" + std::to_string(*row.device_index) +
                    " on base) measured it on base and is not in the candidate's run";
      } else if (auto gone = gone_by_suite.find(key.suite); gone != gone_by_suite.end()) {
        lost[key] = "lost with a GPU: " + gone->second + " measured this suite on base and is " +
                    "not in the candidate's run (CUDA numbered the remaining GPUs from 0, so " +
                    "this device number is gone)";
      } else {
        continue;
      }
    }
    Entry& e = made[key];
    if (e.key.suite.empty()) {
      e.key = key;
      e.case_name = row.case_name;
      e.params = row.params;
      e.unit = row.unit;
      e.direction = row.direction;
      e.primary = row.role != results::MetricRole::secondary;
      e.base.gpu_uuid = row.gpu_uuid;
      e.base.device_index = row.device_index;
      e.ratio = e.ci_low = e.ci_high = e.p_value = e.q_value = e.mde = std::nan("");
      e.verdict = Verdict::missing;
      e.lost_hardware = true;
      e.reason = lost[key];
    }
    e.base.values.insert(e.base.values.end(), row.values.begin(), row.values.end());
  }
  if (made.empty()) return;
  std::set<std::tuple<std::string, std::string, std::string>> lost_series;
  for (auto& [key, e] : made) {
    summarize(e.base);
    summarize(e.candidate);
    lost_series.insert({key.suite, key.benchmark, key.device});
    cmp.entries.push_back(std::move(e));
  }
  std::erase_if(cmp.removed, [&](const Unmatched& u) { return made.count(u.key) > 0; });
  // The candidate's own rows of those series (a skip has no metric) say the same thing again.
  std::erase_if(cmp.added, [&](const Unmatched& u) {
    return u.key.metric.empty() && lost_series.count({u.key.suite, u.key.benchmark, u.key.device});
  });
  std::stable_sort(cmp.entries.begin(), cmp.entries.end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
}

}  // namespace gpubench::compare
