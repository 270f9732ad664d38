! A target update nowait that copies a back races with the target nowait
! region that writes it: no depend clause orders them.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: race between nowait constructs: the target nowait region at check_nowait_update_race.f90:15 (kernel 
! EXPECT-STDERR: __QQmain_l15) and the target update nowait at check_nowait_update_race.f90:19 were in flight together with no dependence between them, and each uses a (declared at check_nowait_update_race.f90:11): the first writes it and the second reads it; depend clauses or a taskwait order them (ompemu ran the batch in the order check_nowait_update_race.f90:15, check_nowait_update_race.f90:19)
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_nowait_update_race
  implicit none
  real :: a(1000)
  integer :: i
  a = 1.0
  !$omp target enter data map(to: a)
  !$omp target teams distribute parallel do nowait
  do i = 1, 1000
    a(i) = a(i) * 3.0
  end do
  !$omp target update from(a) nowait
  !$omp taskwait
  !$omp target exit data map(delete: a)
  print *, a(1)
  print *, 'check_nowait_update_race: ok'
end program check_nowait_update_race
