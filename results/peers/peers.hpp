// Outputs of the tools people already trust (nccl-tests, nvbandwidth, nvbench, CUDA samples,
// dcgmi diag) read into the shape gpubench stores (issue 40). Every reader is a pure function of
// the file's text: no database, no CUDA. `gpubench import` detects the format (or takes
// --format) and stores the result through the same path a Google Benchmark file takes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/acceptance_facts.hpp"

namespace gpubench::results::peers {

// A fact a tool states about the node or one GPU, kept beside the measurements: a `dcgmi diag`
// test's result. `accept` can require one (a spec line naming the test). Defined with its store
// (results/acceptance_facts.hpp), which the rooms below peers/ read.
using AcceptanceFact = results::AcceptanceFact;

// What one tool's output becomes.
struct PeerDocument {
  std::string format;  // the format's name, as --format takes it ("nccl-tests")
  // Google Benchmark JSON ({"context": {...}, "benchmarks": [...]}), stored as a run by the path a
  // suite's file takes. Benchmark names follow gpubench's scheme, "<suite>/<kind>/<key>:<value>/..",
  // with the suite being the tool ("nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/
  // bytes:1048576/ranks:8"), so compare, history, models and peers line them up with gpubench's
  // own suites. Context keys the import reads (README.md here lists them all): host_name, date,
  // gpubench.suite, gpubench.devices (as a suite writes them), gpubench.driver_version,
  // gpubench.cuda_driver_version, gpubench.cuda_runtime_version, gpubench.nccl_version,
  // peer.tool, peer.version, peer.command.
  nlohmann::json document;
  // Non-empty when the tool's run ended in an error (an NCCL error after some sizes were
  // measured): the run is stored with its suite failed and this as the reason.
  std::string failure;
  std::vector<AcceptanceFact> facts;
};

// A format `gpubench import` knows. `detect` sees the first bytes of the file (up to
// k_detect_bytes); `parse` the whole text and throws Error(bad_input) naming `source`, the line
// and what was expected when the text is of the format but broken (a cut table, a non-number in
// a number column), or when nothing was measured (an init failure).
struct PeerFormat {
  std::string_view name;         // --format value: "nccl-tests"
  std::string_view description;  // one line for --help and errors: "nccl-tests *_perf text output"
  bool (*detect)(std::string_view head);
  PeerDocument (*parse)(std::string_view text, const std::string& source);
};

inline constexpr std::size_t k_detect_bytes = 64 * 1024;

// Every format, in the order detection tries them.
const std::vector<PeerFormat>& peer_formats();
// nullptr when no format has this name.
const PeerFormat* find_peer_format(std::string_view name);
// The first format whose detect() accepts `head`, nullptr when none does.
const PeerFormat* detect_peer_format(std::string_view head);

}  // namespace gpubench::results::peers
