// map(from:) arrays of structs whose kernels write every field: padding
// between members and at the end (28 bytes after an int before a 32-byte
// aligned member; the six unused bytes of x86's long double) stays
// poisoned, and writing a bitfield reads its storage unit first.  Neither
// is uninitialized data: the debug information says which bytes are
// padding and which a bitfield's.  No finding.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: r[3] = d 1.5 s[3] = 3 -3 t[17] = 1 3 17
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

#define N 64
struct rec {
  char tag;
  long double v;
};
struct aligned {
  int id;
  _Alignas(32) double v[2];
};
struct packed {
  unsigned kind : 4;
  unsigned level : 4;
  unsigned id : 24;
};

int main(void) {
  struct rec r[N];
  struct aligned s[N];
  struct packed t[N];
#pragma omp target teams distribute parallel for map(from: r[0:N], s[0:N], t[0:N])
  for (int i = 0; i < N; i++) {
    r[i].tag = 'a' + i % 26;
    r[i].v = i * 0.5L;
    s[i].id = i;
    s[i].v[0] = i;
    s[i].v[1] = -i;
    t[i].kind = i % 16;
    t[i].level = i % 7;
    t[i].id = i;
  }
  printf("r[3] = %c %Lg s[3] = %d %g t[17] = %u %u %u\n", r[3].tag, r[3].v,
         s[3].id, s[3].v[1], t[17].kind, t[17].level, t[17].id);
  return 0;
}
