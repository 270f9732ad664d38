! Components reached through an allocatable or pointer derived-type
! variable: map(tofrom: x, x%a) with x allocatable, the same with x a
! pointer, enter data of x%a after x, and xs(2)%a of an allocatable array
! of such types.  flang maps the heap object as a PTR_AND_OBJ member of
! x's descriptor and then x%a's descriptor, inside that object, as a
! member of the descriptor too: a valid list (LLVM 22 runs it) that
! ompemu once refused as "lies outside its parent".
module apc_types
  implicit none
  type t
    integer :: k
    real, allocatable :: a(:)
  end type
end module

program alloc_parent_component
  use apc_types
  implicit none
  type(t), allocatable :: x, xs(:)
  type(t), pointer :: y
  integer :: i, nfail
  nfail = 0
  allocate(x)
  x%k = 9
  allocate(x%a(12))
  x%a = 1
  !$omp target map(tofrom: x, x%a)
  do i = 1, 12
    x%a(i) = x%a(i) + x%k * i
  end do
  !$omp end target
  do i = 1, 12
    if (x%a(i) /= 1.0 + 9 * i) nfail = nfail + 1
  end do

  allocate(y)
  y%k = 2
  allocate(y%a(5))
  y%a = 3
  !$omp target map(tofrom: y, y%a)
  do i = 1, 5
    y%a(i) = y%a(i) * y%k
  end do
  !$omp end target
  if (any(y%a /= 6)) nfail = nfail + 1

  x%a = 0
  !$omp target enter data map(to: x)
  !$omp target enter data map(to: x%a)
  !$omp target
  do i = 1, 12
    x%a(i) = i
  end do
  !$omp end target
  !$omp target update from(x%a)
  !$omp target exit data map(delete: x%a)
  !$omp target exit data map(delete: x)
  do i = 1, 12
    if (x%a(i) /= real(i)) nfail = nfail + 1
  end do

  allocate(xs(3))
  do i = 1, 3
    xs(i)%k = i
    allocate(xs(i)%a(4))
    xs(i)%a = 0
  end do
  !$omp target map(tofrom: xs(2)%a)
  xs(2)%a = 7
  !$omp end target
  if (any(xs(2)%a /= 7) .or. any(xs(1)%a /= 0)) nfail = nfail + 1

  if (nfail == 0) then
    print '(a)', 'alloc_parent_component: ok'
  else
    print '(a,i0)', 'alloc_parent_component: FAIL ', nfail
  end if
end program
