#include "lib/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace waveopt {
namespace support {
namespace {

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// The longest a parent sleeps in poll() without looking at its children:
// a child that ended while a process it started still holds its pipes
// open is reaped this late at most.
constexpr int kReapCheckMs = 100;
// How long after its last pipe closed a child is looked at every 1 ms.
constexpr double kSoonAfterEof = 0.05;

// In the child, before the body: the crash signals take their default
// action again (ChildOptions::default_crash_signals).
void DefaultCrashSignals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) signal(sig, SIG_DFL);
}

// In the child: makes |fd| its descriptor |target| (1 or 2), without the
// close-on-exec flag.
void Redirect(int fd, int target) {
  if (fd == target) {
    fcntl(fd, F_SETFD, 0);
  } else {
    dup2(fd, target);
  }
}

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::string Describe(const ChildResult& r) {
  switch (r.status) {
    case ChildResult::Status::kExited:
      return "exited with status " + std::to_string(r.exit_code);
    case ChildResult::Status::kSignaled:
      return "crashed (signal " + std::to_string(r.signal) + ", " + strsignal(r.signal) + ")";
    case ChildResult::Status::kTimedOut: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "timed out after %g s", r.timeout_s);
      return buf;
    }
    case ChildResult::Status::kFailedToStart:
      break;
  }
  return "could not start: " + r.error;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

ChildProcess::~ChildProcess() { Kill(); }

bool ChildProcess::Start(const ChildBody& body, const ChildOptions& options) {
  Kill();
  result_ = ChildResult();
  timeout_s_ = options.timeout_s;
  const bool want[3] = {true, options.out == StreamMode::kCapture,
                        options.err == StreamMode::kCapture};
  int fds[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  int devnull = -1;
  auto fail = [&](const std::string& why) {
    for (auto& p : fds) {
      CloseFd(&p[0]);
      CloseFd(&p[1]);
    }
    CloseFd(&devnull);
    result_.status = ChildResult::Status::kFailedToStart;
    result_.error = why;
    return false;
  };
  for (int i = 0; i < 3; ++i) {
    if (want[i] && pipe2(fds[i], O_CLOEXEC) != 0) return fail(Errno("cannot create a pipe"));
  }
  if (options.out == StreamMode::kDiscard || options.err == StreamMode::kDiscard) {
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0) return fail(Errno("cannot open /dev/null"));
  }
  if (options.flush_std_streams) {
    std::fflush(stdout);
    std::fflush(stderr);
  }
  const pid_t pid = fork();
  if (pid < 0) return fail(Errno("cannot fork"));
  if (pid == 0) {
    for (auto& p : fds) {
      if (p[0] >= 0) close(p[0]);
    }
    const StreamMode modes[3] = {StreamMode::kInherit, options.out, options.err};
    for (int i = 1; i < 3; ++i) {
      if (modes[i] == StreamMode::kCapture) Redirect(fds[i][1], i);
      if (modes[i] == StreamMode::kDiscard) Redirect(devnull, i);
    }
    if (options.default_crash_signals) DefaultCrashSignals();
    int rc = kBodyThrew;
    try {
      rc = body(fds[0][1]);
    } catch (...) {
      rc = kBodyThrew;
    }
    _exit(rc & 0xff);
  }
  for (auto& p : fds) CloseFd(&p[1]);
  CloseFd(&devnull);
  pid_ = pid;
  deadline_ = options.timeout_s > 0 ? Now() + options.timeout_s : 0;
  std::string* texts[3] = {&result_.channel, &result_.out, &result_.err};
  for (int i = 0; i < 3; ++i) pipes_[i] = Pipe{fds[i][0], texts[i]};
  return true;
}

