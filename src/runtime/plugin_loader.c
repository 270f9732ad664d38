/* Plugin discovery: OMPEMU_PLUGINS (a comma list of names or paths) or the
 * default list, dlopen of libomptarget.rtl.<name>.so next to libomptarget.so
 * first and then through the normal search, and the lookup of every
 * function of OMPEMU_RTL_FUNCTIONS (ompemu/plugin.h): a missing required
 * one refuses the plugin, a missing optional one turns that feature off.
 * Plugins are all driven the same way through that table; what the runtime
 * knows about particular plugins by name is in known_plugins below.
 *
 * Every plugin named in OMPEMU_PLUGINS is loaded with the first
 * registration.  The GPU plugins of the default list are probed only when
 * a registered image may need them (rt_plugins_probe, from registry.c) or
 * __tgt_init_all_rtls asks for every plugin: opening a GPU driver costs
 * milliseconds even where there is no GPU.  A plugin probed late takes its
 * place in list order, so the order of plugins, and of the device ids they
 * get, is the list's whatever was probed first.  The device array grows
 * by replacement; the arrays replaced stay valid until exit, since
 * rt_device_get reads them without the state lock.
 * Called under the state lock. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plugins known by name: the kind of device each serves (so an image built
 * for one kind is never offered to a plugin of another, registry.c) and
 * whether the default list loads it: at the first registration, or
 * ("lazy") only when probed; either way a lazy one is optional: only from
 * next to libomptarget.so, silently skipped when it was not built.  Any
 * other plugin can be named in OMPEMU_PLUGINS; its kind is then unknown.
 * COUNT: the setting that gives its number of devices, if it has one. */
static const struct known_plugin {
  const char *name, *kind;
  enum { NOT_DEFAULT, DEFAULT, DEFAULT_LAZY } load;
  const char *count;
} known_plugins[] = {
    {"emu", "host", DEFAULT, "OMPEMU_NUM_DEVICES"},
    {"cuda", "nvidia", DEFAULT_LAZY, NULL},
    {"hsa", "amd", DEFAULT_LAZY, NULL},
    {"x86_64", "host", NOT_DEFAULT, NULL},
    {"aarch64", "host", NOT_DEFAULT, NULL},
    {"ppc64", "host", NOT_DEFAULT, NULL},
    {"amdgpu", "amd", NOT_DEFAULT, NULL},
};
#define NKNOWN (sizeof known_plugins / sizeof known_plugins[0])

/* The default list's lazy plugins not probed yet, in list order. */
static struct {
  const char *name, *kind;
  int order;
} deferred[NKNOWN];
static int ndeferred;

/* Plugins that loaded but have no device (their names), so that a program
 * none of whose images can run is told so rather than that its images were
 * refused (registry.c). */
#define NODEVICE_MAX 16
static char *nodevice[NODEVICE_MAX];
static int nnodevice;

/* Device arrays replaced by larger ones, freed at exit. */
struct retired {
  struct retired *next;
  struct rt_device **devices;
};
static struct retired *retired;
static int32_t devices_cap;    /* slots of rt_state.devices */
static int32_t devices_loaded; /* devices of the plugins loaded */
static int info_flags_set;  /* rt_plugins_set_info_flag was called */

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
  for (size_t i = 0; i < NKNOWN; i++)
    if (!strcmp(p->name, known_plugins[i].name))
      return known_plugins[i].kind;
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

/* Look up every function of the list in H for P (typed by plugin.h's
 * declarations); the name of the first missing required one, or NULL. */
