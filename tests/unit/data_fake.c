/* Fake device and core stand-ins for the data-path unit tests (see
 * data_fake.h). */
#include "config.h"
#include "data_fake.h"

#include <ompemu/omptarget.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rt_device fake_dev;
static struct rt_device *fake_devs[1] = {&fake_dev};
int fake_outcome_fail;
int fake_allocs, fake_frees;
int fake_fail_run, fake_fail_sync;
int fake_async;
struct fake_launch fake_last;
char fake_kernel_host_id;
static char fake_kernel_dev_id;

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static const void *gate_at; /* closed while not NULL */
static int gate_waiting;

void fake_gate_close(const void *hst) {
  pthread_mutex_lock(&gate_lock);
  gate_at = hst;
  pthread_mutex_unlock(&gate_lock);
}

void fake_gate_open(void) {
  pthread_mutex_lock(&gate_lock);
  gate_at = NULL;
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_lock);
}

int fake_gate_waiting(void) {
  pthread_mutex_lock(&gate_lock);
  int n = gate_waiting;
  pthread_mutex_unlock(&gate_lock);
  return n;
}

static void gate(const void *hst) {
  pthread_mutex_lock(&gate_lock);
  if (gate_at && hst == gate_at) {
    gate_waiting++;
    while (gate_at)
      pthread_cond_wait(&gate_cond, &gate_lock);
    gate_waiting--;
  }
  pthread_mutex_unlock(&gate_lock);
}

static void *f_alloc(int32_t id, int64_t size, void *hst, int32_t kind) {
  (void)id; (void)hst; (void)kind;
  __atomic_add_fetch(&fake_allocs, 1, __ATOMIC_RELAXED);
  void *p = malloc((size_t)size);
  if (p)
    memset(p, 0xA5, (size_t)size); /* poison, like the emu device */
  return p;
}
static int32_t f_submit(int32_t id, void *tgt, void *hst, int64_t size) {
  (void)id;
  gate(hst);
  memcpy(tgt, hst, (size_t)size);
  return 0;
}
static int32_t f_retrieve(int32_t id, void *hst, void *tgt, int64_t size) {
  (void)id;
  gate(hst);
  memcpy(hst, tgt, (size_t)size);
  return 0;
}
static int32_t f_delete(int32_t id, void *tgt) {
  (void)id;
  __atomic_add_fetch(&fake_frees, 1, __ATOMIC_RELAXED);
  free(tgt);
  return 0;
}
static void record(void *entry, void **args, ptrdiff_t *offs, int32_t n) {
  (void)entry;
  fake_last.count++;
  fake_last.nargs = n;
  for (int32_t i = 0; i < n && i < 64; i++) {
    fake_last.args[i] = args[i];
    fake_last.offs[i] = offs[i];
  }
}
static int32_t f_run(int32_t id, void *entry, void **args, ptrdiff_t *offs,
                     int32_t n) {
  (void)id;
  record(entry, args, offs, n);
  fake_last.team = 0;
  return fake_fail_run ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}
