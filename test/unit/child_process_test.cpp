// lib/support/child_process: results, crashes, timeouts, reaping, pipes.
#include "lib/support/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gtest/gtest.h"

namespace waveopt {
namespace support {
namespace {

using Status = ChildResult::Status;

// A crash without a core file.
[[noreturn]] void Crash(int signal) {
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  raise(signal);
  _exit(99);
}

bool Reaped(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD;
}

int OpenDescriptors() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n;
}

TEST(ChildProcess, ExitStatusAndChannel) {
  ChildResult r = RunInChild([](int channel) {
    WriteAll(channel, "hello", 5);
    return 3;
  });
  EXPECT_EQ(r.status, Status::kExited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.channel, "hello");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(Describe(r), "exited with status 3");
}

TEST(ChildProcess, ACrashStaysInTheChild) {
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS}) {
    ChildResult r = RunInChild([signal](int channel) -> int {
      WriteAll(channel, "before", 6);
      Crash(signal);
    });
    EXPECT_EQ(r.status, Status::kSignaled);
    EXPECT_EQ(r.signal, signal);
    EXPECT_EQ(r.channel, "before");
    EXPECT_NE(Describe(r).find("crashed (signal " + std::to_string(signal)), std::string::npos);
  }
}

TEST(ChildProcess, AnExceptionEndsTheChild) {
  ChildResult r = RunInChild([](int) -> int { throw std::runtime_error("no"); });
  EXPECT_EQ(r.status, Status::kExited);
  EXPECT_EQ(r.exit_code, kBodyThrew);
}

TEST(ChildProcess, AHangIsKilledAtItsTimeoutAndReaped) {
  ChildOptions options;
  options.timeout_s = 0.2;
  ChildProcess child;
  ASSERT_TRUE(child.Start(
      [](int) {
        for (;;) pause();
        return 0;
      },
      options));
  const pid_t pid = child.pid();
  const ChildResult& r = child.Wait();
  EXPECT_EQ(r.status, Status::kTimedOut);
  EXPECT_EQ(Describe(r), "timed out after 0.2 s");
  EXPECT_FALSE(child.running());
  EXPECT_TRUE(Reaped(pid));
}

TEST(ChildProcess, TheDestructorKillsAndReapsARunningChild) {
  pid_t pid = -1;
  {
    ChildProcess child;
    ASSERT_TRUE(child.Start([](int) {
      for (;;) pause();
      return 0;
    }));
    pid = child.pid();
    EXPECT_TRUE(child.running());
  }
  EXPECT_TRUE(Reaped(pid));
  EXPECT_EQ(kill(pid, 0), -1);
}

TEST(ChildProcess, KillEndsAndReaps) {
  ChildProcess child;
  ASSERT_TRUE(child.Start([](int) {
    for (;;) pause();
    return 0;
  }));
  const pid_t pid = child.pid();
  child.Kill();
  EXPECT_EQ(child.result().status, Status::kSignaled);
  EXPECT_EQ(child.result().signal, SIGKILL);
  EXPECT_TRUE(Reaped(pid));
  EXPECT_EQ(child.Wait().status, Status::kSignaled);  // and again
}

TEST(ChildProcess, MoreThanAPipeHoldsOnEveryStreamAtOnce) {
  ChildOptions options;
  options.out = StreamMode::kCapture;
  options.err = StreamMode::kCapture;
  // What earlier tests left in this process's stdout buffer would reach the
  // child's stdout too (the whole binary run with its output in a pipe).
  options.flush_std_streams = true;
  const std::string big(4 << 20, 'c');
  ChildResult r = RunInChild(
      [&big](int channel) {
        std::string line(1000, 'o');
        for (int i = 0; i < 1024; ++i) {
          std::fwrite(line.data(), 1, line.size(), stdout);
          std::fwrite(line.data(), 1, 10, stderr);
          WriteAll(channel, big.data() + i * 4096, 4096);
        }
        std::fflush(stdout);
        std::fflush(stderr);
        return 0;
      },
      options);
  ASSERT_TRUE(r.ok()) << Describe(r);
  EXPECT_EQ(r.channel.size(), big.size());
  EXPECT_EQ(r.out.size(), 1000u * 1024u);
  EXPECT_EQ(r.err.size(), 10u * 1024u);
}

