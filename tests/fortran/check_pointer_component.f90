! A derived type mapped without its pointer component's target: t is
! mapped to: but t%v is not, so the kernel follows t%v's host address.  The
! fault names the kernel with its construct's file and line and the
! pointer's place in the mapped block (offset 8 of t: v's descriptor).
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: __QQmain_l30 at check_pointer_component.f90:30 dereferenced host pointer 0x
! EXPECT-STDERR: (the pointer t%v at offset 8 of t (map to), copied at check_pointer_component.f90:30)
! EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
module node_mod
  implicit none
  type node
    integer :: n
    real(8), pointer :: v(:)
  end type node
end module node_mod

program check_pointer_component
  use node_mod
  implicit none
  type(node) :: t
  real(8), target :: store(100)
  integer :: i
  real(8) :: s
  store = 1.0d0
  t%n = 100
  t%v => store
  s = 0
  !$omp target map(to: t) map(tofrom: s)
  do i = 1, 100
    s = s + t%v(i)
  end do
  !$omp end target
  print *, 'check_pointer_component: ok', s
end program check_pointer_component
