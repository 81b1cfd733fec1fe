// run_process with real child processes (/bin/sh -c ...).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "harness/process/process.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

ProcessResult sh(const std::string& script, double timeout_s = 0, double grace_s = 1,
                 std::size_t tail = 8192) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.timeout_s = timeout_s;
  spec.kill_grace_s = grace_s;
  spec.stderr_tail_bytes = tail;
  return run_process(spec);
}

TEST(Process, ReportsExitCodes) {
  const ProcessResult ok = sh("exit 0");
  EXPECT_TRUE(ok.succeeded());
  EXPECT_EQ(ok.exit_code, 0);
  const ProcessResult seven = sh("exit 7");
  EXPECT_FALSE(seven.succeeded());
  EXPECT_EQ(seven.exit_code, 7);
  EXPECT_FALSE(seven.term_signal.has_value());
  EXPECT_FALSE(seven.timed_out);
}

TEST(Process, ReportsSignalDeath) {
  const ProcessResult r = sh("kill -SEGV $$");
  EXPECT_FALSE(r.exit_code.has_value());
  ASSERT_TRUE(r.term_signal.has_value());
  EXPECT_EQ(*r.term_signal, SIGSEGV);
  EXPECT_EQ(signal_name(*r.term_signal), "SIGSEGV");
  EXPECT_FALSE(r.succeeded());
}

TEST(Process, StopsAHangAtTheTimeout) {
  const ProcessResult r = sh("sleep 30", 0.3, 1);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_GE(r.duration_s, 0.3);
  EXPECT_LT(r.duration_s, 5);
}

TEST(Process, KillsAChildThatIgnoresSigterm) {
  // The shell and its sleep both ignore SIGTERM: SIGKILL to the group after the grace period.
  // The timeout leaves the shell ample time to install its trap first.
  const ProcessResult r = sh("trap '' TERM; sleep 30", 1.0, 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_GE(r.duration_s, 1.3);
  EXPECT_LT(r.duration_s, 5);
}

TEST(Process, KeepsOnlyTheStderrTail) {
  const ProcessResult r = sh(
      "i=0; while [ $i -lt 3000 ]; do echo \"line $i\" >&2; i=$((i+1)); done; exit 0", 0, 1, 1024);
  EXPECT_TRUE(r.succeeded());
  EXPECT_TRUE(r.stderr_truncated);
  EXPECT_LE(r.stderr_tail.size(), 1024u);
  EXPECT_GT(r.stderr_tail.size(), 900u);
  EXPECT_EQ(r.stderr_tail.substr(r.stderr_tail.size() - 10), "line 2999\n");
  EXPECT_EQ(r.stderr_tail.find("line 0\n"), std::string::npos);
}

TEST(Process, ShortStderrIsKeptWhole) {
  const ProcessResult r = sh("echo oops >&2; exit 1");
  EXPECT_EQ(r.stderr_tail, "oops\n");
  EXPECT_FALSE(r.stderr_truncated);
}

TEST(Process, StdoutGoesToTheFileAndEnvIsAdded) {
  TempDir dir("gpubench-test");
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo \"value=$GPUBENCH_TEST_VAR\""};
  spec.env = {{"GPUBENCH_TEST_VAR", "42"}};
  spec.stdout_path = dir.path() / "out.txt";
  const ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(read_file(spec.stdout_path), "value=42\n");
}

TEST(Process, ReportsAnExecutableThatCannotStart) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/gpubench-nothing"};
  const ProcessResult r = run_process(spec);
  EXPECT_FALSE(r.succeeded());
  EXPECT_NE(r.spawn_error.find("No such file"), std::string::npos) << r.spawn_error;
}

TEST(Process, ForwardsAnInterruptToTheChildGroup) {
  InterruptGuard guard;
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(getpid(), SIGINT);
  });
  const ProcessResult r = sh("sleep 30", 0, 1);
  sender.join();
  EXPECT_EQ(r.interrupt_signal, SIGINT);
  EXPECT_EQ(r.term_signal, SIGINT);
  EXPECT_LT(r.duration_s, 5);
  EXPECT_EQ(interrupt_signal(), SIGINT);
  EXPECT_FALSE(r.succeeded());
}

TEST(Process, GuardRestoresTheDefaultAfterwards) {
  { InterruptGuard guard; }
  EXPECT_EQ(interrupt_signal(), 0);
  struct sigaction current {};
  sigaction(SIGINT, nullptr, &current);
  EXPECT_EQ(current.sa_handler, SIG_DFL);
}

}  // namespace
}  // namespace gpubench::harness
