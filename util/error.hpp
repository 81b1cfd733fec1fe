// Errors the user sees. Thrown anywhere, caught once at the top of `gpubench` and printed as
//   gpubench: error: <what> (<why>; <what to do>)
// with the process exit code the error carries (DESIGN.md "Command line").
#pragma once

#include <stdexcept>
#include <string>

namespace gpubench {

// Process exit codes of the `gpubench` CLI.
enum class ExitCode : int {
  ok = 0,
  failed_check = 1,    // a regression or an acceptance failure
  bad_input = 2,       // usage or bad input
  infrastructure = 3,  // a suite crashed, the database is unusable, ...
};

class Error : public std::runtime_error {
 public:
  // what: the failed action ("cannot open database 'x.db'"); why: the cause; fix: what to do.
  Error(ExitCode code, std::string what, std::string why = {}, std::string fix = {});

  ExitCode code() const noexcept { return m_code; }
  const std::string& what_failed() const noexcept { return m_what; }
  const std::string& why() const noexcept { return m_why; }
  const std::string& fix() const noexcept { return m_fix; }

 private:
  ExitCode m_code;
  std::string m_what;
  std::string m_why;
  std::string m_fix;
};

// Shorthands for the two common kinds.
Error bad_input(std::string what, std::string why = {}, std::string fix = {});
Error infrastructure(std::string what, std::string why = {}, std::string fix = {});

// "<what> (<why>; <fix>)" with empty parts left out.
std::string format_error_message(const std::string& what, const std::string& why,
                                 const std::string& fix);

// strerror(errno) as a std::string, thread-safe.
std::string errno_text(int errnum);

}  // namespace gpubench
