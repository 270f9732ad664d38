/* Environment variable parsing (see envvar.h). */
#include "config.h"
#include "envvar.h"
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static int bad(const char *name, const char *v, const char *why) {
  ompemu_error("ompemu", "%s='%s' ignored: %s", name, v, why);
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
  if (x < min || x > max)
    return bad(name, v, "out of range");
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
