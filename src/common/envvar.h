/* Parsing of OMPEMU_* and LIBOMPTARGET_* environment variables with clear
 * errors: a bad value is reported (naming the variable and the value) and
 * the default is used; nothing aborts. */
#ifndef OMPEMU_ENVVAR_H
#define OMPEMU_ENVVAR_H

#include <stddef.h>
#include <stdint.h>

/* Integer in [MIN, MAX] (decimal, or 0x hex).  Unset: *OUT = DEF, 0.
 * Malformed or out of range: message, *OUT = DEF, returns -1. */
int ompemu_env_int(const char *name, long long def, long long min,
                   long long max, long long *out);

/* Byte size with optional K/M/G suffix (powers of 1024), in [MIN, MAX].
 * Same conventions as ompemu_env_int. */
int ompemu_env_size(const char *name, size_t def, size_t min, size_t max,
                    size_t *out);

/* Boolean: 1/0, true/false, yes/no, on/off (any case). */
int ompemu_env_bool(const char *name, int def, int *out);

/* LIBOMPTARGET_INFO as LLVM reads it (decimal; see README.md), the one
 * parse the runtime and the plugins share.  Unset: *OUT = 0, 0.  Not a
 * number: message, *OUT = 0, -1. */
int ompemu_env_info(uint32_t *out);

#endif
