// Eight host threads each launch 2 000 small kernels on a private array of
// their own, eight times over: blocks of the same size come and go on the
// device from several threads at once, and are given the addresses other
// threads' blocks just had.  Correct: no finding, in any run.  Two check
// mode faults did show here, at random, before: a freed-range flush made
// pages kept open for the next blocks inaccessible ("invalid write ...
// 4032 bytes before the start of the live data block", in the plugin's own
// poison fill), and the end of one thread's free removed the record of the
// block another thread had just been given at the same address ("use
// after exit data").  Run three times: each showed in about half the runs.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: OK
// RUN-SAME-STDERR-TIMES: 3
#include <stdio.h>

int main(void) {
  int bad = 0;
  for (int r = 0; r < 8; r++) {
#pragma omp parallel num_threads(8) reduction(+ : bad)
    {
      int a[16] = {0};
      for (long i = 0; i < 2000; i++) {
#pragma omp target map(tofrom: a)
        a[i & 15]++;
      }
      for (int k = 0; k < 16; k++)
        if (a[k] != 125)
          bad++;
    }
  }
  printf("%s\n", bad ? "FAIL" : "OK");
  return bad != 0;
}
