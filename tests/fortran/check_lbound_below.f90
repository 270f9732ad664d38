! A section with a lower bound, a(1:n) of an allocatable a(0:n), read one
! element below it: the kernel reaches a(0) through the descriptor's base
! address, which the runtime attached before the section's block (no
! kernel argument points there), into the block's slack, which holds the
! poison.  The slack is watched for such a descriptor too, and the read
! is a finding naming the section and the construct.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: out-of-bounds device read: kernel __omp_offloading_
! EXPECT-STDERR: __QQmain_l21 at check_lbound_below.f90:21 read device memory before the start of a(1:n) (declared at check_lbound_below.f90:14), mapped with map(to) at check_lbound_below.f90:21
program check_lbound_below
  implicit none
  real(8), allocatable :: a(:), d(:)
  integer :: i, n
  n = 1000
  allocate(a(0:n), d(n))
  a = 2.0d0
  d = -1.0d0
  ! a(i-1) for i = 1 reads a(0), outside the mapped section
  !$omp target teams distribute parallel do map(to: a(1:n)) map(from: d)
  do i = 1, n
    d(i) = a(i) - a(i-1)
  end do
  print *, 'check_lbound_below: ran', d(2)
end program check_lbound_below
