! An array of derived types mapped to: without its pointer components'
! targets: the kernel follows arr(2)%v's host address.  The fault names
! the pointer by its place in the array (from the debug information), the
! kernel's construct, and the offset in the mapped block.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: __QQmain_l32 at check_component_array.f90:32 dereferenced host pointer 0x
! EXPECT-STDERR: (the pointer arr(2)%v at offset 64 of arr (map to), copied at check_component_array.f90:32)
! EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
module comp_array_mod
  implicit none
  type node
    integer :: n
    real(8), pointer :: v(:)
  end type node
end module comp_array_mod

program check_component_array
  use comp_array_mod
  implicit none
  type(node) :: arr(3)
  real(8), target :: store(10)
  integer :: i
  real(8) :: s
  store = 2.0d0
  do i = 1, 3
    arr(i)%n = 10
    arr(i)%v => store
  end do
  s = 0
  !$omp target map(to: arr) map(tofrom: s)
  do i = 1, 10
    s = s + arr(2)%v(i)
  end do
  !$omp end target
  print *, 'check_component_array: ok', s
end program check_component_array
