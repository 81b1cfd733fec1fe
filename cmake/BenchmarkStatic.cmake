# Google Benchmark as a static library, for GPUBENCH_STATIC_RUNTIME (cmake/StaticRuntime.cmake).
#
# Debian ships only the shared libbenchmark.so, which needs the shared libstdc++.so.6, and Debian
# 12's libstdc++.so.6 needs GLIBC_2.36 (arc4random): neither can travel in the bundle to an older
# Linux. So the same release Debian ships (1.7.1) is compiled here from Debian's own source
# package, which ci/fetch-benchmark-source unpacks into .cache/ (ci/setup calls it). Nothing of it
# is kept in this repository. Its std::random_device needs arc4random; bundled programs get that
# from util/glibc_compat.cpp (cmake/Bundle.cmake).
set(GPUBENCH_BENCHMARK_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.cache/benchmark-1.7.1" CACHE PATH
    "Google Benchmark 1.7.1 sources (Debian's source package) for GPUBENCH_STATIC_RUNTIME=ON")
if(NOT EXISTS "${GPUBENCH_BENCHMARK_SOURCE_DIR}/src/benchmark.cc")
  message(FATAL_ERROR
          "GPUBENCH_STATIC_RUNTIME=ON needs Google Benchmark's sources in "
          "${GPUBENCH_BENCHMARK_SOURCE_DIR} (run ci/setup or ci/fetch-benchmark-source, which "
          "unpack Debian's source package; or configure with -DGPUBENCH_STATIC_RUNTIME=OFF)")
endif()
file(GLOB gpubench_benchmark_sources CONFIGURE_DEPENDS ${GPUBENCH_BENCHMARK_SOURCE_DIR}/src/*.cc)
list(FILTER gpubench_benchmark_sources EXCLUDE REGEX "benchmark_main\\.cc$")
add_library(gpubench_benchmark_static STATIC ${gpubench_benchmark_sources})
target_include_directories(gpubench_benchmark_static SYSTEM
  PUBLIC ${GPUBENCH_BENCHMARK_SOURCE_DIR}/include)
target_include_directories(gpubench_benchmark_static PRIVATE ${GPUBENCH_BENCHMARK_SOURCE_DIR}/src)
# The definitions upstream's feature checks give on Linux with GCC, as Debian's build has.
target_compile_definitions(gpubench_benchmark_static
  PUBLIC BENCHMARK_STATIC_DEFINE
  PRIVATE HAVE_STD_REGEX HAVE_STEADY_CLOCK _GNU_SOURCE=1)
target_link_libraries(gpubench_benchmark_static PRIVATE Threads::Threads)
# The name every gpubench target links (suites/common, tests/perf), as find_package(benchmark) gives.
add_library(benchmark::benchmark ALIAS gpubench_benchmark_static)
