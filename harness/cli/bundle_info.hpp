// Which relocatable bundle (ci/bundle) a program runs from, for `gpubench --version`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gpubench::cli {

// The first line of <exe_dir>/../share/gpubench/BUNDLE (ci/bundle writes the bundle's name there),
// or nothing when the program does not run from a bundle (a build tree) or the line is empty.
std::optional<std::string> bundle_name(const std::filesystem::path& exe_dir);

// bundle_name() of the directory of the running executable (/proc/self/exe).
std::optional<std::string> running_bundle_name();

}  // namespace gpubench::cli
