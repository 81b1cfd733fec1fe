// The run-time library search (util/dynlib.hpp): order, pip layouts, GPUBENCH_CUDA_LIBS_ONLY and
// the reason texts, with real files in temp dirs: copies of a small shared library built for the
// test (GPUBENCH_FAKE_LIBRARY) under the sonames searched for.
#include "util/dynlib.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {

// A soname no system has, so the dynamic loader's own search never finds it.
constexpr const char* k_soname = "libgpubench_test_fake.so.7";

void install(const fs::path& dir, const std::string& name = k_soname) {
  fs::create_directories(dir);
  fs::copy_file(GPUBENCH_FAKE_LIBRARY, dir / name, fs::copy_options::overwrite_existing);
}

gpubench::LibrarySpec spec(const fs::path& system_dir) {
  gpubench::LibrarySpec s = gpubench::cuda_library_spec({k_soname}, "fake", 13);
  s.system_dirs = {system_dir.string()};
  return s;
}

int answer(const gpubench::LoadedLibrary& lib) {
  using Fn = int (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(lib.handle, "gpubench_fake_answer"));
  return fn ? fn() : -1;
}

TEST(DynLib, CudaLibsDirectoriesComeFirstInTheirOrder) {
  gpubench::TempDir tmp("dynlib");
  const fs::path empty = tmp.path() / "empty", second = tmp.path() / "second";
  const fs::path system = tmp.path() / "system", site = tmp.path() / "site";
  fs::create_directories(empty);
  install(second);
  install(system);
  install(site / "nvidia/cu13/lib");
  gpubench::SearchEnvironment env;
  env.dirs = empty.string() + ":" + second.string();
  env.site_dirs = {site.string()};
  const auto lib = gpubench::load_library(spec(system), env);
  ASSERT_TRUE(lib) << lib.reason;
  EXPECT_EQ(lib.path, (second / k_soname).string());
  EXPECT_EQ(answer(lib), 42);
}

TEST(DynLib, SystemDirectoriesBeforeSitePackages) {
  gpubench::TempDir tmp("dynlib");
  const fs::path system = tmp.path() / "system", site = tmp.path() / "site";
  install(system);
  install(site / "nvidia/fake/lib");
  gpubench::SearchEnvironment env;
  env.site_dirs = {site.string()};
  const auto lib = gpubench::load_library(spec(system), env);
  ASSERT_TRUE(lib) << lib.reason;
  EXPECT_EQ(lib.path, (system / k_soname).string());
}

TEST(DynLib, PipWheelLayoutsUnderSitePackagesAndUnderCudaLibs) {
  gpubench::TempDir tmp("dynlib");
  // CUDA 13 wheels share nvidia/cu13/lib; NCCL's and older wheels use nvidia/<package>/lib.
  const fs::path site = tmp.path() / "site";
  install(site / "nvidia/fake/lib");
  gpubench::SearchEnvironment env;
  env.site_dirs = {site.string()};
  auto lib = gpubench::load_library(spec(tmp.path() / "none"), env);
  ASSERT_TRUE(lib) << lib.reason;
  EXPECT_EQ(lib.path, (site / "nvidia/fake/lib" / k_soname).string());
  // GPUBENCH_CUDA_LIBS may name site-packages/nvidia itself.
  const fs::path wheel = tmp.path() / "venv/site-packages";
  install(wheel / "nvidia/cu13/lib");
  gpubench::SearchEnvironment only;
  only.dirs = (wheel / "nvidia").string();
  only.dirs_only = true;
  lib = gpubench::load_library(spec(tmp.path() / "none"), only);
  ASSERT_TRUE(lib) << lib.reason;
  EXPECT_EQ(lib.path, (wheel / "nvidia/cu13/lib" / k_soname).string());
}

TEST(DynLib, CudaLibsOnlySearchesNothingElseAndSaysWhere) {
  gpubench::TempDir tmp("dynlib");
  const fs::path a = tmp.path() / "a", b = tmp.path() / "b", system = tmp.path() / "system";
  fs::create_directories(a);
  fs::create_directories(b);
  install(system);  // present, but GPUBENCH_CUDA_LIBS_ONLY must not look there
  gpubench::SearchEnvironment env;
  env.dirs = a.string() + ":" + b.string();
  env.dirs_only = true;
  const auto lib = gpubench::load_library(spec(system), env);
  EXPECT_FALSE(lib);
  EXPECT_EQ(lib.reason, std::string(k_soname) + " not found (searched: " + a.string() +
                            " (GPUBENCH_CUDA_LIBS), " + b.string() + " (GPUBENCH_CUDA_LIBS))");
}

