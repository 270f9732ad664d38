/* The name of the part of a variable at a byte offset, from .debug_info:
 * the variable's declaration (by name and line), then its type walked down
 * through members and array elements to the offset.  DWARF 2 to 5, the
 * forms clang and flang emit (strings by offset or by index). */
#include "config.h"
#include "dwarf_member.h"
#include "dwarf_read.h"

#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum {
  TAG_array = 0x01,
  TAG_class = 0x02,
  TAG_formal_parameter = 0x05,
  TAG_member = 0x0d,
  TAG_pointer = 0x0f,
  TAG_reference = 0x10,
  TAG_structure = 0x13,
  TAG_typedef = 0x16,
  TAG_union = 0x17,
  TAG_subrange = 0x21,
  TAG_const = 0x26,
  TAG_variable = 0x34,
  TAG_volatile = 0x35,
  TAG_restrict = 0x37,
  TAG_rvalue_reference = 0x42,
  TAG_atomic = 0x47,
  TAG_immutable = 0x4b,
};

enum {
  AT_name = 0x03,
  AT_byte_size = 0x0b,
  AT_bit_size = 0x0d,
  AT_language = 0x13,
  AT_lower_bound = 0x22,
  AT_upper_bound = 0x2f,
  AT_count = 0x37,
  AT_data_member_location = 0x38,
  AT_decl_line = 0x3b,
  AT_type = 0x49,
  AT_data_location = 0x50,
  AT_data_bit_offset = 0x6b,
  AT_str_offsets_base = 0x72,
};

/* Most steps a name takes (members and arrays), most array dimensions. */
#define MAX_STEPS 12
#define MAX_DIMS 7
/* Abbreviation codes indexed directly up to this; a table with larger
 * codes is searched. */
#define MAX_CODES 65536
/* Objects kept open, expressions whose declarations are remembered, and
 * declarations of one name and line that are compared. */
#define MAX_OBJECTS 8
#define MAX_EXPRS 64
#define MAX_DECLS 8

struct unit {
  const struct dw_secs *s;
  uint64_t off;             /* the unit header's offset in .debug_info */
  const uint8_t *dies, *end; /* its first DIE, its end */
  unsigned version, offsz, addrsz;
  uint64_t abbrev_off, str_base;
  int fortran;
  const uint8_t **codes; /* by code: the abbreviation after its code */
  size_t ncodes;
};

struct die {
  uint64_t tag;
  int children;
  const char *name;
  uint64_t type; /* DW_AT_type's DIE, an offset in .debug_info; 0: none */
  uint64_t size, line;
  int64_t loc, lower, upper, count;
  uint64_t bit_size, bit_offset; /* a bitfield member's */
  int has_size, has_loc, has_lower, has_upper, has_count, has_bit_offset;
  int descriptor; /* DW_AT_data_location: a Fortran array's descriptor */
  const uint8_t *next; /* after its attributes: a child or the next DIE */
};

static void unit_free(struct unit *u) {
  free(u->codes);
  u->codes = NULL;
}

/* Indexes the abbreviations of U's table by code. */
static void index_codes(struct unit *u) {
  const struct dw_sec *ab = &u->s->abbrev;
  u->codes = NULL;
  u->ncodes = 0;
  if (!ab->d || u->abbrev_off >= ab->n)
    return;
  struct dwr r = {ab->d + u->abbrev_off, ab->d + ab->n, 0};
  size_t cap = 0;
  while (!r.bad) {
    uint64_t c = dwr_uleb(&r);
    if (c == 0 || c >= MAX_CODES)
      break;
    if (c >= cap) {
      size_t nc = cap ? cap : 64;
      while (nc <= c)
        nc *= 2;
      const uint8_t **n = realloc(u->codes, nc * sizeof *n);
      if (!n)
        break;
      memset(n + cap, 0, (nc - cap) * sizeof *n);
      u->codes = n;
      cap = nc;
    }
    u->codes[c] = r.p;
    if (c >= u->ncodes)
      u->ncodes = c + 1;
    (void)dwr_uleb(&r);
    (void)dwr_fixed(&r, 1);
    dwr_skip_specs(&r);
  }
}

/* The abbreviation CODE of U (at its tag), or NULL. */
static const uint8_t *abbrev_of(const struct unit *u, uint64_t code) {
  if (code < u->ncodes && u->codes[code])
    return u->codes[code];
  return dw_find_abbrev(&u->s->abbrev, u->abbrev_off, code);
}

