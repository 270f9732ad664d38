! target update of an array that is not mapped: a no-op in OpenMP, almost
! always a mistake.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: target update to of a (declared at check_update_unmapped.f90:10) at check_update_unmapped.f90:12: it is not mapped on device 0, so nothing was copied
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_update_unmapped
  implicit none
  real :: a(100)
  a = 1.0
  !$omp target update to(a)
  print *, a(1)
  print *, 'check_update_unmapped: ok'
end program check_update_unmapped
