// The forwarding definitions of cuBLAS, cuBLASLt and NCCL (suites/common/cuda/libraries.hpp):
// with the libraries out of reach every call returns the API's own failure status and the error
// texts say what is missing and where it was looked for; with the toolkit's libraries found,
// calls that need no GPU (cublasGetProperty, ncclGetVersion) reach the real library. Each TEST
// runs in its own process (gtest_discover_tests), so setting the variables before the first call
// decides what that process loads.
#include "suites/common/cuda/libraries.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "util/fs.hpp"

#if GPUBENCH_TEST_HAVE_NCCL
#include <nccl.h>
#endif

namespace cu = gpubench::suite::cuda;

namespace {

// Nothing can be found: GPUBENCH_CUDA_LIBS names an empty directory and nothing else is searched.
class WithoutLibraries : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("GPUBENCH_CUDA_LIBS", m_dir.path().c_str(), 1);
    ::setenv("GPUBENCH_CUDA_LIBS_ONLY", "1", 1);
  }
  std::string searched() const {
    return "not found (searched: " + m_dir.path().string() + " (GPUBENCH_CUDA_LIBS))";
  }

 private:
  gpubench::TempDir m_dir{"no-cuda-libs"};
};

TEST_F(WithoutLibraries, CublasCallsFailWithNotInitializedAndSayWhy) {
  const cu::LibraryStatus& lt = cu::library_status(cu::Library::cublasLt);
  EXPECT_FALSE(lt.loaded);
  EXPECT_EQ(lt.reason, "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR) + " " + searched());
  EXPECT_EQ(cu::unavailable_reason({cu::Library::cublasLt, cu::Library::cublas}), lt.reason);
  cublasLtHandle_t lt_handle = nullptr;
  EXPECT_EQ(cublasLtCreate(&lt_handle), CUBLAS_STATUS_NOT_INITIALIZED);
  cublasLtMatmulDesc_t desc = nullptr;
  EXPECT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            CUBLAS_STATUS_NOT_INITIALIZED);
  cublasHandle_t handle = nullptr;
  EXPECT_EQ(cublasCreate(&handle), CUBLAS_STATUS_NOT_INITIALIZED);
  int major = -1;
  EXPECT_EQ(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_NOT_INITIALIZED);
  // The status text names the missing library (libcublas needs libcublasLt: either may be named).
  const std::string text = cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_NE(text.find(searched()), std::string::npos) << text;
  EXPECT_NE(cu::library_note(cu::Library::cublas).find("cuBLAS: skipped: "), std::string::npos);
}

#if GPUBENCH_TEST_HAVE_NCCL
TEST_F(WithoutLibraries, NcclCallsFailWithSystemErrorAndSayWhy) {
  EXPECT_EQ(cu::library_status(cu::Library::nccl).reason, "libnccl.so.2 " + searched());
  int version = 0;
  EXPECT_EQ(ncclGetVersion(&version), ncclSystemError);
  ncclUniqueId id{};
  EXPECT_EQ(ncclGetUniqueId(&id), ncclSystemError);
  EXPECT_EQ(ncclGroupStart(), ncclSystemError);
  EXPECT_EQ(std::string(ncclGetErrorString(ncclSystemError)),
            cu::library_status(cu::Library::nccl).reason);
  EXPECT_EQ(std::string(ncclGetLastError(nullptr)), cu::library_status(cu::Library::nccl).reason);
}
#endif

// Where the toolkit is installed (build machines), the default search finds it and calls that
// need no GPU reach the real library through the forwarding definitions.
TEST(WithLibraries, CublasGetPropertyReachesTheRealLibrary) {
  ::unsetenv("GPUBENCH_CUDA_LIBS_ONLY");
  const cu::LibraryStatus& s = cu::library_status(cu::Library::cublas);
  if (!s.loaded) GTEST_SKIP() << s.reason;
  EXPECT_TRUE(s.reason.empty());
  EXPECT_FALSE(s.path.empty());
  EXPECT_TRUE(cu::library_status(cu::Library::cublasLt).loaded);
  int major = -1;
  ASSERT_EQ(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  // cuBLAS's own text ("success" in cuBLAS 13), not the forwarding definition's fallback.
  const std::string text = cublasGetStatusString(CUBLAS_STATUS_SUCCESS);
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.find("cuBLAS"), std::string::npos) << text;
  EXPECT_EQ(text.find("not found"), std::string::npos) << text;
}

#if GPUBENCH_TEST_HAVE_NCCL
TEST(WithLibraries, NcclGetVersionReachesTheRealLibrary) {
  ::unsetenv("GPUBENCH_CUDA_LIBS_ONLY");
  const cu::LibraryStatus& s = cu::library_status(cu::Library::nccl);
  if (!s.loaded) GTEST_SKIP() << s.reason;
  int version = 0;
  ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
  EXPECT_EQ(version / 10000, NCCL_MAJOR);  // NCCL 2.9+: major*10000 + minor*100 + patch
}
#endif

}  // namespace
