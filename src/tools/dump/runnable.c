/* Which device images this build can run: the question is put to this
 * build's own runtime (libomptarget.so next to ompemu-dump in the build
 * tree, or in the installed package directory), which offers each image to
 * its plugins exactly as a registration does (src/runtime/claim_query.h).
 * A program whose images none can run is refused by the runtime with exit
 * status 125; ompemu-dump says so and exits 3.  The runtime is asked
 * quietly: its lines (and its plugins') about a damaged image would name
 * addresses of this process, and the dump says it in its own terms. */
#define _GNU_SOURCE
#include "config.h"

#include "claim_query.h"
#include "dump.h"
#include "elfview.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The runtime's path: .libs beside this program (the build tree), else
 * the package library directory. */
static int runtime_path(char *out, size_t len) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      int w = snprintf(out, len, "%s/.libs/libomptarget.so", self);
      if (w > 0 && (size_t)w < len && access(out, R_OK) == 0)
        return 0;
    }
  }
  snprintf(out, len, "%s/libomptarget.so", OMPEMU_PKGLIBDIR);
  return access(out, R_OK);
}

static void (*register_info)(__tgt_image_info *);

/* Loaded once.  What the runtime writes at exit for a program (check
 * findings, summary, timeline) has no place in a tool's run, and a
 * disabled OMP_TARGET_OFFLOAD would load no plugin at all. */
static ompemu_claim_images_fn *claim_fn(char *why, size_t len) {
  static ompemu_claim_images_fn *fn;
  static int tried;
  static char err[PATH_MAX + 600];
  if (!tried) {
    tried = 1;
    static const char *const quiet[] = {"OMPEMU_CHECK", "OMPEMU_REPORT",
                                        "OMPEMU_SUMMARY", "OMPEMU_TIMELINE",
                                        "LIBOMPTARGET_PROFILE",
                                        "OMP_TARGET_OFFLOAD"};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
      unsetenv(quiet[i]);
    char path[PATH_MAX];
    void *h = NULL;
    int w = 0;
    if (runtime_path(path, sizeof path) != 0)
      w = snprintf(err, sizeof err, "this build's libomptarget.so is not "
                   "found (%s)", path);
    else if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      w = snprintf(err, sizeof err, "%s cannot be loaded: %.500s", path,
                   dlerror());
    else if (!(fn = (ompemu_claim_images_fn *)dlsym(h, OMPEMU_CLAIM_IMAGES)))
      w = snprintf(err, sizeof err, "%s has no %s", path,
                   OMPEMU_CLAIM_IMAGES);
    (void)w; /* a long path is cut short: only a message */
    if (h)
      register_info = (void (*)(__tgt_image_info *))dlsym(
          h, "__tgt_register_image_info");
  }
  if (!fn)
    snprintf(why, len, "%s", err);
  return fn;
}

/* Ask about descriptor D: its images' bytes are read from V into a
 * descriptor of this process. */
static void ask(struct ev *v, struct dump_desc *d, const char *file,
                ompemu_claim_images_fn *fn, struct dump_notes *notes) {
  size_t n = d->nimages;
  __tgt_device_image *imgs = calloc(n, sizeof *imgs);
  void **bytes = calloc(n, sizeof *bytes);
  const char **plugin = calloc(n, sizeof *plugin);
  if (!imgs || !bytes || !plugin)
    goto out;
  for (size_t i = 0; i < n; i++) {
    struct dump_image *im = &d->images[i];
    size_t size = im->end > im->start ? (size_t)(im->end - im->start) : 0;
    if (!size || !(bytes[i] = malloc(size)) ||
        ev_read(v, im->start, bytes[i], size) != 0)
      size = 0; /* an empty image, as unreadable to the runtime */
    imgs[i].ImageStart = bytes[i];
    imgs[i].ImageEnd = (char *)bytes[i] + size;
  }
  /* The image infos an ompemu-wrap object's constructor registers. */
  for (size_t i = 0; register_info && i < n; i++)
    if (d->images[i].has_info) {
      __tgt_image_info info = {1, (int32_t)i, (int32_t)n,
                               d->images[i].arch, NULL};
      register_info(&info);
    }
  __tgt_bin_desc desc = {(int32_t)n, imgs, NULL, NULL};
  char why[1024] = "";
  d->nclaimed = fn(&desc, file, plugin, why, sizeof why, 1);
  d->asked = 1;
  for (size_t i = 0; i < n; i++)
    d->images[i].plugin = plugin[i] ? strdup(plugin[i]) : NULL;
  if (d->nclaimed == 0)
    d->refused = strdup(why);
  else if (d->nclaimed < 0)
    dump_note(notes, "which images this build can run is not known: %s",
              why);
out:
  for (size_t i = 0; bytes && i < n; i++)
    free(bytes[i]);
  free(bytes);
  free(imgs);
  free(plugin);
}

int dump_runnable(struct ev *v, struct dump_report *rep) {
  int refused = 0;
  for (size_t k = 0; k < rep->ndescs; k++) {
    struct dump_desc *d = &rep->descs[k];
    if (!d->nimages)
      continue;
    char why[PATH_MAX + 600];
    ompemu_claim_images_fn *fn = claim_fn(why, sizeof why);
    if (!fn) {
      dump_note(&rep->notes, "which images this build can run is not known: "
                "%s", why);
      return 0;
    }
    ask(v, d, rep->file, fn, &rep->notes);
    if (d->asked && d->nclaimed == 0)
      refused = 1;
  }
  return refused;
}
