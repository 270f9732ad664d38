! target enter data / exit data of an allocatable (its descriptor and
! data), a later region using it implicitly, and target update of the
! descriptor's data in both directions.
program enter_exit_update
  implicit none
  real, allocatable :: e(:)
  integer :: i, nfail
  nfail = 0
  allocate(e(4))
  e = 7.0
  !$omp target enter data map(to: e)
  e = -1.0 ! the host copy only
  !$omp target
  do i = 1, 4
    e(i) = e(i) + i
  end do
  !$omp end target
  if (any(e /= -1.0)) then
    print *, 'FAIL the region wrote the host copy', e
    nfail = nfail + 1
  end if
  !$omp target update from(e)
  if (e(1) /= 8.0 .or. e(4) /= 11.0) then
    print *, 'FAIL update from', e
    nfail = nfail + 1
  end if
  e = 100.0
  !$omp target update to(e)
  !$omp target
  do i = 1, 4
    e(i) = e(i) / 10
  end do
  !$omp end target
  !$omp target exit data map(from: e)
  if (any(e /= 10.0)) then
    print *, 'FAIL exit data from', e
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'enter_exit_update: ok'
end program enter_exit_update
