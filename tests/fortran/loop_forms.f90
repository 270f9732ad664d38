! The loop forms flang 22 lowers to the emu device's static loop
! functions: 64-bit indices (__kmpc_*_static_loop_8u), negative steps,
! collapse(2), teams distribute without parallel, parallel do inside a
! target region with num_threads, and the worksharing and
! synchronisation constructs of a target parallel region (sections,
! single, master, critical, atomic).
program loop_forms
  use omp_lib
  implicit none
  integer, parameter :: n = 517
  integer :: a(n), b(n, 7), i, j, nfail, nth, sec(2), crit, one
  integer(8) :: k8, n8
  integer(8) :: c(n)
  nfail = 0
  n8 = n
  c = 0
  !$omp target teams distribute parallel do map(tofrom: c)
  do k8 = 1_8, n8
    c(k8) = c(k8) + k8 * 3_8
  end do
  if (any(c /= [(3_8 * i, i = 1, n)])) then
    print *, 'FAIL integer(8) loop'
    nfail = nfail + 1
  end if
  a = 0
  !$omp target teams distribute parallel do map(tofrom: a)
  do i = n, 1, -3
    a(i) = a(i) + 1
  end do
  do i = 1, n
    if (a(i) /= merge(1, 0, mod(n - i, 3) == 0)) then
      print *, 'FAIL negative step at', i, a(i)
      nfail = nfail + 1
      exit
    end if
  end do
  b = 0
  !$omp target teams distribute parallel do collapse(2) map(tofrom: b)
  do j = 1, 7
    do i = 1, n
      b(i, j) = b(i, j) + i * j
    end do
  end do
  if (any(b /= reshape([((i * j, i = 1, n), j = 1, 7)], [n, 7]))) then
    print *, 'FAIL collapse(2)'
    nfail = nfail + 1
  end if
  a = 0
  !$omp target teams distribute num_teams(5) map(tofrom: a)
  do i = 1, n
    a(i) = a(i) + 2
  end do
  if (any(a /= 2)) then
    print *, 'FAIL teams distribute'
    nfail = nfail + 1
  end if
  a = 0
  nth = 0
  !$omp target map(tofrom: a, nth)
  !$omp parallel do num_threads(3)
  do i = 1, n
    a(i) = a(i) + i
    if (i == 1) nth = omp_get_num_threads()
  end do
  !$omp end target
  if (any(a /= [(i, i = 1, n)]) .or. nth < 1 .or. nth > 3) then
    print *, 'FAIL parallel do in target: threads', nth
    nfail = nfail + 1
  end if
  sec = 0
  crit = 0
  one = 0
  !$omp target parallel map(tofrom: sec, crit, one)
  !$omp sections
  !$omp section
  sec(1) = sec(1) + 1
  !$omp section
  sec(2) = sec(2) + 1
  !$omp end sections
  !$omp single
  one = one + 1
  !$omp end single
  !$omp critical
  crit = crit + 1
  !$omp end critical
  !$omp master
  one = one + 10
  !$omp end master
  !$omp end target parallel
  if (any(sec /= 1) .or. crit < 1 .or. one /= 11) then
    print *, 'FAIL target parallel constructs', sec, crit, one
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'loop_forms: ok'
end program loop_forms
