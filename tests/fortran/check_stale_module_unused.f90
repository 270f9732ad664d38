! Declare target module variables changed on the host and never sent, that
! no kernel reads: no finding, though the kernels, in several threads, read
! the variables beside them on the same page.
! OMPEMU-RUN: --check
module mvars2
  real :: first = 1.0
  real :: unused = 2.0
  real :: host_only = 3.0
  real :: last = 4.0
  integer :: n = 64
  !$omp declare target(first, unused, host_only, last, n)
end module
program check_stale_module_unused
  use mvars2
  implicit none
  real :: a(64)
  integer :: i
  unused = 20.0
  host_only = 30.0
  !$omp target teams distribute parallel do map(from: a)
  do i = 1, n
    a(i) = first * i + last
  end do
  !$omp end target teams distribute parallel do
  !$omp target teams distribute parallel do map(tofrom: a)
  do i = 1, n
    a(i) = a(i) + last
  end do
  !$omp end target teams distribute parallel do
  if (a(2) /= 10.0 .or. host_only /= 30.0) stop 1
  print *, 'check_stale_module_unused: ok'
end program check_stale_module_unused
