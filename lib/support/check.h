// Assertions on the invariants waveopt's rewrites rely on. In builds with
// WAVEOPT_CHECK_INVARIANTS (Debug and the sanitizer build: see the
// top-level CMakeLists.txt) a false one prints where and what to stderr
// and aborts, so that a broken invariant stops the tests instead of looking
// like a refusal. In release builds it compiles to nothing: the library
// never kills its host.
#ifndef WAVEOPT_SUPPORT_CHECK_H_
#define WAVEOPT_SUPPORT_CHECK_H_

#ifdef WAVEOPT_CHECK_INVARIANTS
#include <cstdio>
#include <cstdlib>

#define WAVEOPT_ASSERT(cond, what)                                                                 \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: waveopt invariant broken: %s (%s)\n", __FILE__, __LINE__, what, \
                   #cond);                                                                         \
      std::abort();                                                                                \
    }                                                                                              \
  } while (false)
#else
#define WAVEOPT_ASSERT(cond, what) \
  do {                             \
  } while (false && (cond))
#endif

#endif  // WAVEOPT_SUPPORT_CHECK_H_
