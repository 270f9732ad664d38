/* HSA agents: which agents become devices (the GPU ones, in the runtime's
 * iteration order), their ISA as an ELF mach value, and per agent the AQL
 * queue and the memory it allocates from.  Fine-grained system memory (for
 * HOST/SHARED allocations, kernel arguments and copy staging) comes from the
 * first CPU agent, as on ROCm. */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

/* EF_AMDGPU_MACH values (e_flags & 0xff of an AMDGPU code object) and the
 * processor names HSA reports for agents (AMDGPU ELF ABI documentation).
 * README.md lists the same table. */
static const struct {
  uint32_t mach;
  const char *name;
} mach_table[] = {
    {0x020, "gfx600"},  {0x021, "gfx601"},  {0x03a, "gfx602"},
    {0x022, "gfx700"},  {0x023, "gfx701"},  {0x024, "gfx702"},
    {0x025, "gfx703"},  {0x026, "gfx704"},  {0x03b, "gfx705"},
    {0x028, "gfx801"},  {0x029, "gfx802"},  {0x02a, "gfx803"},
    {0x03c, "gfx805"},  {0x02b, "gfx810"},  {0x02c, "gfx900"},
    {0x02d, "gfx902"},  {0x02e, "gfx904"},  {0x02f, "gfx906"},
    {0x030, "gfx908"},  {0x031, "gfx909"},  {0x03f, "gfx90a"},
    {0x032, "gfx90c"},  {0x040, "gfx940"},  {0x04c, "gfx942"},
    {0x033, "gfx1010"}, {0x034, "gfx1011"}, {0x035, "gfx1012"},
    {0x042, "gfx1013"}, {0x036, "gfx1030"}, {0x037, "gfx1031"},
    {0x038, "gfx1032"}, {0x039, "gfx1033"}, {0x03e, "gfx1034"},
    {0x03d, "gfx1035"}, {0x045, "gfx1036"}, {0x041, "gfx1100"},
    {0x046, "gfx1101"}, {0x047, "gfx1102"}, {0x044, "gfx1103"},
};

/* Mach value of processor NAME ("gfx906", or "gfx90a:xnack+" with target
 * features, which are ignored); 0 when unknown. */
uint32_t hsa_mach_from_name(const char *name) {
  size_t len = strcspn(name, ":");
  for (size_t i = 0; i < sizeof mach_table / sizeof mach_table[0]; i++)
    if (strlen(mach_table[i].name) == len &&
        strncmp(mach_table[i].name, name, len) == 0)
      return mach_table[i].mach;
  return 0;
}

/* Processor name of MACH, or "unknown". */
const char *hsa_mach_name(uint32_t mach) {
  for (size_t i = 0; i < sizeof mach_table / sizeof mach_table[0]; i++)
    if (mach_table[i].mach == mach)
      return mach_table[i].name;
  return "unknown";
}

struct discover {
  hsa_agent_t gpus[64];
  int ngpu;
};

/* hsa_iterate_agents callback: collect GPU agents into DATA, remember the
 * first CPU agent. */
static hsa_status_t agent_cb(hsa_agent_t agent, void *data) {
  struct discover *dc = data;
  hsa_device_type_t type;
  hsa_status_t st = H.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_agent_get_info(HSA_AGENT_INFO_DEVICE)", st,
             "agent 0x%016lx", (unsigned long)agent.handle);
    return st;
  }
  if (type == HSA_DEVICE_TYPE_GPU &&
      dc->ngpu < (int)(sizeof dc->gpus / sizeof dc->gpus[0]))
    dc->gpus[dc->ngpu++] = agent;
  else if (type == HSA_DEVICE_TYPE_CPU && !hsa_st.has_cpu) {
    hsa_st.cpu_agent = agent;
    hsa_st.has_cpu = 1;
  }
  return HSA_STATUS_SUCCESS;
}

/* Global flags of memory pool POOL, or -1 when it is not a global segment
 * the runtime may allocate from. */
static int64_t pool_flags(hsa_amd_memory_pool_t pool) {
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  bool alloc = false;
  if (H.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                     &seg) != HSA_STATUS_SUCCESS ||
      seg != HSA_AMD_SEGMENT_GLOBAL)
    return -1;
  if (H.hsa_amd_memory_pool_get_info(
          pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc) !=
          HSA_STATUS_SUCCESS ||
      !alloc)
    return -1;
  if (H.hsa_amd_memory_pool_get_info(
          pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) !=
      HSA_STATUS_SUCCESS)
    return -1;
  return flags;
}

