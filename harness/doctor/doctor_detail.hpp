// Helpers shared by the doctor's check files (not part of the public doctor API).
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "harness/doctor/doctor.hpp"

namespace gpubench::harness::doctor_detail {

inline DoctorCheck make_check(std::string name, const char* area, CheckStatus status,
                              std::string value, std::string expected, std::string fix) {
  DoctorCheck c;
  c.name = std::move(name);
  c.area = area;
  c.status = status;
  c.value = std::move(value);
  c.expected = std::move(expected);
  c.fix = status == CheckStatus::pass ? std::string() : std::move(fix);
  return c;
}

// An unknown check: the value says why it could not be read.
inline DoctorCheck unknown_check(std::string name, const char* area, const std::string& reason,
                                 std::string expected, std::string fix) {
  return make_check(std::move(name), area, CheckStatus::unknown, "unknown: " + reason,
                    std::move(expected), std::move(fix));
}

// The worse of two statuses: fail > warn > unknown > pass.
inline CheckStatus worse(CheckStatus a, CheckStatus b) {
  auto rank = [](CheckStatus s) {
    switch (s) {
      case CheckStatus::fail:
        return 3;
      case CheckStatus::warn:
        return 2;
      case CheckStatus::unknown:
        return 1;
      case CheckStatus::pass:
        break;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

inline std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gpubench::harness::doctor_detail
