// Built when the CUDA part is off: the GEMM step reports why it cannot run, and the train cases
// fall back to the emulated step with that reason in their label.
#include "suites/dataloader/training_step.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {

std::string gemm_step_unavailable_reason() {
  return cuda_unavailable_reason();
}

std::string gemm_step_note() {
  return "GPU-busy train and image step cases: emulated step: " + gemm_step_unavailable_reason();
}

void add_gemm_step_context() {}

std::unique_ptr<TrainingStep> make_gemm_step(H2DSink& /*sink*/,
                                             std::chrono::microseconds /*target*/) {
  throw infrastructure("the GEMM training step needs CUDA", gemm_step_unavailable_reason());
}

}  // namespace gpubench::dataloader
