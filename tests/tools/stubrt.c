/* A stand-in libomptarget for the tool tests: it prints what the wrapper
 * object's constructor and destructor hand it (image info, descriptor,
 * images, host entries), so a test can compare that with the files it
 * wrapped, and whether the unwinder can walk out of the constructor
 * (it needs the wrapper's .eh_frame to get past it).  Built without
 * WITH_IMAGE_INFO it lacks
 * __tgt_register_image_info, like LLVM 14's runtime. */
#include <execinfo.h>
#include <stdio.h>
#include <string.h>

#include <ompemu/abi.h>

static const __tgt_bin_desc *registered;

#ifdef WITH_IMAGE_INFO
void __tgt_register_image_info(__tgt_image_info *info) {
  printf("image_info version=%d image=%d of=%d arch=%s\n", info->version,
         info->image_number, info->number_images,
         info->offload_arch ? info->offload_arch : "(null)");
}
#endif

void __tgt_register_lib(__tgt_bin_desc *desc) {
  registered = desc;
  void *frames[64];
  /* stub, ctor, then libc's or ld.so's init loop and beyond. */
  printf("unwind_through_ctor=%d\n", backtrace(frames, 64) >= 4);
  printf("register_lib images=%d entries=%ld\n", desc->NumDeviceImages,
         (long)(desc->HostEntriesEnd - desc->HostEntriesBegin));
  for (int i = 0; i < desc->NumDeviceImages; i++) {
    const __tgt_device_image *im = &desc->DeviceImages[i];
    const unsigned char *b = im->ImageStart;
    printf("image %d size=%ld magic=%s aligned16=%d same_entries=%d\n", i,
           (long)((const char *)im->ImageEnd - (const char *)im->ImageStart),
           memcmp(b, "\177ELF", 4) == 0 ? "ELF" : "other",
           ((unsigned long)b & 15) == 0,
           im->EntriesBegin == desc->HostEntriesBegin &&
               im->EntriesEnd == desc->HostEntriesEnd);
  }
  for (const __tgt_offload_entry *e = desc->HostEntriesBegin;
       e < desc->HostEntriesEnd; e++)
    printf("entry %s size=%ld flags=%d\n", e->name, (long)e->size, e->flags);
  fflush(stdout);
}

void __tgt_unregister_lib(__tgt_bin_desc *desc) {
  printf("unregister_lib same=%d\n", desc == registered);
  fflush(stdout);
}

/* Enough of the launch interface for a lowered program to link; it never
 * offloads (the host fallback runs). */
int __tgt_target_mapper(ident_t *loc, int64_t device_id, void *host_ptr,
                        int32_t arg_num, void **args_base, void **args,
                        int64_t *arg_sizes, int64_t *arg_types,
                        map_var_info_t *arg_names, void **arg_mappers) {
  (void)loc, (void)device_id, (void)host_ptr, (void)arg_num, (void)args_base;
  (void)args, (void)arg_sizes, (void)arg_types, (void)arg_names;
  (void)arg_mappers;
  return -1;
}
