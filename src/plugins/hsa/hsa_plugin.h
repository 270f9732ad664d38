/* Internals of the hsa plugin (libomptarget.rtl.hsa.so): the HSA function
 * table filled at run time from libhsa-runtime64.so.1, the per-agent device
 * state, and the helpers the plugin's files share.  Only hsa.h and
 * hsa_ext_amd.h are used, for their types and prototypes; the plugin never
 * links against the HSA runtime.
 *
 * Locking: hsa_state.lock protects initialisation (done once, as
 * pthread_once would) and teardown; each device's lock protects its images
 * list, its fptr table, its lazy initialisation's result and its lists of
 * idle signals and buffers, and is never held across an HSA call;
 * fptr_lock serialises the writes of the fptr table into executables (image
 * load, set_function_ptr_map), the one lock held across HSA calls apart
 * from the one-time load (tests/fake-cuda/lock-lint.sh checks this).  The
 * AQL queue itself is multi-producer (packet slots are reserved with an
 * atomic add on the write index). */
#ifndef OMPEMU_HSA_PLUGIN_H
#define OMPEMU_HSA_PLUGIN_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <ompemu/abi.h>

#define HSA_WHO "hsa"
#define OMPEMU_HSA_EXPORT __attribute__((visibility("default")))

/* Functions the plugin cannot work without. */
#define HSA_REQUIRED_FNS(X)                                                    \
  X(hsa_init) X(hsa_shut_down) X(hsa_status_string) X(hsa_iterate_agents)      \
  X(hsa_agent_get_info) X(hsa_queue_create) X(hsa_queue_destroy)               \
  X(hsa_queue_add_write_index_relaxed) X(hsa_queue_load_read_index_scacquire)  \
  X(hsa_signal_create) X(hsa_signal_destroy) X(hsa_signal_store_screlease)     \
  X(hsa_signal_load_scacquire) X(hsa_signal_wait_scacquire)                    \
  X(hsa_agent_iterate_regions) X(hsa_region_get_info) X(hsa_memory_allocate)   \
  X(hsa_memory_free) X(hsa_memory_copy)                                        \
  X(hsa_code_object_reader_create_from_memory)                                 \
  X(hsa_code_object_reader_destroy) X(hsa_executable_create_alt)               \
  X(hsa_executable_load_agent_code_object) X(hsa_executable_freeze)            \
  X(hsa_executable_destroy) X(hsa_executable_get_symbol_by_name)               \
  X(hsa_executable_symbol_get_info)

/* AMD extension functions: used when present, the plugin degrades to the
 * core region API without them. */
#define HSA_AMD_FNS(X)                                                         \
  X(hsa_amd_agent_iterate_memory_pools) X(hsa_amd_memory_pool_get_info)        \
  X(hsa_amd_memory_pool_allocate) X(hsa_amd_memory_pool_free)                  \
  X(hsa_amd_agents_allow_access) X(hsa_amd_memory_async_copy)

struct hsa_api {
#define HSA_API_MEMBER(n) __typeof__(n) *n;
  HSA_REQUIRED_FNS(HSA_API_MEMBER)
  HSA_AMD_FNS(HSA_API_MEMBER)
#undef HSA_API_MEMBER
};

/* A place memory comes from: an AMD memory pool or a core region. */
struct hsa_mem_src {
  int valid;
  int is_pool; /* 1: pool (AMD ext), 0: region */
  hsa_amd_memory_pool_t pool;
  hsa_region_t region;
};

/* A kernel of a loaded image; the device entry's addr points here. */
struct hsa_kernel {
  struct hsa_device *dev;
  const char *name; /* host entry name (owned by the host image) */
  uint64_t object;  /* kernel descriptor address for the AQL packet */
  uint32_t kernarg_size, group_size, private_size;
  uint8_t exec_mode; /* <name>_exec_mode: 1 generic, 2 SPMD, 3 generic-SPMD; 0 absent */
  uint16_t wg_size;  /* <name>_wg_size, 0 absent */
};

/* One image loaded on one device. */
struct hsa_image {
  struct hsa_image *next;
  const __tgt_device_image *host_image;
  hsa_code_object_reader_t reader;
  hsa_executable_t exec;
  __tgt_target_table table;
  __tgt_offload_entry *entries; /* device entries, host order */
  struct hsa_kernel *kernels;   /* one slot per entry (used for kernels) */
};

/* A kernarg or staging buffer, kept for reuse (reuse.c). */
struct hsa_buf {
  void *ptr;
  size_t size;
  struct hsa_buf *next;
};
enum hsa_buf_kind { HSA_BUF_KERNARG, HSA_BUF_STAGING, HSA_BUF_KINDS };

