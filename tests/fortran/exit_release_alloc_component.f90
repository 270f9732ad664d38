! exit data map(release:) of a derived-type variable with an allocatable
! component, entered once: the release takes its count to zero, so the
! variable and its component's data are removed (OpenMP 5.2, 5.8.3), and a
! later enter data map(to:) sends the host's values again.  LLVM 22's
! runtime leaves the 56-byte variable mapped at a count of 1 here, after
! the release and after a delete too (its member entries suppress the
! parent's update), so a later map(to:) would send nothing: ompemu
! removes it.
program exit_release_alloc_component
  use omp_lib
  use iso_c_binding
  implicit none
  type t
    integer :: n
    real, allocatable :: a(:)
  end type t
  type(t), target :: x
  integer :: nfail, dev, n
  nfail = 0
  dev = omp_get_default_device()
  allocate(x%a(10))
  x%a = 1
  x%n = 3
  !$omp target enter data map(to: x)
  !$omp target exit data map(release: x)
  if (omp_target_is_present(c_loc(x), dev) /= 0) then
    print *, 'FAIL x is still mapped after its release'
    nfail = nfail + 1
  end if
  if (omp_target_is_present(c_loc(x%a), dev) /= 0) then
    print *, 'FAIL x%a is still mapped after the release of x'
    nfail = nfail + 1
  end if
  x%n = 5
  !$omp target enter data map(to: x)
  n = 0
  !$omp target map(from: n)
  n = x%n
  !$omp end target
  if (n /= 5) then
    print *, 'FAIL the device kept a copy of x from before its release: n =', n
    nfail = nfail + 1
  end if
  !$omp target exit data map(delete: x)
  if (nfail /= 0) stop 1
  print '(a)', 'exit_release_alloc_component: ok'
end program
