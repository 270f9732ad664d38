/* An OMPT tool for tests/ompt/run.sh: registers the device and target
 * callbacks (EMI forms, or the non-EMI ones when OMPT_TEST_NOEMI is set;
 * no device callbacks when OMPT_TEST_NODEVICE is set)
 * and writes one line per callback to the file named by OMPT_TEST_OUT:
 *   target_emi begin kind=enter_data dev=0 target=1 task=yes
 *   data_op_emi begin alloc target=1 op=2 src=0x... src_dev=1 dst=(nil) dst_dev=0 bytes=2048
 * target ids and host_op ids are the tool's own counters, set at each
 * begin (EMI) and checked at the matching end: a mismatch is written as
 * "MISMATCH ..." lines, which the test looks for. */
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_target = 1, next_op = 1;

#define OUT(...)                                                               \
  do {                                                                         \
    pthread_mutex_lock(&lock);                                                 \
    fprintf(out, __VA_ARGS__);                                                 \
    fflush(out);                                                               \
    pthread_mutex_unlock(&lock);                                               \
  } while (0)

static const char *kind_name(ompt_target_t k) {
  switch ((int)k) {
  case ompt_target: return "target";
  case ompt_target_enter_data: return "enter_data";
  case ompt_target_exit_data: return "exit_data";
  case ompt_target_update: return "update";
  case ompt_target_nowait: return "target_nowait";
  case ompt_target_enter_data_nowait: return "enter_data_nowait";
  case ompt_target_exit_data_nowait: return "exit_data_nowait";
  case ompt_target_update_nowait: return "update_nowait";
  default: return "?";
  }
}

static const char *op_name(ompt_target_data_op_t op) {
  switch ((int)op) {
  case ompt_target_data_alloc: return "alloc";
  case ompt_target_data_transfer_to_device: return "to_device";
  case ompt_target_data_transfer_from_device: return "from_device";
  case ompt_target_data_delete: return "delete";
  case ompt_target_data_associate: return "associate";
  case ompt_target_data_disassociate: return "disassociate";
  default: return "?";
  }
}

static const char *ep(ompt_scope_endpoint_t e) {
  return e == ompt_scope_begin ? "begin" : e == ompt_scope_end ? "end" : "?";
}

static void on_device_initialize(int device_num, const char *type,
                                 ompt_device_t *device,
                                 ompt_function_lookup_t lookup,
                                 const char *documentation) {
  (void)device;
  (void)documentation;
  OUT("device_initialize dev=%d type=%s lookup=%s\n", device_num,
      type ? type : "(null)", lookup ? "yes" : "no");
}

static void on_device_finalize(int device_num) {
  OUT("device_finalize dev=%d\n", device_num);
}

static void on_device_load(int device_num, const char *filename,
                           int64_t offset_in_file, void *vma_in_file,
                           size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id) {
  (void)filename;
  (void)offset_in_file;
  (void)vma_in_file;
  OUT("device_load dev=%d bytes=%s host=%s device=%p module=%lu\n",
      device_num, bytes ? "nonzero" : "0", host_addr ? "yes" : "no",
      device_addr, (unsigned long)module_id);
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint,
                          int device_num, ompt_data_t *task_data,
                          ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra) {
  (void)target_task_data;
  (void)codeptr_ra;
  if (endpoint == ompt_scope_begin) {
    pthread_mutex_lock(&lock);
    target_data->value = next_target++;
    pthread_mutex_unlock(&lock);
  }
  OUT("target_emi %s kind=%s dev=%d target=%lu task=%s\n", ep(endpoint),
      kind_name(kind), device_num, (unsigned long)target_data->value,
      task_data ? "yes" : "no");
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint,
                      int device_num, ompt_data_t *task_data,
                      ompt_id_t target_id, const void *codeptr_ra) {
  (void)task_data;
  (void)codeptr_ra;
  OUT("target %s kind=%s dev=%d target_id=%s\n", ep(endpoint),
      kind_name(kind), device_num, target_id ? "set" : "0");
}

static void on_data_op_emi(ompt_scope_endpoint_t endpoint,
                           ompt_data_t *target_task_data,
                           ompt_data_t *target_data, ompt_id_t *host_op_id,
                           ompt_target_data_op_t optype, void *src_addr,
                           int src_device_num, void *dest_addr,
                           int dest_device_num, size_t bytes,
                           const void *codeptr_ra) {
  (void)target_task_data;
  (void)codeptr_ra;
  if (endpoint == ompt_scope_begin) {
    pthread_mutex_lock(&lock);
    *host_op_id = next_op++;
    pthread_mutex_unlock(&lock);
  }
  OUT("data_op_emi %s %s target=%lu op=%lu src=%p src_dev=%d dst=%p "
      "dst_dev=%d bytes=%zu\n",
      ep(endpoint), op_name(optype),
      (unsigned long)(target_data ? target_data->value : 0),
      (unsigned long)*host_op_id, src_addr, src_device_num, dest_addr,
      dest_device_num, bytes);
}

static void on_data_op(ompt_id_t target_id, ompt_id_t host_op_id,
                       ompt_target_data_op_t optype, void *src_addr,
                       int src_device_num, void *dest_addr,
                       int dest_device_num, size_t bytes,
                       const void *codeptr_ra) {
  (void)codeptr_ra;
  OUT("data_op %s target_id=%s op=%s src=%p src_dev=%d dst=%p dst_dev=%d "
      "bytes=%zu\n",
      op_name(optype), target_id ? "set" : "0", host_op_id ? "set" : "0",
      src_addr, src_device_num, dest_addr, dest_device_num, bytes);
}

static void on_submit_emi(ompt_scope_endpoint_t endpoint,
                          ompt_data_t *target_data, ompt_id_t *host_op_id,
                          unsigned int requested_num_teams) {
  if (endpoint == ompt_scope_begin) {
    pthread_mutex_lock(&lock);
    *host_op_id = next_op++;
    pthread_mutex_unlock(&lock);
  }
  OUT("submit_emi %s target=%lu op=%lu teams=%u\n", ep(endpoint),
      (unsigned long)target_data->value, (unsigned long)*host_op_id,
      requested_num_teams);
}

static void on_submit(ompt_id_t target_id, ompt_id_t host_op_id,
                      unsigned int requested_num_teams) {
  OUT("submit target_id=%s op=%s teams=%u\n", target_id ? "set" : "0",
      host_op_id ? "set" : "0", requested_num_teams);
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data) {
  (void)tool_data;
  const char *path = getenv("OMPT_TEST_OUT");
  out = path ? fopen(path, "w") : stdout;
  if (!out)
    out = stderr;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  int noemi = getenv("OMPT_TEST_NOEMI") != NULL;
#define SET(cb, fn)                                                            \
  OUT("set %s = %d\n", #cb, (int)set(cb, (ompt_callback_t)fn))
  if (!getenv("OMPT_TEST_NODEVICE")) {
    SET(ompt_callback_device_initialize, on_device_initialize);
    SET(ompt_callback_device_finalize, on_device_finalize);
    SET(ompt_callback_device_load, on_device_load);
  }
  if (noemi) {
    SET(ompt_callback_target, on_target);
    SET(ompt_callback_target_data_op, on_data_op);
    SET(ompt_callback_target_submit, on_submit);
  } else {
    SET(ompt_callback_target_emi, on_target_emi);
    SET(ompt_callback_target_data_op_emi, on_data_op_emi);
    SET(ompt_callback_target_submit_emi, on_submit_emi);
  }
  OUT("initialize initial_device=%d\n", initial_device_num);
  return 1;
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  OUT("finalize\n");
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
