/* The debug sections of an ELF object, the decoding of attribute values
 * and abbreviations of .debug_info, and the compilation directory of a
 * unit read from its first DIE (line tables before DWARF 5 name files
 * relative to it without saying it). */
#include "config.h"
#include "dwarf_read.h"

#include <gelf.h>
#include <stdio.h>

int dw_sections(Elf *e, struct dw_secs *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  size_t shstrndx;
  if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
    snprintf(err, errlen, "not an ELF object: %s", elf_errmsg(-1));
    return -1;
  }
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
      continue;
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    struct dw_sec *d = NULL;
    if (!name)
      continue;
    if (!strcmp(name, ".debug_line"))
      d = &s->line;
    else if (!strcmp(name, ".debug_line_str"))
      d = &s->line_str;
    else if (!strcmp(name, ".debug_str"))
      d = &s->str;
    else if (!strcmp(name, ".debug_info"))
      d = &s->info;
    else if (!strcmp(name, ".debug_abbrev"))
      d = &s->abbrev;
    else if (!strcmp(name, ".debug_str_offsets"))
      d = &s->str_offsets;
    if (!d)
      continue;
    if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
      snprintf(err, errlen, "cannot decompress %s: %s", name,
               elf_errmsg(-1));
      return -1;
    }
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || (data->d_size && !data->d_buf)) {
      snprintf(err, errlen, "cannot read %s: %s", name, elf_errmsg(-1));
      return -1;
    }
    d->d = data->d_buf;
    d->n = data->d_size;
  }
  return 0;
}

enum {
  AT_stmt_list = 0x10,
  AT_comp_dir = 0x1b,
};

int dw_form_value(struct dwr *r, uint64_t form, unsigned offsz,
                      unsigned addrsz, unsigned version,
                      const struct dw_secs *s, const char **str,
                      uint64_t *val) {
  size_t skip = 0;
  *str = NULL;
  *val = 0;
  switch (form) {
  case 0x01: skip = addrsz; break;                       /* addr */
  case 0x03: skip = (size_t)dwr_fixed(r, 2); break;      /* block2 */
  case 0x04: skip = (size_t)dwr_fixed(r, 4); break;      /* block4 */
  case 0x05: case 0x12: *val = dwr_fixed(r, 2); break;    /* data2 ref2 */
  case 0x06: case 0x13: case 0x1c: *val = dwr_fixed(r, 4); break;
  case 0x07: case 0x14: case 0x20: case 0x24: *val = dwr_fixed(r, 8); break;
  case 0x08: *str = dwr_cstr(r); break;                  /* string */
  case 0x09: case 0x18: skip = (size_t)dwr_uleb(r); break; /* block exprloc */
  case 0x0a: skip = (size_t)dwr_fixed(r, 1); break;      /* block1 */
  case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29:
    *val = dwr_fixed(r, 1);
    break;
  case 0x26: case 0x2a: *val = dwr_fixed(r, 2); break;
  case 0x27: case 0x2b: *val = dwr_fixed(r, 3); break;
  case 0x28: case 0x2c: *val = dwr_fixed(r, 4); break;
  case 0x0d: *val = (uint64_t)dwr_sleb(r); break;        /* sdata */
  case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23:
  case 0x1f01: case 0x1f02:
    *val = dwr_uleb(r);
    break;
  case 0x0e: *val = dwr_fixed(r, offsz); *str = dw_str_at(&s->str, *val); break;
  case 0x1f: *val = dwr_fixed(r, offsz); *str = dw_str_at(&s->line_str, *val); break;
  case 0x10: *val = dwr_fixed(r, version <= 2 ? addrsz : offsz); break;
  case 0x17: case 0x1d: case 0x1f20: case 0x1f21:
    *val = dwr_fixed(r, offsz);
    break;
  case 0x19: case DW_FORM_implicit_const: break;
  case 0x1e: skip = 16; break;                           /* data16 */
  default:
    return -1;
  }
  if (skip && dwr_need(r, skip))
    r->p += skip;
  return r->bad ? -1 : 0;
}

const uint8_t *dw_find_abbrev(const struct dw_sec *ab, uint64_t off,
                                  uint64_t code) {
  if (!ab->d || off >= ab->n)
    return NULL;
  struct dwr r = {ab->d + off, ab->d + ab->n, 0};
  while (!r.bad) {
    uint64_t c = dwr_uleb(&r);
    if (c == 0)
      return NULL;
    const uint8_t *entry = r.p;
    (void)dwr_uleb(&r);      /* tag */
    (void)dwr_fixed(&r, 1);  /* children */
    if (c == code)
      return r.bad ? NULL : entry;
    dwr_skip_specs(&r);
  }
  return NULL;
}

const char *dw_comp_dir(const struct dw_secs *s, uint64_t line_off) {
  if (!s->info.d)
    return NULL;
  struct dwr r = {s->info.d, s->info.d + s->info.n, 0};
  while (r.p < r.end && !r.bad) {
    unsigned offsz, addrsz;
    const uint8_t *end = dwr_unit(&r, &offsz);
    if (!end)
      return NULL;
    struct dwr u = {r.p, end, 0};
    r.p = end;
    unsigned version = (unsigned)dwr_fixed(&u, 2);
    uint64_t abbrev_off;
    if (version >= 5) {
      unsigned type = (unsigned)dwr_fixed(&u, 1);
      addrsz = (unsigned)dwr_fixed(&u, 1);
      abbrev_off = dwr_fixed(&u, offsz);
      if (type == 2 || type == 6)        /* type units */
        u.p += dwr_need(&u, 8 + offsz) ? 8 + offsz : 0;
      else if (type == 4 || type == 5)   /* skeleton, split */
        u.p += dwr_need(&u, 8) ? 8 : 0;
    } else if (version >= 2) {
      abbrev_off = dwr_fixed(&u, offsz);
      addrsz = (unsigned)dwr_fixed(&u, 1);
    } else {
      return NULL;
    }
    const uint8_t *a = dw_find_abbrev(&s->abbrev, abbrev_off, dwr_uleb(&u));
    if (!a || u.bad)
      continue;
    struct dwr ar = {a, s->abbrev.d + s->abbrev.n, 0};
    (void)dwr_uleb(&ar);      /* tag */
    (void)dwr_fixed(&ar, 1);  /* children */
    const char *dir = NULL;
    int stmt_here = 0;
    uint64_t at, form;
    int64_t implicit;
    while (dwr_next_spec(&ar, &u, &at, &form, &implicit)) {
      const char *str;
      uint64_t val;
      if (dw_form_value(&u, form, offsz, addrsz, version, s, &str, &val) != 0)
        break;
      if (at == AT_comp_dir)
        dir = str;
      else if (at == AT_stmt_list)
        stmt_here = val == line_off;
    }
    if (stmt_here)
      return dir;
  }
  return NULL;
}
