! omp_get_thread_limit in device code: OpenMP says it returns the most
! threads the contention group may use, and a teams construct's
! thread_limit(N) bounds each team's contention group by N.  So inside
! target teams thread_limit(N), at the teams level and in a parallel region
! of a team, the answer is between 1 and N, and a parallel region of a team
! has at most that many threads.  Without the clause the answer is at
! least 1.
program thread_limit
  use omp_lib
  implicit none
  integer :: nfail, i, lim_teams, lim_par, nthr, lim_default, lim_dist(64)
  nfail = 0
  lim_teams = -1
  lim_par = -1
  nthr = -1
  !$omp target teams num_teams(2) thread_limit(3) &
  !$omp&   map(tofrom: lim_teams, lim_par, nthr)
  if (omp_get_team_num() == 0) lim_teams = omp_get_thread_limit()
  !$omp parallel
  if (omp_get_team_num() == 0 .and. omp_get_thread_num() == 0) then
    lim_par = omp_get_thread_limit()
    nthr = omp_get_num_threads()
  end if
  !$omp end parallel
  !$omp end target teams
  if (lim_teams < 1 .or. lim_teams > 3) then
    print *, 'FAIL thread_limit(3): omp_get_thread_limit() at the teams level gave', lim_teams
    nfail = nfail + 1
  end if
  if (lim_par < 1 .or. lim_par > 3) then
    print *, 'FAIL thread_limit(3): omp_get_thread_limit() in a parallel region gave', lim_par
    nfail = nfail + 1
  end if
  if (nthr < 1 .or. nthr > lim_par) then
    print *, 'FAIL thread_limit(3): a parallel region of', nthr, 'threads, limit', lim_par
    nfail = nfail + 1
  end if
  lim_dist = -1
  !$omp target teams distribute parallel do thread_limit(2) map(tofrom: lim_dist)
  do i = 1, 64
    lim_dist(i) = omp_get_thread_limit()
  end do
  if (any(lim_dist < 1) .or. any(lim_dist > 2)) then
    print *, 'FAIL thread_limit(2) on a combined construct: answers from', &
      minval(lim_dist), 'to', maxval(lim_dist)
    nfail = nfail + 1
  end if
  lim_default = -1
  !$omp target map(from: lim_default)
  lim_default = omp_get_thread_limit()
  !$omp end target
  if (lim_default < 1) then
    print *, 'FAIL target without thread_limit: omp_get_thread_limit() gave', lim_default
    nfail = nfail + 1
  end if
  if (nfail /= 0) stop 1
  print '(a)', 'thread_limit: ok'
end program
