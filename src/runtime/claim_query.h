/* What ompemu-dump asks this build's runtime about a descriptor's device
 * images: which plugin would claim each, decided by the registration's
 * own code (registry.c), so the tool and a run never disagree.  The tool
 * finds the function with dlsym in libomptarget.so (version node
 * OMPEMU_PRIVATE). */
#ifndef OMPEMU_RT_CLAIM_QUERY_H
#define OMPEMU_RT_CLAIM_QUERY_H

#include <ompemu/abi.h>
#include <stddef.h>

#define OMPEMU_CLAIM_IMAGES "ompemu_claim_images"

/* Offer DESC's images to the plugins as __tgt_register_lib would (the
 * plugins loaded, OMPEMU_PLUGINS honoured), registering nothing.
 * PLUGIN[i] (DESC->NumDeviceImages slots) gets the name of the plugin
 * that claims image i, or NULL.  When no image is claimed, WHY gets the
 * reason the registration gives before it stops the program, naming the
 * object NAME.  Returns the number of images claimed (0: the
 * registration stops the program); -1 when DESC or all its images cannot
 * be read, which registers nothing (WHY says so).  QUIET: the runtime
 * and the plugins it loads print nothing meanwhile (their errors about a
 * damaged image name addresses of the asking process; the tool says what
 * matters in its own terms). */
typedef int ompemu_claim_images_fn(__tgt_bin_desc *desc, const char *name,
                                   const char **plugin, char *why,
                                   size_t whylen, int quiet);

#endif
