// C++: omp_target_free twice through a class's destructor and an explicit
// call (::omp_target_free, a member as argument): both lines named.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free(dev_ptr_) at find_double_free_cxx.cpp:16: 0x0000550000
// EXPECT-STDERR: (256 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_cxx.cpp:14) was already freed at find_double_free_cxx.cpp:18: nothing done
// RUN-TWICE-SAME-STDERR
#include <cstdio>
#include <omp.h>

class DeviceArray {
public:
  explicit DeviceArray(int dev)
      : dev_(dev), dev_ptr_(static_cast<float *>(omp_target_alloc(256, dev))) {}
  ~DeviceArray() {
    ::omp_target_free(dev_ptr_, dev_);
  }
  void release() { omp_target_free(dev_ptr_, dev_); /* forgets to null it */
    std::printf("released\n");
  }

private:
  int dev_;
  float *dev_ptr_;
};

int main() {
  DeviceArray a(omp_get_default_device());
  a.release();
  return 0;
}
