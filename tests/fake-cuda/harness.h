/* What the cuda plugin's test programs (tests/fake-cuda/test_cuda_*.c)
 * share: each case runs in a child process with its own environment (the
 * plugin loads the driver once per process), dlopens the driver test
 * double by path (so the plugin's dlopen("libcuda.so.1") finds it by
 * SONAME) and the plugin, and checks results, the double's call log and
 * counters, and the plugin's messages.  CHECK in a child prints the log
 * and the plugin's stderr and fails the case. */
#ifndef FAKE_CUDA_HARNESS_H
#define FAKE_CUDA_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include <ompemu/abi.h>
#include <ompemu/plugin.h>

#define FAKE_LIB FAKE_CUDA_LIBDIR "/libcuda.so.1"
#define DEV_SO FAKE_CUDA_LIBDIR "/libfcdev.so"
#define PLUGIN OMPEMU_LIBDIR "/libomptarget.rtl.cuda.so"

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(real_stderr, "child check failed %s:%d: %s\n", __FILE__,         \
              __LINE__, #c);                                                   \
      dump_state();                                                            \
      _exit(1);                                                                \
    }                                                                          \
  } while (0)

/* Plugin entry points (field, __tgt_rtl_ name), typed by ompemu/plugin.h's
 * prototypes so a test cannot call one with the wrong signature. */
#define PLUGIN_FNS(X)                                                          \
  X(is_valid_binary, is_valid_binary) X(number_of_devices, number_of_devices)  \
  X(init_device, init_device) X(load_binary, load_binary)                      \
  X(data_alloc, data_alloc) X(data_submit, data_submit)                        \
  X(data_retrieve, data_retrieve) X(data_delete, data_delete)                  \
  X(run_region, run_target_region) X(run_team, run_target_team_region)         \
  X(submit_async, data_submit_async) X(retrieve_async, data_retrieve_async)    \
  X(run_team_async, run_target_team_region_async)                              \
  X(run_region_async, run_target_region_async)                                 \
  X(synchronize, synchronize) X(is_exchangable, is_data_exchangable)           \
  X(exchange, data_exchange) X(create_event, create_event)                     \
  X(record_event, record_event) X(wait_event, wait_event)                      \
  X(sync_event, sync_event) X(destroy_event, destroy_event)                    \
  X(set_fptr_map, set_function_ptr_map)
#define PLUGIN_FIELD(field, name) __typeof__(__tgt_rtl_##name) *field;
struct plugin_fns {
  PLUGIN_FNS(PLUGIN_FIELD)
};
#undef PLUGIN_FIELD
extern struct plugin_fns P;
extern void *plugin_handle;

/* The double's test interface (fake_cuda.h), resolved by load(). */
extern const char *(*log_text)(void);
extern int (*log_count)(const char *);
extern void (*log_clear)(void);
extern long (*calls_total)(void);
extern long (*calls_of)(const char *);
extern void (*calls_reset)(void);
extern int (*live_device_allocs)(void);
extern int (*live_host_allocs)(void);

extern FILE *real_stderr;

void dump_state(void);
/* What the plugin printed on stderr so far (static buffer). */
const char *errtext(void);
/* Load the double (unless WITH_FAKE is 0) and the plugin, capture stderr. */
void load(int with_fake);
/* Unload the plugin (its destructor runs). */
void unload_plugin(void);

/* The device test library patched into an EM_CUDA image for SM (MACHINE
 * as e_machine; ABI8: the sm_100+ header layout).  Stays allocated. */
unsigned char *make_image(size_t *len, int sm, int machine, int abi8);

/* Host side of the entries table of the standard test image. */
extern int host_counter;
extern char host_kernels[8];
extern __tgt_offload_entry host_entries[];
enum { E_STORE, E_COUNTER, E_SUM, E_ARRAY, E_LINK, E_READ, E_TWICE, E_CALL,
       E_FGLOB, E_MANY, E_ENV, E_WIDE, E_N };
int host_twice(int x);
int host_other(int x);

__tgt_device_image image_of(unsigned char *b, size_t n);
/* Load the standard image on device 0 (after init). */
__tgt_target_table *load_std(void);
int in_fake_range(void *p);

/* The double's gate (fake_cuda.h), resolved by load_gate(); until_gated
 * waits (at most 10 s) until a thread is held there. */
extern void (*gate_arm)(const char *);
extern int (*gate_waiting)(void);
extern void (*gate_open)(void);
void load_gate(void);
void until_gated(void);
void sleep_ms(long ms);

/* Run BODY in a child with the NULL-terminated name/value pairs ENV set;
 * exit status 77 from the child means the case does not apply here (it
 * passes with a note). */
void run_child(void (*body)(void), const char **env);

/* A cmocka case t_NAME running c_NAME in a child with OMPEMU_TRACE=1 and
 * the extra NAME, VALUE pairs given (each followed by a comma). */
#define CASE(name, ...)                                                        \
  static void t_##name(void **state) {                                         \
    (void)state;                                                               \
    static const char *env[] = {"OMPEMU_TRACE", "1", __VA_ARGS__ NULL};        \
    run_child(c_##name, env);                                                  \
  }

#endif
