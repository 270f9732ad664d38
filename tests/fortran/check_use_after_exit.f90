! Use after exit data from Fortran: the device address of a, taken inside
! a data region with use_device_addr, reaches a kernel through
! is_device_ptr after exit data deleted the mapping.  The kernel faults on
! the freed block (held back in check mode); the message names the kernel
! with its construct's file and line, and the variable with the lines of
! its declaration and of the exit data that removed it.
! FFLAGS: -g -fopenmp-version=52
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: __QQmain_l30 at check_use_after_exit.f90:30: invalid read of device memory at 0x
! EXPECT-STDERR: inside the freed data block [0x
! EXPECT-STDERR: (the device copy of variable a (declared at check_use_after_exit.f90:19), removed at check_use_after_exit.f90:27)
! EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
program check_use_after_exit
  use iso_c_binding
  implicit none
  integer, parameter :: n = 100
  real(8), pointer :: q(:)
  real(8), target :: a(n)
  type(c_ptr) :: dp
  integer :: i
  a = 1
  !$omp target enter data map(to: a)
  !$omp target data use_device_addr(a)
  dp = c_loc(a)
  !$omp end target data
  !$omp target exit data map(delete: a)
  ! Wrong: dp points into device memory that the exit data above freed.
  nullify(q)
  !$omp target is_device_ptr(dp) map(tofrom: q)
  call c_f_pointer(dp, q, [n])
  do i = 1, n
    q(i) = q(i) + 1
  end do
  !$omp end target
  print *, 'check_use_after_exit: ok', a(1)
end program check_use_after_exit
