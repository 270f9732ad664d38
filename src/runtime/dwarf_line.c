/* The DWARF line-number program (DWARF 2 to 5, 32- and 64-bit format):
 * each unit of .debug_line is run until a row range covers the address
 * looked up; its file is named from the unit's header (DWARF 5 entry
 * formats with .debug_line_str, or the older string lists plus the
 * compilation directory from .debug_info). */
#include "config.h"
#include "dwarf_line.h"
#include "dwarf_read.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_ENTRIES 65536

/* One unit's header: what the program and the file names need. */
struct lhdr {
  unsigned version, offsz, min_inst, max_ops, opcode_base;
  int line_base, default_stmt;
  unsigned line_range;
  const uint8_t *std_len; /* opcode_base - 1 operand counts */
  const char **dirs;
  const char **files;
  uint64_t *file_dir;
  size_t ndirs, nfiles, capfiles;
  const char *comp_dir;
};

static void hdr_free(struct lhdr *h) {
  free(h->dirs);
  free(h->files);
  free(h->file_dir);
}

static int add_file(struct lhdr *h, const char *name, uint64_t dir) {
  if (h->nfiles == h->capfiles) {
    size_t nc = h->capfiles ? h->capfiles * 2 : 16;
    const char **f = realloc(h->files, nc * sizeof *f);
    if (f)
      h->files = f;
    uint64_t *d = realloc(h->file_dir, nc * sizeof *d);
    if (d)
      h->file_dir = d;
    if (!f || !d)
      return -1;
    h->capfiles = nc;
  }
  h->files[h->nfiles] = name ? name : "?";
  h->file_dir[h->nfiles++] = dir;
  return 0;
}

/* The DWARF 5 entry list (directories or files) at R: FILES says which. */
static int v5_entries(struct dwr *r, const struct dw_secs *s, struct lhdr *h,
                      int files, char *err, size_t errlen) {
  unsigned nfmt = (unsigned)dwr_fixed(r, 1);
  uint64_t fmt[2 * 16];
  if (nfmt > 16) {
    snprintf(err, errlen, "line table: %u entry formats", nfmt);
    return -1;
  }
  for (unsigned i = 0; i < 2 * nfmt; i++)
    fmt[i] = dwr_uleb(r);
  uint64_t count = dwr_uleb(r);
  if (r->bad || count > MAX_ENTRIES) {
    snprintf(err, errlen, "line table: bad %s entry list",
             files ? "file" : "directory");
    return -1;
  }
  if (!files && !(h->dirs = calloc(count ? count : 1, sizeof *h->dirs)))
    return -1;
  for (uint64_t n = 0; n < count; n++) {
    const char *name = NULL;
    uint64_t dir = 0;
    for (unsigned i = 0; i < nfmt; i++) {
      uint64_t type = fmt[2 * i], form = fmt[2 * i + 1], v = 0;
      const char *str = NULL;
      switch (form) {
      case 0x08: str = dwr_cstr(r); break;
      case 0x1f: str = dw_str_at(&s->line_str, dwr_fixed(r, h->offsz)); break;
      case 0x0e: str = dw_str_at(&s->str, dwr_fixed(r, h->offsz)); break;
      case 0x0b: v = dwr_fixed(r, 1); break;
      case 0x05: v = dwr_fixed(r, 2); break;
      case 0x06: v = dwr_fixed(r, 4); break;
      case 0x07: v = dwr_fixed(r, 8); break;
      case 0x0f: v = dwr_uleb(r); break;
      case 0x1e: if (dwr_need(r, 16)) r->p += 16; break;
      case 0x09: {
        uint64_t len = dwr_uleb(r);
        if (dwr_need(r, len))
          r->p += len;
        break;
      }
      default:
        snprintf(err, errlen, "line table: unknown form 0x%llx in an entry "
                 "format", (unsigned long long)form);
        return -1;
      }
      if (type == 1)
        name = str;
      else if (type == 2)
        dir = v;
    }
    if (r->bad)
      break;
    if (!files)
      h->dirs[h->ndirs++] = name ? name : "";
    else if (add_file(h, name, dir) != 0)
      return -1;
  }
  if (r->bad) {
    snprintf(err, errlen, "line table: truncated %s entry list",
             files ? "file" : "directory");
    return -1;
  }
  return 0;
}

/* The header of the unit at R (whose unit length has been read) up to
 * its program, which starts at *PROG.  0, or -1 with ERR. */
