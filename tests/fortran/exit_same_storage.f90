! One exit data construct that names the same storage twice: an array and
! a Fortran pointer associated with it (mapping the pointer maps its
! target too).  OpenMP changes the reference count of that storage once
! per construct and removes it once: map(delete:) sets the count to zero,
! map(from:) at the last reference copies it back and removes it.  Each
! construct must succeed, copy the device's values back where asked, and
! leave the storage unmapped.
program exit_same_storage
  use omp_lib
  use iso_c_binding
  implicit none
  integer, parameter :: n = 64
  integer, target :: a(n)
  integer, pointer :: p(:)
  integer :: i, nfail, dev
  nfail = 0
  dev = omp_get_default_device()
  p => a

  ! delete of the array and its pointer, mapped by one list item each
  a = 1
  !$omp target enter data map(to: a, p)
  !$omp target exit data map(delete: a, p)
  call expect_unmapped('delete after enter data of a and p')

  ! delete of both when only the array was mapped
  !$omp target enter data map(to: a)
  !$omp target exit data map(delete: a, p)
  call expect_unmapped('delete after enter data of a')

  ! from of both, the last reference: the device's values come back
  a = 1
  !$omp target enter data map(to: a)
  !$omp target map(alloc: a)
  do i = 1, n
    a(i) = a(i) + i
  end do
  !$omp end target
  !$omp target exit data map(from: a, p)
  if (any(a /= [(1 + i, i = 1, n)])) then
    print *, 'FAIL from of a and p: values', a(1:3)
    nfail = nfail + 1
  end if
  call expect_unmapped('from of a and p at the last reference')

  if (nfail /= 0) stop 1
  print '(a)', 'exit_same_storage: ok'
contains
  subroutine expect_unmapped(what)
    character(*), intent(in) :: what
    if (omp_target_is_present(c_loc(a), dev) /= 0) then
      print *, 'FAIL ', what, ': a is still mapped'
      nfail = nfail + 1
    end if
  end subroutine
end program