/* The string at index I of U's string offsets, or NULL. */
static const char *strx(const struct unit *u, uint64_t i) {
  const struct dw_sec *so = &u->s->str_offsets;
  uint64_t at = u->str_base + i * u->offsz;
  if (!so->d || at + u->offsz > so->n || at < u->str_base)
    return NULL;
  struct dwr r = {so->d + at, so->d + so->n, 0};
  return dw_str_at(&u->s->str, dwr_fixed(&r, u->offsz));
}

static int is_strx(uint64_t form) {
  return form == 0x1a || (form >= 0x25 && form <= 0x28) || form == 0x1f02;
}

/* A reference form's value as an offset in .debug_info (0: none). */
static uint64_t ref_of(const struct unit *u, uint64_t form, uint64_t val) {
  switch (form) {
  case 0x11: case 0x12: case 0x13: case 0x14: case 0x15:
    return u->off + val;
  case 0x10:
    return val;
  default:
    return 0;
  }
}

static int is_constant(uint64_t form) {
  switch (form) {
  case 0x05: case 0x06: case 0x07: case 0x0b: case 0x0d: case 0x0f:
  case DW_FORM_implicit_const:
    return 1;
  default:
    return 0;
  }
}

/* A member location given as an expression: DW_OP_plus_uconst N (DWARF 2
 * and 3), or DW_OP_constu N. */
static int loc_expr(const uint8_t *p, size_t n, int64_t *loc) {
  struct dwr r = {p, p + n, 0};
  uint8_t op = (uint8_t)dwr_fixed(&r, 1);
  if (op != 0x23 && op != 0x10)
    return 0;
  *loc = (int64_t)dwr_uleb(&r);
  return !r.bad && r.p == r.end;
}

/* Reads the DIE at P of U.  1: a DIE in *D; 0: a null entry (the end of
 * a list of siblings; D->next set); -1: malformed. */
static int read_die(const struct unit *u, const uint8_t *p, struct die *d) {
  memset(d, 0, sizeof *d);
  struct dwr r = {p, u->end, 0};
  uint64_t code = dwr_uleb(&r);
  d->next = r.p;
  if (r.bad)
    return -1;
  if (code == 0)
    return 0;
  const uint8_t *a = abbrev_of(u, code);
  if (!a)
    return -1;
  const struct dw_sec *ab = &u->s->abbrev;
  struct dwr ar = {a, ab->d + ab->n, 0};
  d->tag = dwr_uleb(&ar);
  d->children = (int)dwr_fixed(&ar, 1);
  uint64_t at, form;
  int64_t implicit;
  while (dwr_next_spec(&ar, &r, &at, &form, &implicit)) {
    const char *str;
    uint64_t val;
    if (at == AT_data_member_location &&
        (form == 0x18 || form == 0x09 || form == 0x0a || form == 0x03 ||
         form == 0x04)) {
      uint64_t n = form == 0x0a   ? dwr_fixed(&r, 1)
                   : form == 0x03 ? dwr_fixed(&r, 2)
                   : form == 0x04 ? dwr_fixed(&r, 4)
                                  : dwr_uleb(&r);
      if (!dwr_need(&r, n))
        return -1;
      d->has_loc = loc_expr(r.p, n, &d->loc);
      r.p += n;
      continue;
    }
    if (dw_form_value(&r, form, u->offsz, u->addrsz, u->version, u->s, &str,
                      &val) != 0)
      return -1;
    if (form == DW_FORM_implicit_const)
      val = (uint64_t)implicit;
    if (!str && is_strx(form))
      str = strx(u, val);
    switch (at) {
    case AT_name: d->name = str; break;
    case AT_data_location: d->descriptor = 1; break;
    case AT_type: d->type = ref_of(u, form, val); break;
    case AT_decl_line: d->line = val; break;
    case AT_bit_size: d->bit_size = val; break;
    case AT_data_bit_offset:
      d->has_bit_offset = is_constant(form);
      d->bit_offset = val;
      break;
    case AT_byte_size:
      d->has_size = is_constant(form);
      d->size = val;
      break;
    case AT_data_member_location:
      d->has_loc = is_constant(form);
      d->loc = (int64_t)val;
      break;
    case AT_lower_bound:
      d->has_lower = is_constant(form);
      d->lower = (int64_t)val;
      break;
    case AT_upper_bound:
      d->has_upper = is_constant(form);
      d->upper = (int64_t)val;
      break;
    case AT_count:
      d->has_count = is_constant(form);
      d->count = (int64_t)val;
      break;
    }
  }
  d->next = r.p;
  return r.bad || ar.bad ? -1 : 1;
}

/* The unit whose header is at OFF of .debug_info into *U: its end, or
 * NULL when there is none there. */
