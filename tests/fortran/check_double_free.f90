! omp_target_free twice from Fortran (the second call continued over two
! lines): the message names the call's line, the argument as written, and
! the lines of the allocation and of the first free.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: error: omp_target_free(dbuf) at check_double_free.f90:25: 0x0000550000
! EXPECT-STDERR: (800 bytes of device 0 memory, allocated by omp_target_alloc at check_double_free.f90:17) was already freed at check_double_free.f90:24: nothing done
program check_double_free
  use omp_lib
  use iso_c_binding
  implicit none
  type(c_ptr) :: dbuf
  integer :: dev, n
  dev = omp_get_default_device()
  n = 0
  dbuf = omp_target_alloc(800_c_size_t, dev)
  !$omp target map(tofrom: n)
  n = n + 1
  !$omp end target
  if (n /= 1) then
    stop 1
  end if
  call omp_target_free(dbuf, dev)
  call OMP_TARGET_FREE(dbuf, &
                       dev)  ! twice
  print *, 'check_double_free: ok'
end program check_double_free
