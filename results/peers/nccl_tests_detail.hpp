// Inside the nccl-tests reader: the text read into sections (nccl_tests_reader.cpp), which
// peers_nccl_tests.cpp turns into the document. Not for use outside results/peers/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/peers/peers_nccl_tests.hpp"

namespace gpubench::results::peers {

struct NcclRankGpu {
  int rank = 0;
  std::string host;
  std::optional<int> device;  // the CUDA (HIP) ordinal on its host
  std::string pci_bus_id;     // "0000:04:00.0"; empty when the tool printed the bus number only
  std::string name;
};

struct NcclPlace {
  double time_us = 0, algbw = 0, busbw = 0;  // us, GB/s (decimal), GB/s
  std::optional<double> wrong;  // #wrong count or error value; nullopt for "N/A" (not checked)
  bool flagged = false;         // rccl-tests marks an error over its bound with '*'
};

struct NcclRow {
  std::size_t line = 0;
  long long bytes = 0;
  std::string dtype;  // gpubench's name ("fp32")
  std::string op;     // as printed; empty when the column is blank or absent
  std::optional<long long> root;
  NcclPlace out, in;
};

struct NcclColumns {
  bool redop = false, root = false;
  bool error_value = false;  // "error" (max deviation, before 2.13) instead of a "#wrong" count
  std::size_t group = 0;     // columns per place
  std::size_t time = 0, algbw = 1, busbw = 2, wrong = 3;  // offsets inside a place's group
};

// One program's run: from its "# nThread" line (or its column header) to the next one.
struct NcclSection {
  std::size_t line = 0;
  std::string program;  // "all_reduce_perf", as the file names it; empty when it does not
  std::string command;  // the command line naming the program, prompt removed
  std::optional<long long> threads, gpus, iters;
  std::vector<NcclRankGpu> ranks;
  std::optional<NcclColumns> columns;
  std::vector<NcclRow> rows;
  bool footer = false;  // "# Out of bounds values" / "# Avg bus bandwidth" seen
  std::string failure;  // the tool's error line before the footer
  std::size_t failure_line = 0;
};

struct NcclTestsText {
  std::vector<NcclSection> sections;
  std::string tool = "nccl-tests";  // "rccl-tests" when the text says so
  std::string tool_version, nccl_version, cuda_driver_version;
  std::string orphan_failure;  // an error line before any section began
  std::size_t orphan_failure_line = 0;
};

NcclTestsText read_nccl_tests_text(std::string_view text, const std::string& source);

// Throws Error(bad_input): "cannot import 'SOURCE' as nccl-tests output (line N: WHY (read:
// 'TEXT'); FIX)".
[[noreturn]] void refuse_nccl_tests(const std::string& source, std::size_t line,
                                    const std::string& why, std::string_view text,
                                    const std::string& fix);

}  // namespace gpubench::results::peers
