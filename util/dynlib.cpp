#include "util/dynlib.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "util/strings.hpp"

namespace gpubench {
namespace {

constexpr const char* k_loader_place =
    "the dynamic loader's path (LD_LIBRARY_PATH, RUNPATH, ld.so cache)";

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Paths matching `pattern` (one that has no wildcard is returned as is), newest-looking first:
// /usr/local/cuda-13.1 before /usr/local/cuda-13.0, so the newest toolkit wins.
std::vector<std::string> expand(const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) return {pattern};
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  std::sort(out.rbegin(), out.rend());
  return out;
}

bool exists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

std::string join_path(const std::string& dir, const std::string& rest) {
  if (dir.empty()) return rest;
  if (rest.empty()) return dir;
  return dir.back() == '/' ? dir + rest : dir + "/" + rest;
}

// The pip layouts relative to a site-packages directory, and the same without the leading
// "nvidia/" for a directory that is site-packages/nvidia itself.
std::vector<std::string> pip_layouts(const LibrarySpec& spec) {
  std::vector<std::string> out = spec.pip_dirs;
  for (const std::string& d : spec.pip_dirs) {
    if (d.starts_with("nvidia/")) out.push_back(d.substr(7));
  }
  return out;
}

// Where a library loaded by bare soname really came from (the loader's link map).
std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

SearchEnvironment SearchEnvironment::from_process(const std::string& variable) {
  SearchEnvironment env;
  env.variable = variable;
  env.dirs = env_or_empty(variable.c_str());
  env.dirs_only = env_or_empty((variable + "_ONLY").c_str()) == "1";
  // An active virtual environment or conda prefix first, then the system's and the user's.
  std::vector<std::string> patterns;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const std::string root = env_or_empty(var); !root.empty()) {
      patterns.push_back(root + "/lib/python3*/site-packages");
    }
  }
  for (const char* system :
       {"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
        "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages",
        "/usr/lib64/python3*/site-packages"}) {
    patterns.emplace_back(system);
  }
  if (const std::string home = env_or_empty("HOME"); !home.empty()) {
    patterns.push_back(home + "/.local/lib/python3*/site-packages");
  }
  for (const std::string& p : patterns) {
    for (const std::string& dir : expand(p)) {
      if (exists(dir)) env.site_dirs.push_back(dir);
    }
  }
  return env;
}

std::vector<SearchStep> search_steps(const LibrarySpec& spec, const SearchEnvironment& env) {
  std::vector<SearchStep> steps;
  std::set<std::string> seen;
  auto add = [&](std::string candidate, std::string place) {
    if (seen.insert(candidate).second) steps.push_back({std::move(candidate), std::move(place)});
  };
  if (spec.env_dirs) {
    for (const std::string& dir : split(env.dirs, ':')) {
      if (dir.empty()) continue;
      const std::string place = dir + " (" + env.variable + ")";
      for (const std::string& soname : spec.sonames) add(join_path(dir, soname), place);
      for (const std::string& layout : pip_layouts(spec)) {
        for (const std::string& soname : spec.sonames) {
          add(join_path(join_path(dir, layout), soname), place);
        }
      }
    }
    if (env.dirs_only) return steps;
  }
  for (const std::string& soname : spec.sonames) add(soname, k_loader_place);
  for (const std::string& pattern : spec.system_dirs) {
    for (const std::string& dir : expand(pattern)) {
      for (const std::string& soname : spec.sonames) add(join_path(dir, soname), dir);
    }
  }
  if (spec.env_dirs) {
    for (const std::string& site : env.site_dirs) {
      for (const std::string& layout : spec.pip_dirs) {
        for (const std::string& soname : spec.sonames) {
          add(join_path(join_path(site, layout), soname), site + " (pip wheels)");
        }
      }
    }
  }
  return steps;
}

LoadedLibrary load_library(const LibrarySpec& spec, const SearchEnvironment& env) {
  LoadedLibrary out;
  std::string load_error;  // the first candidate that exists but would not load
  std::vector<std::string> places;
  for (const SearchStep& step : search_steps(spec, env)) {
    if (std::find(places.begin(), places.end(), step.place) == places.end()) {
      places.push_back(step.place);
    }
    const bool bare = step.candidate.find('/') == std::string::npos;
    if (!bare && !exists(step.candidate)) continue;
    void* handle = dlopen(step.candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      out.handle = handle;
      out.path = bare ? loaded_path(handle, step.candidate) : step.candidate;
      return out;
    }
    const char* err = dlerror();
    const std::string text = err ? err : "unknown dlopen error";
    // A bare soname the loader cannot find is "not found"; anything else (the file was found but
    // a dependency, a symbol version or the architecture is wrong) is a load error worth naming.
    const bool absent = bare && text.starts_with(step.candidate + ":") &&
                        text.find("No such file") != std::string::npos;
    if (!absent && load_error.empty()) load_error = text;
  }
  const std::string name = spec.sonames.empty() ? std::string("library") : spec.sonames.front();
  if (!load_error.empty()) {
    out.reason = name + " cannot be loaded (" + load_error + ")";
  } else {
    out.reason = name + " not found (searched: " + join(places, ", ") + ")";
  }
  return out;
}

LibrarySpec cuda_library_spec(std::vector<std::string> sonames, const std::string& pip_package,
                              int cuda_major) {
  LibrarySpec spec;
  spec.sonames = std::move(sonames);
  const std::string cu = "cu" + std::to_string(cuda_major);
  spec.pip_dirs = {"nvidia/" + cu + "/lib", "nvidia/" + pip_package + "/lib"};
  spec.system_dirs = {"/usr/local/cuda/lib64",     "/usr/local/cuda/targets/x86_64-linux/lib",
                      "/usr/local/cuda-*/lib64",   "/usr/local/cuda-*/targets/x86_64-linux/lib",
                      "/usr/lib/x86_64-linux-gnu", "/usr/lib64"};
  spec.env_dirs = true;
  return spec;
}

}  // namespace gpubench
