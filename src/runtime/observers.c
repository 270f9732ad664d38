/* Which observers a run has (observe.h): the checking mode, the summary
 * and the timeline are set up in the library's constructor from their
 * variables; OMPT at the
 * first registration of offload code, when libomp can start its tool and
 * the number of devices (the host's device number) is known.  Also arms
 * the end of the process: registered in the constructor, the exit work
 * runs after the runtime's exit handler and libomp's. */
#define _GNU_SOURCE
#include "config.h"
#include "observe.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t registered_once = PTHREAD_ONCE_INIT;

void obs_registered(void) { pthread_once(&registered_once, obs_ompt_setup); }

static void obs_exit(void) { obs_finish(0); }

__attribute__((constructor(102))) static void obs_setup(void) {
  /* First: it may veto, and its exit status handler must run after
   * obs_exit (handlers run in the reverse order of registration). */
  obs_check_setup();
  if (atexit(obs_exit) != 0)
    ompemu_warning("ompemu", "atexit failed: the timeline and summary are "
                   "not written at exit");
  /* The order observers see each event in: the checking mode (above)
   * first. */
  obs_summary_setup();
  obs_timeline_setup();
}
