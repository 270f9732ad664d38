! A present mapping extended from below: a target data region maps
! a(51:100), and a target region inside it maps a(1:100).  The runtime
! refuses the map (OpenMP does not let a present mapping grow) and the
! run aborts, as under LLVM; check mode names both sections, the lines
! that mapped them and by how much the new one starts before the old.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 134
! EXPECT-STDERR: ompemu: check: mapping extended: map(tofrom) of a(1:100) (declared at check_extend_below.f90:14) at the target region at check_extend_below.f90:20 (400 bytes) starts 200 bytes before a(51:100) (declared at check_extend_below.f90:14), mapped at check_extend_below.f90:19 (200 bytes), which is present and cannot grow
! EXPECT-STDERR: explicit extension not allowed
program check_extend_below
  implicit none
  integer :: i
  real :: a(100)
  do i = 1, 100
    a(i) = i
  end do
  ! Wrong: the inner region asks for more of a than the outer one mapped.
  !$omp target data map(to: a(51:100))
  !$omp target map(tofrom: a(1:100))
  do i = 1, 100
    a(i) = a(i) + 1
  end do
  !$omp end target
  !$omp end target data
  print *, 'check_extend_below: ok', a(1)
end program check_extend_below
