! omp_target_memcpy from Fortran with the device numbers swapped: the
! destination is device memory but dst_device_num names the host.  The
! call is refused before anything is copied, with the call's line and the
! allocation's; the program sees the failure (a non-zero result).
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: error: omp_target_memcpy at check_memcpy_swapped.f90:23: dst d = 0x
! EXPECT-STDERR: is device 0 memory (512 bytes, allocated by omp_target_alloc at check_memcpy_swapped.f90:21) but dst_device_num (host) is the host: nothing copied
! EXPECT-STDERR: ompemu: check: no findings, but 1 error reported; exit status 99
program check_memcpy_swapped
  use omp_lib
  use iso_c_binding
  implicit none
  real(8), target :: h(64)
  type(c_ptr) :: d
  integer :: rc, dev, host
  dev = omp_get_default_device()
  host = omp_get_initial_device()
  h = 2.0d0
  d = omp_target_alloc(int(64 * 8, c_size_t), dev)
  ! Wrong: the source is the host's h and the destination device memory.
  rc = omp_target_memcpy(d, c_loc(h), int(64 * 8, c_size_t), 0_c_size_t, &
                         0_c_size_t, host, dev)
  if (rc == 0) stop 'omp_target_memcpy did not fail'
  call omp_target_free(d, dev)
  print *, 'check_memcpy_swapped: ok'
end program check_memcpy_swapped
