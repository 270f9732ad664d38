! A 2-D allocatable on the device: the whole array, then a section of it
! (m(2:4, 3:5): flang maps the descriptor and the section's span of the
! data).  LLVM 22's own runtime (with a stand-in device RTL, Debian 12)
! got the section wrong here: column 5 did not come back, and the process
! crashed in __tgt_target_kernel or at exit.
program section_2d
  implicit none
  real, allocatable :: m(:,:)
  integer :: i, j, nfail
  nfail = 0
  allocate(m(5, 6))
  do j = 1, 6
    do i = 1, 5
      m(i, j) = 10 * i + j
    end do
  end do
  !$omp target map(tofrom: m)
  do j = 1, 6
    do i = 1, 5
      m(i, j) = m(i, j) + 100
    end do
  end do
  !$omp end target
  if (m(1, 1) /= 111.0 .or. m(5, 6) /= 156.0) then
    print *, 'FAIL whole 2-D array', m(1, 1), m(5, 6)
    nfail = nfail + 1
  end if
  !$omp target map(tofrom: m(2:4, 3:5))
  do j = 3, 5
    do i = 2, 4
      m(i, j) = -m(i, j)
    end do
  end do
  !$omp end target
  do j = 1, 6
    do i = 1, 5
      if ((i >= 2 .and. i <= 4 .and. j >= 3 .and. j <= 5) .neqv. (m(i, j) < 0)) then
        print *, 'FAIL m(', i, ',', j, ') =', m(i, j)
        nfail = nfail + 1
      end if
    end do
  end do
  if (nfail /= 0) error stop 1
  print *, 'section_2d: ok'
end program section_2d
