! A derived type with an allocatable and a pointer component: flang maps
! the struct, cuts the two descriptors out of it, maps each and attaches
! its data (MEMBER_OF + PTR_AND_OBJ, docs/abi-clang22.md 7.3).
program derived_types
  implicit none
  type t
    integer :: n
    real, allocatable :: v(:)
    real, pointer :: p(:)
  end type t
  type(t) :: s
  real, target :: tgt(4)
  integer :: i, nfail
  nfail = 0
  s%n = 5
  allocate(s%v(5))
  s%v = 2.0
  tgt = 0.5
  s%p => tgt
  !$omp target map(tofrom: s, s%v, s%p)
  do i = 1, s%n
    s%v(i) = s%v(i) * i
  end do
  do i = 1, 4
    s%p(i) = s%p(i) + i
  end do
  s%n = 6
  !$omp end target
  if (s%n /= 6) then
    print *, 'FAIL n', s%n
    nfail = nfail + 1
  end if
  if (abs(sum(s%v) - 30.0) > 1e-4) then
    print *, 'FAIL v', s%v
    nfail = nfail + 1
  end if
  if (abs(sum(tgt) - 12.0) > 1e-4) then
    print *, 'FAIL pointer target', tgt
    nfail = nfail + 1
  end if
  if (.not. associated(s%p, tgt)) then
    print *, 'FAIL the host pointer component moved'
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'derived_types: ok'
end program derived_types
