// Issue 40, part A, through the real CLI: `gpubench import` of nccl-tests / rccl-tests text.
//  - every published output under tests/fixtures/peers/nccl-tests imports (its values, its host,
//    GPUs and versions) or is refused with exit 2 and nothing stored;
//  - --format forces the format (a FIFO has no head to detect), an unknown name and a text of no
//    known format are refused listing the formats;
//  - an NCCL error after some sizes stores the run and its suite as failed, with the tool's line;
//  - two imported runs compare; an imported run and a gpubench allreduce run of the same host
//    hold the same cases under their own suites' names.
// Texts built here are marked FIXTURE.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/e2e/e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

fs::path nccl_fixture(const std::string& name) {
  return fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/peers/nccl-tests" / name;
}

json show_json(const Workspace& ws, const std::string& run) {
  const CliResult r = ws.run({"show", run, "--format", "json", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

const json* result_of(const json& show, const std::string& benchmark, const std::string& metric) {
  for (const json& r : show.at("results")) {
    if (r.at("benchmark") == benchmark && (metric.empty() || r.at("metric") == metric)) return &r;
  }
  return nullptr;
}

TEST(E2ePeersNccl, EveryPublishedOutputImportsOrIsRefused) {
  struct Case {
    const char* file;
    int exit_code;
    const char* said;  // in stdout (imported) or stderr (refused)
  };
  const Case cases[] = {
      {"superbench-nccl_allreduce-a100x8.log", 0, ": 66 benchmarks, 340 samples, 0 skipped"},
      {"superbench-nccl_alltoall-a100x8.log", 0, ": 60 benchmarks, 340 samples"},
      {"superbench-nccl_broadcast-a100x8.log", 0, ": 66 benchmarks, 340 samples"},
      {"a3mega-all_reduce-h100-2nodes.txt", 0, ": 62 benchmarks, 310 samples"},
      {"issue287-all_reduce-rtx5090x1.txt", 0, ": 50 benchmarks, 250 samples"},
      {"issue369-all_reduce-gh200-2nodes-wrong.txt", 0,
       ": 50 benchmarks, 240 samples, 0 skipped, 2 errors"},
      {"playground-sendrecv-a100x8.md", 0, ": 8 benchmarks, 40 samples"},
      {"rocm5571-rccl-all_reduce-r9700-2nodes.txt", 0, ": 50 benchmarks, 250 samples"},
      {"rocm5571-rccl-all_reduce-r9700-2nodes-gdr-off.txt", 0, ": 50 benchmarks, 250 samples"},
      {"issue287-all_reduce-rtx5090x2-init-failure.txt", 2,
       "line 11: nothing was measured: the run ended before its first result with 'GENOA-06: "
       "Test NCCL failure common.cu:392"},
      {"issue287-all_reduce-rtx5090x2-debug-info-failure.txt", 2,
       "(last NCCL WARN: Cuda failure 1 'invalid argument')"},
      {"issue369-all_reduce-gh200-2nodes-cuda-failure.txt", 2,
       "Test CUDA failure common.cu:1304 'CUDA-capable device(s) is/are busy or unavailable'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    Workspace ws;
    const CliResult r = ws.run({"import", nccl_fixture(c.file).string(), ws.db_arg()});
    EXPECT_EQ(r.exit_code, c.exit_code) << r.out << r.err;
    if (c.exit_code == 0) {
      EXPECT_TRUE(contains(r.out, c.said)) << r.out;
      EXPECT_TRUE(
          contains(show_json(ws, "latest").at("run").at("tags").dump(),
                   "\"peer.tool\":\"" +
                       std::string(contains(c.file, "rocm") ? "rccl-tests" : "nccl-tests")));
    } else {
      EXPECT_TRUE(contains(r.err, c.said)) << r.err;
      EXPECT_TRUE(contains(r.err, "the database was not changed")) << r.err;
      EXPECT_FALSE(fs::exists(ws.db()));  // nothing stored: not even an empty database
    }
  }
}

TEST(E2ePeersNccl, TheRunHoldsTheFilesHostGpusVersionsAndInvalidCases) {
  Workspace ws;
  ASSERT_EQ(
      ws.run({"import", nccl_fixture("a3mega-all_reduce-h100-2nodes.txt").string(), ws.db_arg()})
          .exit_code,
      0);
  json d = show_json(ws, "latest");
  EXPECT_EQ(d.at("run").at("status"), "complete");
  EXPECT_EQ(d.at("environment").at("host").at("hostname"), "ztan-mig-235z");
  // The 16 ranks ran on two hosts: the run's GPUs are its host's 8.
  ASSERT_EQ(d.at("environment").at("gpus").size(), 8u);
  EXPECT_EQ(d.at("environment").at("gpus")[2].at("pci_bus_id"), "0000:0b:00.0");
  EXPECT_EQ(d.at("environment").at("gpus")[2].at("name"), "NVIDIA H100 80GB HBM3");
  const json* r =
      result_of(d, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:8589934592/ranks:16",
                "busbw_GB_per_s");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->at("values"), json::array({337.35}));
  EXPECT_EQ(r->at("direction"), "higher");
  EXPECT_EQ(r->at("role"), "primary");

  ASSERT_EQ(ws.run({"import", nccl_fixture("issue369-all_reduce-gh200-2nodes-wrong.txt").string(),
                    ws.db_arg()})
                .exit_code,
            0);
  d = show_json(ws, "latest");
  EXPECT_EQ(d.at("environment").at("software").at("nccl_version"), "2.29.2");
  r = result_of(d, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:1048576/ranks:2",
                "");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->at("status"), "error");
  EXPECT_TRUE(contains(r->at("message"), "invalid: nccl-tests counted 96 wrong elements"))
      << r->dump();
}

TEST(E2ePeersNccl, AnNcclErrorAfterSomeSizesStoresTheRunFailed) {
  Workspace ws;
  // FIXTURE: the first three sizes of issue287-all_reduce-rtx5090x1.txt, then the error line
  // nccl-tests printed after the fifth size in NVIDIA/nccl-tests#322.
  const std::string full = read_file(nccl_fixture("issue287-all_reduce-rtx5090x1.txt"));
  const fs::path file = ws.root() / "all_reduce_cut.txt";
  write_file_atomic(file, full.substr(0, full.find("          64            16")) +
                              "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error "
                              "(run with NCCL_DEBUG=INFO for details) / '\n");
  const CliResult r = ws.run({"import", file.string(), ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ": 6 benchmarks")) << r.out;
  EXPECT_TRUE(contains(r.out, "stored as failed: HCA-128: Test NCCL failure common.cu:1204"))
      << r.out;
  const json d = show_json(ws, "latest");
  EXPECT_EQ(d.at("run").at("status"), "failed");
  EXPECT_TRUE(contains(d.at("run").at("status_reason"), "unhandled cuda error")) << d.at("run");
  EXPECT_EQ(d.at("suites")[0].at("status"), "failed");
  EXPECT_TRUE(contains(d.at("suites")[0].at("reason"), "Test NCCL failure")) << d.at("suites");
}

TEST(E2ePeersNccl, FormatOptionAndUnknownTexts) {
  Workspace ws;
  const CliResult help = ws.run({"import", "--help"});
  EXPECT_TRUE(contains(help.out, "nccl-tests (nccl-tests and rccl-tests *_perf text output)"))
      << help.out;
  const std::string file = nccl_fixture("issue287-all_reduce-rtx5090x1.txt").string();
  CliResult r = ws.run({"import", file, "--format", "nccl-test", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown --format 'nccl-test'")) << r.err;
  EXPECT_TRUE(contains(r.err, "nccl-tests (nccl-tests and rccl-tests")) << r.err;
  EXPECT_FALSE(fs::exists(ws.db()));
  // A text of no known format: refused, the formats listed.
  const fs::path text = ws.root() / "notes.txt";
  write_file_atomic(text, "bandwidth was fine yesterday\n");
  r = ws.run({"import", text.string(), ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "nor the output of another tool import reads: nccl-tests")) << r.err;
  EXPECT_FALSE(fs::exists(ws.db()));
  // --format names the format of what cannot be looked at first: a FIFO.
  const fs::path fifo = ws.root() / "nccl.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string body = read_file(file);
  std::thread writer([&] {
    const int fd = open(fifo.c_str(), O_WRONLY);  // waits for a reader
    if (fd >= 0) {
      EXPECT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
      close(fd);
    }
  });
  r = ws.run({"import", fifo.string(), "--format", "nccl-tests", ws.db_arg()});
  const int unblock = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (unblock >= 0) close(unblock);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ": 50 benchmarks")) << r.out;
}

TEST(E2ePeersNccl, ABrokenTableChangesNothing) {
  Workspace ws;
  ASSERT_EQ(ws.run({"import", nccl_fixture("rocm5571-rccl-all_reduce-r9700-2nodes.txt").string(),
                    ws.db_arg()})
                .exit_code,
            0);
  const std::string before = read_file(ws.db());
  // FIXTURE: the other rocm5571 output cut in the middle of its 1 MiB row.
  const std::string full =
      read_file(nccl_fixture("rocm5571-rccl-all_reduce-r9700-2nodes-gdr-off.txt"));
  const fs::path cut = ws.root() / "cut.txt";
  write_file_atomic(cut, full.substr(0, full.find("     1048576        262144") + 60));
  const CliResult r = ws.run({"import", cut.string(), ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "cannot import '" + cut.string() +
                                  "' as nccl-tests output (line 30: "
                                  "expected 8 values"))
      << r.err;
  EXPECT_EQ(read_file(ws.db()), before);
}

TEST(E2ePeersNccl, TwoImportedRunsCompare) {
  Workspace ws;
  for (const char* f : {"rocm5571-rccl-all_reduce-r9700-2nodes.txt",
                        "rocm5571-rccl-all_reduce-r9700-2nodes-gdr-off.txt"}) {
    ASSERT_EQ(ws.run({"import", nccl_fixture(f).string(), ws.db_arg()}).exit_code, 0);
  }
  const CliResult r = ws.run({"compare", "1", "2", "--format", "json", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json c = json::parse(r.out);
  // nccl-tests prints one averaged value per size: every case is compared, none decided.
  EXPECT_TRUE(contains(r.out,
                       "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/"
                       "bytes:134217728/ranks:2"));
  EXPECT_TRUE(contains(c.dump(), "\"inconclusive\":50")) << c.dump().substr(0, 2000);
  // In text, the why all 50 rows share is said once (issue 39: short reports).
  const CliResult text = ws.run({"compare", "1", "2", "--wide", ws.db_arg()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::size_t whys = 0;
  for (std::size_t at = text.out.find("too few samples"); at != std::string::npos;
       at = text.out.find("too few samples", at + 1)) {
    ++whys;
  }
  EXPECT_EQ(whys, 1u) << text.out;
  EXPECT_TRUE(contains(text.out, "(so for the 49 rows below)")) << text.out;
}

TEST(E2ePeersNccl, AnImportedRunBesideAGpubenchAllreduceRun) {
  Workspace ws;
  ASSERT_EQ(ws.run({"import", nccl_fixture("rocm5571-rccl-all_reduce-r9700-2nodes.txt").string(),
                    ws.db_arg()})
                .exit_code,
            0);
  // FIXTURE: gpubench's allreduce suite output on the same host, as the suite names its cases
  // (suites/allreduce/collectives.cpp case_name), values made up.
  json benchmarks = json::array();
  for (const char* mode : {"out_of_place", "in_place"}) {
    const std::string name =
        std::string("allreduce/allreduce/dtype:fp32/mode:") + mode + "/bytes:134217728/ranks:2";
    for (int rep = 0; rep < 5; ++rep) {
      benchmarks.push_back(iteration_entry({name, rep, 5, 1, 12400, 12400, "us"},
                                           {{"busbw_GB_per_s", 10.8 + 0.01 * rep}}));
    }
  }
  const json metrics =
      json::array({{{"name", "busbw_GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}}});
  const fs::path ar = ws.root() / "allreduce.json";
  write_file_atomic(ar, json({{"context",
                               {{"host_name", "corona"},
                                {"gpubench.suite", "allreduce"},
                                {"gpubench.metrics", metrics.dump()}}},
                              {"benchmarks", benchmarks}})
                            .dump());
  ASSERT_EQ(ws.run({"import", ar.string(), ws.db_arg()}).exit_code, 0);
  // compare lines up benchmarks by name, and the two suites name theirs each in its own scheme:
  // it says so (the side by side is `gpubench peers`).
  const CliResult r = ws.run({"compare", "1", "2", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "no benchmark is in both")) << r.err;
  EXPECT_TRUE(contains(r.err, "no suite in common")) << r.err;
  EXPECT_TRUE(contains(r.err, "gpubench peers RUN")) << r.err;
  // ... and `peers` on the gpubench run sets the two side by side, in-place and out-of-place.
  const CliResult lineup = ws.run({"peers", "2", ws.db_arg()});
  EXPECT_EQ(lineup.exit_code, 0) << lineup.err;
  EXPECT_TRUE(contains(lineup.out, "nccl-tests run 1")) << lineup.out;
  EXPECT_TRUE(contains(lineup.out, "in_place")) << lineup.out;
  // Same host, and the same case in the parameters both names carry.
  const json peer = show_json(ws, "1");
  const json own = show_json(ws, "2");
  EXPECT_EQ(peer.at("environment").at("host").at("hostname"),
            own.at("environment").at("host").at("hostname"));
  const json* p = result_of(
      peer, "nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:134217728/ranks:2",
      "busbw_GB_per_s");
  const json* o =
      result_of(own, "allreduce/allreduce/dtype:fp32/mode:in_place/bytes:134217728/ranks:2",
                "busbw_GB_per_s");
  ASSERT_NE(p, nullptr);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(p->at("case"), o->at("case"));
  for (const char* key : {"dtype", "mode", "bytes", "ranks"}) {
    EXPECT_EQ(p->at("params").at(key), o->at("params").at(key)) << key;
  }
  EXPECT_EQ(p->at("values"), json::array({10.77}));
}

}  // namespace
}  // namespace gpubench::e2e
