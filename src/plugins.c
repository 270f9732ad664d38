/* Plugin discovery: OMPEMU_PLUGINS (a comma list of names or paths) or the
 * default list, dlopen of libomptarget.rtl.<name>.so next to libomptarget.so
 * first and then through the normal search, the ten required __tgt_rtl_*
 * symbols (missing -> refused), the optional ones (missing -> feature off).
 * No plugin is special-cased.  Called under rt_state.lock. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default: the emu plugin, then the optional ones if they were built (they
 * are only looked for next to libomptarget.so). */
static const char *const default_plugins[] = {"emu", "cuda?", "hsa?"};

/* Directory of libomptarget.so itself ("" if unknown), with a slash. */
static const char *own_dir(void) {
  static char dir[4096];
  static int done;
  if (!done) {
    Dl_info info;
    done = 1;
    if (dladdr((void *)&rt_plugin_open, &info) && info.dli_fname) {
      const char *slash = strrchr(info.dli_fname, '/');
      size_t n = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
      if (n < sizeof dir) {
        memcpy(dir, info.dli_fname, n);
        dir[n] = 0;
      }
    }
  }
  return dir;
}

const char *rt_arch_kind(const char *arch) {
  if (!arch || !*arch)
    return NULL;
  if (!strncmp(arch, "sm_", 3) || !strncmp(arch, "nvptx", 5))
    return "nvidia";
  if (!strncmp(arch, "gfx", 3) || !strncmp(arch, "amdgcn", 6))
    return "amd";
  if (!strncmp(arch, "x86", 3) || !strcmp(arch, "host") ||
      !strncmp(arch, "native", 6))
    return "host";
  return NULL;
}

const char *rt_plugin_kind(const struct rt_plugin *p) {
  static const struct { const char *name, *kind; } kinds[] = {
      {"emu", "host"},     {"x86_64", "host"}, {"aarch64", "host"},
      {"ppc64", "host"},   {"cuda", "nvidia"}, {"hsa", "amd"},
      {"amdgpu", "amd"},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(p->name, kinds[i].name))
      return kinds[i].kind;
  return NULL;
}

/* "libomptarget.rtl.NAME.so" of a path, or the basename. */
static char *plugin_name_of(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *pre = "libomptarget.rtl.";
  size_t n = strlen(b);
  if (!strncmp(b, pre, strlen(pre)) && n > strlen(pre) + 3 &&
      !strcmp(b + n - 3, ".so"))
    return strndup(b + strlen(pre), n - strlen(pre) - 3);
  return strdup(b);
}

#define REQ(field, sym)                                                      \
  do {                                                                       \
    *(void **)&p->field = dlsym(h, sym);                                     \
    if (!p->field) {                                                         \
      missing = sym;                                                         \
      goto refuse;                                                           \
    }                                                                        \
  } while (0)
#define OPT(field, sym) (*(void **)&p->field = dlsym(h, sym))

