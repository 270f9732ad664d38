! A missing map(to:) on a derived type's allocatable component: s%acc is
! mapped from: and the kernel accumulates into it.  flang names the
! component's descriptor "unknown" and the entry after it s%acc: --check
! names the data s%acc.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel 
! EXPECT-STDERR: __QQmain_l27 at check_component_from.f90:27 read s%acc (declared at check_component_from.f90:27) before anything wrote it; it was mapped with map(from) at check_component_from.f90:27, which gives the device uninitialized memory: map(tofrom:) copies the host's values in (device 0 block 
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
module state_mod
  implicit none
  type state
    integer :: n
    real(8), allocatable :: acc(:)
  end type state
end module state_mod

program check_component_from
  use state_mod
  implicit none
  type(state) :: s
  integer :: i
  s%n = 256
  allocate(s%acc(s%n))
  s%acc = 1.0d0
  !$omp target map(from: s%acc)
  do i = 1, 256
    s%acc(i) = s%acc(i) + i
  end do
  !$omp end target
  print *, 'acc(3) =', s%acc(3)
  print *, 'check_component_from: ok'
end program check_component_from