TEST(DynLib, NotFoundNamesEveryPlaceInOrder) {
  gpubench::TempDir tmp("dynlib");
  const fs::path lib_dir = tmp.path() / "libs", system = tmp.path() / "system";
  const fs::path site = tmp.path() / "site";
  gpubench::SearchEnvironment env;
  env.dirs = lib_dir.string();
  env.site_dirs = {site.string()};
  const auto lib = gpubench::load_library(spec(system), env);
  EXPECT_FALSE(lib);
  EXPECT_EQ(lib.reason, std::string(k_soname) + " not found (searched: " + lib_dir.string() +
                            " (GPUBENCH_CUDA_LIBS), the dynamic loader's path (LD_LIBRARY_PATH, "
                            "RUNPATH, ld.so cache), " +
                            system.string() + ", " + site.string() + " (pip wheels))");
}

TEST(DynLib, AFileThatIsNotALibraryIsReportedNotSkippedSilently) {
  gpubench::TempDir tmp("dynlib");
  const fs::path bad = tmp.path() / "bad";
  fs::create_directories(bad);
  gpubench::write_file_atomic(bad / k_soname, "not an ELF file\n");
  gpubench::SearchEnvironment env;
  env.dirs = bad.string();
  env.dirs_only = true;
  const auto lib = gpubench::load_library(spec(tmp.path() / "none"), env);
  EXPECT_FALSE(lib);
  EXPECT_NE(lib.reason.find(std::string(k_soname) + " cannot be loaded ("), std::string::npos)
      << lib.reason;
  EXPECT_NE(lib.reason.find((bad / k_soname).string()), std::string::npos) << lib.reason;
}

TEST(DynLib, StepsGlobNewestDirectoryFirstAndDropDuplicates) {
  gpubench::TempDir tmp("dynlib");
  fs::create_directories(tmp.path() / "cuda-13.0/lib64");
  fs::create_directories(tmp.path() / "cuda-13.1/lib64");
  gpubench::LibrarySpec s = spec(tmp.path() / "none");
  s.system_dirs = {(tmp.path() / "cuda-*/lib64").string(),
                   (tmp.path() / "cuda-13.0/lib64").string()};
  s.env_dirs = false;
  gpubench::SearchEnvironment env;
  env.dirs = "/ignored/without/env_dirs";
  const auto steps = gpubench::search_steps(s, env);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].candidate, k_soname);  // the loader's own search first without env_dirs
  EXPECT_EQ(steps[1].candidate, (tmp.path() / "cuda-13.1/lib64" / k_soname).string());
  EXPECT_EQ(steps[2].candidate, (tmp.path() / "cuda-13.0/lib64" / k_soname).string());
}

TEST(DynLib, TheVariableNamesTheDirectoriesInTheReason) {
  gpubench::TempDir tmp("dynlib");
  gpubench::SearchEnvironment env;
  env.variable = "GPUBENCH_HDF5_LIBS";
  env.dirs = tmp.path().string();
  env.dirs_only = true;
  const auto lib = gpubench::load_library(spec(tmp.path() / "none"), env);
  EXPECT_EQ(lib.reason, std::string(k_soname) + " not found (searched: " + tmp.path().string() +
                            " (GPUBENCH_HDF5_LIBS))");
}

TEST(DynLib, ProcessEnvironmentReadsTheVariables) {
  ::setenv("GPUBENCH_CUDA_LIBS", "/x:/y", 1);
  ::setenv("GPUBENCH_CUDA_LIBS_ONLY", "1", 1);
  const auto env = gpubench::SearchEnvironment::from_process();
  ::unsetenv("GPUBENCH_CUDA_LIBS");
  ::unsetenv("GPUBENCH_CUDA_LIBS_ONLY");
  EXPECT_EQ(env.dirs, "/x:/y");
  EXPECT_TRUE(env.dirs_only);
  EXPECT_EQ(env.variable, "GPUBENCH_CUDA_LIBS");
  ::setenv("GPUBENCH_HDF5_LIBS", "/h5", 1);
  const auto h5 = gpubench::SearchEnvironment::from_process("GPUBENCH_HDF5_LIBS");
  ::unsetenv("GPUBENCH_HDF5_LIBS");
  EXPECT_EQ(h5.dirs, "/h5");
  EXPECT_FALSE(h5.dirs_only);
  for (const std::string& d : env.site_dirs) EXPECT_TRUE(fs::is_directory(d)) << d;
}

}  // namespace
