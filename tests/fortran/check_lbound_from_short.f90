! Arrays with non-zero lower bounds: the exit data map(from:) section of
! b(-50:49) covers only b(-50:-1), and the kernel wrote all of it.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: result thrown away: kernel 
! EXPECT-STDERR: __QQmain_l16 (check_lbound_from_short.f90:16) changed 50 of 800 bytes of b (declared at check_lbound_from_short.f90:11), mapped with map(tofrom) at check_lbound_from_short.f90:15, and the data region exit at check_lbound_from_short.f90:20 copied back only 400 bytes at offset 0 (map(from)) before removing the mapping; the map(from:) section must cover all the results (device 0 block 
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_lbound_from_short
  implicit none
  real(8) :: a(0:99), b(-50:49)
  integer :: i
  a = 1.0d0
  b = 0.0d0
  !$omp target data map(to: a) map(tofrom: b)
  !$omp target teams distribute parallel do
  do i = -50, 49
    b(i) = 2.0d0 * a(i + 50)
  end do
  !$omp target exit data map(from: b(-50:-1))
  !$omp end target data
  print *, 'b(10) =', b(10)
  print *, 'check_lbound_from_short: ok'
end program check_lbound_from_short
