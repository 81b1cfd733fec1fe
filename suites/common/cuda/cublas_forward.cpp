// The cuBLAS and cuBLASLt functions the suites call, defined here instead of linked from
// libcublas/libcublasLt (see libraries.hpp). Each is extern "C" with the header's signature: the
// headers are included, so a signature that drifts from them is a compile error ("conflicting
// declaration"). cublas_v2.h maps cublasCreate/cublasDestroy/cublasSetStream to their _v2
// symbols, which are the ones defined here. A missing library or symbol returns
// CUBLAS_STATUS_NOT_INITIALIZED, which GPUBENCH_CUBLAS_CHECK turns into an error naming the call.
//
// To use another cuBLAS function: add one GPUBENCH_FORWARD line with the header's declaration.
#include <cublasLt.h>
#include <cublas_v2.h>

#include "suites/common/cuda/libraries.hpp"

namespace {

using gpubench::suite::cuda::Library;
using gpubench::suite::cuda::library_status;
using gpubench::suite::cuda::library_symbol;

}  // namespace

// RET NAME PARAMS: the header's declaration; ARGS: the parameters' names. The symbol is looked up
// once (a function-local static), then every call is one indirect call.
#define GPUBENCH_FORWARD(LIB, RET, FAIL, NAME, PARAMS, ARGS)               \
  extern "C" RET NAME PARAMS {                                             \
    using Fn = RET(*) PARAMS;                                              \
    static const Fn fn = reinterpret_cast<Fn>(library_symbol(LIB, #NAME)); \
    if (fn == nullptr) return FAIL;                                        \
    return fn ARGS;                                                        \
  }

#define GPUBENCH_CUBLAS(NAME, PARAMS, ARGS)                                                      \
  GPUBENCH_FORWARD(Library::cublas, cublasStatus_t, CUBLAS_STATUS_NOT_INITIALIZED, NAME, PARAMS, \
                   ARGS)
#define GPUBENCH_CUBLASLT(NAME, PARAMS, ARGS)                                                      \
  GPUBENCH_FORWARD(Library::cublasLt, cublasStatus_t, CUBLAS_STATUS_NOT_INITIALIZED, NAME, PARAMS, \
                   ARGS)

// --- cuBLAS (cublas_api.h) -------------------------------------------------------------------
GPUBENCH_CUBLAS(cublasCreate_v2, (cublasHandle_t * handle), (handle))
GPUBENCH_CUBLAS(cublasDestroy_v2, (cublasHandle_t handle), (handle))
GPUBENCH_CUBLAS(cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t streamId),
                (handle, streamId))
GPUBENCH_CUBLAS(cublasGetProperty, (libraryPropertyType type, int* value), (type, value))
GPUBENCH_CUBLAS(cublasGemmEx,
                (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                 int n, int k, const void* alpha, const void* A, cudaDataType Atype, int lda,
                 const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,
                 cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                 cublasGemmAlgo_t algo),
                (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                 Ctype, ldc, computeType, algo))

// Never fails: without the library, the text says why it is missing.
extern "C" const char* cublasGetStatusString(cublasStatus_t status) {
  using Fn = const char* (*)(cublasStatus_t);
  static const Fn fn =
      reinterpret_cast<Fn>(library_symbol(Library::cublas, "cublasGetStatusString"));
  if (fn != nullptr) return fn(status);
  const auto& lib = library_status(Library::cublas);
  return lib.loaded ? "cuBLAS status (cublasGetStatusString missing from the loaded cuBLAS)"
                    : lib.reason.c_str();
}

// --- cuBLASLt (cublasLt.h) -------------------------------------------------------------------
GPUBENCH_CUBLASLT(cublasLtCreate, (cublasLtHandle_t * lightHandle), (lightHandle))
GPUBENCH_CUBLASLT(cublasLtDestroy, (cublasLtHandle_t lightHandle), (lightHandle))
GPUBENCH_CUBLASLT(cublasLtMatmul,
                  (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                   const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                   cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                   cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                   const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSizeInBytes,
                   cudaStream_t stream),
                  (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc,
                   algo, workspace, workspaceSizeInBytes, stream))
GPUBENCH_CUBLASLT(cublasLtMatmulAlgoConfigGetAttribute,
                  (const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr,
                   void* buf, size_t sizeInBytes, size_t* sizeWritten),
                  (algo, attr, buf, sizeInBytes, sizeWritten))
GPUBENCH_CUBLASLT(cublasLtMatmulAlgoGetHeuristic,
                  (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                   cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                   cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                   cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                   cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount),
                  (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference,
                   requestedAlgoCount, heuristicResultsArray, returnAlgoCount))
GPUBENCH_CUBLASLT(cublasLtMatmulAlgoCheck,
                  (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                   cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                   cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                   const cublasLtMatmulAlgo_t* algo, cublasLtMatmulHeuristicResult_t* result),
                  (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, algo, result))
GPUBENCH_CUBLASLT(cublasLtMatmulDescCreate,
                  (cublasLtMatmulDesc_t * matmulDesc, cublasComputeType_t computeType,
                   cudaDataType_t scaleType),
                  (matmulDesc, computeType, scaleType))
GPUBENCH_CUBLASLT(cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t matmulDesc), (matmulDesc))
GPUBENCH_CUBLASLT(cublasLtMatmulDescSetAttribute,
                  (cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                   const void* buf, size_t sizeInBytes),
                  (matmulDesc, attr, buf, sizeInBytes))
GPUBENCH_CUBLASLT(cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))
GPUBENCH_CUBLASLT(cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))
GPUBENCH_CUBLASLT(cublasLtMatmulPreferenceSetAttribute,
                  (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
                   const void* buf, size_t sizeInBytes),
                  (pref, attr, buf, sizeInBytes))
GPUBENCH_CUBLASLT(cublasLtMatrixLayoutCreate,
                  (cublasLtMatrixLayout_t * matLayout, cudaDataType type, uint64_t rows,
                   uint64_t cols, int64_t ld),
                  (matLayout, type, rows, cols, ld))
GPUBENCH_CUBLASLT(cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t matLayout), (matLayout))
