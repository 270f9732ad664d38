/* Fields of the location strings compilers emit: an ident's psource
 * (";file;function;line;column;;") and a map name, which clang writes
 * ";expr;file;line;column;;" and flang ";file;expr;line;column;;".  Used
 * by the messages, the observers and the checker. */
#ifndef OMPEMU_LOCSTR_H
#define OMPEMU_LOCSTR_H

#include <stddef.h>
#include <string.h>

/* Field FIELDNO (0-based, after the leading ';') of S in place: its first
 * byte, and its length in *N; NULL when S is not such a string or lacks
 * that field. */
static inline const char *loc_field_at(const char *s, int fieldno, size_t *n) {
  if (!s || s[0] != ';')
    return NULL;
  const char *p = s + 1;
  for (int i = 0; i < fieldno; i++) {
    while (*p && *p != ';')
      p++;
    if (!*p)
      return NULL;
    p++;
  }
  size_t k = 0;
  while (p[k] && p[k] != ';')
    k++;
  *n = k;
  return p;
}

/* Field FIELDNO of S into BUF, cut to LEN - 1 bytes; NULL when S is not
 * such a string or lacks that field. */
static inline const char *loc_field(const char *s, int fieldno, char *buf,
                                    size_t len) {
  size_t n;
  const char *p = loc_field_at(s, fieldno, &n);
  if (!p)
    return NULL;
  if (n >= len)
    n = len - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

/* Whether field F of S names a source file: a path, or a name with a
 * C, C++, Fortran or CUDA source suffix, in its first 511 bytes.  Looked
 * at in place: the name of every copy asks this. */
static inline int loc_field_is_file(const char *s, int f) {
  static const char *const sfx[] = {".c",   ".cc",  ".cpp", ".cxx", ".C",
                                    ".h",   ".hpp", ".f",   ".F",   ".f90",
                                    ".F90", ".f95", ".F95", ".f03", ".F03",
                                    ".f08", ".F08", ".for", ".ftn", ".cu"};
  size_t n;
  const char *p = loc_field_at(s, f, &n);
  if (!p || !n)
    return 0;
  if (n > 511)
    n = 511;
  if (memchr(p, '/', n))
    return 1;
  const char *dot = p + n;
  while (dot > p && dot[-1] != '.')
    dot--;
  if (dot-- == p)
    return 0;
  size_t k = (size_t)(p + n - dot);
  for (size_t i = 0; k <= 4 && i < sizeof sfx / sizeof *sfx; i++)
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

/* Whether map name S has an expression (flang writes "unknown" where it
 * has none); *F: its field. */
static inline int map_name_has_expr_at(const char *s, int *f) {
  size_t n;
  *f = 1 - map_name_file_field(s);
  const char *p = loc_field_at(s, *f, &n);
  return p && n && !(n == 7 && !memcmp(p, "unknown", 7));
}

static inline int map_name_has_expr(const char *s) {
  int f;
  return map_name_has_expr_at(s, &f);
}

/* The expression of map name S into BUF; NULL when S has none. */
static inline const char *map_name_expr(const char *s, char *buf, size_t len) {
  int f;
  return map_name_has_expr_at(s, &f) ? loc_field(s, f, buf, len) : NULL;
}

#endif