static int read_header(struct dwr *r, const struct dw_secs *s, uint64_t off,
                       struct lhdr *h, const uint8_t **prog, char *err,
                       size_t errlen) {
  h->version = (unsigned)dwr_fixed(r, 2);
  if (r->bad || h->version < 2 || h->version > 5) {
    snprintf(err, errlen, "line table at offset 0x%llx: unsupported DWARF "
             "version %u", (unsigned long long)off, h->version);
    return -1;
  }
  if (h->version >= 5) {
    unsigned addrsz = (unsigned)dwr_fixed(r, 1);
    (void)dwr_fixed(r, 1); /* segment selector size */
    if (addrsz != 4 && addrsz != 8 && !r->bad) {
      snprintf(err, errlen, "line table at offset 0x%llx: address size %u",
               (unsigned long long)off, addrsz);
      return -1;
    }
  }
  uint64_t hlen = dwr_fixed(r, h->offsz);
  if (r->bad || hlen > (uint64_t)(r->end - r->p)) {
    snprintf(err, errlen, "line table at offset 0x%llx: truncated header",
             (unsigned long long)off);
    return -1;
  }
  *prog = r->p + hlen;
  struct dwr hr = {r->p, *prog, 0};
  h->min_inst = (unsigned)dwr_fixed(&hr, 1);
  h->max_ops = h->version >= 4 ? (unsigned)dwr_fixed(&hr, 1) : 1;
  h->default_stmt = (int)dwr_fixed(&hr, 1);
  h->line_base = (int8_t)dwr_fixed(&hr, 1);
  h->line_range = (unsigned)dwr_fixed(&hr, 1);
  h->opcode_base = (unsigned)dwr_fixed(&hr, 1);
  h->std_len = hr.p;
  if (h->opcode_base > 1 && dwr_need(&hr, h->opcode_base - 1))
    hr.p += h->opcode_base - 1;
  if (hr.bad || !h->line_range || !h->max_ops || !h->opcode_base) {
    snprintf(err, errlen, "line table at offset 0x%llx: %s",
             (unsigned long long)off,
             hr.bad ? "truncated header" : "zero line range or opcode base");
    return -1;
  }
  if (h->version >= 5)
    return v5_entries(&hr, s, h, 0, err, errlen) ||
                   v5_entries(&hr, s, h, 1, err, errlen)
               ? -1
               : 0;
  size_t cap = 0;
  for (;;) {
    const char *d = dwr_cstr(&hr);
    if (!d || !*d)
      break;
    if (h->ndirs == cap) {
      cap = cap ? cap * 2 : 16;
      const char **nd = realloc(h->dirs, cap * sizeof *nd);
      if (!nd)
        return -1;
      h->dirs = nd;
    }
    h->dirs[h->ndirs++] = d;
  }
  for (;;) {
    const char *f = dwr_cstr(&hr);
    if (!f || !*f)
      break;
    uint64_t dir = dwr_uleb(&hr);
    (void)dwr_uleb(&hr);
    (void)dwr_uleb(&hr);
    if (add_file(h, f, dir) != 0)
      return -1;
  }
  if (hr.bad) {
    snprintf(err, errlen, "line table at offset 0x%llx: truncated file "
             "names", (unsigned long long)off);
    return -1;
  }
  h->comp_dir = dw_comp_dir(s, off);
  return 0;
}

/* Appends "/" and PART to BUF (LEN bytes) unless PART is empty. */
static void path_add(char *buf, size_t len, const char *part) {
  size_t n = strlen(buf);
  if (!part || !*part || n + 2 >= len)
    return;
  if (n && buf[n - 1] != '/')
    buf[n++] = '/';
  snprintf(buf + n, len - n, "%s", part);
}

/* File FILE of the unit, with its directories, into LOC. */
static void name_file(const struct lhdr *h, uint64_t file,
                      struct dwl_loc *loc) {
  uint64_t i = h->version >= 5 ? file : file - 1;
  loc->file[0] = 0;
  if (file == 0 && h->version < 5) {
    snprintf(loc->file, sizeof loc->file, "?");
    return;
  }
  if (i >= h->nfiles) {
    snprintf(loc->file, sizeof loc->file, "?");
    return;
  }
  const char *name = h->files[i], *dir = NULL;
  uint64_t d = h->file_dir[i];
  if (h->version >= 5)
    dir = d < h->ndirs ? h->dirs[d] : NULL;
  else
    dir = d == 0 ? h->comp_dir : (d - 1 < h->ndirs ? h->dirs[d - 1] : NULL);
  if (name[0] != '/') {
    const char *comp = h->version >= 5 ? (h->ndirs ? h->dirs[0] : NULL)
                                       : h->comp_dir;
    if (dir && dir[0] != '/' && comp)
      path_add(loc->file, sizeof loc->file, comp);
    path_add(loc->file, sizeof loc->file, dir);
  }
  path_add(loc->file, sizeof loc->file, name);
}

struct row {
  uint64_t addr;
  uint64_t file;
  unsigned line, column;
};

