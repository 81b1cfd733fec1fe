#include "harness/run/run_order.hpp"

#include <algorithm>
#include <utility>

#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

struct KnownSuite {
  std::string_view name;
  SuiteKind kind;
};

// Every suite gpubench ships. Why each kind (harness/run/README.md "Order"):
//  - gemm: cuBLASLt GEMMs at the board's power limit (700 W on H100/H200 SXM), minutes per
//    execution: the GPUs come out hot, and the next suite would start on a GPU whose clock and
//    power state it left behind.
//  - fusion: mixed. Its gemm_bias_gelu cases are GEMMs, but they are under a fifth of its planned
//    time (quick, 8 GPUs: 3.3 s of 18.9 s an execution) and run shuffled among its microsecond
//    cases (random interleaving), so a settle after fusion would not protect fusion's own cases;
//    those microsecond cases are the ones that move with the clock (issue 36), so fusion runs
//    before gemm, not after it.
//  - allreduce, launch, memory, transfer: device work at or below the HBM/NVLink/PCIe limits,
//    not at the power limit for long.
//  - calibration: CPU chains only. dataloader: the host input pipeline (files, decode, workers);
//    its h2d cases copy batches with the copy engines over PCIe (no SM or HBM-bound work, a few
//    watts), so it is a host suite whose GPU part neither heats the GPU nor follows its clock.
constexpr KnownSuite k_known[] = {
    {"allreduce", SuiteKind::device}, {"calibration", SuiteKind::host},
    {"dataloader", SuiteKind::host},  {"fusion", SuiteKind::device},
    {"gemm", SuiteKind::power_heavy}, {"launch", SuiteKind::device},
    {"memory", SuiteKind::device},    {"transfer", SuiteKind::device},
};

int rank(SuiteKind kind) {
  switch (kind) {
    case SuiteKind::device:
      return 0;
    case SuiteKind::power_heavy:
      return 1;
    case SuiteKind::host:
      break;
  }
  return 2;
}

}  // namespace

const char* to_string(SuiteKind kind) {
  switch (kind) {
    case SuiteKind::device:
      return "device";
    case SuiteKind::power_heavy:
      return "power_heavy";
    case SuiteKind::host:
      break;
  }
  return "host";
}

SuiteKind suite_kind(std::string_view name) {
  for (const KnownSuite& k : k_known) {
    if (k.name == name) return k.kind;
  }
  return SuiteKind::device;
}

std::vector<SuiteExecutable> order_suites(std::vector<SuiteExecutable> suites) {
  std::stable_sort(suites.begin(), suites.end(),
                   [](const SuiteExecutable& a, const SuiteExecutable& b) {
                     return rank(suite_kind(a.name)) < rank(suite_kind(b.name));
                   });
  return suites;
}

std::vector<std::string> order_suite_names(std::vector<std::string> names) {
  std::vector<SuiteExecutable> suites;
  for (std::string& n : names) suites.push_back({std::move(n), {}});
  std::vector<std::string> out;
  for (SuiteExecutable& s : order_suites(std::move(suites))) out.push_back(std::move(s.name));
  return out;
}

std::string order_text(const std::vector<std::string>& ordered_names) {
  std::vector<std::string> of[3];
  for (const std::string& n : ordered_names) of[rank(suite_kind(n))].push_back(n);
  std::vector<std::string> parts;
  if (!of[0].empty()) parts.push_back("device suites first (" + join(of[0], ", ") + ")");
  if (!of[1].empty()) {
    parts.push_back(std::string(of[0].empty() ? "power-heavy device suites ("
                                              : "power-heavy last "
                                                "among them (") +
                    join(of[1], ", ") + ")");
  }
  if (!of[2].empty()) {
    parts.push_back(std::string(parts.empty() ? "host suites (" : "then host suites (") +
                    join(of[2], ", ") + ")");
  }
  return join(parts, ", ");
}

}  // namespace gpubench::harness