TEST(ChildProcess, DiscardedStreamsGoNowhere) {
  ChildOptions options;
  options.out = StreamMode::kDiscard;
  options.err = StreamMode::kDiscard;
  ChildResult r = RunInChild(
      [](int) {
        std::printf("not seen\n");
        std::fflush(stdout);
        return 0;
      },
      options);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
}

TEST(ChildProcess, PipesAreCloseOnExecAndNothingLeaks) {
  const int before = OpenDescriptors();
  for (int i = 0; i < 20; ++i) {
    ChildOptions options;
    options.err = StreamMode::kCapture;
    ChildResult r = RunInChild(
        [](int channel) {
          const char flag = (fcntl(channel, F_GETFD) & FD_CLOEXEC) ? '1' : '0';
          WriteAll(channel, &flag, 1);
          return 0;
        },
        options);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.channel, "1");
  }
  EXPECT_EQ(OpenDescriptors(), before);
}

TEST(ChildProcess, TheHostsUnflushedOutputIsNotWrittenTwice) {
  FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  std::fputs("once", file);  // still in the stream's buffer
  ChildResult r = RunInChild([](int) { return 0; });
  EXPECT_TRUE(r.ok());
  std::fflush(file);
  std::rewind(file);
  char buf[64] = {};
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, file);
  std::fclose(file);
  EXPECT_EQ(std::string(buf, n), "once");
}

TEST(ChildProcess, WaitForAnyReturnsTheOnesThatEnded) {
  int gate[2];
  ASSERT_EQ(pipe2(gate, O_CLOEXEC), 0);
  ChildProcess quick, gated;
  ASSERT_TRUE(quick.Start([](int) { return 0; }));
  ASSERT_TRUE(gated.Start([&gate](int) {
    char c = 0;
    close(gate[1]);
    return read(gate[0], &c, 1) == 1 ? 7 : 8;
  }));
  close(gate[0]);
  std::vector<ChildProcess*> both = {&gated, &quick};
  EXPECT_EQ(ChildProcess::WaitForAny(both), std::vector<size_t>{1});
  EXPECT_TRUE(gated.running());
  ASSERT_EQ(write(gate[1], "x", 1), 1);
  close(gate[1]);
  EXPECT_EQ(ChildProcess::WaitForAny(both), std::vector<size_t>{0});
  EXPECT_EQ(gated.result().exit_code, 7);
  EXPECT_TRUE(ChildProcess::WaitForAny(both).empty());
}

// With a wait limit, WaitForAny comes back empty while the child runs, with
// what its channel brought so far.
TEST(ChildProcess, WaitForAnyWithALimitReturnsWhileTheChildRuns) {
  int gate[2];
  ASSERT_EQ(pipe2(gate, O_CLOEXEC), 0);
  ChildProcess gated;
  ASSERT_TRUE(gated.Start([&gate](int channel) {
    char c = 0;
    close(gate[1]);
    WriteAll(channel, "b", 1);
    return read(gate[0], &c, 1) == 1 ? 7 : 8;
  }));
  close(gate[0]);
  std::vector<ChildProcess*> one = {&gated};
  for (int i = 0; i < 500 && gated.result().channel.empty(); ++i) {
    EXPECT_TRUE(ChildProcess::WaitForAny(one, 10).empty());
  }
  EXPECT_TRUE(gated.running());
  EXPECT_EQ(gated.result().channel, "b");
  ASSERT_EQ(write(gate[1], "x", 1), 1);
  close(gate[1]);
  std::vector<size_t> ended;
  while (ended.empty() && gated.running()) ended = ChildProcess::WaitForAny(one, 10);
  EXPECT_EQ(ended, std::vector<size_t>{0});
  EXPECT_EQ(gated.result().exit_code, 7);
}

}  // namespace
}  // namespace support
}  // namespace waveopt
