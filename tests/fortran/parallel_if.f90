! A parallel region with an if clause inside a flang kernel: false runs it
! serialized on the emu device (one thread, level 1), true forks it; in a
! league of teams too.  flang's host fallback of such a region calls
! __kmpc_fork_call_if, which libomp 14 lacks: the program links only
! against a newer libomp (known-failures.txt).
program parallel_if
  use omp_lib
  implicit none
  integer :: serial, forked, nfail, flag, t
  integer :: per_team(0:7)
  nfail = 0
  flag = 0
  serial = -1
  forked = -1
  !$omp target map(tofrom: serial, forked) map(to: flag)
  !$omp parallel if(flag /= 0)
  serial = omp_get_num_threads() + 10 * omp_get_level()
  !$omp end parallel
  !$omp parallel if(flag == 0) num_threads(2)
  if (omp_get_thread_num() == 0) forked = omp_get_num_threads()
  !$omp end parallel
  !$omp end target
  if (serial /= 11 .or. forked < 1 .or. forked > 2) then
    print *, 'FAIL if(false) gave', serial, 'if(true)', forked
    nfail = nfail + 1
  end if
  per_team = 0
  !$omp target teams num_teams(2) map(tofrom: per_team) map(to: flag)
  !$omp parallel if(flag /= 0)
  !$omp atomic
  per_team(omp_get_team_num()) = per_team(omp_get_team_num()) + 1
  !$omp end parallel
  !$omp end target teams
  do t = 0, 7
    if (per_team(t) > 1) then
      print *, 'FAIL team', t, 'ran a serialized region', per_team(t), 'times'
      nfail = nfail + 1
    end if
  end do
  if (sum(per_team) < 1) then
    print *, 'FAIL no team ran the region'
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'parallel_if: ok'
end program parallel_if
