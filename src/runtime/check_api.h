/* The blocks omp_target_alloc returned, for the device memory routines'
 * messages in every mode (check_api.c; docs/check.md, "At the API (every
 * mode)").  Device numbers are the API's: HOST is the host's
 * (omp_get_initial_device()).  API is the name of the routine the user
 * called and RA its return address (__builtin_return_address(0) in the
 * front door), from which the messages name the call's source line and
 * arguments. */
#ifndef OMPEMU_CHECK_API_H
#define OMPEMU_CHECK_API_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* API returned P (SIZE bytes) for device number DEV. */
RT_HIDDEN void check_api_alloc(int32_t dev, void *p, size_t size,
                               const char *api, const void *ra);
/* Before API(P, DEV) frees: 0 to go on; -1 when P is known to be freed
 * already or another device's memory (said, with the call's name). */
RT_HIDDEN int check_api_free(int32_t dev, int32_t host, void *p,
                             const char *api, const void *ra);
/* API(P) succeeded in freeing P. */
RT_HIDDEN void check_api_freed(void *p, const char *api, const void *ra);
/* Before a copy by API (omp_target_memcpy and its _rect and _async
 * forms): 0 to go on; -1 when DST or SRC is known to be memory of another
 * device than its device number says, or freed. */
RT_HIDDEN int check_api_memcpy(const void *dst, const void *src,
                               int32_t dst_dev, int32_t src_dev, int32_t host,
                               const char *api, const void *ra);
/* Before a copy by API: 0 to go on; -1 when the plugin of device D
 * (device number DEV) says that [BASE+OFF, BASE+OFF+LEN), side WHICH
 * ("dst" or "src") of the copy, is not its memory or runs past the end
 * of its block (said, with the call's name, the pointer argument and the
 * offset apart: OFF is the offset argument, or with RECT the bytes the
 * _rect form's offsets and dimensions come to).  Plugins without
 * ompemu_not_device: 0. */
RT_HIDDEN int check_api_device_side(const char *which, const void *base,
                                    size_t off, size_t len, int rect,
                                    struct rt_device *d, int32_t dev,
                                    const char *api, const void *ra);
/* The same for a host side of a copy (device number HOST): -1 when BASE
 * is a host block omp_target_alloc returned (OMP_TARGET_OFFLOAD=disabled,
 * or the host's device number) and the copy runs past its end (said in
 * the words check_api_device_side uses for a device block). */
RT_HIDDEN int check_api_host_side(const char *which, const void *base,
                                  size_t off, size_t len, int rect,
                                  int32_t host, const char *api,
                                  const void *ra);
/* Before API (omp_target_associate_ptr) associates [P+OFF, P+OFF+LEN) of
 * device number DEV: 0 to go on; -1 when P is a block of DEV from
 * omp_target_alloc and the range runs past its end (said, naming the
 * call, the block and its size). */
RT_HIDDEN int check_api_associate(const void *p, size_t off, size_t len,
                                  int32_t dev, const char *api,
                                  const void *ra);
/* "API(ARGUMENT ARG's expression) at prog.c:14" (less what is unknown;
 * ARG -1: no argument) into BUF, for other messages about the call. */
RT_HIDDEN void check_api_call(const char *api, const void *ra, int arg,
                              char *buf, size_t len);

#endif
