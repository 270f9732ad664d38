! Reductions over 10**7 elements on the emu device, through
! !$omp target teams distribute parallel do (sum and max) with an
! allocatable array; prints the kernels' time (ompemu's bench figures).
program reduce_large
  use omp_lib
  implicit none
  integer, parameter :: n = 10000000
  real(8), allocatable :: x(:)
  real(8) :: s, m, t0, t1, t2
  integer :: i, nfail
  nfail = 0
  allocate(x(n))
  do i = 1, n
    x(i) = mod(i, 1000)
  end do
  !$omp target enter data map(to: x)
  s = 0
  t0 = omp_get_wtime()
  !$omp target teams distribute parallel do reduction(+:s)
  do i = 1, n
    s = s + x(i)
  end do
  t1 = omp_get_wtime()
  m = -1
  !$omp target teams distribute parallel do reduction(max:m)
  do i = 1, n
    m = max(m, x(i) + i * 1.0d-9)
  end do
  t2 = omp_get_wtime()
  !$omp target exit data map(delete: x)
  if (s /= 499500d0 * (n / 1000)) then
    print *, 'FAIL sum', s
    nfail = nfail + 1
  end if
  if (abs(m - (999d0 + 9999999d-9)) > 1d-9) then
    print *, 'FAIL max', m
    nfail = nfail + 1
  end if
  write (*, '(a, f8.2, a, f8.2, a)') ' sum: ', (t1 - t0) * 1d3, ' ms, max: ', &
    (t2 - t1) * 1d3, ' ms'
  if (nfail /= 0) error stop 1
  print *, 'reduce_large: ok'
end program reduce_large
