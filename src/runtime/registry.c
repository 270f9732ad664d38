/* Registration of offloading libraries: the requires flags, image infos,
 * libraries registered and unregistered (any number, any order), which
 * plugin claims which image, the global device ids of the plugins in use,
 * and the shutdown at process exit.  Every function here takes the state
 * lock itself, once. */
#define _GNU_SOURCE
#include "config.h"
#include "claim_query.h"
#include "core.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int rt_exiting; /* shutdown done: registrations are ignored */

/* Image infos registered before the next __tgt_register_lib
 * (docs/offload-wrapper.md: one call per image, before the library); under
 * the state lock. */
static char **pending_arch;
static int npending_arch;

static void pending_arch_free(void) {
  for (int i = 0; i < npending_arch; i++)
    free(pending_arch[i]);
  free(pending_arch);
  pending_arch = NULL;
  npending_arch = 0;
}

static const char *requires_clause(int64_t bit) {
  switch (bit) {
  case OMP_REQ_REVERSE_OFFLOAD: return "reverse_offload";
  case OMP_REQ_UNIFIED_ADDRESS: return "unified_address";
  default: return "unified_shared_memory";
  }
}

/* Record FLAGS (under the state lock): __tgt_register_requires, or the
 * requires entry of a clang 19/22 descriptor. */
static void register_requires_locked(int64_t flags) {
  RT_TRACE(1, "register requires 0x%03" PRIx64, (uint64_t)flags);
  if (rt_state.requires_flags == OMP_REQ_UNDEFINED) {
    rt_state.requires_flags = flags;
    return;
  }
  static const int64_t checked[] = {OMP_REQ_REVERSE_OFFLOAD,
                                    OMP_REQ_UNIFIED_ADDRESS,
                                    OMP_REQ_UNIFIED_SHARED_MEMORY};
  for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++)
    if ((rt_state.requires_flags & checked[i]) != (flags & checked[i]))
      rt_fatal(1, "'#pragma omp requires %s' not used consistently!",
               requires_clause(checked[i]));
}

void rt_register_requires(int64_t flags) {
  rt_state_lock();
  register_requires_locked(flags);
  rt_state_unlock();
}

void rt_register_image_info(__tgt_image_info *info) {
  if (!info)
    return;
  rt_state_lock();
  int n = info->number_images > 0 ? info->number_images : 1;
  int i = info->image_number;
  if (i < 0 || i >= n || n > 65536) {
    ompemu_error("ompemu", "image info " OMPEMU_PTR " has image %d of %d: "
                 "ignored", OMPEMU_P(info), i, n);
    rt_state_unlock();
    return;
  }
  if (n > npending_arch) {
    char **a = realloc(pending_arch, (size_t)n * sizeof *a);
    if (!a) {
      ompemu_error("ompemu", "out of memory recording image info " OMPEMU_PTR
                   " (image %d of %d): its arch is not known", OMPEMU_P(info),
                   i, n);
      rt_state_unlock();
      return;
    }
    memset(a + npending_arch, 0, (size_t)(n - npending_arch) * sizeof *a);
    pending_arch = a;
    npending_arch = n;
  }
  free(pending_arch[i]);
  pending_arch[i] = info->offload_arch ? strdup(info->offload_arch) : NULL;
  RT_TRACE(2, "image info: image %d of %d, arch %s", i, n,
           info->offload_arch ? info->offload_arch : "(none)");
  rt_state_unlock();
}

/* ELF machine of an image, or -1 if it is not ELF. */
static int image_machine(const __tgt_device_image *img) {
  const unsigned char *p = img->ImageStart;
  if (!p || (const char *)img->ImageEnd - (const char *)p < 20 ||
      memcmp(p, "\177ELF", 4))
    return -1;
  return p[18] | p[19] << 8;
}

/* The kind of device image IMG is for: its arch's, else its ELF
 * machine's; NULL when unknown. */
static const char *image_kind(const struct rt_image *img) {
  const char *k = rt_arch_kind(img->arch);
  if (k)
    return k;
  switch (image_machine(img->image)) {
  case 62:  /* EM_X86_64 */
  case 183: /* EM_AARCH64 */
  case 21:  /* EM_PPC64 */
    return "host";
  case 190: /* EM_CUDA */
    return "nvidia";
  case 224: /* EM_AMDGPU */
    return "amd";
  }
  return NULL;
}

