/* A C program that optimizes a SPIR-V module through waveopt_c.h and
 * prints the remarks. Usage: c_consumer in.spv out.spv [flags...] */
#include <stdio.h>
#include <stdlib.h>

#include "waveopt/waveopt_c.h"

static uint32_t* read_words(const char* path, size_t* count) {
  FILE* f = fopen(path, "rb");
  long size;
  uint32_t* words;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) return NULL;
  rewind(f);
  words = malloc((size_t)size + 4);
  *count = fread(words, 1, (size_t)size, f) / 4;
  fclose(f);
  return words;
}

int main(int argc, char** argv) {
  size_t count = 0, i, out_count = 0;
  uint32_t* words;
  waveopt_result* result;
  const uint32_t* out;
  FILE* f;
  if (argc < 3) {
    fprintf(stderr, "usage: %s in.spv out.spv [flags...]\n", argv[0]);
    return 2;
  }
  words = read_words(argv[1], &count);
  if (words == NULL) return 1;
  result = waveopt_optimize(words, count, (const char* const*)(argv + 3), (size_t)(argc - 3));
  free(words);
  if (!waveopt_result_ok(result)) {
    fprintf(stderr, "error: %s\n", waveopt_result_error(result));
    waveopt_result_destroy(result);
    return 1;
  }
  for (i = 0; i < waveopt_result_remark_count(result); ++i) {
    waveopt_remark r;
    waveopt_result_remark(result, i, &r);
    printf("%s:%u: %s: %s %s: %s\n", r.file, (unsigned)r.line, r.pass,
           r.kind == WAVEOPT_REMARK_APPLIED ? "applied" : r.kind == WAVEOPT_REMARK_MISSED ? "missed" : "analysis",
           r.name, r.message);
  }
  out = waveopt_result_words(result, &out_count);
  f = fopen(argv[2], "wb");
  if (f == NULL || fwrite(out, 4, out_count, f) != out_count) return 1;
  fclose(f);
  printf("c_consumer: waveopt %s (SPIRV-Tools %s): %zu -> %zu words\n", waveopt_version(),
         waveopt_spirv_tools_version(), count, out_count);
  waveopt_result_destroy(result);
  return 0;
}
