# Writes build/generated/gpubench_version.hpp with the version, git sha and dirty flag.
# Re-run at every build (a custom target) so the sha follows the tree, not the configure.
set(GPUBENCH_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
file(MAKE_DIRECTORY ${GPUBENCH_GENERATED_DIR})
add_custom_target(gpubench_git_info
  COMMAND ${CMAKE_COMMAND}
          -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${GPUBENCH_GENERATED_DIR}/gpubench_version.hpp
          -DVERSION=${PROJECT_VERSION}
          -P ${CMAKE_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${GPUBENCH_GENERATED_DIR}/gpubench_version.hpp
  COMMENT "gpubench: recording version and git state")