struct hsa_device {
  int id;
  hsa_agent_t agent;
  char name[64]; /* agent NAME, e.g. "gfx906" */
  uint32_t mach; /* EF_AMDGPU_MACH value decoded from NAME, 0 unknown */
  pthread_mutex_t lock; /* protects everything below */
  pthread_mutex_t fptr_lock;
  int initialized; /* atomic: set once the fields up to IMAGES are valid */
  hsa_queue_t *queue;
  struct hsa_mem_src dev_mem; /* coarse-grained device-local */
  uint32_t compute_units, wg_max, wavefront;
  struct hsa_image *images;
  void *fptr_table; /* device copy of the fptr table, or NULL */
  uint64_t fptr_size;
  int fptr_set;
  /* reuse.c: idle completion signals and buffers of this device. */
  hsa_signal_t *idle_signals;
  size_t nidle_signals, idle_signals_cap;
  struct hsa_buf *idle_bufs[HSA_BUF_KINDS];
  size_t idle_bytes[HSA_BUF_KINDS];
};

struct hsa_state {
  pthread_mutex_t lock;
  int tried, usable; /* init attempted / runtime initialised */
  int has_amd;       /* all AMD extension functions resolved and enabled */
  int no_peer;       /* peer access refused once: no data_exchange */
  void *lib;
  struct hsa_api api;
  hsa_agent_t cpu_agent;
  int has_cpu;
  struct hsa_mem_src host_mem;   /* fine-grained system memory */
  struct hsa_mem_src kernarg_mem;
  int ndev;
  struct hsa_device *dev;
};

struct hsa_queue_ops;
extern struct hsa_state hsa_st;
#define H (hsa_st.api)

/* runtime.c */
int hsa_rt_init(void); /* 0 when usable; idempotent */
struct hsa_device *hsa_dev_get(int32_t id, const char *what);
struct hsa_device *hsa_dev_ready(int32_t id, const char *what);

/* agents.c */
int hsa_agents_discover(void);
int hsa_agent_init(struct hsa_device *d);
void hsa_agent_fini(struct hsa_device *d);
uint32_t hsa_mach_from_name(const char *name);
const char *hsa_mach_name(uint32_t mach);

/* elf_sym.c */
int hsa_elf_symbol_value(const __tgt_device_image *img, const char *name,
                         void *out, size_t size);

/* memory.c */
void *hsa_mem_alloc(struct hsa_device *d, const struct hsa_mem_src *src,
                    size_t size, const char *what);
int hsa_mem_free(void *ptr, const char *what);
int hsa_copy_h2d(struct hsa_device *d, void *tgt, const void *hst,
                 size_t size, struct hsa_queue_ops *ops);
int hsa_copy_d2h(struct hsa_device *d, void *hst, const void *tgt,
                 size_t size, struct hsa_queue_ops *ops);

/* code_object.c */
void hsa_images_unload(struct hsa_device *d);
int hsa_kernel_known(struct hsa_device *d, const struct hsa_kernel *k);
int hsa_fptr_apply(struct hsa_device *d, struct hsa_image *im);

/* reuse.c: a completion signal set to 1, and one given back; a buffer of
 * KIND (kernarg memory or fine-grained staging, opened to D's agent) of at
 * least SIZE bytes, and one given back.  Given-back items are kept for the
 * next operation of D (bounded: the rest is released) and released by
 * hsa_reuse_fini. */
int hsa_signal_take(struct hsa_device *d, hsa_signal_t *s, const char *what);
void hsa_signal_give(struct hsa_device *d, hsa_signal_t s);
struct hsa_buf *hsa_buf_take(struct hsa_device *d, enum hsa_buf_kind kind,
                             size_t size, const char *what);
void hsa_buf_give(struct hsa_device *d, enum hsa_buf_kind kind,
                  struct hsa_buf *b);
void hsa_reuse_fini(struct hsa_device *d);

/* async.c: work queued for one __tgt_async_info (its Queue field). */
struct hsa_op {
  hsa_signal_t signal;
  struct hsa_buf *staging; /* fine-grained buffer given back at completion */
  struct hsa_buf *kernarg; /* kernarg buffer given back at completion */
  void *copy_to;    /* d2h: host destination of STAGING after completion */
  size_t copy_size;
  int is_copy;
};
struct hsa_queue_ops {
  struct hsa_device *dev;
  struct hsa_op *ops;
  size_t n, cap;
};
struct hsa_queue_ops *hsa_ops_get(struct hsa_device *d, __tgt_async_info *ai);
/* Add OP to Q; when Q cannot grow, OP is waited for and its resources
 * given back, and -1 is returned (with an error). */
int hsa_ops_push(struct hsa_queue_ops *q, const struct hsa_op *op);
int hsa_ops_last_signal(struct hsa_queue_ops *q, hsa_signal_t *sig);
int hsa_ops_wait_copies(struct hsa_queue_ops *q);
int hsa_ops_finish(struct hsa_queue_ops *q); /* waits, frees everything */
int hsa_signal_wait_done(hsa_signal_t s, const char *what);

/* dispatch.c */
int hsa_launch(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
               int32_t n, int32_t teams, int32_t threads,
               uint64_t tripcount, __tgt_async_info *ai);

/* errors.c */
const char *hsa_status_text(hsa_status_t st);
void hsa_fail(const char *call, hsa_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
