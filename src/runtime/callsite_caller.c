/* The caller of a call site (callsite.h): the frame above the one a
 * return address returns into, found by unwinding the current stack with
 * libgcc's unwinder (the program's .eh_frame; no frame pointers needed).
 * For messages that must tell apart two calls made from the same line of
 * a helper function. */
#include "config.h"
#include "callsite.h"

#include <unwind.h>

#define FRAMES_MAX 32

struct walk {
  const void *ra;     /* the frame to find */
  const void *caller; /* the return address of the frame above it */
  int found, depth;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg) {
  struct walk *w = arg;
  const void *ip = (const void *)_Unwind_GetIP(ctx);
  if (w->found) {
    w->caller = ip;
    return _URC_END_OF_STACK;
  }
  if (ip == w->ra)
    w->found = 1;
  return ++w->depth < FRAMES_MAX ? _URC_NO_REASON : _URC_END_OF_STACK;
}

const void *callsite_caller(const void *ra) {
  struct walk w = {ra, NULL, 0, 0};
  if (ra)
    _Unwind_Backtrace(step, &w);
  return w.caller;
}
