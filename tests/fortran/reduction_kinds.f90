! Every reduction operator flang emits, on integer(4), integer(8), real(4),
! real(8) and logical, in !$omp target teams distribute parallel do
! (league of teams, threads of each team) and in !$omp target parallel do
! (one team): sum, product, max, min, iand, ior, ieor, .and., .or.,
! .eqv., .neqv.; with num_teams, thread_limit and chunked schedules, whose
! static split must still run every iteration exactly once.
program reduction_kinds
  implicit none
  integer, parameter :: n = 1000
  integer :: i, nfail
  integer(4) :: s4, mx4, mn4, ia, io, ix
  integer(8) :: s8, p8, mx8
  real(4) :: r4, mn_r4
  real(8) :: r8, p8r, mx_r8
  logical :: land, lor, leqv, lneqv
  integer :: hits(n)
  nfail = 0
  s4 = 0; mx4 = -huge(mx4); mn4 = huge(mn4)
  s8 = 0; p8 = 1; mx8 = -huge(mx8)
  r4 = 0; mn_r4 = huge(mn_r4); r8 = 0; p8r = 1; mx_r8 = -huge(mx_r8)
  !$omp target teams distribute parallel do num_teams(3) thread_limit(2) &
  !$omp&  reduction(+:s4, s8, r4, r8) reduction(max:mx4, mx8, mx_r8) &
  !$omp&  reduction(min:mn4, mn_r4)
  do i = 1, n
    s4 = s4 + i
    s8 = s8 + int(i, 8) * 1000000_8
    r4 = r4 + 0.5
    r8 = r8 + i * 0.25d0
    mx4 = max(mx4, mod(i * 3, 1001))
    mx8 = max(mx8, int(i, 8) * 3000000000_8)
    mx_r8 = max(mx_r8, -abs(i - 400.5d0))
    mn4 = min(mn4, mod(i * 13, 997) + 5)
    mn_r4 = min(mn_r4, abs(i - 600.25))
  end do
  call check(s4 == n * (n + 1) / 2, 'sum integer(4)')
  call check(s8 == int(n, 8) * (n + 1) / 2 * 1000000_8, 'sum integer(8)')
  call check(r4 == 500.0, 'sum real(4)')
  call check(r8 == n * (n + 1) / 8d0, 'sum real(8)')
  call check(mx4 == 1000, 'max integer(4)')
  call check(mx8 == int(n, 8) * 3000000000_8, 'max integer(8)')
  call check(mx_r8 == -0.5d0, 'max real(8)')
  call check(mn4 == 5, 'min integer(4)')
  call check(mn_r4 == 0.25, 'min real(4)')

  p8 = 1; p8r = 1
  !$omp target teams distribute parallel do num_teams(4) reduction(*:p8, p8r)
  do i = 1, 40
    p8 = p8 * merge(2_8, 1_8, mod(i, 2) == 0)
    p8r = p8r * merge(0.5d0, 1d0, mod(i, 4) == 0)
  end do
  call check(p8 == 2_8**20, 'product integer(8)')
  call check(p8r == 0.5d0**10, 'product real(8)')

  ia = -1; io = 0; ix = 0
  !$omp target teams distribute parallel do num_teams(2) &
  !$omp&  reduction(iand:ia) reduction(ior:io) reduction(ieor:ix)
  do i = 0, 30
    ia = iand(ia, not(ishft(1, mod(i, 8))))
    io = ior(io, ishft(1, i))
    ix = ieor(ix, i)
  end do
  call check(ia == not(255), 'iand')
  call check(io == 2147483647, 'ior')
  call check(ix == 31, 'ieor') ! 0 xor 1 xor ... xor 30
  land = .true.; lor = .false.; leqv = .true.; lneqv = .false.
  !$omp target parallel do reduction(.and.:land) reduction(.or.:lor) &
  !$omp&  reduction(.eqv.:leqv) reduction(.neqv.:lneqv)
  do i = 1, n
    land = land .and. (i /= 777)
    lor = lor .or. (i == 333)
    leqv = leqv .eqv. (i > 3)
    lneqv = lneqv .neqv. (i <= 3)
  end do
  call check(.not. land, '.and.')
  call check(lor, '.or.')
  call check(.not. leqv, '.eqv.') ! three .false. operands
  call check(lneqv, '.neqv.')

  ! chunked schedules: every iteration exactly once
  hits = 0
  !$omp target teams distribute parallel do num_teams(3) &
  !$omp&  dist_schedule(static, 7) schedule(static, 3) map(tofrom: hits)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
  call check(all(hits == 1), 'chunked distribute parallel do')
  !$omp target parallel do schedule(static, 5) map(tofrom: hits)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
  call check(all(hits == 2), 'chunked parallel do')
  if (nfail /= 0) error stop 1
  print *, 'reduction_kinds: ok'
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      print *, 'FAIL ', what
      nfail = nfail + 1
    end if
  end subroutine check
end program reduction_kinds
