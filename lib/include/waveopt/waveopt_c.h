/* waveopt's C interface, for engines and tools not written in C++: optimize
 * a SPIR-V module with the waveopt command line's flags, get the module's
 * words, the remarks and the diagnostics back.
 *
 * The library is C++ (waveopt::waveopt in CMake): link the program with a
 * C++ linker, or add the C++ runtime. Nothing here prints, forks, throws,
 * starts threads or keeps state between calls; calls from several threads
 * at once are fine, each with its own result. */
#ifndef WAVEOPT_WAVEOPT_C_H_
#define WAVEOPT_WAVEOPT_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one call produced; freed with waveopt_result_destroy(). */
typedef struct waveopt_result waveopt_result;

typedef enum waveopt_remark_kind {
  WAVEOPT_REMARK_APPLIED = 0, /* the pass rewrote something */
  WAVEOPT_REMARK_MISSED = 1,  /* the pass refused a candidate; says why */
  WAVEOPT_REMARK_ANALYSIS = 2 /* a fact the pass computed */
} waveopt_remark_kind;

/* One remark (docs/cli.md, Remarks). The strings belong to the result. */
typedef struct waveopt_remark {
  waveopt_remark_kind kind;
  const char* pass;     /* e.g. "prereduce-atomics" */
  const char* name;     /* stable name, e.g. "DivergentAddress" */
  const char* function; /* "" when module-level */
  const char* file;     /* "" when the module has no line information */
  uint32_t line;        /* 0: unknown */
  uint32_t column;
  const char* message;
} waveopt_remark;

/* "MAJOR.MINOR.PATCH", and the SPIRV-Tools version it was built against. */
const char* waveopt_version(void);
const char* waveopt_spirv_tools_version(void);

/* Validates words[0..word_count), runs the pipeline that |flags| (the
 * waveopt command line's spellings, e.g. "-O", "--target-env=vulkan1.2",
 * "--subgroup-size=32", "--pass-params=prereduce-atomics:max-bins=16"; see
 * docs/library.md) describe, validates the output. "--emit=glsl" or
 * "--emit=hlsl" keeps the rewrites emittable in that language (as the
 * command line's --emit= does; the result is SPIR-V all the same). Everything runs in the
 * calling thread. Returns NULL only when memory for the result itself ran
 * out; otherwise a result to inspect and destroy, also when the call
 * failed (waveopt_result_ok() is then 0). */
waveopt_result* waveopt_optimize(const uint32_t* words, size_t word_count, const char* const* flags,
                                 size_t flag_count);

/* 1 when the call succeeded, 0 otherwise (also for a NULL result). */
int waveopt_result_ok(const waveopt_result* result);

/* The optimized module (NULL, *word_count 0 on failure). */
const uint32_t* waveopt_result_words(const waveopt_result* result, size_t* word_count);

/* On failure one line saying why; "" on success. */
const char* waveopt_result_error(const waveopt_result* result);

/* Warnings and notes of a call, one line each ("warning: ..."). */
size_t waveopt_result_diagnostic_count(const waveopt_result* result);
const char* waveopt_result_diagnostic(const waveopt_result* result, size_t index);

/* The remarks, in emission order. waveopt_result_remark() fills |remark| and
 * returns 1, or returns 0 when |index| is out of range. */
size_t waveopt_result_remark_count(const waveopt_result* result);
int waveopt_result_remark(const waveopt_result* result, size_t index, waveopt_remark* remark);

/* -O's versions: boolean specialization constants (default false: the
 * portable code) an engine sets true at pipeline creation on the devices
 * they are for. The strings belong to the result. */
typedef struct waveopt_spec_version {
  uint32_t spec_id;
  const char* name;    /* OpName of the constant, e.g. "waveopt_amd" */
  const char* targets; /* where to set it true, e.g. "amd" or "amd nvidia" */
  const char* passes;  /* the passes that rewrite differently there, ", " */
} waveopt_spec_version;

/* waveopt_result_version() fills |version| and returns 1, or returns 0 when
 * |index| is out of range. */
size_t waveopt_result_version_count(const waveopt_result* result);
int waveopt_result_version(const waveopt_result* result, size_t index,
                           waveopt_spec_version* version);

/* All remarks as an LLVM-style YAML stream (--remarks-output's format). */
const char* waveopt_result_remarks_yaml(const waveopt_result* result);

/* Frees |result| (NULL is fine). */
void waveopt_result_destroy(waveopt_result* result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WAVEOPT_WAVEOPT_C_H_ */