/* Offer image IMG of lib L to plugin P: 1 if P claims it.  Refused when
 * P's device kind contradicts the image's arch, when P has claimed an
 * image of L already, or by P's is_valid_binary. */
static int offer_image(struct rt_lib *l, struct rt_image *img,
                       struct rt_plugin *p) {
  const char *akind = rt_arch_kind(img->arch);
  const char *pkind = rt_plugin_kind(p);
  if (akind && pkind && strcmp(akind, pkind)) {
    RT_TRACE(2, "  image %d (arch %s) is for %s devices: not offered to "
             "plugin %s", img->index, img->arch, akind, p->name);
    return 0;
  }
  for (int j = 0; j < l->nimages; j++)
    if (&l->images[j] != img && l->images[j].plugin == p)
      return 0;
  if (!p->is_valid_binary(img->image)) {
    RT_TRACE(2, "  image %d: plugin %s says it is not its binary",
             img->index, p->name);
    return 0;
  }
  img->plugin = p;
  RT_TRACE(1, "  image %d claimed by plugin %s", img->index, p->name);
  return 1;
}

/* Choose the plugin for image IMG of lib L: the first plugin, in list
 * order, that claims it (offer_image).  The default list's GPU plugins
 * are probed only when no plugin loaded claims it and the image is not
 * for the host (plugin_loader.c); they come after the plugins loaded in
 * list order, so the choice is the one an eager load would make. */
static void claim_image(struct rt_lib *l, struct rt_image *img) {
  int n = 0;
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next, n++)
    if (offer_image(l, img, p))
      return;
  const char *kind = image_kind(img);
  if (!(kind && !strcmp(kind, "host")) && rt_plugins_deferred(kind)) {
    struct rt_plugin *offered[n > 0 ? n : 1];
    int k = 0;
    for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
      offered[k++] = p;
    if (rt_plugins_probe(kind)) {
      for (struct rt_plugin *p = rt_state.plugins; p; p = p->next) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
          seen = offered[i] == p;
        if (!seen && offer_image(l, img, p))
          return;
      }
    }
  }
  RT_TRACE(1, "  image %d: no plugin can run it", img->index);
}

/* Make plugin P usable: assign its global device ids, the next ones free
 * (under the state lock; rt_state.devices has room for every loaded
 * plugin's devices).  0 / -1 (out of memory, reported). */
static int plugin_use(struct rt_plugin *p) {
  if (p->used)
    return 0;
  int32_t n0 = rt_state.num_devices;
  for (int32_t i = 0; i < p->num_devices; i++) {
    struct rt_device *d = rt_device_new(p, n0 + i, i);
    if (!d) {
      while (i-- > 0) {
        rt_device_destroy(rt_state.devices[n0 + i]);
        rt_state.devices[n0 + i] = NULL;
      }
      return -1;
    }
    rt_state.devices[n0 + i] = d;
  }
  p->first_id = n0;
  p->used = 1;
  __atomic_store_n(&rt_state.num_devices, n0 + p->num_devices, __ATOMIC_RELEASE);
  RT_TRACE(1, "plugin %s in use: global device ids %d..%d", p->name, n0,
           n0 + p->num_devices - 1);
  return 0;
}

/* Load the plugins unless that was done or offloading is disabled (under
 * the state lock).  1 if this call loaded them. */
static int load_plugins_once(void) {
  if (rt_state.plugins_loaded || rt_offload_policy() == 0)
    return 0;
  rt_load_plugins_locked();
  return 1;
}

int rt_registry_use_all_plugins(void) {
  rt_state_lock();
  int loaded = rt_exiting ? 0 : load_plugins_once();
  if (!rt_exiting)
    rt_plugins_probe(NULL);
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    plugin_use(p);
  rt_state_unlock();
  return loaded;
}

static char *object_name(const void *addr) {
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname && *info.dli_fname)
    return strdup(info.dli_fname);
  char buf[64];
  snprintf(buf, sizeof buf, "descriptor@" OMPEMU_PTR, OMPEMU_P(addr));
  return strdup(buf);
}

static void lib_free(struct rt_lib *l) {
  for (int i = 0; i < l->nimages; i++)
    free((char *)l->images[i].arch);
  free(l->images);
  free(((struct rt_lib_core *)l)->name);
  rt_desc_view_free(&((struct rt_lib_core *)l)->view);
  free(l);
}

/* A new rt_lib for DESC, named AS (NULL: the object holding DESC), its
 * images' archs taken from the pending image infos; NULL when out of
 * memory (reported). */