static const uint8_t *unit_at(const struct dw_secs *s, uint64_t off,
                              struct unit *u) {
  memset(u, 0, sizeof *u);
  if (!s->info.d || off >= s->info.n)
    return NULL;
  struct dwr r = {s->info.d + off, s->info.d + s->info.n, 0};
  const uint8_t *end = dwr_unit(&r, &u->offsz);
  if (!end)
    return NULL;
  u->s = s;
  u->off = off;
  u->end = end;
  u->version = (unsigned)dwr_fixed(&r, 2);
  if (u->version >= 5) {
    unsigned type = (unsigned)dwr_fixed(&r, 1);
    u->addrsz = (unsigned)dwr_fixed(&r, 1);
    u->abbrev_off = dwr_fixed(&r, u->offsz);
    if (type == 2 || type == 6)
      r.p += dwr_need(&r, 8 + u->offsz) ? 8 + u->offsz : 0;
    else if (type == 4 || type == 5)
      r.p += dwr_need(&r, 8) ? 8 : 0;
  } else if (u->version >= 2) {
    u->abbrev_off = dwr_fixed(&r, u->offsz);
    u->addrsz = (unsigned)dwr_fixed(&r, 1);
  } else {
    return end;
  }
  if (r.bad)
    return end;
  u->dies = r.p;
  u->str_base = u->offsz == 8 ? 16 : 8; /* past the table's header */
  index_codes(u);
  /* The unit's own DIE: where its strings by index start, its language
   * (the base attribute is read before the names that need it). */
  struct dwr cr = {u->dies, u->end, 0};
  const uint8_t *a = abbrev_of(u, dwr_uleb(&cr));
  if (a) {
    const struct dw_sec *ab = &s->abbrev;
    struct dwr ar = {a, ab->d + ab->n, 0};
    (void)dwr_uleb(&ar);
    (void)dwr_fixed(&ar, 1);
    uint64_t at, form;
    int64_t implicit;
    while (dwr_next_spec(&ar, &cr, &at, &form, &implicit)) {
      const char *str;
      uint64_t val;
      if (dw_form_value(&cr, form, u->offsz, u->addrsz, u->version, s, &str,
                        &val) != 0)
        break;
      if (at == AT_str_offsets_base)
        u->str_base = val;
      else if (at == AT_language)
        /* Fortran 77, 90, 95, 03, 08, 18. */
        u->fortran = val == 0x07 || val == 0x08 || val == 0x0e ||
                     val == 0x22 || val == 0x23 || val == 0x2d;
    }
  }
  return end;
}

/* The DIE at offset OFF of .debug_info, read with unit U when it lies in
 * U, else with its own unit (loaded into *OTHER, which the caller
 * frees).  1, or 0/-1 as read_die. */
static int die_at(const struct unit *u, uint64_t off, struct unit *other,
                  const struct unit **in, struct die *d) {
  const struct dw_secs *s = u->s;
  const uint8_t *p = s->info.d + off;
  *in = u;
  if (off >= s->info.n)
    return -1;
  if (p < u->dies || p >= u->end) {
    if (!other->dies || p < other->dies || p >= other->end) {
      unit_free(other);
      uint64_t at = 0;
      const uint8_t *end;
      while ((end = unit_at(s, at, other)) != NULL) {
        if (other->dies && p >= other->dies && p < other->end)
          break;
        unit_free(other);
        at = (uint64_t)(end - s->info.d);
      }
      if (!end)
        return -1;
    }
    *in = other;
  }
  return read_die(*in, p, d);
}

/* Skips the children of a DIE whose children start at P: after them. */
static const uint8_t *skip_children(const struct unit *u, const uint8_t *p) {
  int depth = 1;
  struct die d;
  while (depth > 0 && p < u->end) {
    int rc = read_die(u, p, &d);
    if (rc < 0)
      return u->end;
    p = d.next;
    if (rc == 0)
      depth--;
    else if (d.children)
      depth++;
  }
  return p;
}

/* Kinds of type that stand for the type they refer to.  A reference is
 * one too: clang declares a kernel's mapped variables as references in
 * its outlined function ("struct vec &s"), and names the same storage. */
static int is_qualifier(uint64_t tag) {
  return tag == TAG_typedef || tag == TAG_const || tag == TAG_volatile ||
         tag == TAG_restrict || tag == TAG_atomic || tag == TAG_immutable ||
         tag == TAG_reference || tag == TAG_rvalue_reference;
}

/* The type at OFF without typedefs, qualifiers and references, into *D
 * (and *IN). */
static int strip(const struct unit *u, uint64_t off, struct unit *other,
                 const struct unit **in, struct die *d) {
  for (int i = 0; i < 16; i++) {
    if (!off || die_at(u, off, other, in, d) != 1)
      return 0;
    if (!is_qualifier(d->tag))
      return 1;
    off = d->type;
  }
  return 0;
}

