! A target region on a device that does not exist, offloading mandatory:
! flang's source location carries no file or line, so the failure is
! named by the kernel (its unit and line), without LLVM's hint to compile
! with -g (flang's locations do not follow it; this program has -g).
! FFLAGS: -g
! OMPEMU-RUN: --
! EXPECT-EXIT: 134
! EXPECT-STDERR: Libomptarget error: Device 5 is not ready.
! EXPECT-NOT-STDERR: Compile with -g
! EXPECT-STDERR: line 16 of the main program: Libomptarget fatal error 1: failure of target construct while offloading is mandatory
program device_not_ready
  use omp_lib
  implicit none
  integer :: x
  x = 1
  !$omp target device(5) map(tofrom: x)
  x = x + 41
  !$omp end target
  print *, 'device_not_ready: reached', x
end program
