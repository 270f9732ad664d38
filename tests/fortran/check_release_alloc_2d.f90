! A 2-D allocatable with a lower bound of 0 entered with map(to:), written
! by a kernel, and removed by exit data map(release:): the results are lost.
! FFLAGS: -g
! OMPEMU-RUN: --check
! EXPECT-EXIT: 99
! EXPECT-STDERR: ompemu: check: result thrown away: kernel 
! EXPECT-STDERR: __QQmain_l16 (check_release_alloc_2d.f90:16) changed 998 of 2048 bytes of h (declared at check_release_alloc_2d.f90:11), mapped with map(to) at check_release_alloc_2d.f90:15, and the data region exit at check_release_alloc_2d.f90:22 removed the mapping with map(release) without copying them back; map(from:) keeps them (device 0 block 
! EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
program check_release_alloc_2d
  implicit none
  real, allocatable :: h(:,:)
  integer :: i, j
  allocate(h(0:31, 1:16))
  h = 0.0
  !$omp target enter data map(to: h)
  !$omp target teams distribute parallel do collapse(2)
  do j = 1, 16
    do i = 0, 31
      h(i, j) = i + j
    end do
  end do
  !$omp target exit data map(release: h)
  print *, 'h(3,3) =', h(3, 3)
  print *, 'check_release_alloc_2d: ok'
end program check_release_alloc_2d
