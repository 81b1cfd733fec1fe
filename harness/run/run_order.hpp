// The order suites run in within each round of executions (issue 36 item 5): device suites first,
// the power-heavy device suites last among them, host suites after every device suite. Memory's
// STREAM no longer starts right after minutes of GEMM at the board's power limit, and the host
// suites, which neither heat the GPUs nor follow their clocks, fill the gap before the next
// round's device suites.
//
// A suite's kind is a property of the suite declared here, in one table (run_order.cpp), not
// something asked at run time: the suites' --gpubench_info says which cases can run, not how
// much power they draw. A suite the table does not know (a user's own, added through
// GPUBENCH_SUITE_PATH) is a device suite that is not power-heavy: gpubench suites are GPU suites,
// and calling an unknown one power-heavy would only add settle time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/run/discovery.hpp"

namespace gpubench::harness {

enum class SuiteKind {
  device,       // measures the GPUs; its figures follow their clock and temperature
  power_heavy,  // a device suite that holds the GPUs at their power limit for minutes (gemm)
  host,         // CPU, host memory and disk; its few GPU copies neither heat nor time the SMs
};
// "device", "power_heavy", "host" (the run plan's JSON).
const char* to_string(SuiteKind kind);
// The table's kind of suite `name`; an unknown name is a device suite.
SuiteKind suite_kind(std::string_view name);
// Device suites, then power-heavy ones, then host suites; within a kind the order given (stable):
// --suite's order, or discovery's name order when every suite runs. Deterministic for a command
// line, and a user who lists two device suites keeps their order.
std::vector<SuiteExecutable> order_suites(std::vector<SuiteExecutable> suites);
// The names in that order (the plan orders what it was given the same way).
std::vector<std::string> order_suite_names(std::vector<std::string> names);
// One line for people: "device suites first (allreduce, memory), power-heavy last among them
// (gemm), then host suites (calibration)"; kinds with no suite are left out.
std::string order_text(const std::vector<std::string>& ordered_names);

}  // namespace gpubench::harness
