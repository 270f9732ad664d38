! A derived type's allocatable component entered twice (an extra reference):
! the exit data map(from:) copies nothing back.  flang maps the component's
! descriptor as "unknown"; --check names it, and its data, g%u.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: results not copied back: map(from) of g%u (declared at check_component_extra_ref.f90:22) at the data region exit at check_component_extra_ref.f90:28 copied nothing because the mapping keeps 1 more reference (mapped at check_component_extra_ref.f90:22), and the device copy differs from the host in 200 of 400 bytes; an extra enter data or enclosing data region holds it, and no later copy brought them back (device 0 block 
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
module m
  type grid
    real, allocatable :: u(:)
  end type grid
end module m

program check_component_extra_ref
  use m
  implicit none
  type(grid) :: g
  integer :: i
  allocate(g%u(100))
  g%u = 1.0
  !$omp target enter data map(to: g%u)
  !$omp target enter data map(to: g%u)
  !$omp target teams distribute parallel do
  do i = 1, 100
    g%u(i) = g%u(i) * 2.0
  end do
  !$omp target exit data map(from: g%u)
  print *, g%u(1)
  print *, 'check_component_extra_ref: ok'
end program check_component_extra_ref
