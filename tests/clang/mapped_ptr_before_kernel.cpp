// omp_get_mapped_ptr of a declare-target global before any target region
// starts the device: the image is loaded, the global's device copy
// constructed, and its device address returned, so that the program can
// read the device copy with omp_target_memcpy.  Answering NULL until the
// first kernel (what ompemu did) breaks such programs.
// SKIP-MODE-llvmrt: LLVM 14's runtime exports no omp_get_mapped_ptr
#include "check.h"
#include "newer_api.h"
#include <stddef.h>
#include <stdint.h>

struct Box {
  int tag;
  int values[3];
  Box() : tag(7) {
    for (int i = 0; i < 3; i++)
      values[i] = 10 * (i + 1);
  }
};

Box box;
int table[4] = {1, 2, 3, 4};
#pragma omp declare target(box, table)

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();

  void *db = omp_get_mapped_ptr(&box, dev);
  void *dt = omp_get_mapped_ptr(table, dev);
  CHECK(db != NULL && db != (void *)&box, "box's device copy: %p", db);
  CHECK(dt != NULL && dt != (void *)table, "table's device copy: %p", dt);
  if (!db || !dt)
    return 1;

  int tag = 0, v2 = 0, t3 = 0;
  CHECK(omp_target_memcpy(&tag, db, sizeof tag, 0, offsetof(Box, tag), host,
                          dev) == 0, "memcpy of box.tag");
  CHECK(omp_target_memcpy(&v2, db, sizeof v2, 0, offsetof(Box, values[2]),
                          host, dev) == 0, "memcpy of box.values[2]");
  CHECK(omp_target_memcpy(&t3, dt, sizeof t3, 0, 3 * sizeof(int), host,
                          dev) == 0, "memcpy of table[3]");
  CHECK(tag == 7, "box.tag on the device: %d (constructor not run?)", tag);
  CHECK(v2 == 30, "box.values[2] on the device: %d", v2);
  CHECK(t3 == 4, "table[3] on the device: %d", t3);

  /* The same device copy a kernel then uses. */
  uintptr_t seen = 0;
#pragma omp target map(from : seen)
  seen = (uintptr_t)&box;
  CHECK(seen == (uintptr_t)db, "kernel saw box at %#lx, mapped ptr %p",
        (unsigned long)seen, db);
  return tc_done();
}