/* The same for core region REGION. */
static int64_t region_flags(hsa_region_t region) {
  hsa_region_segment_t seg;
  uint32_t flags = 0;
  bool alloc = false;
  if (H.hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &seg) !=
          HSA_STATUS_SUCCESS ||
      seg != HSA_REGION_SEGMENT_GLOBAL)
    return -1;
  if (H.hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED,
                            &alloc) != HSA_STATUS_SUCCESS ||
      !alloc)
    return -1;
  if (H.hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags) !=
      HSA_STATUS_SUCCESS)
    return -1;
  return flags;
}

/* What a memory search looks for, and what it found. */
struct mem_search {
  uint32_t want; /* flag bit to look for (same values in both APIs) */
  struct hsa_mem_src found;
};

/* Iteration callbacks: keep the first pool / region with the wanted flag. */
static hsa_status_t pool_cb(hsa_amd_memory_pool_t pool, void *data) {
  struct mem_search *ms = data;
  int64_t f = pool_flags(pool);
  if (f >= 0 && (f & ms->want) && !ms->found.valid) {
    ms->found.valid = 1;
    ms->found.is_pool = 1;
    ms->found.pool = pool;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t region_cb(hsa_region_t region, void *data) {
  struct mem_search *ms = data;
  int64_t f = region_flags(region);
  if (f >= 0 && (f & ms->want) && !ms->found.valid) {
    ms->found.valid = 1;
    ms->found.is_pool = 0;
    ms->found.region = region;
  }
  return HSA_STATUS_SUCCESS;
}

/* First global memory of AGENT whose flags include WANT: an AMD pool when
 * the extension is in use, a core region otherwise. */
static struct hsa_mem_src find_mem(hsa_agent_t agent, uint32_t want,
                                   const char *what) {
  struct mem_search ms = {.want = want};
  hsa_status_t st;
  if (hsa_st.has_amd) {
    st = H.hsa_amd_agent_iterate_memory_pools(agent, pool_cb, &ms);
    if (st != HSA_STATUS_SUCCESS)
      hsa_fail("hsa_amd_agent_iterate_memory_pools", st, "%s of agent 0x%016lx",
               what, (unsigned long)agent.handle);
  } else {
    st = H.hsa_agent_iterate_regions(agent, region_cb, &ms);
    if (st != HSA_STATUS_SUCCESS)
      hsa_fail("hsa_agent_iterate_regions", st, "%s of agent 0x%016lx", what,
               (unsigned long)agent.handle);
  }
  return ms.found;
}

/* Find the GPU agents and the system memory (caller holds hsa_st.lock). */
int hsa_agents_discover(void) {
  struct discover dc = {.ngpu = 0};
  hsa_status_t st = H.hsa_iterate_agents(agent_cb, &dc);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_iterate_agents", st, "listing agents");
    return -1;
  }
  if (dc.ngpu == 0) {
    ompemu_trace(1, HSA_WHO, "no devices (no GPU agent)");
    return -1;
  }
  /* Core regions: a GPU agent's own regions include the fine-grained and
   * kernarg ones.  AMD pools: those belong to the CPU agent. */
  hsa_agent_t sys = hsa_st.has_amd && hsa_st.has_cpu ? hsa_st.cpu_agent
                                                     : dc.gpus[0];
  hsa_st.host_mem = find_mem(sys, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                             "fine-grained system memory");
  hsa_st.kernarg_mem = find_mem(sys, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
                                "kernarg memory");
  if (!hsa_st.kernarg_mem.valid)
    hsa_st.kernarg_mem = hsa_st.host_mem;
  if (!hsa_st.host_mem.valid) {
    ompemu_error(HSA_WHO, "no fine-grained system memory on agent 0x%016lx: "
                 "hsa devices disabled", (unsigned long)sys.handle);
    return -1;
  }
  hsa_st.dev = calloc((size_t)dc.ngpu, sizeof *hsa_st.dev);
  if (!hsa_st.dev)
    return -1;
  for (int i = 0; i < dc.ngpu; i++) {
    struct hsa_device *d = &hsa_st.dev[i];
    d->id = i;
    d->agent = dc.gpus[i];
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->fptr_lock, NULL);
    st = H.hsa_agent_get_info(d->agent, HSA_AGENT_INFO_NAME, d->name);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_agent_get_info(HSA_AGENT_INFO_NAME)", st,
               "agent 0x%016lx", (unsigned long)d->agent.handle);
      strcpy(d->name, "unknown");
    }
    d->name[sizeof d->name - 1] = 0;
    d->mach = hsa_mach_from_name(d->name);
    ompemu_trace(1, HSA_WHO, "device %d: agent 0x%016lx %s, ELF mach 0x%02x%s",
                 i, (unsigned long)d->agent.handle, d->name, d->mach,
                 d->mach ? "" : " (unknown: no image will match)");
  }
  hsa_st.ndev = dc.ngpu;
  return 0;
}

