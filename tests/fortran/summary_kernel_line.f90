! --summary names each flang kernel by its line: flang's ident has no
! location (";unknown;unknown;0;0;;"), so the kernel's entry name gives
! it, as in check mode's messages, not "(unknown:0)".
! OMPEMU-RUN: --summary
! EXPECT-STDERR: __QQmain_l10 (line 10 of the main program)
program summary_kernel_line
  implicit none
  integer :: x(8), i
  x = 0
  !$omp target map(tofrom: x)
  do i = 1, 8
    x(i) = i
  end do
  !$omp end target
  if (sum(x) == 36) then
    print '(a)', 'summary_kernel_line: ok'
  else
    print '(a)', 'summary_kernel_line: FAIL'
  end if
end program
