! The descriptor scheme on what the other programs leave out: a 2-D
! allocatable mapped whole and by a contiguous column section m(:, 2:4)
! (the section's bytes are contiguous, so flang's element-count size is
! its span), target enter/exit data of a derived type with a pointer
! component and a 2-D allocatable component, and target update of the
! component's data in both directions between regions.
program descriptors_2d
  implicit none
  type holder
    integer :: k
    real(8), pointer :: p(:)
    integer, allocatable :: g(:,:)
  end type holder
  real, allocatable :: m(:,:)
  real(8), target :: tgt(6)
  type(holder) :: h
  integer :: i, j, nfail
  nfail = 0

  allocate(m(4, 5))
  do j = 1, 5
    do i = 1, 4
      m(i, j) = 10 * i + j
    end do
  end do
  !$omp target map(tofrom: m(:, 2:4))
  do j = 2, 4
    do i = 1, 4
      m(i, j) = -m(i, j)
    end do
  end do
  !$omp end target
  do j = 1, 5
    do i = 1, 4
      if ((j >= 2 .and. j <= 4) .neqv. (m(i, j) < 0)) then
        print *, 'FAIL column section m(', i, ',', j, ') =', m(i, j)
        nfail = nfail + 1
      end if
    end do
  end do

  ! a derived type: enter data of the struct, its pointer's target and
  ! its allocatable component
  tgt = [(dble(i), i = 1, 6)]
  h%k = 5
  h%p => tgt
  allocate(h%g(3, 2))
  h%g = 1
  !$omp target enter data map(to: h, h%p, h%g)
  h%g = -9 ! host only
  !$omp target map(to: h%k)
  do i = 1, 6
    h%p(i) = h%p(i) * h%k
  end do
  do j = 1, 2
    do i = 1, 3
      h%g(i, j) = h%g(i, j) + 10 * i + j
    end do
  end do
  !$omp end target
  !$omp target update from(h%p)
  if (any(tgt /= [(5d0 * i, i = 1, 6)])) then
    print *, 'FAIL update from(h%p)', tgt
    nfail = nfail + 1
  end if
  if (any(h%g /= -9)) then
    print *, 'FAIL h%g changed on the host before its update', h%g
    nfail = nfail + 1
  end if
  tgt = 1
  !$omp target update to(h%p)
  !$omp target
  h%p(6) = sum(h%p) + h%g(3, 2)
  !$omp end target
  !$omp target exit data map(from: h%p, h%g) map(release: h)
  if (tgt(6) /= 6d0 + 33d0 .or. tgt(1) /= 1d0) then
    print *, 'FAIL exit data from(h%p)', tgt
    nfail = nfail + 1
  end if
  if (h%g(1, 1) /= 12 .or. h%g(3, 2) /= 33) then
    print *, 'FAIL exit data from(h%g)', h%g
    nfail = nfail + 1
  end if
  if (.not. associated(h%p, tgt)) then
    print *, 'FAIL the host pointer component moved'
    nfail = nfail + 1
  end if
  if (nfail /= 0) error stop 1
  print *, 'descriptors_2d: ok'
end program descriptors_2d
