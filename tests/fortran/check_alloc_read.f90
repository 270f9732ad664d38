! map(alloc:) data the kernel reads although nothing ever wrote it.
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
! EXPECT-STDERR: _QQmain_l13 at line 13 of the main program read a (declared at check_alloc_read.f90:9) before anything wrote it; it was mapped with map(alloc) at line 13 of the main program
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_alloc_read
  implicit none
  real :: a(100), s
  integer :: i
  a = 1.0
  s = 0
  !$omp target map(alloc: a) map(tofrom: s)
  do i = 1, 100
    s = s + a(i)
  end do
  !$omp end target
  print *, s
  print *, 'check_alloc_read: ok'
end program check_alloc_read