static const char *lookup_functions(struct rt_plugin *p, void *h) {
  const char *missing = NULL;
#define REQUIRED(fn)                                                         \
  p->fn = (__typeof__(p->fn))dlsym(h, "__tgt_rtl_" #fn);                     \
  if (!p->fn && !missing)                                                    \
    missing = "__tgt_rtl_" #fn;
#define OPTIONAL(fn) p->fn = (__typeof__(p->fn))dlsym(h, "__tgt_rtl_" #fn);
  OMPEMU_RTL_FUNCTIONS(REQUIRED, OPTIONAL)
#undef REQUIRED
#undef OPTIONAL
  return missing;
}

struct rt_plugin *rt_plugin_open(const char *spec, int own_dir_only,
                                 char *why, size_t whylen) {
  char path[8192];
  void *h = NULL;
  const char *missing = NULL;
  snprintf(why, whylen, "out of memory");
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
    const char *err = dlerror();
    snprintf(why, whylen, "%s", err ? err : "not found");
    RT_TRACE(1, "plugin %s: not loaded (%s)", spec, why);
    return NULL;
  }
  struct rt_plugin *p = calloc(1, sizeof *p);
  Dl_info info;
  void *any = dlsym(h, "__tgt_rtl_number_of_devices");
  if (p)
    p->path = strdup(any && dladdr(any, &info) && info.dli_fname
                         ? info.dli_fname : path);
  if (p && p->path)
    p->name = plugin_name_of(p->path);
  if (!p || !p->name) {
    ompemu_error("ompemu", "out of memory loading plugin %s: not used", path);
    dlclose(h);
    if (p)
      rt_plugin_free(p);
    return NULL;
  }
  p->handle = h;
  p->first_id = -1;
  missing = lookup_functions(p, h);
  if (missing)
    goto refuse;
  if (p->ompemu_runtime)
    (void)p->ompemu_runtime(OMPEMU_RT_DETACHES); /* attach.c */
  p->num_devices = p->number_of_devices();
  if (p->num_devices <= 0) {
    snprintf(why, whylen, "it has no device");
    if (nnodevice < NODEVICE_MAX)
      nodevice[nnodevice++] = strdup(p->name);
    RT_TRACE(1, "plugin %s (%s): %d devices, skipped", p->name, p->path,
             p->num_devices);
    goto drop;
  }
  RT_TRACE(1, "plugin %s loaded from %s: %d device(s)%s%s", p->name, p->path,
           p->num_devices, p->set_function_ptr_map ? ", fptr map" : "",
           p->synchronize ? ", async" : "");
  return p;
refuse:
  snprintf(why, whylen, "%s lacks %s", p->path, missing);
  RT_TRACE(1, "plugin %s (%s): required symbol %s missing, skipped", p->name,
           p->path, missing);
drop:
  /* Plugins are never unloaded once used; a refused one can go. */
  dlclose(h);
  rt_plugin_free(p);
  return NULL;
}

void rt_plugin_free(struct rt_plugin *p) {
  free(p->name);
  free(p->path);
  free(p);
}

/* The default list: the known plugins marked for it, in table order. */
static char *default_list(void) {
  size_t n = 1;
  for (size_t i = 0; i < NKNOWN; i++)
    n += strlen(known_plugins[i].name) + 2;
  char *list = calloc(1, n);
  for (size_t i = 0; list && i < NKNOWN; i++) {
    if (known_plugins[i].load == NOT_DEFAULT)
      continue;
    if (*list)
      strcat(list, ",");
    strcat(list, known_plugins[i].name);
    if (known_plugins[i].load == DEFAULT_LAZY)
      strcat(list, "?");
  }
  return list;
}

static const struct known_plugin *known(const char *name) {
  for (size_t i = 0; i < NKNOWN; i++)
    if (!strcmp(name, known_plugins[i].name))
      return &known_plugins[i];
  return NULL;
}

int rt_plugin_without_device(const char *kind, char *why, size_t len) {
  for (int i = 0; i < nnodevice; i++) {
    const struct known_plugin *k = nodevice[i] ? known(nodevice[i]) : NULL;
    if (!nodevice[i] || (kind && k && strcmp(k->kind, kind)))
      continue;
    const char *set = k && k->count ? getenv(k->count) : NULL;
    if (set)
      snprintf(why, len, "plugin %s has no device (%s=%s)", nodevice[i],
               k->count, set);
    else
      snprintf(why, len, "plugin %s has no device", nodevice[i]);
    return 1;
  }
  return 0;
}

/* Room in rt_state.devices for the EXTRA devices of a plugin joining the
 * list (every loaded plugin's devices may come into use).  0 / -1 (out of
 * memory, reported). */
static int grow_devices(int32_t extra) {
  struct rt_device **old = rt_state.devices;
  if (extra <= 0)
    return 0;
  int32_t cap = devices_loaded + extra;
  if (cap <= devices_cap) {
    devices_loaded = cap;
    return 0;
  }
  struct rt_device **a = calloc((size_t)cap, sizeof *a);
  struct retired *r = old ? malloc(sizeof *r) : NULL;
  if (!a || (old && !r)) {
    free(a);
    free(r);
    ompemu_error("ompemu", "out of memory for %d devices: the devices of "
                 "the plugin loaded now are not used", cap);
    return -1;
  }
  if (old) {
    memcpy(a, old, (size_t)devices_cap * sizeof *a);
    r->devices = old;
    r->next = retired;
    retired = r;
  }
  __atomic_store_n(&rt_state.devices, a, __ATOMIC_RELEASE);
  devices_cap = devices_loaded = cap;
  return 0;
}

/* Put P into rt_state.plugins by its order. */
static void link_plugin(struct rt_plugin *p) {
  struct rt_plugin **pp = &rt_state.plugins;
  while (*pp && (*pp)->order < p->order)
    pp = &(*pp)->next;
  p->next = *pp;
  *pp = p;
}