static struct rt_lib *lib_new(__tgt_bin_desc *desc, const char *as) {
  struct rt_lib_core *lc = calloc(1, sizeof *lc);
  int n = desc->NumDeviceImages > 0 ? desc->NumDeviceImages : 0;
  struct rt_image *images = n ? calloc((size_t)n, sizeof *images) : NULL;
  char *name = as ? strdup(as) : object_name(desc);
  if (!lc || (n && !images) || !name) {
    ompemu_error("ompemu", "out of memory registering descriptor " OMPEMU_PTR
                 ": its target regions run on the host", OMPEMU_P(desc));
    free(lc);
    free(images);
    free(name);
    return NULL;
  }
  struct rt_lib *l = &lc->pub;
  l->desc = desc;
  l->nimages = n;
  l->images = images;
  lc->name = name;
  if (rt_desc_view_make(desc, name, &lc->view) != 0) {
    lib_free(l);
    return NULL;
  }
  struct rt_desc_view *v = &lc->view;
  l->nimages = v->nimages; /* unreadable images left out */
  l->host_begin = v->entries;
  l->host_end = v->entries ? v->entries + v->nentries : NULL;
  if (v->requires != OMP_REQ_UNDEFINED)
    register_requires_locked(v->requires);
  for (int i = 0; i < l->nimages; i++) {
    struct rt_image *img = &l->images[i];
    int at = v->from[i]; /* its index in the descriptor */
    img->lib = l;
    img->index = at;
    img->image = &v->images[i];
    if (npending_arch == n && pending_arch[at]) {
      img->arch = pending_arch[at];
      pending_arch[at] = NULL;
    } else if (v->arch[i]) {
      img->arch = v->arch[i];
      v->arch[i] = NULL;
    }
  }
  return l;
}

static void trace_lib(const struct rt_lib *l) {
  RT_TRACE(1, "register lib %s: descriptor " OMPEMU_PTR ", %d image(s), %ld "
           "host entries", rt_lib_name(l), OMPEMU_P(l->desc), l->nimages,
           (long)(l->host_end - l->host_begin));
  for (int i = 0; i < l->nimages; i++) {
    const struct rt_image *img = &l->images[i];
    RT_TRACE(1, "  image %d: arch %s, " OMPEMU_PTR "..+%ld bytes, e_machine %d",
             i, img->arch ? img->arch : "(unknown)",
             OMPEMU_P(img->image->ImageStart),
             (long)((char *)img->image->ImageEnd -
                    (char *)img->image->ImageStart),
             image_machine(img->image));
  }
  if (OMPEMU_TRACE_ON(1))
    for (__tgt_offload_entry *e = l->host_begin; e < l->host_end; e++)
      RT_TRACE(1, "  host entry %ld: %-12s " OMPEMU_PTR " size %zu  %s",
               (long)(e - l->host_begin), rt_entry_kind(e), OMPEMU_P(e->addr),
               e->size, e->name ? e->name : "(null)");
}

/* A loaded plugin for devices of KIND ("nvidia", "amd"), or NULL. */
static const struct rt_plugin *plugin_of_kind(const char *kind) {
  for (const struct rt_plugin *p = rt_state.plugins; p; p = p->next) {
    const char *k = rt_plugin_kind(p);
    if (k && !strcmp(k, kind))
      return p;
  }
  return NULL;
}

/* Why no plugin claimed image IMG of L, into WHY. */
static void unclaimed_why(const struct rt_lib *l, const struct rt_image *img,
                          char *why, size_t len) {
  const char *env = getenv("OMPEMU_PLUGINS");
  const char *kind = image_kind(img);
  char none[256];
  if (!rt_state.plugins && rt_plugin_without_device(NULL, none, sizeof none))
    snprintf(why, len, "%s%s%s%s", none, env ? " (OMPEMU_PLUGINS=" : "",
             env ? env : "", env ? ")" : "");
  else if (!rt_state.plugins && !rt_plugins_deferred(NULL))
    snprintf(why, len, "no plugin is loaded%s%s%s", env ? " (OMPEMU_PLUGINS="
             : "", env ? env : "", env ? ")" : "");
  else if (kind && strcmp(kind, "host") && !plugin_of_kind(kind))
    snprintf(why, len, "its image %d is for %s devices%s%s%s, and no plugin "
             "with such a device is loaded", img->index, kind,
             img->arch ? " (" : "", img->arch ? img->arch : "",
             img->arch ? ")" : "");
  else if (kind && strcmp(kind, "host"))
    snprintf(why, len, "plugin %s, of its image %d's %s devices, refused it "
             "(OMPEMU_TRACE=1 says why: an architecture no device has?)",
             plugin_of_kind(kind)->name, img->index, kind);
  else
    snprintf(why, len, "every plugin loaded refused its image %d, which is "
             "no program for a device it has (`ompemu-dump %s` shows what "
             "the image holds)", img->index, rt_lib_name(l));
}

