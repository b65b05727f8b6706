// Optimize() and waveopt_optimize() near a memory limit: whichever
// allocation fails, the call returns false with "out of memory" (or
// succeeds, when it got that far), and no exception leaves it.
//
// Its own executable: it replaces the global operator new, to make the
// k-th allocation of a call throw std::bad_alloc.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"
#include "waveopt/waveopt_c.h"

namespace {

std::atomic<long> g_countdown{-1};  // -1: never fail
std::atomic<long> g_allocations{0};

void* Allocate(size_t size) {
  ++g_allocations;
  if (g_countdown.load() >= 0 && g_countdown.fetch_sub(1) == 0) throw std::bad_alloc();
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

// Every form of the global operator new and delete, so that no allocation
// of the library reaches the runtime's own allocator (a sanitizer's
// operator new paired with this file's delete is a mismatch it reports).
void* operator new(size_t size) { return Allocate(size); }
void* operator new[](size_t size) { return Allocate(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace waveopt {
namespace {

const char* kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint n; uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint bins[16]; uint total; uint result[]; };
void main() {
  uint acc = 0u;
  for (uint i = 0u; i < n; ++i) acc += data[i];
  result[gl_GlobalInvocationID.x] = acc;
  atomicAdd(bins[min(acc, 15u)], 1u);
  atomicAdd(total, 1u);
}
)";

std::vector<uint32_t> Compile() {
  std::vector<uint32_t> words;
  std::string error;
  CompileOptions options;
  options.stage = "comp";
  EXPECT_TRUE(CompileShader(kShader, "alloc.comp", options, &words, &error)) << error;
  return words;
}

// The allocations one call makes, and the points to fail it at: the first
// 32, then spread over the rest.
std::vector<long> FailurePoints(long total) {
  std::vector<long> points;
  for (long k = 0; k < 32 && k < total; ++k) points.push_back(k);
  for (long k = 32; k < total; k += total / 64 + 1) points.push_back(k);
  return points;
}

TEST(OutOfMemory, OptimizeReturnsFalseAndThrowsNothing) {
  const std::vector<uint32_t> words = Compile();
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kOptimize, "", ""});
  Result result;
  const long before = g_allocations.load();
  ASSERT_TRUE(Optimize(words, options, &result));
  const long total = g_allocations.load() - before;
  const std::vector<uint32_t> expected = result.words;
  int failed = 0;
  for (long k : FailurePoints(total)) {
    Result r;
    bool ok = false;
    g_countdown = k;
    try {
      ok = Optimize(words, options, &r);
    } catch (...) {
      g_countdown = -1;
      FAIL() << "an exception left Optimize() at allocation " << k;
    }
    g_countdown = -1;
    if (ok) {
      // The failure hit a step -O may skip: still a valid module.
      std::string error;
      EXPECT_TRUE(ValidateModule(r.words, SPV_ENV_VULKAN_1_1, &error)) << k << ": " << error;
      continue;
    }
    ++failed;
    ASSERT_FALSE(r.diagnostics.empty()) << k;
    EXPECT_EQ(r.diagnostics.back(), "out of memory") << k;
    EXPECT_TRUE(r.words.empty());
  }
  EXPECT_GT(failed, 0);
  Result again;
  ASSERT_TRUE(Optimize(words, options, &again));
  EXPECT_EQ(again.words, expected);
}

TEST(OutOfMemory, TheCApiReturnsAFailedResult) {
  const std::vector<uint32_t> words = Compile();
  const char* flags[] = {"-O"};
  for (long k : FailurePoints(2000)) {
    g_countdown = k;
    waveopt_result* r = nullptr;
    try {
      r = waveopt_optimize(words.data(), words.size(), flags, 1);
    } catch (...) {
      g_countdown = -1;
      FAIL() << "an exception left waveopt_optimize() at allocation " << k;
    }
    g_countdown = -1;
    if (r != nullptr && !waveopt_result_ok(r)) {
      EXPECT_STREQ(waveopt_result_error(r), "out of memory") << k;
    }
    waveopt_result_destroy(r);
  }
}

}  // namespace
}  // namespace waveopt
