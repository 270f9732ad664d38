/* Fields of the location strings compilers emit: an ident's psource
 * (";file;function;line;column;;") and a map name (";expr;file;line;
 * column;;").  Used by the messages, the observers and the checker. */
#ifndef OMPEMU_LOCSTR_H
#define OMPEMU_LOCSTR_H

#include <stddef.h>
#include <string.h>

/* Field FIELDNO (0-based, after the leading ';') of S into BUF, cut to
 * LEN - 1 bytes; NULL when S is not such a string or lacks that field. */
static inline const char *loc_field(const char *s, int fieldno, char *buf,
                                    size_t len) {
  if (!s || s[0] != ';')
    return NULL;
  const char *p = s + 1;
  for (int i = 0; i < fieldno; i++) {
    p = strchr(p, ';');
    if (!p)
      return NULL;
    p++;
  }
  const char *e = strchr(p, ';');
  size_t n = e ? (size_t)(e - p) : strlen(p);
  if (n >= len)
    n = len - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

#endif