/* Why a descriptor with GIVEN images registers none, into WHY. */
static void unread_why(int given, char *why, size_t len) {
  snprintf(why, len, "none of its %d device image%s can be read (empty, "
           "reversed, too large or unreadable)", given, given == 1 ? "" : "s");
}

/* Whether a device can run L: 1 when a plugin claimed one of its images;
 * 0 when it lists images and none was claimed or none could be read, the
 * reason in WHY; -1 when it lists no image (nothing to run on a device).
 * The one rule for the registration and for ompemu-dump's question. */
static int runnable(const struct rt_lib *l, char *why, size_t len) {
  int given = l->desc->NumDeviceImages;
  for (int i = 0; i < l->nimages; i++)
    if (l->images[i].plugin)
      return 1;
  if (l->nimages)
    unclaimed_why(l, &l->images[0], why, len);
  else if (given > 0)
    unread_why(given, why, len);
  else {
    snprintf(why, len, "its descriptor lists no device image");
    return -1;
  }
  return 0;
}

/* L has device images and none of them can run: say so.  Its target
 * regions would run on the host while the run looks like an offloaded
 * one, so ompemu stops the program unless the user chose the host
 * (OMP_TARGET_OFFLOAD=disabled) or mandatory offloading, which fails at
 * the first construct.  1: stop. */
static int refuse_unrunnable(const struct rt_lib *l) {
  char why[1024], stop[200] = "";
  if (runnable(l, why, sizeof why))
    return 0;
  const char *policy = getenv("OMP_TARGET_OFFLOAD");
  if (policy && !strcasecmp(policy, "disabled"))
    return 0;
  /* Mandatory: the first construct fails as LLVM's does. */
  int mandatory = policy && !strcasecmp(policy, "mandatory");
  if (!mandatory)
    snprintf(stop, sizeof stop, "; ompemu does not run them on the host "
             "instead (OMP_TARGET_OFFLOAD=disabled does), so the program "
             "stops here (exit status %d)", RT_EXIT_UNRUNNABLE);
  ompemu_error("ompemu", "%s: no device can run its target regions: %s%s",
               rt_lib_name(l), why, stop);
  return !mandatory;
}

/* Send stderr to /dev/null: what the runtime and its plugins would print
 * (plugins print some lines themselves, not through the runtime).  The
 * saved stderr to give to unmute_stderr; -1 when it could not be done. */
static int mute_stderr(void) {
  fflush(stderr);
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved < 0 || null < 0 || dup2(null, 2) < 0) {
    if (saved >= 0)
      close(saved);
    saved = -1;
  }
  if (null >= 0)
    close(null);
  return saved;
}

