! A kernel writes a(:), but the construct maps it map(to:): the results
! never come back (map(tofrom:) or map(from:) was meant).  flang 22 passes
! no source location with the region: --check (and the trace) names it by
! the line in the kernel's name, and the variable by flang's map name (file
! first).
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
! EXPECT-STDERR: _QQmain_l18 (line 18 of the main program) changed
! EXPECT-STDERR: bytes of a (declared at check_to_not_tofrom.f90:15), mapped with map(to) at line 18 of the main program, and the target region at line 18 of the main program removed the mapping without copying them back
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
! EXPECT-TRACE: ompemu: device 0: Entering OpenMP kernel at line 18 of the main program, 
program check_to_not_tofrom
  implicit none
  real :: a(100)
  integer :: i
  a = 1.0
  !$omp target map(to: a)
  do i = 1, 100
    a(i) = 2.0 * i
  end do
  !$omp end target
  print *, 'a(10) =', a(10)
  print *, 'check_to_not_tofrom: ok'
end program check_to_not_tofrom
