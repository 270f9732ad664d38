! A declare target module variable changed on the host, never sent: the
! kernel runs with the old device copy.  Named as the source names it.
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: stale declare target variable scale: its host copy changed since the device last got it (2 of 4 bytes differ) and kernel __omp_offloading_
! EXPECT-STDERR: _QQmain_l17 at line 17 of the main program starts with the old device copy; `target update to(scale)` sends it
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
module m
  real :: scale = 1.0
  !$omp declare target(scale)
end module
program check_stale_module_var
  use m
  implicit none
  real :: r
  scale = 3.0
  !$omp target map(from: r)
  r = scale * 2
  !$omp end target
  print *, r
  print *, 'check_stale_module_var: ok'
end program check_stale_module_var
