! How a flang kernel's loops are shared on the emu device: every iteration
! of !$omp target teams distribute parallel do runs exactly once; each team
! gets one contiguous block of iterations (the static distribution), the
! blocks in team order; inside a team each thread one contiguous block.
! Also: a teams-level reduction (teams distribute without parallel), a
! barrier and omp_get_num_threads inside and outside a parallel region,
! and the device check (omp_is_initial_device).
program teams_split
  use omp_lib
  implicit none
  integer, parameter :: n = 1003
  integer :: owner(n), thr(n), hits(n), i, t, nfail, nteams, lo, hi
  integer :: first(0:63), last(0:63)
  integer :: initial, outside, inside, after
  real(8) :: s
  nfail = 0
  hits = 0
  owner = -1
  thr = -1
  nteams = 0
  initial = -1
  !$omp target teams distribute parallel do num_teams(3) thread_limit(2) &
  !$omp&   map(tofrom: hits, owner, thr, nteams, initial)
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 1
    owner(i) = omp_get_team_num()
    thr(i) = omp_get_thread_num()
    if (i == 1) then
      nteams = omp_get_num_teams()
      initial = merge(1, 0, omp_is_initial_device())
    end if
  end do
  if (initial /= 0) then
    print *, 'FAIL the region ran on the host'
    nfail = nfail + 1
  end if
  if (any(hits /= 1)) then
    print *, 'FAIL iterations not run exactly once:', count(hits /= 1)
    nfail = nfail + 1
  end if
  if (nteams < 1 .or. nteams > 3) then
    print *, 'FAIL num_teams(3) gave', nteams
    nfail = nfail + 1
  end if
  ! Team t owns the contiguous block [first(t), last(t)], in team order.
  first = n + 1
  last = 0
  do i = 1, n
    t = owner(i)
    if (t < 0 .or. t >= nteams) then
      print *, 'FAIL iteration', i, 'by team', t
      nfail = nfail + 1
      exit
    end if
    first(t) = min(first(t), i)
    last(t) = max(last(t), i)
  end do
  do t = 0, nteams - 1
    lo = (t * (n / nteams)) + min(t, mod(n, nteams)) + 1
    hi = lo + n / nteams - 1
    if (t < mod(n, nteams)) hi = hi + 1
    if (first(t) /= lo .or. last(t) /= hi .or. any(owner(lo:hi) /= t)) then
      print *, 'FAIL team', t, 'ran', first(t), last(t), 'expected', lo, hi
      nfail = nfail + 1
    end if
    ! inside the block, thread numbers never decrease (one block each)
    do i = lo + 1, hi
      if (thr(i) < thr(i - 1)) then
        print *, 'FAIL team', t, 'thread blocks out of order at', i
        nfail = nfail + 1
        exit
      end if
    end do
  end do
  ! teams-level reduction: each team's initial thread combines its part
  s = 0
  !$omp target teams distribute reduction(+:s) num_teams(4)
  do i = 1, n
    s = s + i
  end do
  if (s /= n * (n + 1) / 2) then
    print *, 'FAIL teams distribute reduction', s
    nfail = nfail + 1
  end if
  ! a barrier in a parallel region of a kernel, and the thread counts
  outside = -1
  inside = -1
  after = -1
  !$omp target map(tofrom: outside, inside, after, hits)
  outside = omp_get_num_threads()
  hits = 0
  !$omp parallel num_threads(2)
  !$omp atomic
  hits(1) = hits(1) + 1
  !$omp barrier
  if (omp_get_thread_num() == 0) then
    inside = omp_get_num_threads()
    after = hits(1)
  end if
  !$omp end parallel
  !$omp end target
  if (outside /= 1 .or. inside < 1 .or. inside > 2 .or. after /= inside) then
    print *, 'FAIL threads: outside', outside, 'inside', inside, 'after barrier', after
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'teams_split: ok'
end program teams_split
