/* Fields of the location strings compilers emit: an ident's psource
 * (";file;function;line;column;;") and a map name, which clang writes
 * ";expr;file;line;column;;" and flang ";file;expr;line;column;;".  Used
 * by the messages, the observers and the checker. */
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

/* Whether field F of S names a source file: a path, or a name with a
 * C, C++, Fortran or CUDA source suffix.  Looked at in place (the first
 * 511 bytes, as loc_field would copy): every copy's name asks this. */
static inline int loc_field_is_file(const char *s, int f) {
  static const char *const sfx[] = {".c",   ".cc",  ".cpp", ".cxx", ".C",
                                    ".h",   ".hpp", ".f",   ".F",   ".f90",
                                    ".F90", ".f95", ".F95", ".f03", ".F03",
                                    ".f08", ".F08", ".for", ".ftn", ".cu"};
  if (!s || s[0] != ';')
    return 0;
  const char *p = s + 1;
  for (int i = 0; i < f; i++) {
    p = strchr(p, ';');
    if (!p)
      return 0;
    p++;
  }
  size_t n = strcspn(p, ";");
  if (n > 511)
    n = 511;
  if (!n)
    return 0;
  if (memchr(p, '/', n))
    return 1;
  const char *dot = p + n;
  while (dot > p && dot[-1] != '.')
    dot--;
  if (dot == p)
    return 0;
  size_t k = (size_t)(p + n - --dot);
  if (k > 4)
    return 0;
  for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++)
    if (!strncmp(dot, sfx[i], k) && sfx[i][k] == '\0')
      return 1;
  return 0;
}

/* The field of map name S holding the file (1 for clang; 0 for flang,
 * which puts the file first); the expression is the other of fields 0
 * and 1.  Clang's "s.c" member expression looks like a file too, so only
 * a file in field 0 beside a non-file in field 1 means flang's order. */
static inline int map_name_file_field(const char *s) {
  return loc_field_is_file(s, 0) && !loc_field_is_file(s, 1) ? 0 : 1;
}

/* The expression of map name S into BUF; NULL when S has none (flang
 * writes "unknown" where it has no name). */
static inline const char *map_name_expr(const char *s, char *buf, size_t len) {
  if (!loc_field(s, 1 - map_name_file_field(s), buf, len) || !buf[0] ||
      !strcmp(buf, "unknown"))
    return NULL;
  return buf;
}

#endif