/* Runs the program from PROG to END.  1 when a row range covers ADDR
 * (then in *LOC), 0 when none does, -1 when the program is malformed. */
static int run_program(const struct lhdr *h, const uint8_t *prog,
                       const uint8_t *end, uint64_t addr,
                       struct dwl_loc *loc) {
  struct dwr r = {prog, end, 0};
  struct row cur, prev = {0};
  int have_prev = 0, seq_zero = 0;
  unsigned op_index = 0;
#define RESET()                                                              \
  (cur = (struct row){0, 1, 1, 0}, op_index = 0, have_prev = 0, seq_zero = 1)
  RESET();
  while (r.p < r.end && !r.bad) {
    unsigned op = (unsigned)dwr_fixed(&r, 1);
    uint64_t adv = 0;
    int emit = 0, end_seq = 0;
    if (op >= h->opcode_base) {
      unsigned adj = op - h->opcode_base;
      adv = adj / h->line_range;
      cur.line += (unsigned)(h->line_base + (int)(adj % h->line_range));
      emit = 1;
    } else if (op == 0) {
      uint64_t len = dwr_uleb(&r);
      if (len == 0 || !dwr_need(&r, len))
        return -1;
      const uint8_t *next = r.p + len;
      unsigned sub = *r.p++;
      if (sub == 1) {
        emit = end_seq = 1;
      } else if (sub == 2) {
        cur.addr = dwr_fixed(&r, (unsigned)(len - 1));
        op_index = 0;
        if (!have_prev)
          seq_zero = cur.addr == 0;
      }
      r.p = next; /* define_file (DWARF 2-4) is not used by compilers */
    } else {
      switch (op) {
      case 1: emit = 1; break;
      case 2: adv = dwr_uleb(&r); break;
      case 3: cur.line += (unsigned)dwr_sleb(&r); break;
      case 4: cur.file = dwr_uleb(&r); break;
      case 5: cur.column = (unsigned)dwr_uleb(&r); break;
      case 8: adv = (255 - h->opcode_base) / h->line_range; break;
      case 9:
        cur.addr += dwr_fixed(&r, 2);
        op_index = 0;
        break;
      case 6: case 7: case 10: case 11: break;
      default:
        for (unsigned i = 0; i < h->std_len[op - 1]; i++)
          (void)dwr_uleb(&r);
      }
    }
    if (adv) {
      uint64_t t = op_index + adv;
      cur.addr += (uint64_t)h->min_inst * (t / h->max_ops);
      op_index = (unsigned)(t % h->max_ops);
    }
    if (!emit)
      continue;
    /* A sequence at address 0 is code the linker dropped. */
    if (have_prev && !seq_zero && prev.addr <= addr && addr < cur.addr) {
      name_file(h, prev.file, loc);
      loc->line = prev.line;
      loc->column = prev.column;
      return 1;
    }
    if (end_seq) {
      RESET();
    } else {
      prev = cur;
      have_prev = 1;
    }
  }
#undef RESET
  return r.bad ? -1 : 0;
}

int dwl_lookup_elf(Elf *e, uint64_t addr, struct dwl_loc *loc, char *err,
                   size_t errlen) {
  struct dw_secs s;
  if (dw_sections(e, &s, err, errlen) != 0)
    return -1;
  if (!s.line.d)
    return 0;
  struct dwr r = {s.line.d, s.line.d + s.line.n, 0};
  while (r.p < r.end) {
    uint64_t off = (uint64_t)(r.p - s.line.d);
    struct lhdr h = {0};
    const uint8_t *prog, *end = dwr_unit(&r, &h.offsz);
    if (!end) {
      snprintf(err, errlen, "line table at offset 0x%llx: truncated (its "
               "length runs past the end of .debug_line)",
               (unsigned long long)off);
      return -1;
    }
    struct dwr u = {r.p, end, 0};
    r.p = end;
    int rc = read_header(&u, &s, off, &h, &prog, err, errlen);
    if (rc == 0) {
      rc = run_program(&h, prog, end, addr, loc);
      if (rc < 0)
        snprintf(err, errlen, "line table at offset 0x%llx: malformed line "
                 "program", (unsigned long long)off);
    }
    hdr_free(&h);
    if (rc != 0)
      return rc;
  }
  return 0;
}

int dwl_lookup(const char *path, uint64_t addr, struct dwl_loc *loc,
               char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "cannot open %s", path);
    return -1;
  }
  (void)elf_version(EV_CURRENT);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  int rc;
  if (!e) {
    snprintf(err, errlen, "%s: %s", path, elf_errmsg(-1));
    rc = -1;
  } else {
    rc = dwl_lookup_elf(e, addr, loc, err, errlen);
    elf_end(e);
  }
  close(fd);
  return rc;
}
