// Move-only owners of the cuBLASLt descriptors (matmul, matrix layout, matmul preference) and the
// two set-ups the GEMM and fusion suites both need: a column-major layout and a preference capped
// at the workspace they allocated. Same ownership rules as resources.hpp.
#pragma once

#include <cublasLt.h>

#include <cstdint>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/resources.hpp"

namespace gpubench::suite::cuda {

template <class Handle, cublasStatus_t (*Destroy)(Handle)>
struct LtDestroy {
  void operator()(Handle h) const noexcept { (void)Destroy(h); }
};
using MatmulDesc =
    UniqueHandle<cublasLtMatmulDesc_t, LtDestroy<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>>;
using MatrixLayout = UniqueHandle<cublasLtMatrixLayout_t,
                                  LtDestroy<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>>;
using MatmulPreference =
    UniqueHandle<cublasLtMatmulPreference_t,
                 LtDestroy<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>>;

// A column-major rows x cols matrix of `type`, leading dimension = rows.
inline MatrixLayout make_column_major_layout(cudaDataType_t type, std::uint64_t rows,
                                             std::uint64_t cols) {
  cublasLtMatrixLayout_t layout = nullptr;
  GPUBENCH_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&layout, type, rows, cols, static_cast<std::int64_t>(rows)));
  return MatrixLayout(layout);
}

// A preference that admits only algorithms needing at most `max_workspace_bytes` of workspace
// (the workspace the caller allocated and passes to cublasLtMatmul).
inline MatmulPreference make_workspace_preference(std::uint64_t max_workspace_bytes) {
  cublasLtMatmulPreference_t raw = nullptr;
  GPUBENCH_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw));
  MatmulPreference pref(raw);
  GPUBENCH_CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &max_workspace_bytes, sizeof max_workspace_bytes));
  return pref;
}

}  // namespace gpubench::suite::cuda
