! A zero-sized allocatable entered, updated and exited: there is nothing
! to copy, so the update of its (empty) data is no finding, though no
! mapping holds it.
! OMPEMU-RUN: --check
! EXPECT-STDERR: ompemu: check: no findings
program check_update_zero_size
  implicit none
  real, allocatable :: z(:)
  allocate(z(0))
  !$omp target enter data map(to: z)
  !$omp target update from(z)
  !$omp target update to(z)
  !$omp target exit data map(from: z)
  if (size(z) /= 0) stop 1
  print *, 'check_update_zero_size: ok'
end program check_update_zero_size
