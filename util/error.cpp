#include "util/error.hpp"

#include <cstring>

namespace gpubench {

std::string format_error_message(const std::string& what, const std::string& why,
                                 const std::string& fix) {
  std::string out = what;
  if (!why.empty() || !fix.empty()) {
    out += " (";
    out += why;
    if (!why.empty() && !fix.empty()) out += "; ";
    out += fix;
    out += ")";
  }
  return out;
}

Error::Error(ExitCode code, std::string what, std::string why, std::string fix)
    : std::runtime_error(format_error_message(what, why, fix)),
      m_code(code),
      m_what(std::move(what)),
      m_why(std::move(why)),
      m_fix(std::move(fix)) {}

Error bad_input(std::string what, std::string why, std::string fix) {
  return Error(ExitCode::bad_input, std::move(what), std::move(why), std::move(fix));
}

Error infrastructure(std::string what, std::string why, std::string fix) {
  return Error(ExitCode::infrastructure, std::move(what), std::move(why), std::move(fix));
}

std::string errno_text(int errnum) {
  char buf[256];
  // GNU strerror_r returns a pointer that may or may not be buf.
  const char* text = strerror_r(errnum, buf, sizeof buf);
  return text ? std::string(text) : std::string("errno ") + std::to_string(errnum);
}

}  // namespace gpubench
