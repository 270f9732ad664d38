! Module variables on the device: declare target (to) of a scalar and of
! an allocatable (its descriptor is the device global), declare target
! link of an array (a reference pointer filled by mapping), and target
! update of the module allocatable.
module mv
  implicit none
  integer :: gx = 3
  real, allocatable :: ga(:)
  integer :: gl(8)
  !$omp declare target(gx, ga)
  !$omp declare target link(gl)
end module mv

program module_vars
  use mv
  implicit none
  integer :: i, r, nfail
  nfail = 0
  r = 0
  !$omp target map(from: r)
  r = gx * 2
  gx = gx + 1
  !$omp end target
  if (r /= 6) then
    print *, 'FAIL gx on the device', r
    nfail = nfail + 1
  end if
  !$omp target update from(gx)
  if (gx /= 4) then
    print *, 'FAIL update from(gx)', gx
    nfail = nfail + 1
  end if

  allocate(ga(3))
  ga = [1.0, 2.0, 3.0]
  !$omp target enter data map(to: ga)
  !$omp target
  ga(2) = ga(2) * 10
  !$omp end target
  !$omp target update from(ga)
  if (ga(2) /= 20.0 .or. ga(3) /= 3.0) then
    print *, 'FAIL ga', ga
    nfail = nfail + 1
  end if
  !$omp target exit data map(delete: ga)

  gl = 1
  !$omp target map(tofrom: gl)
  do i = 1, 8
    gl(i) = gl(i) + i
  end do
  !$omp end target
  if (gl(1) /= 2 .or. gl(8) /= 9) then
    print *, 'FAIL gl', gl
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'module_vars: ok'
end program module_vars
