! Two module procedures each launch a nowait kernel on the same module
! allocatable, with no depend between them: a race.  flang maps the
! array's data implicitly without a name; the finding names it after the
! enter data that mapped it (q), not by its host range.  Built with -O1,
! where flang launches a nowait region from a task function without
! lines: the regions are still named by file and line (the file of the
! kernel's own function).
! FFLAGS: -g -O1
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at check_nowait_module_race.f90:19 (kernel
! EXPECT-STDERR: and the one at check_nowait_module_race.f90:26 (kernel
! EXPECT-STDERR: and each uses q (declared at check_nowait_module_race.f90:15): both write it
module race_mod
  real, allocatable :: q(:)
contains
  subroutine scale_q()
    integer :: i
    !$omp target teams distribute parallel do nowait
    do i = 1, size(q)
      q(i) = q(i) * 2
    end do
  end subroutine scale_q
  subroutine shift_q()
    integer :: i
    !$omp target teams distribute parallel do nowait
    do i = 1, size(q)
      q(i) = q(i) + 1
    end do
  end subroutine shift_q
end module race_mod

program check_nowait_module_race
  use race_mod
  allocate(q(3000))
  q = 1
  !$omp target enter data map(to: q)
  call scale_q()
  call shift_q()
  !$omp taskwait
  !$omp target exit data map(from: q)
  print *, 'check_nowait_module_race: ran', q(1)
end program check_nowait_module_race
