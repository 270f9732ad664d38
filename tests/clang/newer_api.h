/* For clang-14 programs that call the API functions newer omp.h files
 * declare: LLVM 14's libomptarget.so, which clang 14 links against, lacks
 * them, so each call looks its function up at run time in the runtime the
 * program runs on (ompemu's), and a missing one fails the program. */
#ifndef TC_NEWER_API_H
#define TC_NEWER_API_H

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static inline void *tc_api(const char *name) {
  void *f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    fprintf(stderr, "FAIL: the runtime does not export %s\n", name);
    exit(1);
  }
  return f;
}
#define TC_API(type, name) ((type)tc_api(#name))

#define omp_get_mapped_ptr(...)                                           \
  TC_API(void *(*)(const void *, int), omp_get_mapped_ptr)(__VA_ARGS__)
#define omp_target_memset(...)                                            \
  TC_API(void *(*)(void *, int, size_t, int), omp_target_memset)(__VA_ARGS__)
#define omp_target_memset_async(...)                                      \
  TC_API(void *(*)(void *, int, size_t, int, int, omp_depend_t *),        \
         omp_target_memset_async)(__VA_ARGS__)
#define omp_target_memcpy_async(...)                                      \
  TC_API(int (*)(void *, const void *, size_t, size_t, size_t, int, int,  \
                 int, omp_depend_t *), omp_target_memcpy_async)(__VA_ARGS__)
#define omp_target_memcpy_rect_async(...)                                 \
  TC_API(int (*)(void *, const void *, size_t, int, const size_t *,       \
                 const size_t *, const size_t *, const size_t *,          \
                 const size_t *, int, int, int, omp_depend_t *),          \
         omp_target_memcpy_rect_async)(__VA_ARGS__)
#define omp_target_is_accessible(...)                                     \
  TC_API(int (*)(const void *, size_t, int), omp_target_is_accessible)(__VA_ARGS__)
#define omp_get_uid_from_device(...)                                      \
  TC_API(const char *(*)(int), omp_get_uid_from_device)(__VA_ARGS__)
#define omp_get_device_from_uid(...)                                      \
  TC_API(int (*)(const char *), omp_get_device_from_uid)(__VA_ARGS__)
#define llvm_omp_target_free_device(...)                                  \
  TC_API(void (*)(void *, int), llvm_omp_target_free_device)(__VA_ARGS__)
#define llvm_omp_target_free_host(...)                                    \
  TC_API(void (*)(void *, int), llvm_omp_target_free_host)(__VA_ARGS__)
#define llvm_omp_target_free_shared(...)                                  \
  TC_API(void (*)(void *, int), llvm_omp_target_free_shared)(__VA_ARGS__)
#define llvm_omp_target_lock_mem(...)                                     \
  TC_API(void *(*)(void *, size_t, int), llvm_omp_target_lock_mem)(__VA_ARGS__)
#define llvm_omp_target_unlock_mem(...)                                   \
  TC_API(void (*)(void *, int), llvm_omp_target_unlock_mem)(__VA_ARGS__)
#define ompx_dump_mapping_tables()                                        \
  TC_API(void (*)(void), ompx_dump_mapping_tables)()

void *llvm_omp_target_alloc_device(size_t, int);
void *llvm_omp_target_alloc_host(size_t, int);
void *llvm_omp_target_alloc_shared(size_t, int);

#endif
