// Builds a binary fuse filter with the reference (FastFilter/xor_singleheader binaryfusefilter.h, given by -I) from
// the uint64 keys on stdin (little-endian), and writes its fields and fingerprints to stdout:
//   u64 Seed, u32 Size, SegmentLength, SegmentLengthMask, SegmentCount, SegmentCountLength, ArrayLength,
//   then ArrayLength fingerprints (u8 or u16 little-endian).
// Usage: harness 8|16 < keys > filter. The reference sorts with a comparator that is not valid for 64-bit keys
// ((int)(a - b)); its qsort is replaced by one that sorts uint64 values in increasing order, the code otherwise as
// it is.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int valid_order(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}
static void sort_keys(void *base, size_t count, size_t width, int (*ignored)(const void *, const void *)) {
  (void)ignored;
  qsort(base, count, width, valid_order);
}
#define qsort sort_keys
#include "binaryfusefilter.h"
#undef qsort

static uint64_t *read_keys(size_t *count) {
  size_t room = 1 << 16, n = 0;
  uint64_t *keys = malloc(room * sizeof(uint64_t));
  for (;;) {
    if (n == room) keys = realloc(keys, (room *= 2) * sizeof(uint64_t));
    size_t got = fread(keys + n, sizeof(uint64_t), room - n, stdin);
    n += got;
    if (got == 0) break;
  }
  *count = n;
  return keys;
}

#define WRITE_FIELDS(f)                                                                       \
  do {                                                                                        \
    fwrite(&(f).Seed, 8, 1, stdout);                                                          \
    uint32_t fields[6] = {(f).Size, (f).SegmentLength, (f).SegmentLengthMask, (f).SegmentCount, \
                          (f).SegmentCountLength, (f).ArrayLength};                           \
    fwrite(fields, 4, 6, stdout);                                                             \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  size_t n;
  uint64_t *keys = read_keys(&n);
  if (strcmp(argv[1], "8") == 0) {
    binary_fuse8_t filter;
    if (!binary_fuse8_allocate((uint32_t)n, &filter) || !binary_fuse8_populate(keys, (uint32_t)n, &filter)) return 1;
    WRITE_FIELDS(filter);
    fwrite(filter.Fingerprints, 1, filter.ArrayLength, stdout);
  } else {
    binary_fuse16_t filter;
    if (!binary_fuse16_allocate((uint32_t)n, &filter) || !binary_fuse16_populate(keys, (uint32_t)n, &filter)) return 1;
    WRITE_FIELDS(filter);
    fwrite(filter.Fingerprints, 2, filter.ArrayLength, stdout);
  }
  return 0;
}
