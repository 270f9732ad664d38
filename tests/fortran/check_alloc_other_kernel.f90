! A block mapped alloc that one kernel fills, after another kernel that
! never gets it: no finding.  flang's kernels take a first argument of all
! ones (the dynamic-memory pointer), which the checker's block lookup used
! to wrap round on (address + size) and take for the highest block that
! spans buckets: the other kernel was said to read c uninitialized.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-STDERR: ompemu: check: no findings
program check_alloc_other_kernel
  implicit none
  integer, parameter :: n = 2048
  real(8) :: c(n)
  integer :: x
  c = 0.0d0
  x = 1
  !$omp target enter data map(alloc: c)
  !$omp target map(tofrom: x)
  x = x + 1
  !$omp end target
  !$omp target map(present, alloc: c)
  c = 3.0d0
  !$omp end target
  !$omp target exit data map(from: c)
  if (x /= 2 .or. any(c /= 3.0d0)) stop 1
  print *, 'check_alloc_other_kernel: ok'
end program check_alloc_other_kernel