struct dims {
  int n;
  int64_t lower[MAX_DIMS], count[MAX_DIMS]; /* count -1: unknown */
};

/* The subranges of the array type D of unit U. */
static void array_dims(const struct unit *u, const struct die *d,
                       struct dims *dm) {
  dm->n = 0;
  if (!d->children)
    return;
  const uint8_t *p = d->next;
  struct die c;
  int rc;
  while ((rc = read_die(u, p, &c)) == 1) {
    p = c.children ? skip_children(u, c.next) : c.next;
    if (c.tag != TAG_subrange)
      continue;
    if (dm->n == MAX_DIMS) {
      dm->n = 0;
      return;
    }
    int64_t lo = c.has_lower ? c.lower : u->fortran ? 1 : 0;
    dm->lower[dm->n] = lo;
    dm->count[dm->n] = c.has_count ? c.count
                       : c.has_upper ? c.upper - lo + 1
                                     : -1;
    dm->n++;
  }
}

/* The size in bytes of the type at OFF, or 0 when unknown. */
static uint64_t type_size(const struct unit *u, uint64_t off, int depth) {
  struct unit other = {0};
  const struct unit *in;
  struct die d;
  uint64_t size = 0;
  if (depth < 8 && strip(u, off, &other, &in, &d)) {
    if (d.has_size) {
      size = d.size;
    } else if (d.tag == TAG_pointer) {
      size = in->addrsz;
    } else if (d.tag == TAG_array) {
      struct dims dm;
      array_dims(in, &d, &dm);
      uint64_t n = dm.n ? 1 : 0;
      for (int i = 0; i < dm.n; i++)
        n = dm.count[i] > 0 ? n * (uint64_t)dm.count[i] : 0;
      size = n ? n * type_size(in, d.type, depth + 1) : 0;
    }
  }
  unit_free(&other);
  return size;
}

static void append(char *out, size_t len, const char *fmt, const char *s,
                   long long v) {
  size_t n = strlen(out);
  if (n < len)
    snprintf(out + n, len - n, fmt, s ? s : "", v);
}

/* Appends to OUT the element of array type D at byte *OFF, leaving in
 * *OFF the offset inside it.  0 when its bounds are not known. */
static int element(const struct unit *u, const struct die *d, uint64_t *off,
                   char *out, size_t len) {
  uint64_t esize = type_size(u, d->type, 0);
  struct dims dm;
  array_dims(u, d, &dm);
  if (!esize || !dm.n)
    return 0;
  uint64_t k = *off / esize;
  int64_t idx[MAX_DIMS];
  /* C: the last subscript varies fastest; Fortran: the first.  The
   * slowest one's extent may be unknown ([] / (*)). */
  for (int j = 0; j < dm.n; j++) {
    int i = u->fortran ? j : dm.n - 1 - j;
    if (j == dm.n - 1) {
      idx[i] = (int64_t)k;
    } else {
      if (dm.count[i] <= 0)
        return 0;
      idx[i] = (int64_t)(k % (uint64_t)dm.count[i]);
      k /= (uint64_t)dm.count[i];
    }
  }
  for (int i = 0; i < dm.n; i++)
    append(out, len, u->fortran ? (i ? ",%s%lld" : "(%s%lld") : "[%s%lld]",
           NULL, (long long)(idx[i] + dm.lower[i]));
  if (u->fortran)
    append(out, len, "%s)", NULL, 0);
  *off %= esize;
  return 1;
}

/* Appends to OUT the path from the type at TYPE (of unit U) down to byte
 * OFF: members and elements, until a type with no parts (a pointer, a
 * scalar) is reached.  0 when the path cannot be told (a union, unknown
 * bounds, no member there). */
static int walk(const struct unit *u, uint64_t type, uint64_t off, char *out,
                size_t len) {
  struct unit other = {0};
  int ok = 0;
  for (int step = 0; step < MAX_STEPS; step++) {
    const struct unit *in;
    struct die d;
    if (!strip(u, type, &other, &in, &d)) {
      ok = step > 0;
      break;
    }
    if (d.tag == TAG_structure || d.tag == TAG_class) {
      if (!d.children)
        break;
      struct die c, best = {0};
      const uint8_t *p = d.next;
      int rc, found = 0;
      while ((rc = read_die(in, p, &c)) == 1) {
        p = c.children ? skip_children(in, c.next) : c.next;
        if (c.tag != TAG_member || !c.has_loc || c.loc < 0 ||
            (uint64_t)c.loc > off || !c.name)
          continue;
        if (!found || c.loc > best.loc) {
          best = c;
          found = 1;
        }
      }
      if (!found)
        break;
      uint64_t msize = type_size(in, best.type, 0);
      if (msize && off >= (uint64_t)best.loc + msize)
        break;
      append(out, len, in->fortran ? "%%%s" : ".%s", best.name, 0);
      off -= (uint64_t)best.loc;
      type = best.type;
    } else if (d.tag == TAG_array && d.descriptor) {
      /* A Fortran pointer or allocatable: the storage is its descriptor,
       * which the name already says. */
      ok = step > 0;
      break;
    } else if (d.tag == TAG_array) {
      if (!element(in, &d, &off, out, len))
        break;
      type = d.type;
    } else {
      ok = off < type_size(in, type, 0) || d.tag == TAG_pointer;
      break;
    }
  }
  unit_free(&other);
  return ok;
}

