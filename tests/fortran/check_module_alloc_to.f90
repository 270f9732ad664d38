! A module's allocatable array mapped map(to:) in a module procedure whose
! kernel writes it: the results are dropped.  flang names the array's data
! "unknown" under its descriptor: --check names it after the descriptor (u).
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: result thrown away: kernel 
! EXPECT-STDERR: __QMfieldsPsmooth_l17 (check_module_alloc_to.f90:17) changed 1000 of 4000 bytes of u (declared at check_module_alloc_to.f90:12), mapped with map(to) at check_module_alloc_to.f90:17, and the target region at check_module_alloc_to.f90:17 removed the mapping without copying them back; map(tofrom:) or map(from:) keeps them (device 0 block 
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
module fields
  implicit none
  real, allocatable :: u(:)
contains
  subroutine smooth(n)
    integer, intent(in) :: n
    integer :: i
    !$omp target teams distribute parallel do map(to: u)
    do i = 1, n
      u(i) = 0.5 * u(i) + 1.0
    end do
  end subroutine smooth
end module fields

program check_module_alloc_to
  use fields
  implicit none
  allocate(u(1000))
  u = 1.0
  call smooth(1000)
  print *, 'u(10) =', u(10)
  print *, 'check_module_alloc_to: ok'
end program check_module_alloc_to
