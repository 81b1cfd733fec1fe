#include "suites/allreduce/allreduce_plan.hpp"

#include <algorithm>

namespace gpubench::allreduce {

namespace {
// Creating the communicators of one series (ncclCommInitRankConfig for each GPU in one group).
constexpr double k_comm_init_s = 0.5;
constexpr double k_comm_init_per_rank_s = 0.2;
}  // namespace

double planned_repetition_seconds(Collective collective, std::size_t bytes, int ranks,
                                  const SweepPlan& sweep, const suite::ModelRates& r) {
  const auto b = static_cast<double>(bytes);
  const double move_s = ranks >= 2 ? suite::transfer_seconds(b * bus_factor(collective, ranks),
                                                             r.allreduce_busbw_bytes_per_s)
                                   : suite::transfer_seconds(2 * b, r.hbm_bytes_per_s);
  // Each call is issued on every GPU from one thread and waited for.
  const double call_s = r.collective_latency_s + move_s + ranks * (r.kernel_launch_s + r.sync_s);
  const double buffers_s =
      ranks * (2 * r.per_allocation_s + suite::transfer_seconds(2 * b, r.hbm_bytes_per_s));
  return buffers_s + (sweep.warmups + sweep.iterations) * call_s + r.validation_s;
}

suite::SuitePlan plan_allreduce(const suite::PlanRequest& request, bool nccl_built) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  // The MPI host reference needs 2 or more ranks: alone, one skipped case per placement.
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    const std::size_t bytes = std::size_t{1} << 20;
    const auto c = element_counts(Collective::allreduce, bytes, sizeof(float), 1);
    if (!c) continue;
    plan.cases.push_back({case_name(Collective::allreduce, "fp32", placement, c->bytes, 1, true),
                          suite::skipped_case_seconds(repetitions, r)});
  }
  const SweepPlan sweep = nccl_plan(request.profile);
  if (nccl_built) {
    const bool usable = request.gpus > 0;
    const int available = std::max(request.gpus, 1);
    const std::vector<int> counts = usable ? rank_counts(available) : std::vector<int>{available};
    const std::vector<std::size_t> sizes =
        usable ? size_sweep(sweep.min_bytes, sweep.max_bytes, sweep.factor)
               : std::vector<std::size_t>{sweep.max_bytes};
    for (int ranks : counts) {
      if (usable) plan.fixed_s += k_comm_init_s + ranks * k_comm_init_per_rank_s;
      for (Collective collective : k_all_collectives) {
        for (ElementType type : {ElementType::fp32, ElementType::bf16, ElementType::fp16}) {
          if (request.profile == suite::Profile::quick && collective != Collective::allreduce &&
              type != ElementType::fp32) {
            continue;
          }
          for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
            for (std::size_t raw : sizes) {
              const auto c = element_counts(collective, raw, element_bytes(type), ranks);
              if (!c) continue;
              // ranks:1 in place is registered skipped (nccl_cases.cpp: nothing to time).
              const bool skipped = !usable || (ranks == 1 && placement == Placement::in_place);
              const double seconds =
                  !skipped ? r.per_benchmark_s * repetitions +
                                 repetitions * planned_repetition_seconds(collective, c->bytes,
                                                                          ranks, sweep, r)
                           : suite::skipped_case_seconds(repetitions, r);
              plan.cases.push_back(
                  {case_name(collective, to_string(type), placement, c->bytes, ranks, false),
                   seconds});
            }
          }
        }
      }
    }
  }
  plan.assumptions =
      std::string(nccl_built ? "" : "NCCL cases not built; ") +
      "one process driving every GPU (no --launcher; the MPI host reference is skipped alone); "
      "per case and repetition: buffers on every rank, " +
      std::to_string(sweep.warmups) + " warm-up + " + std::to_string(sweep.iterations) +
      " timed calls, results checked on the device; communicators created once per rank count; " +
      suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::allreduce
