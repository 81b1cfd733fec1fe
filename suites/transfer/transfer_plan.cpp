#include "suites/transfer/transfer_plan.hpp"

#include "suites/transfer/transfer_cuda.hpp"

namespace gpubench::transfer {

namespace {

// Bytes per second of one direction of the case's link.
double link_rate(const TransferCase& c, const suite::ModelRates& r) {
  switch (c.dir) {
    case Dir::h2d:
    case Dir::d2h:
    case Dir::bidir:
      return c.memory == Memory::pageable ? r.pcie_pageable_bytes_per_s : r.pcie_pinned_bytes_per_s;
    case Dir::d2d:
      return r.hbm_bytes_per_s / 2;  // a device-local copy reads and writes HBM
    case Dir::p2p:
      return c.peer == PeerAccess::off ? r.staged_peer_bytes_per_s : r.nvlink_pair_bytes_per_s;
  }
  return r.pcie_pinned_bytes_per_s;
}

// Host buffers the case allocates, fills and pins per repetition.
int host_buffers(const TransferCase& c) {
  if (c.dir == Dir::d2d || c.dir == Dir::p2p) return 0;
  return c.dir == Dir::bidir ? 2 : 1;
}

}  // namespace

double planned_case_seconds(const TransferCase& c, int gpus, int repetitions, int samples,
                            const suite::ModelRates& r) {
  const bool p2p = c.dir == Dir::p2p;
  if (gpus <= 0 || (p2p && gpus < 2)) return suite::skipped_case_seconds(repetitions, r);
  const auto bytes = static_cast<double>(c.bytes);
  const auto copies = static_cast<double>(copies_per_sample(c.bytes));
  const bool both_ways = c.dir == Dir::bidir || c.bidirectional;
  // Full-duplex links carry both directions at once; staged peer copies share the host path.
  const bool shared_path = p2p && c.peer == PeerAccess::off;
  const double ways = both_ways && shared_path ? 2.0 : 1.0;
  const double per_copy_s =
      suite::transfer_seconds(bytes * ways, link_rate(c, r)) + r.kernel_launch_s * ways;
  suite::CaseCost cost;
  // Every sample is refilled with its own pattern before and checked after (transfer_cases.hpp
  // sampled_pattern): two small strided copies per buffer pair and a synchronisation, untimed.
  const double refill_check_s = (both_ways ? 4 : 2) * r.kernel_launch_s + r.sync_s;
  cost.sample_s = copies * per_copy_s + r.sync_s + refill_check_s;
  cost.samples = samples;
  cost.warmup_s = cost.sample_s;
  const int host = host_buffers(c);
  const int device_buffers = both_ways ? 4 : 2;
  cost.setup_s = (host + device_buffers + 2) * r.per_allocation_s +
                 host * suite::transfer_seconds(bytes, r.host_fill_bytes_per_s);
  if (c.memory != Memory::pageable) {
    cost.setup_s += host * suite::transfer_seconds(bytes, r.pin_bytes_per_s);
  }
  cost.validation_s = r.validation_s * (both_ways ? 2 : 1);
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_transfer(const suite::PlanRequest& request, NumaRequest numa) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  for (const TransferCase& c :
       all_cases(request.profile, numa, suite::plan_devices(request.gpus))) {
    plan.cases.push_back({case_name(c), planned_case_seconds(c, request.gpus, repetitions,
                                                             static_cast<int>(k_samples), r)});
  }
  plan.assumptions =
      "per case: 1 warm-up + " + std::to_string(k_samples) +
      " samples of ~1 GiB (1-256 copies) per repetition, host buffers filled and pinned per "
      "repetition; peer_access:off staged through host memory; " +
      std::string(request.profile != suite::Profile::full
                      ? "cut: staged (peer_access:off) copies on the ring of pairs i->i+1 only "
                        "(every GPU a source and a destination once), peer_access:on on every "
                        "pair; "
                      : "") +
      std::string(request.profile == suite::Profile::standard
                      ? "standard: staged copies at 256 MiB only, numa:remote on the first GPU "
                        "only; "
                      : "") +
      suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::transfer
