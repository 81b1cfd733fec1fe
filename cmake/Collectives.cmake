# Libraries of the collectives suite (suites/allreduce): MPI and NCCL, each optional.
#
# GPUBENCH_MPI=AUTO|ON|OFF: AUTO builds the MPI parts (host reference, multi-rank runs) when an MPI
# is found (Debian: libopenmpi-dev), ON requires one, OFF never uses it.
# NCCL's header is looked for in the CUDA toolkit's directories (CUDA 13 toolkits ship nccl.h and
# libnccl.so) and in the system ones (NVIDIA's libnccl-dev), or under NCCL_ROOT. Only the header
# is needed to build: libnccl is loaded at run time (suites/common/cuda/libraries.hpp), so the
# suite starts without it and skips its NCCL cases with the reason. Without the header the NCCL
# cases are not built and the suite reports why (GPUBENCH_NCCL_REASON).
set(GPUBENCH_MPI "AUTO" CACHE STRING "Build the MPI parts of the allreduce suite: AUTO, ON, OFF")
set_property(CACHE GPUBENCH_MPI PROPERTY STRINGS AUTO ON OFF)

set(GPUBENCH_HAVE_MPI OFF)
if(GPUBENCH_MPI STREQUAL "ON" OR GPUBENCH_MPI STREQUAL "AUTO")
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(GPUBENCH_HAVE_MPI ON)
  elseif(GPUBENCH_MPI STREQUAL "ON")
    message(FATAL_ERROR "GPUBENCH_MPI=ON but no MPI was found (install libopenmpi-dev and "
                        "openmpi-bin, or configure with -DGPUBENCH_MPI=OFF)")
  endif()
elseif(NOT GPUBENCH_MPI STREQUAL "OFF")
  message(FATAL_ERROR "GPUBENCH_MPI must be AUTO, ON or OFF (got '${GPUBENCH_MPI}')")
endif()
find_program(GPUBENCH_MPIRUN NAMES mpirun mpiexec)

set(GPUBENCH_HAVE_NCCL OFF)
set(GPUBENCH_NCCL_REASON "")
if(NOT GPUBENCH_HAVE_CUDA)
  set(GPUBENCH_NCCL_REASON "gpubench was built without CUDA")
else()
  find_path(GPUBENCH_NCCL_INCLUDE_DIR nccl.h
    HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
    PATH_SUFFIXES include)
  if(GPUBENCH_NCCL_INCLUDE_DIR)
    set(GPUBENCH_HAVE_NCCL ON)
    if(NOT TARGET gpubench_nccl)
      # The forwarding definitions (suites/common/CMakeLists.txt), not libnccl itself.
      add_library(gpubench_nccl INTERFACE)
      target_include_directories(gpubench_nccl INTERFACE ${GPUBENCH_NCCL_INCLUDE_DIR})
      target_link_libraries(gpubench_nccl INTERFACE gpubench_nccl_forward)
    endif()
  else()
    set(GPUBENCH_NCCL_REASON
        "NCCL was not found when gpubench was built (no nccl.h in the CUDA toolkit or system directories; install libnccl-dev or set NCCL_ROOT and rebuild)")
  endif()
endif()
message(STATUS "gpubench: MPI ${GPUBENCH_HAVE_MPI} (GPUBENCH_MPI=${GPUBENCH_MPI}), NCCL ${GPUBENCH_HAVE_NCCL}")