/* What byte OFF of an object of TYPE (in U) is (dwarf_member.h): a
 * member's, an element's or a scalar's data, padding no member covers, or
 * a byte of a bitfield's storage unit (which the compiler reads to write
 * the field); DW_BYTE_UNKNOWN through a union or an unknown size. */
static int byte_kind(const struct unit *u, uint64_t type, uint64_t off) {
  struct unit other = {0};
  int kind = DW_BYTE_UNKNOWN;
  for (int step = 0; step < 4 * MAX_STEPS; step++) {
    const struct unit *in;
    struct die d;
    if (!strip(u, type, &other, &in, &d))
      break;
    if (d.tag == TAG_structure || d.tag == TAG_class) {
      struct die c, best = {0};
      const uint8_t *p = d.next;
      int rc = 0, found = 0, bits = 0;
      while (d.children && (rc = read_die(in, p, &c)) == 1) {
        p = c.children ? skip_children(in, c.next) : c.next;
        if (c.tag != TAG_member)
          continue;
        if (c.bit_size) {
          /* DWARF 5 gives the field's first bit; DWARF 2-4 the offset of
           * its storage unit. */
          uint64_t unit = type_size(in, c.type, 0);
          uint64_t first = c.has_bit_offset ? c.bit_offset / 8
                           : c.has_loc && c.loc >= 0 ? (uint64_t)c.loc
                                                     : UINT64_MAX;
          if (unit && first != UINT64_MAX && off >= first - first % unit &&
              off < first - first % unit + unit)
            bits = 1;
          continue;
        }
        if (!c.has_loc || c.loc < 0 || (uint64_t)c.loc > off)
          continue;
        if (!found || c.loc > best.loc) {
          best = c;
          found = 1;
        }
      }
      if (rc < 0)
        break;
      if (bits) {
        kind = DW_BYTE_BITFIELD;
        break;
      }
      uint64_t msize = found ? type_size(in, best.type, 0) : 0;
      if (!found || (msize && off >= (uint64_t)best.loc + msize)) {
        kind = d.has_size && off < d.size ? DW_BYTE_PADDING : DW_BYTE_UNKNOWN;
        break;
      }
      if (!msize)
        break;
      off -= (uint64_t)best.loc;
      type = best.type;
    } else if (d.tag == TAG_array && !d.descriptor) {
      uint64_t esize = type_size(in, d.type, 0);
      if (!esize)
        break;
      off %= esize;
      type = d.type;
    } else if (d.tag == TAG_union) {
      break;
    } else {
      /* x86's long double: ten bytes of data in sixteen. */
      int x87 = d.name && !strcmp(d.name, "long double") && d.size == 16;
      kind = x87 && off % 16 >= 10 ? DW_BYTE_PADDING : DW_BYTE_DATA;
      break;
    }
  }
  unit_free(&other);
  return kind;
}

/* EXPR split: the variable's name into NAME; *SECTION set when EXPR is a
 * section or element of it ("v[lo:len]", "v[lo]", "v(lo:hi)"), with its
 * lower bound in *LO when that is a literal (else *HAS_LO 0).  0 when
 * EXPR is neither a name nor such a section. */
/* The variable's name EXPR starts with into NAME: its length, 0 when EXPR
 * does not start with a name (or it does not fit). */
static size_t leading_name(const char *expr, char *name, size_t len) {
  size_t n = 0;
  if (!isalpha((unsigned char)*expr) && *expr != '_')
    return 0;
  while (isalnum((unsigned char)expr[n]) || expr[n] == '_')
    n++;
  if (n >= len)
    return 0;
  memcpy(name, expr, n);
  name[n] = 0;
  return n;
}

