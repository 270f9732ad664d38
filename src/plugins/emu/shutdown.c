/* What the emu plugin gives back when the process exits (or the plugin is
 * unloaded): for each device in use, its workers are stopped and joined,
 * the images still loaded are unloaded (their fini arrays run), host-kind
 * blocks are freed and both ranges unmapped; then the device runtime's
 * image registry is freed.  A device whose worker is still running a
 * kernel (the process exits under it, or the kernel itself called exit)
 * is left as it is, and so is the registry the kernel may still read.
 *
 * Runtimes unregister their images before this runs (ompemu's from an
 * atexit handler, LLVM 14's from the program's own), so usually only the
 * workers and the ranges are left.  A call into the plugin after this
 * fails with a message: its devices are CLOSED. */
#include "config.h"
#include "emu.h"
#include "fault.h"
#include "trace.h"

/* Shut device D down.  0, or -1 if it had to be left running. */
static int device_shutdown(struct emu_device *d) {
  pthread_mutex_lock(&d->lock);
  if (d->state != EMU_DEVICE_READY) {
    d->state = EMU_DEVICE_CLOSED;
    pthread_mutex_unlock(&d->lock);
    return 0;
  }
  int rc = 0;
  if (exec_device_destroy(d->exec) != 0) {
    ompemu_trace(1, "emu", "device %d: a worker is still running a kernel at "
                 "exit: the device is left as it is", d->id);
    rc = -1;
  } else {
    d->exec = NULL;
    emu_images_unload_all(d); /* a failure is reported; go on */
    emu_hostblk_free_all(d);
    fault_register_arena(d->code, 0);
    fault_register_arena(d->data, 0);
    arena_destroy(d->code);
    arena_destroy(d->data);
    d->code = d->data = NULL;
    d->fptr_table = NULL; /* it lived in the data range */
    d->fptr_count = 0;
    ompemu_trace(1, "emu", "device %d: shut down", d->id);
  }
  __atomic_store_n(&d->state, EMU_DEVICE_CLOSED, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&d->lock);
  return rc;
}

void emu_shutdown(void) {
  struct emu_plugin *p = emu_plugin_if_started();
  if (!p)
    return;
  int left = 0;
  for (int i = 0; i < EMU_MAX_DEVICES; i++)
    if (device_shutdown(&p->dev[i]) != 0)
      left = 1;
  if (!left) {
    devicertl_release();
    emu_alias_release();
  }
}

__attribute__((destructor)) static void at_exit(void) { emu_shutdown(); }
