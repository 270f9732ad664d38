/* Test image for tests/unit/test_loader.c: one of each relocation kind the
 * emu loader supports, constructors/destructors, a RELRO table, a static
 * function only in .symtab, and an omp_offloading_entries section. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* R_X86_64_64 against a symbol of the image itself, and against libc. */
int gvar = 5;
int *gptr = &gvar;
void *puts_ptr = (void *)&puts;

/* R_X86_64_RELATIVE: pointers to internal objects. */
static int sa = 1, sb = 2;
int *parr[2] = {&sa, &sb};

/* In .data.rel.ro, made read-only by PT_GNU_RELRO. */
const char *const names[2] = {"alpha", "beta"};

/* R_X86_64_GLOB_DAT: data of libc. */
FILE *get_stdout(void) { return stdout; }

/* Weak undefined: stays NULL. */
extern int emu_no_such_symbol __attribute__((weak));
int *weak_addr(void) { return &emu_no_such_symbol; }

/* R_X86_64_JUMP_SLOT: libc; getpid is also in the test's device runtime,
 * which must win. */
size_t image_strlen(const char *s) { return strlen(s); }
int image_pid(void) { return (int)getpid(); }

/* DT_NEEDED libm. */
double image_cbrt(double x) { return cbrt(x); }

/* R_X86_64_IRELATIVE (hidden ifunc) and a JUMP_SLOT to an ifunc symbol. */
static int impl_a(void) { return 77; }
static void *resolve_a(void) { return (void *)impl_a; }
__attribute__((visibility("hidden"))) int ifn_hidden(void)
    __attribute__((ifunc("resolve_a")));
int call_ifn_hidden(void) { return ifn_hidden(); }

static int impl_b(void) { return 88; }
static void *resolve_b(void) { return (void *)impl_b; }
int ifn_pub(void) __attribute__((ifunc("resolve_b")));
int call_ifn_pub(void) { return ifn_pub(); }

/* Found only through .symtab. */
__attribute__((used, noinline)) static int helper_static(int x) {
  return 3 * x + 1;
}

int init_count;
int *fini_flag;
__attribute__((constructor)) static void image_ctor(void) { init_count++; }
__attribute__((destructor)) static void image_dtor(void) {
  if (fini_flag)
    *fini_flag += 1;
}

void kernel_add(int *a, int *b) { *a += *b + gvar; }

struct entry {
  void *addr;
  char *name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};
__attribute__((section("omp_offloading_entries"), used)) struct entry
    image_entries[2] = {{(void *)kernel_add, "kernel_add", 0, 0, 0},
                        {&gvar, "gvar", sizeof(int), 0, 0}};