static int parse_expr(const char *expr, char *name, size_t len, int *section,
                      int64_t *lo, int *has_lo) {
  size_t n = leading_name(expr, name, len);
  if (!n)
    return 0;
  const char *p = expr + n;
  *section = 0;
  *has_lo = 0;
  if (!*p)
    return 1;
  char close = *p == '[' ? ']' : *p == '(' ? ')' : 0;
  if (!close)
    return 0;
  const char *q = p + 1, *end = strchr(q, close);
  if (!end || end[1])
    return 0;
  /* One subscript only: a comma or a nested bracket is another dimension. */
  for (const char *c = q; c < end; c++)
    if (*c == ',' || *c == '[' || *c == '(')
      return 0;
  *section = 1;
  char *stop;
  long long v = strtoll(q, &stop, 10);
  while (*stop == ' ')
    stop++;
  if (stop != q && (stop == end || *stop == ':')) {
    *lo = v;
    *has_lo = 1;
  } else if (q == end || *q == ':') {
    *lo = close == ')' ? 1 : 0; /* "(:n)" starts at the lower bound */
    *has_lo = close == ')';
  }
  return 1;
}

/* The name at OFF of the variable declared by D (in unit U), named NAME,
 * mapped as EXPR's section when SECTION; 1 with the name in OUT. */
static int name_in(const struct unit *u, const struct die *d,
                   const char *name, int section, int64_t lo, int has_lo,
                   uint64_t off, char *out, size_t len) {
  snprintf(out, len, "%s", name);
  if (!section)
    return walk(u, d->type, off, out, len) && strcmp(out, name) != 0;
  /* A section: OFF counts from its first element. */
  struct unit other = {0};
  const struct unit *in;
  struct die t;
  int ok = 0;
  if (strip(u, d->type, &other, &in, &t) &&
      (t.tag == TAG_pointer || t.tag == TAG_array) && has_lo) {
    struct dims dm = {0};
    if (t.tag == TAG_array)
      array_dims(in, &t, &dm);
    uint64_t esize = type_size(in, t.type, 0);
    if (esize && dm.n <= 1) {
      append(out, len, in->fortran ? "(%s%lld)" : "[%s%lld]", NULL,
             (long long)(lo + (int64_t)(off / esize)));
      struct die el = {0};
      struct unit eo = {0};
      const struct unit *ein;
      /* An element with parts is walked; a pointer or a scalar is the
       * element itself. */
      if (strip(in, t.type, &eo, &ein, &el) &&
          (el.tag == TAG_structure || el.tag == TAG_class ||
           el.tag == TAG_array))
        ok = walk(in, t.type, off % esize, out, len);
      else
        ok = off % esize == 0 || el.tag != TAG_pointer;
      unit_free(&eo);
    }
  }
  unit_free(&other);
  return ok;
}

/* An object whose debug sections stay open for later questions. */
struct object {
  char *path;
  int fd;
  Elf *e;
  struct dw_secs s;
  int ok; /* it has .debug_info */
};

/* The declarations found for one expression and line: where they are. */
struct decls {
  struct object *o;
  char *expr;
  unsigned line;
  int n; /* -1: too many to tell */
  uint64_t unit[MAX_DECLS], die[MAX_DECLS];
  /* dw_byte_kind's answers for one element (of the innermost array), or
   * of the variable: KINDS[off % PERIOD]; NULL when not known. */
  signed char *kinds;
  uint64_t period;
  int kinds_tried;
};
/* Elements larger than this are classified byte by byte on each call. */
#define MAX_PERIOD 65536

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct object objects[MAX_OBJECTS];
static int nobjects;
static struct decls decls[MAX_EXPRS];
static int ndecls, next_decls;

static struct object *object_of(const char *path) {
  for (int i = 0; i < nobjects; i++)
    if (!strcmp(objects[i].path, path))
      return &objects[i];
  if (nobjects == MAX_OBJECTS)
    return NULL;
  struct object *o = &objects[nobjects];
  char err[128];
  memset(o, 0, sizeof *o);
  o->fd = -1;
  if (!(o->path = strdup(path)))
    return NULL;
  nobjects++;
  o->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (o->fd < 0)
    return o;
  (void)elf_version(EV_CURRENT);
  o->e = elf_begin(o->fd, ELF_C_READ, NULL);
  o->ok = o->e && dw_sections(o->e, &o->s, err, sizeof err) == 0 &&
          o->s.info.d;
  return o;
}

