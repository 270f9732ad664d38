/* The launching thread's thread-limit ICV for the thread that runs the
 * kernel (exec_icv.c). */
#ifndef EMU_EXEC_ICV_H
#define EMU_EXEC_ICV_H

#include <stdint.h>

/* The calling thread's thread-limit ICV (omp_get_thread_limit), 0 when
 * libomp cannot set it (no libomp, or one older than 19). */
int32_t exec_icv_thread_limit(void);
/* Give the calling thread the thread-limit WANT (0: leave it); returns the
 * value to hand to exec_icv_thread_limit_leave after the kernel. */
int32_t exec_icv_thread_limit_enter(int32_t want);
void exec_icv_thread_limit_leave(int32_t own);

#endif
