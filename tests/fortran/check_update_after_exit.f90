! target update from of an allocatable after its exit data: flang's entries
! for the descriptor and the data give one finding, not four.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: target update from of a (declared at check_update_after_exit.f90:10) at check_update_after_exit.f90:16: it is not mapped on device 0, so nothing was copied
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_update_after_exit
  implicit none
  real, allocatable :: a(:)
  integer :: i
  allocate(a(100))
  a = 1.0
  !$omp target enter data map(to: a)
  !$omp target exit data map(delete: a)
  !$omp target update from(a)
  print *, a(1)
  print *, 'check_update_after_exit: ok'
end program check_update_after_exit
