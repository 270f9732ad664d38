! !$omp target parallel do and a parallel region inside a target region:
! flang's kernels call __kmpc_parallel_60 and __kmpc_for_static_loop_4u;
! every iteration must run exactly once, and the threads must see the
! device's thread numbers.
program parallel_do
  use omp_lib
  implicit none
  integer, parameter :: n = 200
  integer :: a(n), i, nfail, nth
  nfail = 0
  a = 0
  !$omp target parallel do map(tofrom: a)
  do i = 1, n
    a(i) = a(i) + i
  end do
  do i = 1, n
    if (a(i) /= i) then
      print *, 'FAIL a(', i, ') =', a(i)
      nfail = nfail + 1
      exit
    end if
  end do
  nth = 0
  !$omp target map(tofrom: nth)
  !$omp parallel
  !$omp atomic
  nth = nth + 1
  !$omp end parallel
  !$omp end target
  if (nth < 1) then
    print *, 'FAIL threads', nth
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'parallel_do: ok'
end program parallel_do