int rt_plugins_deferred(const char *kind) {
  for (int i = 0; i < ndeferred; i++)
    if (!kind || !strcmp(kind, deferred[i].kind))
      return 1;
  return 0;
}

int rt_plugins_probe(const char *kind) {
  int added = 0;
  for (int i = 0; i < ndeferred;) {
    if (kind && strcmp(kind, deferred[i].kind)) {
      i++;
      continue;
    }
    const char *name = deferred[i].name;
    int order = deferred[i].order;
    memmove(&deferred[i], &deferred[i + 1],
            (size_t)(ndeferred - i - 1) * sizeof deferred[0]);
    ndeferred--;
    RT_TRACE(1, "probing plugin %s (%s devices)", name,
             kind ? kind : "every kind of");
    char why[512];
    struct rt_plugin *p = rt_plugin_open(name, 1, why, sizeof why);
    if (!p)
      continue;
    if (grow_devices(p->num_devices)) {
      rt_plugin_free(p);
      continue;
    }
    p->order = order;
    link_plugin(p);
    added++;
    /* What a plugin loaded at the start would have been told. */
    if (info_flags_set && p->set_info_flag)
      p->set_info_flag(rt_state.info_flags);
    for (struct rt_lib *l = rt_state.libs; l; l = l->next)
      if (p->register_lib &&
          p->register_lib(rt_lib_plugin_desc(l)) != OFFLOAD_SUCCESS)
        ompemu_error("ompemu", "plugin %s failed to register descriptor "
                     OMPEMU_PTR, p->name, OMPEMU_P(l->desc));
  }
  return added;
}

void rt_devices_free(void) {
  while (nnodevice > 0)
    free(nodevice[--nnodevice]);
  free(rt_state.devices);
  rt_state.devices = NULL;
  devices_cap = devices_loaded = 0;
  while (retired) {
    struct retired *r = retired;
    retired = r->next;
    free(r->devices);
    free(r);
  }
}

void rt_load_plugins_locked(void) {
  if (rt_state.plugins_loaded)
    return;
  rt_state.plugins_loaded = 1;
  const char *env = getenv("OMPEMU_PLUGINS");
  char *list = env && *env ? strdup(env) : default_list();
  if (!list) {
    ompemu_error("ompemu", "out of memory reading the plugin list: no plugin "
                 "is loaded");
    return;
  }
  int from_env = env && *env;
  RT_TRACE(1, "loading plugins: %s%s", list,
           from_env ? " (OMPEMU_PLUGINS)" : " (default; GPU plugins when an "
           "image needs them)");
  struct rt_plugin **tail = &rt_state.plugins;
  int32_t total = 0;
  int order = 0;
  char *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save), order++) {
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
    const struct known_plugin *k = from_env ? NULL : known(tok);
    if (k && k->load == DEFAULT_LAZY) {
      deferred[ndeferred].name = k->name;
      deferred[ndeferred].kind = k->kind;
      deferred[ndeferred].order = order;
      ndeferred++;
      continue;
    }
    char why[512];
    int nodev_before = nnodevice;
    struct rt_plugin *p = rt_plugin_open(tok, optional, why, sizeof why);
    /* A plugin the user named (OMPEMU_PLUGINS, without '?') must load; one
     * that loads with no device is said below, or by the registration
     * that finds nothing else to run the program. */
    if (!p && from_env && !optional && nnodevice == nodev_before)
      ompemu_error("ompemu", "OMPEMU_PLUGINS names plugin %s, which cannot "
                   "be used: %s", tok, why);
    if (!p)
      continue;
    p->order = order;
    *tail = p;
    tail = &p->next;
    total += p->num_devices;
  }
  free(list);
  for (int i = 0; from_env && rt_state.plugins && i < nnodevice; i++)
    ompemu_warning("ompemu", "OMPEMU_PLUGINS names plugin %s, which has no "
                   "device: the run goes on without it", nodevice[i]);
  if (grow_devices(total)) {
    while (rt_state.plugins) {
      struct rt_plugin *p = rt_state.plugins;
      rt_state.plugins = p->next;
      rt_plugin_free(p);
    }
  }
  if (!rt_state.plugins && !ndeferred)
    RT_TRACE(1, "no usable plugin: every target region runs on the host");
}

void rt_plugins_set_info_flag(uint32_t flags) {
  rt_state_lock();
  rt_state.info_flags = flags;
  info_flags_set = 1;
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->set_info_flag)
      p->set_info_flag(flags);
  rt_state_unlock();
}
