! Device image of flang 22 for tests/unit/loader_compilers.sh: whole-array
! assignments and an intrinsic that link the Fortran runtime (about 1 MB,
! dozens of libc imports) into the image, and a GPU-style kernel.
module probe_mod
  implicit none
contains
  integer function probe() bind(C, name="probe")
    !$omp declare target
    real, allocatable :: v(:)
    allocate(v(100))
    v = 2.0
    v(1:50) = v(51:100) + 1.0
    probe = int(sum(v))
    deallocate(v)
  end function
end module
program main
  use probe_mod
  integer :: r
  !$omp target map(from: r)
  r = probe()
  !$omp end target
  if (r /= 250) error stop 1
end program
