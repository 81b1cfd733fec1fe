// Helpers of the MPI tests: two real ranks on this machine through the mpirun found at configure
// time (--oversubscribe, and as root the two variables Open MPI requires).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

namespace gpubench::allreduce_test {

inline std::string mpirun_path() {
  return GPUBENCH_TEST_MPIRUN;
}

// Skips the test (with the reason) when MPI is not part of this build.
#define GPUBENCH_REQUIRE_MPI()                                                             \
  do {                                                                                     \
    if (!GPUBENCH_TEST_HAVE_MPI || ::gpubench::allreduce_test::mpirun_path().empty() ||    \
        ::gpubench::allreduce_test::mpirun_path().find("NOTFOUND") != std::string::npos) { \
      GTEST_SKIP() << "gpubench was built without MPI or mpirun was not found (install "   \
                      "libopenmpi-dev and openmpi-bin)";                                   \
    }                                                                                      \
  } while (0)

inline std::vector<std::pair<std::string, std::string>> mpi_env() {
  return {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
}

}  // namespace gpubench::allreduce_test