/* hsa_queue_create error callback: a queue error is asynchronous, so it
 * can only be reported. */
static void queue_error(hsa_status_t st, hsa_queue_t *q, void *data) {
  struct hsa_device *d = data;
  hsa_fail("AQL queue", st, "queue 0x%016lx of hsa device %d (%s)",
           (unsigned long)(uintptr_t)q, d->id, d->name);
}

/* Lazy per-device set-up: device memory, work-group limits and the AQL
 * queue, found without D->lock held and published under it; when another
 * thread got there first, this one's queue is destroyed. */
int hsa_agent_init(struct hsa_device *d) {
  struct hsa_mem_src dev_mem =
      find_mem(d->agent, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
               "device memory");
  if (!dev_mem.valid) {
    ompemu_error(HSA_WHO, "hsa device %d (%s): no coarse-grained device "
                 "memory to allocate from", d->id, d->name);
    return -1;
  }
  uint32_t qmax = 0, wg_max = 0, wavefront = 0, cus = 0;
  hsa_status_t st =
      H.hsa_agent_get_info(d->agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &qmax);
  if (st != HSA_STATUS_SUCCESS || qmax == 0) {
    hsa_fail("hsa_agent_get_info(HSA_AGENT_INFO_QUEUE_MAX_SIZE)", st,
             "hsa device %d", d->id);
    return -1;
  }
  if (H.hsa_agent_get_info(d->agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE,
                           &wg_max) != HSA_STATUS_SUCCESS ||
      wg_max == 0)
    wg_max = 1024;
  if (H.hsa_agent_get_info(d->agent, HSA_AGENT_INFO_WAVEFRONT_SIZE,
                           &wavefront) != HSA_STATUS_SUCCESS ||
      wavefront == 0)
    wavefront = 64;
  if (H.hsa_agent_get_info(d->agent,
                           (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                           &cus) != HSA_STATUS_SUCCESS ||
      cus == 0)
    cus = 1;
  uint32_t qsize = qmax < 4096 ? qmax : 4096;
  hsa_queue_t *queue = NULL;
  st = H.hsa_queue_create(d->agent, qsize, HSA_QUEUE_TYPE_MULTI, queue_error,
                          d, UINT32_MAX, UINT32_MAX, &queue);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_queue_create", st, "hsa device %d (%s), %u packets", d->id,
             d->name, qsize);
    return -1;
  }
  pthread_mutex_lock(&d->lock);
  int won = !d->initialized;
  if (won) {
    d->dev_mem = dev_mem;
    d->wg_max = wg_max;
    d->wavefront = wavefront;
    d->compute_units = cus;
    d->queue = queue;
    __atomic_store_n(&d->initialized, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->lock);
  if (!won) {
    st = H.hsa_queue_destroy(queue);
    if (st != HSA_STATUS_SUCCESS)
      hsa_fail("hsa_queue_destroy", st, "an extra queue of hsa device %d",
               d->id);
    return 0;
  }
  ompemu_trace(1, HSA_WHO, "device %d (%s) ready: queue 0x%016lx, %u packets, "
               "%u compute units, workgroup max %u", d->id, d->name,
               (unsigned long)(uintptr_t)d->queue, d->queue->size,
               d->compute_units, d->wg_max);
  return 0;
}

/* Release what hsa_agent_init and load_binary created on D. */
void hsa_agent_fini(struct hsa_device *d) {
  hsa_images_unload(d);
  hsa_reuse_fini(d);
  if (d->fptr_table)
    hsa_mem_free(d->fptr_table, "fptr table");
  d->fptr_table = NULL;
  hsa_status_t st;
  if (d->queue && (st = H.hsa_queue_destroy(d->queue)) != HSA_STATUS_SUCCESS)
    hsa_fail("hsa_queue_destroy", st, "queue 0x%016lx of hsa device %d",
             (unsigned long)(uintptr_t)d->queue, d->id);
  d->queue = NULL;
  d->initialized = 0;
}