/* Every declaration of NAME at LINE (0: any) in O: fills *X. */
static void find_decls(struct object *o, const char *name, unsigned line,
                       struct decls *x) {
  x->n = 0;
  uint64_t at = 0;
  const uint8_t *end;
  struct unit u;
  while (o->ok && (end = unit_at(&o->s, at, &u)) != NULL) {
    const uint8_t *p = u.dies;
    struct die d;
    int rc;
    while (p && p < u.end && (rc = read_die(&u, p, &d)) >= 0) {
      const uint8_t *here = p;
      p = d.next;
      if (rc == 0 ||
          (d.tag != TAG_variable && d.tag != TAG_formal_parameter) ||
          !d.name || !d.type || strcmp(d.name, name) ||
          (line && d.line != line))
        continue;
      if (x->n == MAX_DECLS) {
        x->n = -1;
        unit_free(&u);
        return;
      }
      x->unit[x->n] = at;
      x->die[x->n] = (uint64_t)(here - o->s.info.d);
      x->n++;
    }
    unit_free(&u);
    at = (uint64_t)(end - o->s.info.d);
  }
}

static struct decls *decls_of(const char *path, const char *expr,
                              const char *name, unsigned line) {
  for (int i = 0; i < ndecls; i++)
    if (decls[i].line == line && !strcmp(decls[i].expr, expr) &&
        !strcmp(decls[i].o->path, path))
      return &decls[i];
  struct object *o = object_of(path);
  if (!o)
    return NULL;
  char *e = strdup(expr);
  if (!e)
    return NULL;
  /* The oldest answer gives way when the table is full. */
  struct decls *x = &decls[ndecls < MAX_EXPRS ? ndecls++ : next_decls];
  if (ndecls == MAX_EXPRS)
    next_decls = (next_decls + 1) % MAX_EXPRS;
  if (x->expr)
    free(x->expr);
  free(x->kinds);
  x->kinds = NULL;
  x->kinds_tried = 0;
  x->o = o;
  x->expr = e;
  x->line = line;
  find_decls(o, name, line, x);
  return x;
}

int dw_member_name(const char *path, const char *expr, unsigned line,
                   uint64_t off, char *out, size_t outlen) {
  char name[128], got[256];
  int section, has_lo, found = 0;
  int64_t lo = 0;
  if (!outlen)
    return 0;
  out[0] = 0;
  /* "*p" (clang's implicit `this`, named so by the checker): the object
   * P points to, as the section p[0:1]; its parts are named "p->m". */
  int deref = expr && expr[0] == '*';
  if (!path || !expr ||
      !parse_expr(expr + deref, name, sizeof name, &section, &lo, &has_lo) ||
      (deref && section))
    return 0;
  if (deref)
    section = 1, lo = 0, has_lo = 1;
  pthread_mutex_lock(&lock);
  struct decls *x = decls_of(path, expr, name, line);
  for (int i = 0; x && i < x->n; i++) {
    struct unit u;
    struct die d;
    const struct dw_secs *s = &x->o->s;
    int ok = unit_at(s, x->unit[i], &u) && u.dies &&
             read_die(&u, s->info.d + x->die[i], &d) == 1 &&
             name_in(&u, &d, name, section, lo, has_lo, off, got,
                     sizeof got);
    unit_free(&u);
    size_t k = strlen(name);
    if (ok && deref && !strncmp(got + k, "[0].", 4)) { /* "p[0].m": "p->m" */
      memcpy(got + k, "->", 2);
      memmove(got + k + 2, got + k + 4, strlen(got + k + 4) + 1);
    }
    /* Every declaration of that name and line must give the same; a name
     * cut short would name another part. */
    if (!ok || strlen(got) + 1 >= sizeof got || strlen(got) >= outlen ||
        (found && strcmp(got, out))) {
      found = 0;
      break;
    }
    snprintf(out, outlen, "%s", got);
    found = 1;
  }
  pthread_mutex_unlock(&lock);
  if (!found)
    out[0] = 0;
  return found;
}