static int32_t f_run_team(int32_t id, void *entry, void **args,
                          ptrdiff_t *offs, int32_t n, int32_t teams,
                          int32_t limit, uint64_t trips) {
  (void)id;
  record(entry, args, offs, n);
  fake_last.team = 1;
  fake_last.num_teams = teams;
  fake_last.thread_limit = limit;
  fake_last.tripcount = trips;
  return fake_fail_run ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

/* The async forms queue nothing (the work is done at once) but mark the
 * queue busy, so the runtime must synchronize; fake_fail_sync makes that
 * synchronize report a failure, as a kernel failing on a device thread
 * would. */
static char fake_queue;
static int32_t f_run_async(int32_t id, void *entry, void **args,
                           ptrdiff_t *offs, int32_t n, __tgt_async_info *ai) {
  ai->Queue = &fake_queue;
  return f_run(id, entry, args, offs, n);
}
static int32_t f_run_team_async(int32_t id, void *entry, void **args,
                                ptrdiff_t *offs, int32_t n, int32_t teams,
                                int32_t limit, uint64_t trips,
                                __tgt_async_info *ai) {
  ai->Queue = &fake_queue;
  return f_run_team(id, entry, args, offs, n, teams, limit, trips);
}
static int32_t f_sync(int32_t id, __tgt_async_info *ai) {
  (void)id;
  ai->Queue = NULL;
  fake_last.syncs++;
  return fake_fail_sync ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

static struct rt_plugin fake_plugin = {
    .name = "fake",
    .num_devices = 1,
    .data_alloc = f_alloc,
    .data_submit = f_submit,
    .data_retrieve = f_retrieve,
    .data_delete = f_delete,
    .run_target_region = f_run,
    .run_target_team_region = f_run_team,
};

void fake_reset(void) {
  if (!fake_dev.plugin) {
    fake_dev.plugin = &fake_plugin;
    pthread_mutex_init(&fake_dev.lock, NULL);
    biaslock_init(&fake_dev.map_lock);
    fake_dev.state = RT_DEVICE_READY;
    rt_state.devices = fake_devs;
    rt_state.num_devices = 1;
    rt_state.requires_flags = OMP_REQ_NONE;
  }
  map_table_destroy(fake_dev.maps);
  fake_dev.maps = NULL;
  fake_outcome_fail = fake_allocs = fake_frees = 0;
  fake_fail_run = fake_fail_sync = 0;
  fake_set_async(0);
  memset(&fake_last, 0, sizeof fake_last);
  rt_state.info_flags = 0;
}

void fake_set_async(int on) {
  fake_async = on;
  fake_plugin.run_target_region_async = on ? f_run_async : NULL;
  fake_plugin.run_target_team_region_async = on ? f_run_team_async : NULL;
  fake_plugin.synchronize = on ? f_sync : NULL;
}

/* ---- core stand-ins ---- */

int rt_check_device(int64_t *device_id, struct rt_device **dev) {
  if (*device_id == -1)
    *device_id = 0;
  if (*device_id == 1)
    return 1;
  if (*device_id != 0)
    return -1;
  *dev = &fake_dev;
  return 0;
}
void rt_handle_outcome(int rc, ident_t *loc) {
  (void)loc;
  if (rc != 0)
    fake_outcome_fail++;
}
void rt_handle_target_outcome(int rc, ident_t *loc, void *host_ptr) {
  (void)host_ptr;
  rt_handle_outcome(rc, loc);
}
struct rt_device *rt_device_get(int64_t id) {
  return id == 0 ? &fake_dev : NULL;
}
int rt_device_prepare(struct rt_device *d) { return d == &fake_dev ? 0 : -1; }
void *rt_device_entry(struct rt_device *d, void *host_ptr, const char **name) {
  (void)d;
  if (host_ptr != &fake_kernel_host_id)
    return NULL;
  if (name)
    *name = "fake_kernel";
  return &fake_kernel_dev_id;
}
/* No library is registered here, so no vtable entry either, and no host
 * entry (an indirect function's address) to find. */
int rt_index_in_vtable(uintptr_t x) {
  (void)x;
  return 0;
}
int rt_index_find(void *host_ptr, struct rt_lib **lib, int *idx) {
  (void)host_ptr;
  (void)lib;
  (void)idx;
  return -1;
}

/* ---- stderr capture ---- */

static FILE *capf;
static int saved_fd = -1;
static char capbuf[1 << 20];

void cap_start(void) {
  fflush(stderr);
  capf = tmpfile();
  saved_fd = dup(2);
  dup2(fileno(capf), 2);
}

const char *cap_end(void) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  rewind(capf);
  size_t n = fread(capbuf, 1, sizeof capbuf - 1, capf);
  capbuf[n] = '\0';
  fclose(capf);
  return capbuf;
}

int count_substr(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

void *dev_addr(const void *hp) {
  biaslock_lock(&fake_dev.map_lock);
  struct map_entry *e = fake_dev.maps ? map_find(fake_dev.maps, (uintptr_t)hp)
                                      : NULL;
  void *r = e ? (void *)(e->tgt_begin + ((uintptr_t)hp - e->hst_begin)) : NULL;
  biaslock_unlock(&fake_dev.map_lock);
  return r;
}
