! map(delete:) of a pointer component of a derived-type variable that is
! mapped as a whole too.  A structure element's corresponding list item
! shares its structure's reference count (OpenMP 5.2, 5.8.3), so deleting
! v%p sets v's count to zero and removes v, whatever count v had: a later
! exit data map(from: v) finds nothing and must not copy the device's
! stale copy over the host.  v is entered by two constructs (count 2),
! the form where a member's delete that dropped only one reference left v
! mapped.  LLVM 22's runtime removes v here too.
program exit_delete_component
  use omp_lib
  use iso_c_binding
  implicit none
  type t
    integer :: x
    integer, pointer :: p(:)
  end type t
  type(t), target :: v
  integer :: nfail, dev
  nfail = 0
  dev = omp_get_default_device()
  allocate(v%p(4))
  v%p = 1
  v%x = 1

  !$omp target enter data map(to: v)
  !$omp target enter data map(to: v%p)
  !$omp target map(alloc: v)
  v%x = 42
  !$omp end target
  !$omp target exit data map(delete: v%p)
  if (omp_target_is_present(c_loc(v), dev) /= 0) then
    print *, 'FAIL v is still mapped after the delete of v%p'
    nfail = nfail + 1
  end if
  if (omp_target_is_present(c_loc(v%p), dev) /= 0) then
    print *, 'FAIL v%p is still mapped after its delete'
    nfail = nfail + 1
  end if
  v%x = 7
  !$omp target exit data map(from: v)
  if (v%x /= 7) then
    print *, 'FAIL exit data map(from: v) copied a removed mapping back: x =', v%x
    nfail = nfail + 1
  end if

  if (nfail /= 0) stop 1
  print '(a)', 'exit_delete_component: ok'
end program
