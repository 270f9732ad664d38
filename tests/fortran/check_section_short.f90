! The construct maps a(1:50) but the kernel touches a(1:60): the read past
! the block's end stops at the guard page, named with the variable.
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: invalid read of device memory at 0x0000550000002000, just past the end of the live data block
! EXPECT-STDERR: (just past the end of variable a(1:50) (declared at check_section_short.f90:11), host [
! EXPECT-STDERR: map tofrom at line 14 of the main program)
! EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
program check_section_short
  implicit none
  real :: a(100)
  integer :: i
  a = 1.0
  !$omp target map(tofrom: a(1:50))
  do i = 1, 60
    a(i) = a(i) + 1
  end do
  !$omp end target
  print *, a(1)
  print *, 'check_section_short: ok'
end program check_section_short
