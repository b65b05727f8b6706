// A consumer shaped like an engine's shader compiler, built against the
// installed package only:
// - its own global operator new behind a mutex (as engines' tracking
//   allocators are), and a second thread that allocates all the time;
// - fork() counted (pthread_atfork): the library path must not fork;
// - every module given, as it comes (vulkan1.0 to 1.3 from its version) and,
//   for a SPIR-V 1.0 module, for vulkan1.1 too: Optimize(-O), and -O's
//   sequence after the engine's performance passes in its own
//   spvtools::Optimizer; every output validated;
// - two threads optimizing at once get the serial bytes.
// Built with -fno-exceptions -fno-rtti, as engines often are.
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "spirv-tools/optimizer.hpp"
#include "waveopt/waveopt.h"

namespace {

std::mutex g_heap_mutex;
std::atomic<long> g_allocations{0};
std::atomic<int> g_forks{0};

void* Allocate(size_t size) {
  std::lock_guard<std::mutex> lock(g_heap_mutex);
  ++g_allocations;
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) std::abort();
  return p;
}

void Release(void* p) {
  std::lock_guard<std::mutex> lock(g_heap_mutex);
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return Allocate(size); }
void* operator new[](size_t size) { return Allocate(size); }
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }

namespace {

bool ReadModule(const char* path, std::vector<uint32_t>* words) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string error;
  if (!waveopt::BytesToWords(bytes, words, &error)) {
    std::fprintf(stderr, "%s: %s\n", path, error.c_str());
    return false;
  }
  return true;
}

bool Valid(const std::vector<uint32_t>& words, spv_target_env env, const std::string& what) {
  std::string error;
  if (waveopt::ValidateModule(words, env, &error)) return true;
  std::fprintf(stderr, "%s: not valid for %s: %s\n", what.c_str(),
               waveopt::TargetEnvName(env).c_str(), error.c_str());
  return false;
}

size_t Applied(const std::vector<waveopt::Remark>& remarks) {
  size_t n = 0;
  for (const waveopt::Remark& r : remarks) n += r.kind == waveopt::RemarkKind::kApplied;
  return n;
}

// Optimize() with -O. Fills |out|; false with a message on failure.
bool OneCall(const std::vector<uint32_t>& words, spv_target_env env, std::vector<uint32_t>* out,
             size_t* applied) {
  waveopt::Options options;
  options.has_target_env = true;
  options.target_env = env;
  options.pipeline.push_back({waveopt::PipelineStep::Kind::kOptimize, "", ""});
  waveopt::Result result;
  if (!waveopt::Optimize(words, options, &result)) {
    std::fprintf(stderr, "Optimize: %s\n", result.diagnostics.back().c_str());
    return false;
  }
  *out = result.words;
  *applied = Applied(result.remarks);
  return true;
}

// The engine's performance passes, then waveopt's -O sequence, in its own
// optimizer.
bool OwnOptimizer(const std::vector<uint32_t>& words, spv_target_env env,
                  std::vector<uint32_t>* out, size_t* applied) {
  auto remarks = std::make_shared<waveopt::RemarkCollector>();
  waveopt::PassConfig config;
  config.target_env = env;
  config.remarks = remarks;
  config.pass_params["prereduce-atomics"] = "max-bins=16";
  config.pass_params["batch-uniform-loads"] = "min-trip=4";
  config.SetTarget(waveopt::Target::kNvidia);  // a device known at load time
  spvtools::Optimizer optimizer(env);
  std::string messages;
  optimizer.SetMessageConsumer(
      [&messages](spv_message_level_t level, const char*, const spv_position_t&, const char* m) {
        if (level <= SPV_MSG_WARNING) messages += std::string(m) + "\n";
      });
  optimizer.RegisterPerformancePasses();
  std::string error;
  if (!waveopt::RegisterOptimizePasses(&optimizer, config, &error)) {
    std::fprintf(stderr, "RegisterOptimizePasses: %s\n", error.c_str());
    return false;
  }
  if (!optimizer.Run(words.data(), words.size(), out)) {
    std::fprintf(stderr, "Optimizer::Run failed: %s\n", messages.c_str());
    return false;
  }
  *applied = Applied(remarks->remarks());
  return true;
}

// One module for one target, both ways, checked.
bool Check(const char* path, const std::vector<uint32_t>& words, spv_target_env env) {
  const std::string what = std::string(path) + " for " + waveopt::TargetEnvName(env);
  std::vector<uint32_t> a, b;
  size_t applied_a = 0, applied_b = 0;
  if (!OneCall(words, env, &a, &applied_a) || !Valid(a, env, what + " (Optimize)")) return false;
  if (!OwnOptimizer(words, env, &b, &applied_b) || !Valid(b, env, what + " (own optimizer)")) {
    return false;
  }
  const bool can = env != SPV_ENV_VULKAN_1_0;
  if (can && (applied_a == 0 || applied_b == 0)) {
    std::fprintf(stderr, "%s: no rewrite (Optimize %zu, own optimizer %zu)\n", what.c_str(),
                 applied_a, applied_b);
    return false;
  }
  if (!can && (a[1] != words[1] || b[1] != words[1])) {
    std::fprintf(stderr, "%s: raised the version for a target without subgroup operations\n",
                 what.c_str());
    return false;
  }
  std::printf("%s: SPIR-V 1.%u -> 1.%u, %zu + %zu rewrites\n", what.c_str(), (words[1] >> 8) & 0xff,
              (a[1] >> 8) & 0xff, applied_a, applied_b);
  return true;
}

// Two threads optimizing at once get what one thread got.
bool Concurrent(const std::vector<uint32_t>& words, spv_target_env env) {
  std::vector<uint32_t> serial, one, two;
  size_t n = 0, n1 = 0, n2 = 0;
  if (!OneCall(words, env, &serial, &n)) return false;
  bool ok1 = false, ok2 = false;
  std::thread t1([&] { ok1 = OneCall(words, env, &one, &n1); });
  std::thread t2([&] { ok2 = OneCall(words, env, &two, &n2); });
  t1.join();
  t2.join();
  if (!ok1 || !ok2 || one != serial || two != serial) {
    std::fprintf(stderr, "two threads at once did not give the serial result\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  pthread_atfork([] { ++g_forks; }, nullptr, nullptr);
  std::atomic<bool> stop{false};
  std::thread churn([&stop] {
    // Another thread of the engine, allocating all the time.
    std::vector<std::unique_ptr<std::string>> live;
    while (!stop.load()) {
      live.push_back(std::make_unique<std::string>(64, 'x'));
      if (live.size() > 1000) live.clear();
    }
  });
  bool ok = argc > 1;
  for (int i = 1; i < argc && ok; ++i) {
    std::vector<uint32_t> words;
    ok = ReadModule(argv[i], &words);
    if (!ok) break;
    const spv_target_env own = waveopt::DefaultTargetEnv(words);
    ok = Check(argv[i], words, own);
    if (ok && own == SPV_ENV_VULKAN_1_0) ok = Check(argv[i], words, SPV_ENV_VULKAN_1_1);
    if (ok && i == 1) ok = Concurrent(words, own == SPV_ENV_VULKAN_1_0 ? SPV_ENV_VULKAN_1_1 : own);
  }
  stop = true;
  churn.join();
  if (g_forks.load() != 0) {
    std::fprintf(stderr, "the library forked %d times\n", g_forks.load());
    ok = false;
  }
  std::printf("engine: %s, %ld allocations through the engine's allocator, %d forks\n",
              ok ? "ok" : "FAILED", g_allocations.load(), g_forks.load());
  return ok ? 0 : 1;
}
