# GPUBENCH_STATIC_RUNTIME (default ON): executables that run on a server with nothing but the
# NVIDIA driver (ci/bundle, README "On a server without a compiler").
#  - libstdc++ and libgcc linked statically into every executable (-static-libstdc++
#    -static-libgcc): the target's libstdc++ may be older than the compiler's (RHEL 9: GCC 11), and
#    Debian 12's own libstdc++.so.6 needs GLIBC_2.36, so it cannot be bundled for an older glibc.
#  - SQLite and liburing from Debian's static archives (libsqlite3.a, liburing.a).
#  - Google Benchmark built from Debian's source package (cmake/BenchmarkStatic.cmake).
# OFF links the shared Debian libraries as before (find_package(benchmark), libsqlite3.so).
option(GPUBENCH_STATIC_RUNTIME
       "Link libstdc++/libgcc, SQLite, liburing and Google Benchmark statically (relocatable bundle)" ON)

# A cached library of the other kind (a build directory configured before the option changed) is
# looked up again.
function(gpubench_forget_library var)
  if(GPUBENCH_STATIC_RUNTIME AND ${var} AND NOT ${var} MATCHES "\\.a$")
    unset(${var} CACHE)
  elseif(NOT GPUBENCH_STATIC_RUNTIME AND ${var} MATCHES "\\.a$")
    unset(${var} CACHE)
  endif()
endfunction()
gpubench_forget_library(SQLite3_LIBRARY)
# pkg_check_modules(LIBURING ...) (suites/dataloader) caches the library it found here.
gpubench_forget_library(pkgcfg_lib_LIBURING_uring)

if(GPUBENCH_STATIC_RUNTIME)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-static-libstdc++> -static-libgcc)
  set(gpubench_saved_suffixes ${CMAKE_FIND_LIBRARY_SUFFIXES})
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
  find_library(SQLite3_LIBRARY NAMES sqlite3)
  find_library(pkgcfg_lib_LIBURING_uring NAMES uring)
  set(CMAKE_FIND_LIBRARY_SUFFIXES ${gpubench_saved_suffixes})
  if(NOT SQLite3_LIBRARY)
    message(FATAL_ERROR "GPUBENCH_STATIC_RUNTIME=ON needs libsqlite3.a (Debian: libsqlite3-dev), "
                        "or configure with -DGPUBENCH_STATIC_RUNTIME=OFF")
  endif()
endif()
