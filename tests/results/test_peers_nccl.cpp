// nccl-tests / rccl-tests text read into a Google Benchmark document (results/peers, issue 40).
// The files under tests/fixtures/peers/nccl-tests/ are real outputs published by users and
// projects (README.md there names each source); texts built in a test are marked FIXTURE.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "results/peers/peers.hpp"
#include "results/peers/peers_nccl_tests.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results::peers {
namespace {

using nlohmann::json;

std::string fixture(const std::string& name) {
  return read_file(std::filesystem::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/peers/nccl-tests" /
                   name);
}

PeerDocument parse(const std::string& name) {
  return parse_nccl_tests(fixture(name), name);
}

// The entry named `name` (every entry must be found exactly once unless `repetition` says).
const json& entry(const PeerDocument& doc, const std::string& name, int repetition = 0) {
  for (const json& b : doc.document.at("benchmarks")) {
    if (b.at("name") == name && b.at("repetition_index") == repetition) return b;
  }
  ADD_FAILURE() << "no entry " << name;
  static const json none = json::object();
  return none;
}

json context_json(const PeerDocument& doc, const std::string& key) {
  return json::parse(doc.document.at("context").at(key).get<std::string>());
}

// The error a refused text gets: its why() and fix() together.
std::string refusal(const std::string& text, const std::string& source) {
  try {
    parse_nccl_tests(text, source);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return e.what_failed() + " | " + e.why() + " | " + e.fix();
  }
  ADD_FAILURE() << "not refused: " << source;
  return {};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PeersNccl, TheFormatIsListedAndDetectedFromEveryFixture) {
  const PeerFormat* f = find_peer_format("nccl-tests");
  ASSERT_NE(f, nullptr);
  for (const char* name :
       {"superbench-nccl_allreduce-a100x8.log", "superbench-nccl_alltoall-a100x8.log",
        "superbench-nccl_broadcast-a100x8.log", "a3mega-all_reduce-h100-2nodes.txt",
        "issue287-all_reduce-rtx5090x1.txt", "issue287-all_reduce-rtx5090x2-init-failure.txt",
        "issue287-all_reduce-rtx5090x2-debug-info-failure.txt",
        "issue369-all_reduce-gh200-2nodes-wrong.txt",
        "issue369-all_reduce-gh200-2nodes-cuda-failure.txt", "playground-sendrecv-a100x8.md",
        "rocm5571-rccl-all_reduce-r9700-2nodes.txt",
        "rocm5571-rccl-all_reduce-r9700-2nodes-gdr-off.txt"}) {
    SCOPED_TRACE(name);
    const std::string text = fixture(name);
    EXPECT_EQ(detect_peer_format(std::string_view(text).substr(0, k_detect_bytes)), f);
  }
  // Not nccl-tests: Google Benchmark JSON, another tool's text, nothing.
  EXPECT_FALSE(detect_nccl_tests(R"({"context": {}, "benchmarks": []})"));
  EXPECT_FALSE(
      detect_nccl_tests("nvbandwidth Version: v0.10\nRunning host_to_device_memcpy_ce.\n"));
  EXPECT_FALSE(detect_nccl_tests(""));
}

// nccl-tests 2.0-era output (superbench's test data): "error" column of N/A (validation off),
// an NCCL INFO line inside the table, sizes rounded down to 0 bytes printed twice, the program
// named only by the file name.
TEST(PeersNccl, OldAllreduceWithInfoLineAndRepeatedSizes) {
  const PeerDocument doc = parse("superbench-nccl_allreduce-a100x8.log");
  EXPECT_TRUE(doc.failure.empty());
  EXPECT_EQ(doc.document.at("benchmarks").size(), 68u);  // 34 rows x 2 places
  const json& big =
      entry(doc,
            "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:8589934592/"
            "ranks:8");
  EXPECT_EQ(big.at("busbw_GB_per_s"), 235.26);
  EXPECT_EQ(big.at("algbw_GB_per_s"), 134.44);
  EXPECT_EQ(big.at("time_us"), 63896.0);
  EXPECT_EQ(big.at("real_time"), 63896.0);
  EXPECT_EQ(big.at("time_unit"), "us");
  EXPECT_EQ(big.at("iterations"), 20);
  EXPECT_EQ(
      entry(doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:8589934592/ranks:8")
          .at("busbw_GB_per_s"),
      235.03);
  const std::string zero =
      "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:0/ranks:8";
  EXPECT_EQ(entry(doc, zero, 0).at("repetitions"), 2);
  EXPECT_EQ(entry(doc, zero, 0).at("time_us"), 35.20);
  EXPECT_EQ(entry(doc, zero, 1).at("time_us"), 34.18);
  const json& c = doc.document.at("context");
  EXPECT_EQ(c.at("gpubench.suite"), "nccl-tests");
  EXPECT_EQ(c.at("host_name"), "localhost");
  EXPECT_EQ(c.at("peer.tool"), "nccl-tests");
  EXPECT_FALSE(c.contains("peer.command"));
  const json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 8u);
  EXPECT_EQ(devices[3].at("name"), "A100-SXM4-40GB");
  EXPECT_EQ(devices[3].at("cuda_device"), 3);
  EXPECT_FALSE(devices[3].contains("pci_bus_id"));  // "[0x00]" is a bus number, not an address
  const json metrics = context_json(doc, "gpubench.metrics");
  EXPECT_EQ(metrics[0].at("name"), "busbw_GB_per_s");
  EXPECT_EQ(metrics[0].at("role"), "primary");
}

TEST(PeersNccl, BlankRedopAndRootColumnsOfOlderVersions) {
  // alltoall under a "redop" header prints nothing in that column.
  const PeerDocument a2a = parse("superbench-nccl_alltoall-a100x8.log");
  EXPECT_EQ(entry(a2a,
                  "nccl-tests/alltoall/dtype:fp32/op:none/mode:out_of_place/"
                  "bytes:8589934592/ranks:8")
                .at("busbw_GB_per_s"),
            224.31);
  // broadcast: a root column, no redop.
  const PeerDocument bc = parse("superbench-nccl_broadcast-a100x8.log");
  EXPECT_EQ(entry(bc,
                  "nccl-tests/broadcast/dtype:fp32/op:none/mode:in_place/bytes:8589934592/"
                  "ranks:8/root:0")
                .at("busbw_GB_per_s"),
            234.70);
}

TEST(PeersNccl, MultiNodeRankListNamesHostsAndBusIds) {
  const PeerDocument doc = parse("a3mega-all_reduce-h100-2nodes.txt");
  EXPECT_EQ(entry(doc,
                  "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/"
                  "bytes:8589934592/ranks:16")
                .at("busbw_GB_per_s"),
            338.82);
  const json& c = doc.document.at("context");
  EXPECT_EQ(c.at("host_name"), "ztan-mig-235z");
  EXPECT_EQ(c.at("peer.hosts"), "ztan-mig-235z,ztan-mig-gq73");
  EXPECT_EQ(c.at("peer.command"), "/opt/src/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1");
  const json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 16u);
  EXPECT_EQ(devices[8].at("index"), 8);
  EXPECT_EQ(devices[8].at("host"), "ztan-mig-gq73");
  EXPECT_EQ(devices[8].at("cuda_device"), 0);
  EXPECT_EQ(devices[8].at("pci_bus_id"), "0000:04:00.0");
  EXPECT_EQ(devices[8].at("name"), "NVIDIA H100 80GB HBM3");
}

