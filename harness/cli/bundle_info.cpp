#include "harness/cli/bundle_info.hpp"

#include <fstream>
#include <system_error>

namespace gpubench::cli {

std::optional<std::string> bundle_name(const std::filesystem::path& exe_dir) {
  std::ifstream in(exe_dir / ".." / "share" / "gpubench" / "BUNDLE");
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return std::nullopt;
  return line;
}

std::optional<std::string> running_bundle_name() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return bundle_name(exe.parent_path());
}

}  // namespace gpubench::cli
