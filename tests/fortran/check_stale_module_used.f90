! A module of declare target variables, two of them changed on the host and
! never sent: UNUSED is read by no kernel (no finding), USED is read by the
! second kernel only (one finding, that kernel's).  The first kernel reads
! the module's other variables, on the same page, in several threads.
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: stale declare target variable used: its host copy changed since the device last got it (
! EXPECT-STDERR: _QQmain_l31 at line 31 of the main program starts with the old device copy; `target update to(used)` sends it
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
module mvars
  real :: first = 1.0
  real :: unused = 2.0
  real :: used = 3.0
  real :: last = 4.0
  integer :: n = 64
  !$omp declare target(first, unused, used, last, n)
end module
program check_stale_module_used
  use mvars
  implicit none
  real :: a(64), r
  integer :: i
  unused = 20.0
  used = 30.0
  !$omp target teams distribute parallel do map(from: a)
  do i = 1, n
    a(i) = first * i + last
  end do
  !$omp end target teams distribute parallel do
  print *, a(2)
  !$omp target map(from: r)
  r = used * first
  !$omp end target
  print *, r
  print *, 'check_stale_module_used: ok'
end program check_stale_module_used
