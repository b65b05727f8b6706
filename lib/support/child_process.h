// The one child-process isolator of the repository: runs a function in a
// forked child, so that its crash, hang or exit stays there, and brings back
// what it wrote (a byte channel, and stdout/stderr when captured).
//
// Contract:
// - Start() forks. The child runs |body| and ends with _exit(): no atexit
//   handlers, no static destructors, no flushing of the stdio buffers it
//   inherited, so the parent's unflushed output is never written twice. A
//   body that writes through stdio flushes what it wrote itself. An
//   exception that leaves |body| ends the child with kBodyThrew.
// - fork() copies only the calling thread. Use it from a process whose
//   other threads hold no lock the body needs (the allocator's included):
//   a single-threaded tool, or with a timeout so that such a deadlock ends
//   as kTimedOut instead of a hang. The waveopt library forks only when its
//   caller asks (Options::isolation); the command-line tools do.
// - Every pipe is created O_CLOEXEC. The parent closes the child's ends at
//   once, the child closes the parent's: nothing leaks into either, or into
//   a program either of them executes.
// - The parent reads the channel and the captured streams while the child
//   runs, so a child that writes more than a pipe holds never blocks.
// - Nothing here touches signal dispositions, the host's stdio buffers
//   (ChildOptions::flush_std_streams is the tool's choice), or any child
//   but its own: waitpid() on the child's pid, never wait(-1).
// - A child is always reaped: by Wait() or WaitForAny() when it ends, by
//   Kill(), or by the destructor, which kills it first if it still runs.
//   No zombie, no orphan.
// POSIX only.
#ifndef WAVEOPT_LIB_SUPPORT_CHILD_PROCESS_H_
#define WAVEOPT_LIB_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace waveopt {
namespace support {

// What becomes of the child's standard output or error.
enum class StreamMode {
  kInherit,  // the parent's
  kCapture,  // a pipe; the text comes back in ChildResult::out / err
  kDiscard,  // /dev/null
};

struct ChildOptions {
  // The child is killed (SIGKILL) and reaped once it has run this long;
  // 0: no limit.
  double timeout_s = 0;
  StreamMode out = StreamMode::kInherit;
  StreamMode err = StreamMode::kInherit;
  // fflush(stdout) and fflush(stderr) before the fork, for a tool whose
  // child prints through the same streams (never fflush(NULL): other
  // streams of the host are not ours).
  bool flush_std_streams = false;
  // The child restores the default action of the crash signals (SIGSEGV,
  // SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP) before the body runs, so a
  // crash there ends the child with that signal and is reported to the
  // caller as a result: the host's crash reporter or sanitizer does not
  // handle (and report as the host's own) a crash of the isolated step.
  bool default_crash_signals = true;
};

struct ChildResult {
  enum class Status {
    kExited,        // exit_code is the body's return value (0..255)
    kSignaled,      // signal ended it
    kTimedOut,      // killed after ChildOptions::timeout_s
    kFailedToStart  // no pipe or no fork: |error| says why; nothing ran
  };
  Status status = Status::kFailedToStart;
  int exit_code = 0;
  int signal = 0;
  std::string channel;   // what the body wrote to its channel, in order
  std::string out;       // captured standard output (StreamMode::kCapture)
  std::string err;       // captured standard error
  std::string error;     // kFailedToStart: why
  double timeout_s = 0;  // kTimedOut: the limit it ran into

  bool ok() const { return status == Status::kExited && exit_code == 0; }
};

// Exit status of a child whose body threw.
constexpr int kBodyThrew = 125;

// "exited with status 3", "crashed (signal 11, Segmentation fault)",
// "timed out after 2 s", "could not start: <why>".
std::string Describe(const ChildResult& result);

// The child's code: |channel| is a file descriptor it writes its result to
// (WriteAll helps); the return value is its exit status.
using ChildBody = std::function<int(int channel)>;

// Writes all of |size| bytes to |fd|, retrying on EINTR and short writes.
bool WriteAll(int fd, const void* data, size_t size);

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Kills and reaps a child that still runs.
  ~ChildProcess();

  // Forks a child that runs |body|. False (result().status is
  // kFailedToStart, with the reason) when no pipe or process could be made.
  bool Start(const ChildBody& body, const ChildOptions& options = ChildOptions());

  // Blocks until the child has ended (or its timeout killed it), reads
  // everything it wrote, reaps it and returns the result. Returns the same
  // result again on later calls.
  const ChildResult& Wait();

  // Ends a running child now (SIGKILL) and reaps it; its status is then
  // kSignaled. Does nothing when it has ended.
  void Kill();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const ChildResult& result() const { return result_; }

  // Blocks until at least one of |children| that runs has ended (each
  // one's timeout applies), reading all their pipes meanwhile; reaps the
  // ones that ended. Returns their indices in |children|, in order; empty
  // when none of them was running, or when none ended within |max_wait_ms|
  // (>= 0), for a caller that looks at its children meanwhile (what their
  // channels brought so far is in result().channel).
  static std::vector<size_t> WaitForAny(const std::vector<ChildProcess*>& children,
                                        int max_wait_ms = -1);

 private:
  struct Pipe {
    int fd = -1;
    std::string* text = nullptr;
  };
  // Reads what is ready on the pipes; closes those at end of file.
  void Drain(const short* revents);
  // Non-blocking: true when the child has ended and was reaped.
  bool TryReap();
  // The poll deadline of this child in ms from now (-1: none).
  int MsToDeadline() const;
  int PipesOpen() const;
  void KillAndReap(ChildResult::Status status);
  void CloseAll();

  pid_t pid_ = -1;
  double deadline_ = 0;  // CLOCK_MONOTONIC seconds; 0: none
  double timeout_s_ = 0;
  double pipes_closed_at_ = 0;  // when the last pipe reached its end
  Pipe pipes_[3];               // channel, out, err
  ChildResult result_;
};

// Runs |body| in a child process and returns what happened.
ChildResult RunInChild(const ChildBody& body, const ChildOptions& options = ChildOptions());

}  // namespace support
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SUPPORT_CHILD_PROCESS_H_
