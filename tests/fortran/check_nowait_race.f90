! Two nowait target regions write the same mapped array with no dependence
! between them.
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at line 15 of the main program (kernel __omp_offloading_
! EXPECT-STDERR: _QQmain_l15) and the one at line 20 of the main program (kernel __omp_offloading_
! EXPECT-STDERR: and each uses a (declared at check_nowait_race.f90:11): both write it
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_nowait_race
  implicit none
  real :: a(1000)
  integer :: i
  a = 1.0
  !$omp target enter data map(to: a)
  !$omp target nowait
  do i = 1, 1000
    a(i) = a(i) + 1
  end do
  !$omp end target
  !$omp target nowait
  do i = 1, 1000
    a(i) = a(i) * 2
  end do
  !$omp end target
  !$omp taskwait
  !$omp target exit data map(from: a)
  print *, a(1)
  print *, 'check_nowait_race: ok'
end program check_nowait_race