static void unmute_stderr(int saved) {
  if (saved < 0)
    return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

/* claim_query.h: the claims of a registration, for ompemu-dump. */
RT_EXPORT int ompemu_claim_images(__tgt_bin_desc *desc, const char *name,
                                  const char **plugin, char *why,
                                  size_t whylen, int quiet) {
  int n = desc && desc->NumDeviceImages > 0 ? desc->NumDeviceImages : 0;
  for (int i = 0; i < n; i++)
    plugin[i] = NULL;
  if (whylen)
    why[0] = '\0';
  rt_state_lock();
  int saved = quiet ? mute_stderr() : -1;
  load_plugins_once();
  struct rt_lib *l = desc ? lib_new(desc, name) : NULL;
  pending_arch_free();
  if (!l) {
    unmute_stderr(saved);
    rt_state_unlock();
    snprintf(why, whylen, "its descriptor cannot be read");
    return -1;
  }
  int claimed = 0;
  for (int i = 0; i < l->nimages; i++) {
    struct rt_image *img = &l->images[i];
    claim_image(l, img);
    if (img->plugin && img->index >= 0 && img->index < n) {
      plugin[img->index] = img->plugin->name;
      claimed++;
    }
  }
  if (runnable(l, why, whylen) < 0)
    claimed = -1;
  lib_free(l);
  unmute_stderr(saved);
  rt_state_unlock();
  return claimed;
}

int rt_registry_add(__tgt_bin_desc *desc) {
  if (!desc)
    return 0;
  rt_state_lock();
  if (rt_exiting) {
    rt_state_unlock();
    return 0;
  }
  for (struct rt_lib *l = rt_state.libs; l; l = l->next)
    if (l->desc == desc) {
      RT_TRACE(1, "descriptor " OMPEMU_PTR " is already registered",
               OMPEMU_P(desc));
      rt_state_unlock();
      return 0;
    }
  int loaded = load_plugins_once();
  struct rt_lib *l = lib_new(desc, NULL);
  pending_arch_free();
  if (!l) {
    rt_state_unlock();
    return loaded;
  }
  trace_lib(l);
  for (int i = 0; i < l->nimages; i++)
    claim_image(l, &l->images[i]);
  if (refuse_unrunnable(l)) {
    lib_free(l);
    rt_state_unlock();
    exit(RT_EXIT_UNRUNNABLE);
  }
  rt_check_global_sizes(l);
  /* Device ids are handed out in plugin order to the plugins that claimed
   * an image (LLVM 14: only plugins in use have devices). */
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    for (int i = 0; i < l->nimages; i++)
      if (l->images[i].plugin == p) {
        plugin_use(p);
        break;
      }
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->register_lib &&
        p->register_lib(rt_lib_plugin_desc(l)) != OFFLOAD_SUCCESS)
      ompemu_error("ompemu", "plugin %s failed to register %s (descriptor "
                   OMPEMU_PTR ")", p->name, rt_lib_name(l), OMPEMU_P(desc));
  struct rt_lib **tail = &rt_state.libs;
  while (*tail)
    tail = &(*tail)->next;
  *tail = l;
  rt_index_rebuild();
  atomic_fetch_add(&rt_libs_gen, 1);
  rt_state_unlock();
  return loaded;
}

/* Unregister L, linked at *PP (under the state lock). */
static void unregister_locked(struct rt_lib **pp) {
  struct rt_lib *l = *pp;
  RT_TRACE(1, "unregister lib %s: descriptor " OMPEMU_PTR, rt_lib_name(l),
           OMPEMU_P(l->desc));
  int32_t nd = rt_state.num_devices;
  for (int32_t i = 0; i < nd; i++)
    rt_device_unload_lib(rt_state.devices[i], l);
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->used && p->unregister_lib &&
        p->unregister_lib(rt_lib_plugin_desc(l)) != OFFLOAD_SUCCESS)
      ompemu_error("ompemu", "plugin %s failed to unregister %s (descriptor "
                   OMPEMU_PTR ")", p->name, rt_lib_name(l), OMPEMU_P(l->desc));
  *pp = l->next;
  rt_index_rebuild();
  atomic_fetch_add(&rt_libs_gen, 1);
  lib_free(l);
}

void rt_unregister_lib(__tgt_bin_desc *desc) {
  rt_state_lock();
  struct rt_lib **pp = &rt_state.libs;
  while (*pp && (*pp)->desc != desc)
    pp = &(*pp)->next;
  if (*pp && !rt_exiting)
    unregister_locked(pp);
  rt_state_unlock();
}

void rt_registry_shutdown(void) {
  rt_state_lock();
  if (rt_exiting) {
    rt_state_unlock();
    return;
  }
  if (rt_state.libs)
    RT_TRACE(1, "process exit: unregistering the remaining libraries");
  /* Reverse registration order, while every plugin is still alive. */
  while (rt_state.libs) {
    struct rt_lib **pp = &rt_state.libs;
    while ((*pp)->next)
      pp = &(*pp)->next;
    unregister_locked(pp);
  }
  rt_exiting = 1;
  /* Nothing is loaded any more: free what is left.  The plugin libraries
   * stay loaded (their own exit work runs after this). */
  int32_t nd = rt_state.num_devices;
  __atomic_store_n(&rt_state.num_devices, 0, __ATOMIC_RELEASE);
  for (int32_t i = 0; i < nd; i++)
    rt_device_destroy(rt_state.devices[i]);
  rt_devices_free();
  while (rt_state.plugins) {
    struct rt_plugin *p = rt_state.plugins;
    rt_state.plugins = p->next;
    rt_plugin_free(p);
  }
  pending_arch_free();
  rt_index_free();
  rt_state_unlock();
}
