/* Events of the emu device (see exec.h): recorded on a stream, waited on
 * by a stream or the host.  Each record is a generation; a worker reaching
 * a CMD_EVSET command marks its generation reached (exec_internal.h). */
#include "config.h"
#include "exec_internal.h"

#include <stdlib.h>

struct exec_event *exec_event_create(void) {
  struct exec_event *ev = calloc(1, sizeof *ev);
  if (ev) {
    pthread_mutex_init(&ev->lock, NULL);
    pthread_cond_init(&ev->cond, NULL);
    atomic_init(&ev->refs, 1);
  }
  return ev;
}

/* The generation is published with its command already queued, under
 * LOCK: a wait that sees it queues its own command behind the record's
 * (were it ahead on a worker they share, that worker would wait for
 * itself forever), and a record that cannot be queued publishes nothing
 * (every later wait would hang). */
int exec_event_record(struct exec_device *d, struct exec_event *ev,
                      struct exec_stream **sp) {
  struct cmd *c = NULL;
  if (sp && exec_pending(*sp) && !(c = exec_new_cmd(d, sp, NULL, CMD_EVSET)))
    return -1;
  pthread_mutex_lock(&ev->lock);
  uint64_t gen = ++ev->recorded;
  int rc = 0;
  if (c) {
    c->ev = ev;
    c->gen = gen;
    atomic_fetch_add(&ev->refs, 1); /* the command's */
    rc = exec_submit(d, c); /* queued only: the worker takes LOCK later */
  } else {
    ev->completed = gen; /* an idle queue: reached at once */
    pthread_cond_broadcast(&ev->cond);
  }
  pthread_mutex_unlock(&ev->lock);
  return rc;
}

int exec_event_wait(struct exec_device *d, struct exec_event *ev,
                    struct exec_stream **sp) {
  pthread_mutex_lock(&ev->lock);
  uint64_t gen = ev->recorded;
  int reached = ev->completed >= gen;
  pthread_mutex_unlock(&ev->lock);
  if (reached)
    return 0;
  if (!sp) {
    exec_event_wait_gen(ev, gen);
    return 0;
  }
  struct cmd *c = exec_new_cmd(d, sp, NULL, CMD_EVWAIT);
  if (!c)
    return -1;
  c->ev = ev;
  c->gen = gen;
  atomic_fetch_add(&ev->refs, 1); /* the command's */
  return exec_submit(d, c);
}

int exec_event_sync(struct exec_event *ev) {
  pthread_mutex_lock(&ev->lock);
  uint64_t gen = ev->recorded;
  pthread_mutex_unlock(&ev->lock);
  exec_event_wait_gen(ev, gen);
  return 0;
}

int exec_event_destroy(struct exec_event *ev) {
  if (!ev)
    return 0;
  exec_event_sync(ev);
  /* A wait queued on another stream may still be behind other work: the
   * event goes with the last command that points at it. */
  exec_event_unref(ev);
  return 0;
}