int dw_array_units(const char *path, const char *expr, unsigned line,
                   int64_t *unit, int n) {
  int found = 0;
  char name[128];
  size_t k = expr ? leading_name(expr, name, sizeof name) : 0;
  if (!path || !k || expr[k] != '[' || n < 1 || n > MAX_DIMS)
    return 0;
  pthread_mutex_lock(&lock);
  struct decls *x = decls_of(path, name, name, line);
  for (int i = 0; x && i < x->n; i++) {
    struct unit u, other = {0};
    const struct unit *in;
    struct die d, t;
    const struct dw_secs *s = &x->o->s;
    int64_t got[MAX_DIMS];
    int k = 0, ok = unit_at(s, x->unit[i], &u) && u.dies &&
                    read_die(&u, s->info.d + x->die[i], &d) == 1;
    uint64_t type = ok ? d.type : 0;
    /* The dimensions, outermost first: one array type's subranges, and
     * those of its element while that is an array again. */
    int64_t count[MAX_DIMS];
    while (ok && strip(&u, type, &other, &in, &t) && t.tag == TAG_array) {
      struct dims dm;
      array_dims(in, &t, &dm);
      if (!dm.n || k + dm.n > n || in->fortran) {
        ok = 0;
        break;
      }
      for (int j = 0; j < dm.n; j++)
        count[k++] = dm.count[j];
      type = t.type;
    }
    uint64_t esize = ok && k == n ? type_size(&u, type, 0) : 0;
    unit_free(&other);
    unit_free(&u);
    ok = esize > 0;
    for (int j = n - 1; ok && j >= 0; j--) {
      got[j] = j == n - 1 ? (int64_t)esize : got[j + 1] * count[j + 1];
      ok = j == n - 1 || count[j + 1] > 0;
    }
    if (!ok || (found && memcmp(got, unit, (size_t)n * sizeof *got))) {
      found = 0;
      break;
    }
    memcpy(unit, got, (size_t)n * sizeof *got);
    found = 1;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* The type whose bytes repeat in X's I-th declaration (the element of the
 * innermost array; of the section's pointer or array when SECTION), into
 * *TYPE and *IN (OTHER holds its unit if another); its size, 0 if none. */
static uint64_t repeating_type(const struct decls *x, int i, int section,
                               struct unit *u, struct unit *other,
                               const struct unit **in, uint64_t *type) {
  struct die d, t;
  const struct dw_secs *s = &x->o->s;
  if (!unit_at(s, x->unit[i], u) || !u->dies ||
      read_die(u, s->info.d + x->die[i], &d) != 1)
    return 0;
  *type = d.type;
  *in = u;
  for (int k = 0; k < MAX_STEPS; k++) {
    if (!strip(u, *type, other, in, &t))
      return 0;
    int elementwise = t.tag == TAG_array ? !t.descriptor
                                         : section && t.tag == TAG_pointer;
    if (!elementwise || !t.type)
      break;
    section = 0; /* a pointer's pointee: its elements, not its arrays */
    *type = t.type;
  }
  return type_size(u, *type, 0);
}

/* X->kinds: every declaration's answer for each byte of the repeating
 * type, when they all agree. */
static void fill_kinds(struct decls *x, int section) {
  signed char *k = NULL;
  uint64_t period = 0;
  for (int i = 0; i < x->n; i++) {
    struct unit u, other = {0};
    const struct unit *in;
    uint64_t type = 0;
    uint64_t n = repeating_type(x, i, section, &u, &other, &in, &type);
    signed char *mine = n && n <= MAX_PERIOD ? malloc(n) : NULL;
    for (uint64_t b = 0; mine && b < n; b++)
      mine[b] = (signed char)byte_kind(in, type, b);
    unit_free(&other);
    unit_free(&u);
    if (!mine || (k && (n != period || memcmp(k, mine, n)))) {
      free(mine);
      free(k);
      return;
    }
    free(k);
    k = mine;
    period = n;
  }
  x->kinds = k;
  x->period = period;
}

/* X for EXPR at LINE in PATH with its byte kinds filled, lock held; NULL
 * (lock not held) when EXPR is no variable or section of one. */
static struct decls *kinds_of(const char *path, const char *expr,
                              unsigned line) {
  char name[128];
  int section, has_lo;
  int64_t lo = 0;
  int deref = expr && expr[0] == '*';
  if (!path || !expr ||
      !parse_expr(expr + deref, name, sizeof name, &section, &lo, &has_lo) ||
      (deref && section))
    return NULL;
  pthread_mutex_lock(&lock);
  struct decls *x = decls_of(path, expr, name, line);
  if (x && x->n > 0 && !x->kinds_tried) {
    x->kinds_tried = 1;
    fill_kinds(x, section | deref);
  }
  if (!x)
    pthread_mutex_unlock(&lock);
  return x;
}

signed char *dw_byte_kinds(const char *path, const char *expr, unsigned line,
                           uint64_t *period) {
  struct decls *x = kinds_of(path, expr, line);
  if (!x)
    return NULL;
  signed char *k = x->kinds ? malloc(x->period) : NULL;
  if (k) {
    memcpy(k, x->kinds, x->period);
    *period = x->period;
  }
  pthread_mutex_unlock(&lock);
  return k;
}

int dw_byte_kind(const char *path, const char *expr, unsigned line,
                 uint64_t off) {
  struct decls *x = kinds_of(path, expr, line);
  if (!x)
    return DW_BYTE_UNKNOWN;
  int kind = x->kinds ? x->kinds[off % x->period] : DW_BYTE_UNKNOWN;
  pthread_mutex_unlock(&lock);
  return kind;
}
