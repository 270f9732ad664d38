/* Deterministic fault injection for the emu device (OMPEMU_INJECT, see
 * README.md): "launch:N" makes the Nth kernel launch fail on its worker
 * as a kernel that cannot start does, "alloc:N" makes the Nth device
 * allocation fail as an exhausted device does.  Several are separated by
 * commas.  Operations are counted per kind over the whole process, in the
 * order the host asks for them, so a sequential program fails at the same
 * point in every run. */
#include "config.h"
#include "emu.h"
#include "trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKINDS 2

static const char *const kind_names[NKINDS] = {"launch", "alloc"};

static struct {
  unsigned long at[NKINDS];        /* 0: never */
  unsigned long count[NKINDS];     /* atomic: operations so far */
  char why[NKINDS][64];            /* the reason the failure gives */
} inj;
static pthread_once_t inj_once = PTHREAD_ONCE_INIT;
static int inj_ready; /* atomic: inject_init has run */

static int configured; /* a test set its own; the environment is not read */

void emu_inject_configure(const char *spec) {
  configured = 1;
  for (int i = 0; i < NKINDS; i++) {
    inj.at[i] = 0;
    __atomic_store_n(&inj.count[i], 0, __ATOMIC_RELAXED);
  }
  if (!spec || !*spec)
    return;
  char *copy = strdup(spec), *save = NULL;
  if (!copy) {
    ompemu_error("emu", "out of host memory reading OMPEMU_INJECT");
    return;
  }
  for (char *item = strtok_r(copy, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(item, ':'), *end = NULL;
    int k = -1;
    if (colon) {
      *colon = '\0';
      for (int i = 0; i < NKINDS; i++)
        if (strcmp(item, kind_names[i]) == 0)
          k = i;
    }
    unsigned long n = 0;
    if (k >= 0 && colon[1] >= '0' && colon[1] <= '9')
      n = strtoul(colon + 1, &end, 10);
    if (n == 0 || !end || *end) {
      if (colon)
        *colon = ':';
      ompemu_error("emu", "OMPEMU_INJECT: '%s' is not launch:N or alloc:N "
                   "(N >= 1); ignored", item);
      continue;
    }
    inj.at[k] = n;
    snprintf(inj.why[k], sizeof inj.why[k], "injected fault (OMPEMU_INJECT="
             "%s:%lu)", kind_names[k], n);
  }
  free(copy);
}

static void inject_init(void) {
  if (!configured)
    emu_inject_configure(getenv("OMPEMU_INJECT"));
  __atomic_store_n(&inj_ready, 1, __ATOMIC_RELEASE);
}

const char *emu_inject(enum emu_inject_kind kind) {
  if (!__atomic_load_n(&inj_ready, __ATOMIC_ACQUIRE))
    pthread_once(&inj_once, inject_init);
  if ((unsigned)kind >= NKINDS || !inj.at[kind])
    return NULL;
  unsigned long n = __atomic_add_fetch(&inj.count[kind], 1, __ATOMIC_RELAXED);
  return n == inj.at[kind] ? inj.why[kind] : NULL;
}
