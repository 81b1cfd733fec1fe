# Install rules of the relocatable bundle (ci/bundle installs them with
# `cmake --install build --component bundle --prefix <stage>`):
#   bin/              gpubench and every gpubench-<suite>
#   lib/              shared libraries the executables need beyond glibc and the NVIDIA driver/CUDA
#                     (ci/bundle copies them: with GPUBENCH_STATIC_RUNTIME there are none to copy)
#   share/gpubench/   README, methodology, gpu-check and its parts (ci/bundle adds BUNDLE, MANIFEST)
# Installed executables look for libraries in ../lib next to themselves ($ORIGIN: the directory of
# the executable, resolved by the dynamic loader), wherever the tarball is unpacked. The build tree
# keeps its own RPATH (the CUDA toolkit's lib directory, MPI's); CMake rewrites it at install.
set(gpubench_bundle_programs gpubench)
foreach(suite memory gemm dataloader calibration fusion transfer launch allreduce)
  if(TARGET gpubench-${suite})
    list(APPEND gpubench_bundle_programs gpubench-${suite})
  endif()
endforeach()
set(gpubench_bundle_install_targets ${gpubench_bundle_programs})

# With MPI, gpubench-allreduce needs libmpi.so and its closure (Open MPI's plugins, hwloc, PMIx,
# libevent, ...), found under absolute paths of the build machine and matched to that machine's
# mpirun. The bundle carries the same suite built without MPI instead (one process drives every
# GPU of the node through NCCL); multi-node runs use a gpubench built against the site's MPI
# (README "On a server without a compiler"). Sources, libraries and definitions are taken from
# the suite's own target, so this follows suites/allreduce/CMakeLists.txt.
if(GPUBENCH_HAVE_MPI AND TARGET gpubench-allreduce)
  get_target_property(sources gpubench-allreduce SOURCES)
  get_target_property(source_dir gpubench-allreduce SOURCE_DIR)
  get_target_property(libraries gpubench-allreduce LINK_LIBRARIES)
  get_target_property(definitions gpubench-allreduce COMPILE_DEFINITIONS)
  set(single_sources "")
  foreach(source IN LISTS sources)
    if(source STREQUAL "host_reference.cpp")
      set(source host_reference_stub.cpp)
    endif()
    if(NOT IS_ABSOLUTE "${source}")
      set(source "${source_dir}/${source}")
    endif()
    list(APPEND single_sources "${source}")
  endforeach()
  list(REMOVE_ITEM libraries MPI::MPI_CXX)
  list(FILTER definitions EXCLUDE REGEX "^GPUBENCH_ALLREDUCE_MPI=")
  add_executable(gpubench-allreduce-single ${single_sources})
  target_link_libraries(gpubench-allreduce-single PRIVATE ${libraries})
  target_compile_definitions(gpubench-allreduce-single PRIVATE ${definitions} GPUBENCH_ALLREDUCE_MPI=0)
  # Outside build/bin: the CLI takes every gpubench-* next to itself for a suite.
  set_target_properties(gpubench-allreduce-single PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bundle-bin
    OUTPUT_NAME gpubench-allreduce)
  list(REMOVE_ITEM gpubench_bundle_install_targets gpubench-allreduce)
  list(APPEND gpubench_bundle_install_targets gpubench-allreduce-single)
  list(APPEND gpubench_bundle_programs gpubench-allreduce-single)
endif()
# ci/bundle builds this target (the programs above) before it packs them.
add_custom_target(gpubench_bundle_programs DEPENDS ${gpubench_bundle_programs})

if(GPUBENCH_STATIC_RUNTIME)
  # Static libstdc++/libgcc would import arc4random@GLIBC_2.36 and _dl_find_object@GLIBC_2.35
  # (util/glibc_compat.cpp says why).
  foreach(program IN LISTS gpubench_bundle_programs)
    target_sources(${program} PRIVATE ${PROJECT_SOURCE_DIR}/util/glibc_compat.cpp)
  endforeach()
endif()
# DT_RPATH, not DT_RUNPATH: the loader applies an executable's RPATH to the dependencies of the
# libraries it loads as well (lib/libhdf5 -> lib/libsz), RUNPATH only to its own.
foreach(program IN LISTS gpubench_bundle_programs)
  target_link_options(${program} PRIVATE -Wl,--disable-new-dtags)
endforeach()
# INSTALL_RPATH is set on the targets themselves: they exist before this file is included.
set_target_properties(${gpubench_bundle_install_targets} PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
install(TARGETS ${gpubench_bundle_install_targets} RUNTIME DESTINATION bin COMPONENT bundle)
foreach(doc README.md METHODOLOGY.md)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
    install(FILES ${PROJECT_SOURCE_DIR}/${doc} DESTINATION share/gpubench COMPONENT bundle)
  endif()
endforeach()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/gpu-check DESTINATION share/gpubench COMPONENT bundle)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/ci/gpu-check.d DESTINATION share/gpubench COMPONENT bundle
        USE_SOURCE_PERMISSIONS)
