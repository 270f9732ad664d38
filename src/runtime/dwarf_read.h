/* Bounds-checked reading of DWARF data (little-endian, as on x86-64) and
 * the debug sections of an ELF object, for dwarf_line.c, dwarf_compdir.c
 * and dwarf_member.c.  A read past the end sets BAD and yields 0. */
#ifndef OMPEMU_DWARF_READ_H
#define OMPEMU_DWARF_READ_H

#include "rt.h"

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dwr {
  const uint8_t *p, *end;
  int bad;
};

struct dw_sec {
  const uint8_t *d;
  size_t n;
};

/* The debug sections the readers use (missing: d NULL). */
struct dw_secs {
  struct dw_sec line, line_str, str, info, abbrev, str_offsets;
};

enum {
  DW_FORM_indirect = 0x16,
  DW_FORM_implicit_const = 0x21,
};

static inline int dwr_need(struct dwr *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = 1;
    r->p = r->end;
    return 0;
  }
  return 1;
}

static inline uint64_t dwr_fixed(struct dwr *r, unsigned n) {
  uint64_t v = 0;
  if (!dwr_need(r, n))
    return 0;
  for (unsigned i = 0; i < n && i < 8; i++)
    v |= (uint64_t)r->p[i] << (8 * i);
  r->p += n;
  return v;
}

static inline uint64_t dwr_uleb(struct dwr *r) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (;;) {
    if (!dwr_need(r, 1))
      return 0;
    uint8_t b = *r->p++;
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80))
      return v;
  }
}

static inline int64_t dwr_sleb(struct dwr *r) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b;
  do {
    if (!dwr_need(r, 1))
      return 0;
    b = *r->p++;
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  if (shift < 64 && (b & 0x40))
    v |= ~(uint64_t)0 << shift;
  return (int64_t)v;
}

/* Skips an abbreviation's attribute specifications, up to and with the
 * (0, 0) pair that ends them. */
static inline void dwr_skip_specs(struct dwr *r) {
  for (;;) {
    uint64_t at = dwr_uleb(r), form = dwr_uleb(r);
    if (form == DW_FORM_implicit_const) /* its value follows */
      (void)dwr_sleb(r);
    if ((at == 0 && form == 0) || r->bad)
      return;
  }
}

/* The next attribute specification of an abbreviation read from AR: its
 * attribute and form into *AT and *FORM (an indirect form resolved from
 * the DIE's values, VALS), an implicit constant's value into *IMPLICIT.
 * 0 at the (0, 0) pair that ends them, or when AR is bad. */
static inline int dwr_next_spec(struct dwr *ar, struct dwr *vals, uint64_t *at,
                                uint64_t *form, int64_t *implicit) {
  *at = dwr_uleb(ar);
  *form = dwr_uleb(ar);
  *implicit = *form == DW_FORM_implicit_const ? dwr_sleb(ar) : 0;
  if ((*at == 0 && *form == 0) || ar->bad)
    return 0;
  for (int n = 0; *form == DW_FORM_indirect && n < 4; n++)
    *form = dwr_uleb(vals);
  return 1;
}

/* A NUL-terminated string in place, or NULL (BAD set). */
static inline const char *dwr_cstr(struct dwr *r) {
  if (r->bad)
    return NULL;
  const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
  if (!z) {
    r->bad = 1;
    r->p = r->end;
    return NULL;
  }
  const char *s = (const char *)r->p;
  r->p = z + 1;
  return s;
}

/* The string at offset OFF of section S, or NULL. */
static inline const char *dw_str_at(const struct dw_sec *s, uint64_t off) {
  if (!s->d || off >= s->n || !memchr(s->d + off, 0, s->n - off))
    return NULL;
  return (const char *)s->d + off;
}

/* Reads a unit's initial length: the end of the unit (or NULL when it
 * does not fit), and its offset size (4 or 8) in *OFFSZ. */
static inline const uint8_t *dwr_unit(struct dwr *r, unsigned *offsz) {
  uint64_t len = dwr_fixed(r, 4);
  *offsz = 4;
  if (len == 0xffffffffu) {
    len = dwr_fixed(r, 8);
    *offsz = 8;
  } else if (len >= 0xfffffff0u) {
    r->bad = 1;
    return NULL;
  }
  if (r->bad || len > (uint64_t)(r->end - r->p))
    return NULL;
  return r->p + len;
}

/* Fills S from E: 0, or -1 with the reason in ERR. */
RT_HIDDEN int dw_sections(Elf *e, struct dw_secs *s, char *err,
                          size_t errlen);
/* Skips (or, for the forms a string, a constant or an offset can have,
 * reads into *STR / *VAL) one attribute value of FORM in a unit of
 * VERSION with offsets of OFFSZ and addresses of ADDRSZ bytes.  Strings by
 * index (strx) are left to the caller: *VAL is the index, *STR NULL.  0,
 * or -1 for an unknown form. */
RT_HIDDEN int dw_form_value(struct dwr *r, uint64_t form, unsigned offsz,
                            unsigned addrsz, unsigned version,
                            const struct dw_secs *s, const char **str,
                            uint64_t *val);
/* Abbreviation CODE in the table at OFF of .debug_abbrev (its tag, then
 * its children flag and attribute specifications), or NULL. */
RT_HIDDEN const uint8_t *dw_find_abbrev(const struct dw_sec *ab, uint64_t off,
                                        uint64_t code);
/* The compilation directory of the unit whose DW_AT_stmt_list is
 * LINE_OFF (for line tables before version 5), or NULL. */
RT_HIDDEN const char *dw_comp_dir(const struct dw_secs *s, uint64_t line_off);

#endif