TEST(PeersNccl, WrongCountsMakeThatCaseInvalidAndTheTrailingExitIsNoFailure) {
  const PeerDocument doc = parse("issue369-all_reduce-gh200-2nodes-wrong.txt");
  // The " .. pid: Test failure" lines after the footer are nccl-tests exiting because of the
  // wrong values: those cases are invalid, the run itself finished.
  EXPECT_TRUE(doc.failure.empty()) << doc.failure;
  const json& out =
      entry(doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:1048576/ranks:2");
  EXPECT_EQ(out.at("error_occurred"), true);
  EXPECT_TRUE(has(out.at("error_message"), "invalid: nccl-tests counted 96 wrong elements")) << out;
  EXPECT_FALSE(out.contains("busbw_GB_per_s"));
  const json& in =
      entry(doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:1048576/ranks:2");
  EXPECT_TRUE(has(in.at("error_message"), "32 wrong elements")) << in;
  const json& fine =
      entry(doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:2097152/ranks:2");
  EXPECT_FALSE(fine.contains("error_occurred"));
  EXPECT_EQ(fine.at("busbw_GB_per_s"), 5.97);
  const json& c = doc.document.at("context");
  EXPECT_EQ(c.at("peer.version"), "2.17.8");
  EXPECT_EQ(c.at("gpubench.nccl_version"), "2.29.2");  // nccl-library=22902
}

TEST(PeersNccl, OldErrorValuesAboveTheToolsBoundAreInvalid) {
  // FIXTURE: superbench's allreduce output (validation off, "N/A") with two error values put in
  // as nccl-tests 2.0-2.12 printed them with validation on. Its bound for float over 8 ranks is
  // 1e-5 x 7 = 7e-05.
  std::string text = fixture("superbench-nccl_allreduce-a100x8.log");
  const std::string row =
      "  8589934592    2147483648   float     sum    63896  134.44  235.26    N/A    63959  "
      "134.30  235.03    N/A";
  ASSERT_NE(text.find(row), std::string::npos);
  text.replace(text.find(row), row.size(),
               "  8589934592    2147483648   float     sum    63896  134.44  235.26  2e-04    "
               "63959  134.30  235.03  5e-05");
  const PeerDocument doc = parse_nccl_tests(text, "nccl_allreduce.log");
  const json& out = entry(
      doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:8589934592/ranks:8");
  EXPECT_TRUE(has(out.at("error_message"), "invalid: error 0.0002 above nccl-tests' bound 7e-05"))
      << out;
  const json& in =
      entry(doc, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:8589934592/ranks:8");
  EXPECT_EQ(in.at("busbw_GB_per_s"), 235.03);  // 5e-05 is within the bound
}

TEST(PeersNccl, APasteWithoutRankListCountsRanksFromItsCommand) {
  // A markdown note: no "# nThread" line, no rank list, "-g 8" on the command line; sendrecv's
  // "sum" means nothing (op:none); the in-place #wrong is N/A (not checked), so valid.
  const PeerDocument doc = parse("playground-sendrecv-a100x8.md");
  EXPECT_EQ(doc.document.at("benchmarks").size(), 8u);
  EXPECT_EQ(entry(doc,
                  "nccl-tests/sendrecv/dtype:fp32/op:none/mode:in_place/bytes:1073741824/"
                  "ranks:8")
                .at("busbw_GB_per_s"),
            195.56);
  EXPECT_EQ(doc.document.at("context").at("peer.command"),
            "./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8");
  EXPECT_FALSE(doc.document.at("context").contains("host_name"));
}

TEST(PeersNccl, ShellPromptIsNotPartOfTheCommandAndBusNumbersAreNoAddress) {
  const PeerDocument doc = parse("issue287-all_reduce-rtx5090x1.txt");
  const json& c = doc.document.at("context");
  EXPECT_EQ(c.at("peer.command"), "./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1");
  EXPECT_EQ(c.at("host_name"), "GENOA-06");
  EXPECT_EQ(entry(doc,
                  "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:134217728/"
                  "ranks:1")
                .at("algbw_GB_per_s"),
            1777718.25);
  EXPECT_FALSE(context_json(doc, "gpubench.devices")[0].contains("pci_bus_id"));
}

TEST(PeersNccl, RcclTestsOutputIsNamedAsSuch) {
  const PeerDocument doc = parse("rocm5571-rccl-all_reduce-r9700-2nodes.txt");
  const json& c = doc.document.at("context");
  EXPECT_EQ(c.at("peer.tool"), "rccl-tests");
  EXPECT_EQ(c.at("peer.version"), "develop:33cc4df");
  EXPECT_EQ(c.at("peer.command"),
            "NCCL_DMABUF_ENABLE=1  mpirun -H 10.20.1.125,10.20.1.126 -np 2 --mca "
            "btl_tcp_if_include enp165s0f1np1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1");
  EXPECT_EQ(c.at("gpubench.suite"), "nccl-tests");
  EXPECT_EQ(entry(doc,
                  "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/"
                  "bytes:134217728/ranks:2")
                .at("busbw_GB_per_s"),
            10.77);
}

TEST(PeersNccl, InitFailuresWithNothingMeasuredAreRefusedWithTheToolsMessage) {
  std::string e = refusal(fixture("issue287-all_reduce-rtx5090x2-init-failure.txt"), "a.txt");
  EXPECT_TRUE(has(e, "line 11: nothing was measured")) << e;
  EXPECT_TRUE(has(e, "Test NCCL failure common.cu:392 'unhandled cuda error")) << e;
  e = refusal(fixture("issue287-all_reduce-rtx5090x2-debug-info-failure.txt"), "b.txt");
  EXPECT_TRUE(has(e, "last NCCL WARN: Cuda failure 1 'invalid argument'")) << e;
  e = refusal(fixture("issue369-all_reduce-gh200-2nodes-cuda-failure.txt"), "c.txt");
  EXPECT_TRUE(has(e, "CUDA-capable device(s) is/are busy or unavailable")) << e;
  EXPECT_TRUE(has(e, "line 14")) << e;
}

TEST(PeersNccl, AnErrorAfterSomeSizesIsTheRunsFailure) {
  // FIXTURE: the first three sizes of issue287-all_reduce-rtx5090x1.txt, then the error line
  // nccl-tests printed after the fifth size in NVIDIA/nccl-tests#322.
  const std::string full = fixture("issue287-all_reduce-rtx5090x1.txt");
  const std::size_t cut = full.find("          64            16");
  ASSERT_NE(cut, std::string::npos);
  const std::string text =
      full.substr(0, cut) +
      "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO "
      "for details) / '\n .. HCA-128 pid 757466: Test failure common.cu:915\n";
  const PeerDocument doc = parse_nccl_tests(text, "cut.txt");
  EXPECT_EQ(doc.document.at("benchmarks").size(), 6u);
  EXPECT_EQ(doc.failure,
            "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with "
            "NCCL_DEBUG=INFO for details) / '");
}

TEST(PeersNccl, BrokenTablesAreRefusedNamingTheLine) {
  const std::string full = fixture("issue287-all_reduce-rtx5090x1.txt");
  // FIXTURE edits of the real file: a row cut short, a non-number, an unknown type.
  const std::string row =
      "         128            32     float     sum      -1     4.61    0.03    0.00      0     "
      "0.15    0.86    0.00      0";
  const std::size_t at = full.find(row);
  ASSERT_NE(at, std::string::npos);
  std::string cut = full.substr(0, at + 60);
  std::string e = refusal(cut, "cut.txt");
  EXPECT_TRUE(has(e, "line 14: expected 8 values after the size, count and type columns")) << e;
  EXPECT_TRUE(has(e, "cut short")) << e;
  std::string bad = full;
  bad.replace(at, row.size(), std::string(row).replace(row.find("0.03"), 4, "x.03"));
  e = refusal(bad, "bad.txt");
  EXPECT_TRUE(has(e, "line 14: expected a number for algbw, found 'x.03'")) << e;
  std::string type = full;
  type.replace(at, row.size(), std::string(row).replace(row.find("float"), 5, "quad "));
  e = refusal(type, "type.txt");
  EXPECT_TRUE(has(e, "unknown data type 'quad'")) << e;
}

TEST(PeersNccl, WhatCannotBeNamedIsRefused) {
  // The program: superbench's file under a name that does not say it.
  std::string e = refusal(fixture("superbench-nccl_allreduce-a100x8.log"), "run.log");
  EXPECT_TRUE(has(e, "does not say which nccl-tests program")) << e;
  EXPECT_TRUE(has(e, "all_reduce_perf.txt")) << e;
  // The ranks: the sendrecv paste without its command line (the file name names the program).
  std::string paste = fixture("playground-sendrecv-a100x8.md");
  paste.erase(paste.find("./build/sendrecv_perf"), 46);
  e = refusal(paste, "sendrecv.md");
  EXPECT_TRUE(has(e, "the number of ranks is not stated")) << e;
  // Under a launcher the command line does not count ranks either.
  e = refusal("mpirun -np 4 ./all_reduce_perf -g 1\n" + paste, "x.md");
  EXPECT_TRUE(has(e, "the number of ranks is not stated")) << e;
}

TEST(PeersNccl, SrunLabelsAndPerIterationColumns) {
  // FIXTURE: the 1x5090 output as `srun --label` prints it ("0: " before every line).
  const std::string full = fixture("issue287-all_reduce-rtx5090x1.txt");
  std::string labelled;
  std::size_t pos = 0;
  while (pos < full.size()) {
    const std::size_t end = full.find('\n', pos);
    labelled += "0: " + full.substr(pos, end - pos + 1);
    pos = end + 1;
  }
  const PeerDocument doc = parse_nccl_tests(labelled, "l.txt");
  EXPECT_EQ(doc.document.at("benchmarks"),
            parse_nccl_tests(full, "f.txt").document.at("benchmarks"));
  // FIXTURE: header and row laid out as nccl-tests 2.19 prints them with -I 1 (src/util.cu's
  // formats; per-iteration min/max/p99/cv% after each place's #wrong), values made up.
  const std::string per_iter =
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg "
      "iters: 1 validation: 1 graph: 0 unalign: 0\n"
      "#  Rank  0 Group  0 Pid   1234 on  fixture-a device  0 [0000:19:00] NVIDIA H200\n"
      "#        size         count      type   redop    root     time   algbw   busbw  #wrong    "
      "i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv%\n"
      "           8             2     float     sum      -1     5.10    0.00    0.00       0     "
      "5.00     5.40     5.40     1.20     4.90    0.00    0.00       0     4.80     5.10     "
      "5.10     1.10\n";
  const PeerDocument it = parse_nccl_tests(per_iter, "p.txt");
  EXPECT_EQ(entry(it, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:8/ranks:1")
                .at("time_us"),
            4.90);
}

TEST(PeersNccl, NamesAndVersions) {
  EXPECT_EQ(nccl_collective_name("./build/all_reduce_perf"), "allreduce");
  EXPECT_EQ(nccl_collective_name("all_gather_perf_mpi"), "allgather");
  EXPECT_EQ(nccl_collective_name("reduce_scatter_perf"), "reduce_scatter");
  EXPECT_EQ(nccl_collective_name("hypercube_perf"), "hypercube");
  EXPECT_FALSE(nccl_collective_name("sort_perf"));
  EXPECT_EQ(nccl_dtype_name("half"), "fp16");
  EXPECT_EQ(nccl_dtype_name("bfloat16"), "bf16");
  EXPECT_EQ(nccl_dtype_name("f8e5m2"), "fp8e5m2");
  EXPECT_EQ(nccl_dtype_name("char"), "int8");
  EXPECT_FALSE(nccl_dtype_name("quad"));
  EXPECT_EQ(nccl_version_from_code("22606"), "2.26.6");
  EXPECT_EQ(nccl_version_from_code("2708"), "2.7.8");
  EXPECT_EQ(nccl_version_from_code("x"), "");
  EXPECT_EQ(cuda_version_from_int("12080"), "12.8");
  EXPECT_DOUBLE_EQ(nccl_error_bound("fp16", 3), 2e-2);
}

}  // namespace
}  // namespace gpubench::results::peers
