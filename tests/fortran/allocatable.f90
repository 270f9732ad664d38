! Allocatable arrays on the device: the descriptor and the data it points
! to (flang maps the descriptor as a parent entry with member pieces and
! the data PTR_AND_OBJ), whole-array assignment inside the region (which
! links flang's runtime into the device image), bounds not starting at 1.
program allocatable
  implicit none
  real, allocatable :: a(:)
  integer :: i, nfail
  nfail = 0
  allocate(a(10))
  a = 1.0
  !$omp target map(tofrom: a)
  do i = 1, 10
    a(i) = a(i) + i
  end do
  !$omp end target
  if (abs(sum(a) - 65.0) > 1e-4) then
    print *, 'FAIL a', a
    nfail = nfail + 1
  end if

  ! whole-array assignment on the device
  !$omp target map(tofrom: a)
  a = 4.0
  !$omp end target
  if (any(a /= 4.0)) then
    print *, 'FAIL whole-array assignment', a
    nfail = nfail + 1
  end if

  ! bounds that do not start at 1
  deallocate(a)
  allocate(a(-3:3))
  a = 0
  !$omp target map(tofrom: a)
  do i = lbound(a, 1), ubound(a, 1)
    a(i) = i * i
  end do
  !$omp end target
  if (a(-3) /= 9.0 .or. a(0) /= 0.0 .or. a(3) /= 9.0) then
    print *, 'FAIL lbound -3', a
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'allocatable: ok'
end program allocatable
