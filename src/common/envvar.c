/* Environment variable parsing (see envvar.h). */
#include "config.h"
#include "envvar.h"
#include "trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Reported once per process: the runtime and its plugins each read the
 * settings they need, some the same ones. */
static int bad(const char *name, const char *v, const char *why) {
  ompemu_report((enum ompemu_severity)(OMPEMU_ERROR | OMPEMU_ONCE),
                "ompemu: error: ", "%s='%s' ignored: %s", name, v, why);
  return -1;
}

int ompemu_env_int(const char *name, long long def, long long min,
                   long long max, long long *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v)
    return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 0);
  if (errno || end == v || *end)
    return bad(name, v, "not an integer");
  if (x < min || x > max) {
    char why[96];
    snprintf(why, sizeof why, "out of range [%lld, %lld]", min, max);
    return bad(name, v, why);
  }
  *out = x;
  return 0;
}

/* N bytes as a setting would write it: "16G", "64K", "1000". */
static const char *size_words(size_t n, char *buf, size_t len) {
  static const char suffix[] = "KMGT";
  int k = -1;
  while (n && n % 1024 == 0 && k < 3) {
    n /= 1024;
    k++;
  }
  if (k < 0)
    snprintf(buf, len, "%zu", n);
  else
    snprintf(buf, len, "%zu%c", n, suffix[k]);
  return buf;
}

int ompemu_env_size(const char *name, size_t def, size_t min, size_t max,
                    size_t *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v)
    return 0;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno || end == v || *v == '-')
    return bad(name, v, "not a size");
  unsigned shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  case 't': case 'T': shift = 40; end++; break;
  default: break;
  }
  if (*end == 'i' || *end == 'B' || *end == 'b')
    end += (*end == 'i' && (end[1] == 'B' || end[1] == 'b')) ? 2 : 1;
  if (*end)
    return bad(name, v, "not a size (use e.g. 512M or 2G)");
  if (shift && x > (~0ULL >> shift))
    return bad(name, v, "too large");
  x <<= shift;
  if (x < min || x > max) {
    char why[96], lo[32], hi[32];
    snprintf(why, sizeof why, "out of range [%s, %s]",
             size_words(min, lo, sizeof lo), size_words(max, hi, sizeof hi));
    return bad(name, v, why);
  }
  *out = (size_t)x;
  return 0;
}

int ompemu_env_bool(const char *name, int def, int *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v)
    return 0;
  static const char *yes[] = {"1", "true", "yes", "on"};
  static const char *no[] = {"0", "false", "no", "off"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(v, yes[i])) { *out = 1; return 0; }
    if (!strcasecmp(v, no[i])) { *out = 0; return 0; }
  }
  return bad(name, v, "not a boolean (use 1/0, true/false)");
}

int ompemu_env_info(uint32_t *out) {
  const char *v = getenv("LIBOMPTARGET_INFO");
  *out = 0;
  if (!v || !*v)
    return 0;
  /* Decimal, leading digits only, as LLVM's std::stoi reads it; where
   * stoi throws (no digits) LLVM aborts, and we report it and use 0. */
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (end == v || errno || x < INT32_MIN || x > (long long)UINT32_MAX)
    return bad("LIBOMPTARGET_INFO", v, "not a decimal number");
  *out = (uint32_t)x;
  return 0;
}