void ChildProcess::Drain(const short* revents) {
  char buf[65536];
  for (int i = 0; i < 3; ++i) {
    Pipe& p = pipes_[i];
    if (p.fd < 0 || (revents[i] & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    const ssize_t n = read(p.fd, buf, sizeof(buf));
    if (n > 0) {
      p.text->append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      CloseFd(&p.fd);
      if (PipesOpen() == 0) pipes_closed_at_ = Now();
    }
  }
}

int ChildProcess::PipesOpen() const {
  int n = 0;
  for (const Pipe& p : pipes_) n += p.fd >= 0 ? 1 : 0;
  return n;
}

void ChildProcess::CloseAll() {
  // What is still in the pipes (the child has ended) is read first; a
  // process the child started may hold them open, so only what is ready.
  for (;;) {
    struct pollfd fds[3];
    short revents[3] = {0, 0, 0};
    nfds_t n = 0;
    int index[3];
    for (int i = 0; i < 3; ++i) {
      if (pipes_[i].fd < 0) continue;
      fds[n] = {pipes_[i].fd, POLLIN, 0};
      index[n++] = i;
    }
    if (n == 0 || poll(fds, n, 0) <= 0) break;
    for (nfds_t k = 0; k < n; ++k) revents[index[k]] = fds[k].revents;
    Drain(revents);
  }
  for (Pipe& p : pipes_) CloseFd(&p.fd);
}

bool ChildProcess::TryReap() {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  if (r < 0) {
    // Not our child any more (reaped by someone else's wait(-1)).
    result_.status = ChildResult::Status::kSignaled;
    result_.signal = SIGKILL;
  } else if (WIFEXITED(status)) {
    result_.status = ChildResult::Status::kExited;
    result_.exit_code = WEXITSTATUS(status);
  } else {
    result_.status = ChildResult::Status::kSignaled;
    result_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  }
  pid_ = -1;
  CloseAll();
  return true;
}

void ChildProcess::KillAndReap(ChildResult::Status status) {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int ignored = 0;
  while (waitpid(pid_, &ignored, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  CloseAll();
  result_.status = status;
  result_.signal = SIGKILL;
  if (status == ChildResult::Status::kTimedOut) result_.timeout_s = timeout_s_;
}

void ChildProcess::Kill() { KillAndReap(ChildResult::Status::kSignaled); }

int ChildProcess::MsToDeadline() const {
  if (deadline_ <= 0) return -1;
  const double left = deadline_ - Now();
  return left <= 0 ? 0 : static_cast<int>(std::ceil(left * 1000.0));
}

const ChildResult& ChildProcess::Wait() {
  while (pid_ > 0) WaitForAny({this});
  return result_;
}

std::vector<size_t> ChildProcess::WaitForAny(const std::vector<ChildProcess*>& children,
                                             int max_wait_ms) {
  const double give_up = max_wait_ms >= 0 ? Now() + max_wait_ms / 1000.0 : 0;
  for (;;) {
    std::vector<struct pollfd> fds;
    std::vector<std::pair<size_t, int>> owner;  // (child, pipe) of each pollfd
    int timeout = kReapCheckMs;
    if (give_up > 0) {
      const double left_ms = std::ceil((give_up - Now()) * 1000.0);
      timeout = std::max(0, std::min(timeout, static_cast<int>(left_ms)));
    }
    bool any = false;
    for (size_t c = 0; c < children.size(); ++c) {
      ChildProcess* child = children[c];
      if (child == nullptr || child->pid_ <= 0) continue;
      any = true;
      const int left = child->MsToDeadline();
      if (left >= 0 && left < timeout) timeout = left;
      if (child->PipesOpen() == 0 && Now() - child->pipes_closed_at_ < kSoonAfterEof) {
        // A child closes its pipes as it exits, a moment before it can be
        // reaped: look again very soon.
        timeout = std::min(timeout, 1);
      }
      for (int i = 0; i < 3; ++i) {
        if (child->pipes_[i].fd < 0) continue;
        fds.push_back({child->pipes_[i].fd, POLLIN, 0});
        owner.emplace_back(c, i);
      }
    }
    if (!any) return {};
    const int ready = poll(fds.data(), fds.size(), timeout);
    if (ready < 0 && errno != EINTR) timeout = 0;  // cannot poll: just check
    for (size_t k = 0; ready > 0 && k < fds.size(); ++k) {
      short revents[3] = {0, 0, 0};
      revents[owner[k].second] = fds[k].revents;
      children[owner[k].first]->Drain(revents);
    }
    std::vector<size_t> ended;
    for (size_t c = 0; c < children.size(); ++c) {
      ChildProcess* child = children[c];
      if (child == nullptr || child->pid_ <= 0) continue;
      if (child->TryReap()) {
        ended.push_back(c);
      } else if (child->MsToDeadline() == 0) {
        child->KillAndReap(ChildResult::Status::kTimedOut);
        ended.push_back(c);
      }
    }
    if (!ended.empty() || (give_up > 0 && Now() >= give_up)) return ended;
  }
}

ChildResult RunInChild(const ChildBody& body, const ChildOptions& options) {
  ChildProcess child;
  if (!child.Start(body, options)) return child.result();
  return child.Wait();
}

}  // namespace support
}  // namespace waveopt
