! !$omp target teams distribute parallel do with reductions (sum, max,
! product) over mapped arrays: flang's GPU-style kernel calls
! __kmpc_target_init, __kmpc_distribute_for_static_loop_4u and
! __kmpc_parallel_60, which ompemu's device runtime provides.
program teams_reduction
  implicit none
  integer, parameter :: n = 1000
  integer :: i, nfail
  real(8) :: a(n), s
  integer :: m
  real(8) :: p
  nfail = 0
  do i = 1, n
    a(i) = i
  end do
  s = 0
  !$omp target teams distribute parallel do reduction(+:s) map(to: a)
  do i = 1, n
    s = s + a(i)
  end do
  if (s /= n * (n + 1) / 2) then
    print *, 'FAIL sum', s
    nfail = nfail + 1
  end if
  m = -1
  !$omp target teams distribute parallel do reduction(max:m) map(to: a)
  do i = 1, n
    m = max(m, int(a(i)) * 3 - i)
  end do
  if (m /= 2 * n) then
    print *, 'FAIL max', m
    nfail = nfail + 1
  end if
  p = 1
  !$omp target teams distribute parallel do reduction(*:p)
  do i = 1, 10
    p = p * 2
  end do
  if (p /= 1024) then
    print *, 'FAIL product', p
    nfail = nfail + 1
  end if
  ! every element written exactly once
  !$omp target teams distribute parallel do map(tofrom: a)
  do i = 1, n
    a(i) = a(i) * 2 + 1
  end do
  do i = 1, n
    if (a(i) /= 2 * i + 1) then
      print *, 'FAIL a(', i, ') =', a(i)
      nfail = nfail + 1
      exit
    end if
  end do
  if (nfail /= 0) error stop 1
  print *, 'teams_reduction: ok'
end program teams_reduction
