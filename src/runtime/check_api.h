/* The blocks omp_target_alloc returned, for the device memory routines'
 * messages in every mode (check_api.c; docs/check.md, "At the API (every
 * mode)").  Device numbers are the API's: HOST is the host's
 * (omp_get_initial_device()). */
#ifndef OMPEMU_CHECK_API_H
#define OMPEMU_CHECK_API_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* omp_target_alloc returned P (SIZE bytes) for device number DEV. */
RT_HIDDEN void check_api_alloc(int32_t dev, void *p, size_t size);
/* Before omp_target_free(P, DEV): 0 to go on; -1 when P is known to be
 * freed already or another device's memory (said, with the call's name). */
RT_HIDDEN int check_api_free(int32_t dev, int32_t host, void *p);
/* omp_target_free(P) succeeded. */
RT_HIDDEN void check_api_freed(void *p);
/* Before omp_target_memcpy: 0 to go on; -1 when DST or SRC is known to be
 * memory of another device than its device number says, or freed. */
RT_HIDDEN int check_api_memcpy(const void *dst, const void *src,
                               int32_t dst_dev, int32_t src_dev, int32_t host);

#endif