struct rt_plugin *rt_plugin_open(const char *spec, int own_dir_only) {
  char path[8192];
  void *h = NULL;
  const char *missing = NULL;
  if (strchr(spec, '/')) {
    snprintf(path, sizeof path, "%s", spec);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  } else {
    if (*own_dir() &&
        (size_t)snprintf(path, sizeof path, "%slibomptarget.rtl.%s.so",
                         own_dir(), spec) < sizeof path)
      h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && !own_dir_only) {
      snprintf(path, sizeof path, "libomptarget.rtl.%s.so", spec);
      h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
  }
  if (!h) {
    const char *why = dlerror();
    RT_TRACE(1, "plugin %s: not loaded (%s)", spec, why ? why : "not found");
    return NULL;
  }
  struct rt_plugin *p = calloc(1, sizeof *p);
  if (!p) {
    dlclose(h);
    return NULL;
  }
  Dl_info info;
  void *any = dlsym(h, "__tgt_rtl_number_of_devices");
  p->path = strdup(any && dladdr(any, &info) && info.dli_fname ? info.dli_fname
                                                               : path);
  p->name = plugin_name_of(p->path);
  p->handle = h;
  p->first_id = -1;
  REQ(is_valid_binary, "__tgt_rtl_is_valid_binary");
  REQ(number_of_devices, "__tgt_rtl_number_of_devices");
  REQ(init_device, "__tgt_rtl_init_device");
  REQ(load_binary, "__tgt_rtl_load_binary");
  REQ(data_alloc, "__tgt_rtl_data_alloc");
  REQ(data_submit, "__tgt_rtl_data_submit");
  REQ(data_retrieve, "__tgt_rtl_data_retrieve");
  REQ(data_delete, "__tgt_rtl_data_delete");
  REQ(run_region, "__tgt_rtl_run_target_region");
  REQ(run_team_region, "__tgt_rtl_run_target_team_region");
  OPT(init_requires, "__tgt_rtl_init_requires");
  OPT(data_submit_async, "__tgt_rtl_data_submit_async");
  OPT(data_retrieve_async, "__tgt_rtl_data_retrieve_async");
  OPT(run_region_async, "__tgt_rtl_run_target_region_async");
  OPT(run_team_region_async, "__tgt_rtl_run_target_team_region_async");
  OPT(synchronize, "__tgt_rtl_synchronize");
  OPT(is_data_exchangable, "__tgt_rtl_is_data_exchangable");
  OPT(data_exchange, "__tgt_rtl_data_exchange");
  OPT(data_exchange_async, "__tgt_rtl_data_exchange_async");
  OPT(register_lib, "__tgt_rtl_register_lib");
  OPT(unregister_lib, "__tgt_rtl_unregister_lib");
  OPT(supports_empty_images, "__tgt_rtl_supports_empty_images");
  OPT(set_info_flag, "__tgt_rtl_set_info_flag");
  OPT(print_device_info, "__tgt_rtl_print_device_info");
  OPT(create_event, "__tgt_rtl_create_event");
  OPT(record_event, "__tgt_rtl_record_event");
  OPT(wait_event, "__tgt_rtl_wait_event");
  OPT(sync_event, "__tgt_rtl_sync_event");
  OPT(destroy_event, "__tgt_rtl_destroy_event");
  OPT(set_function_ptr_map, "__tgt_rtl_set_function_ptr_map");
  p->num_devices = p->number_of_devices();
  if (p->num_devices <= 0) {
    RT_TRACE(1, "plugin %s (%s): %d devices, skipped", p->name, p->path,
             p->num_devices);
    goto drop;
  }
  RT_TRACE(1, "plugin %s loaded from %s: %d device(s)%s%s", p->name, p->path,
           p->num_devices, p->set_function_ptr_map ? ", fptr map" : "",
           p->synchronize ? ", async" : "");
  return p;
refuse:
  RT_TRACE(1, "plugin %s (%s): required symbol %s missing, skipped", p->name,
           p->path, missing);
drop:
  /* Plugins are never unloaded once used; a refused one can go. */
  dlclose(h);
  free(p->name);
  free(p->path);
  free(p);
  return NULL;
}

void rt_load_plugins(void) {
  pthread_mutex_lock(&rt_state.lock);
  if (rt_state.plugins_loaded) {
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  rt_state.plugins_loaded = 1;
  const char *env = getenv("OMPEMU_PLUGINS");
  char *list;
  if (env && *env) {
    list = strdup(env);
  } else {
    size_t n = 0;
    for (size_t i = 0; i < sizeof default_plugins / sizeof *default_plugins; i++)
      n += strlen(default_plugins[i]) + 1;
    list = calloc(1, n + 1);
    for (size_t i = 0; list && i < sizeof default_plugins / sizeof *default_plugins; i++) {
      if (i)
        strcat(list, ",");
      strcat(list, default_plugins[i]);
    }
  }
  RT_TRACE(1, "loading plugins: %s%s", list ? list : "(none)",
           env && *env ? " (OMPEMU_PLUGINS)" : " (default)");
  struct rt_plugin **tail = &rt_state.plugins;
  int32_t total = 0;
  char *save = NULL;
  for (char *tok = list ? strtok_r(list, ",", &save) : NULL; tok;
       tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ')
      tok++;
    size_t n = strlen(tok);
    while (n && tok[n - 1] == ' ')
      tok[--n] = 0;
    int optional = n && tok[n - 1] == '?';
    if (optional)
      tok[--n] = 0;
    if (!n)
      continue;
    int dup = 0;
    for (struct rt_plugin *q = rt_state.plugins; q; q = q->next)
      if (!strcmp(q->name, tok) || !strcmp(q->path, tok))
        dup = 1;
    if (dup) {
      RT_TRACE(1, "plugin %s: listed twice, loaded once", tok);
      continue;
    }
    struct rt_plugin *p = rt_plugin_open(tok, optional);
    if (!p)
      continue;
    *tail = p;
    tail = &p->next;
    total += p->num_devices;
  }
  free(list);
  rt_state.devices = total ? calloc((size_t)total, sizeof *rt_state.devices)
                           : NULL;
  if (total && !rt_state.devices) {
    CORE_ERR("out of memory for %d devices", total);
    rt_state.plugins = NULL;
  }
  if (!rt_state.plugins)
    RT_TRACE(1, "no usable plugin: every target region runs on the host");
  pthread_mutex_unlock(&rt_state.lock);
}
