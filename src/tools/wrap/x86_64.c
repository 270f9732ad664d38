/* Hand-assembled x86-64 code for the wrapper's constructor and destructor.
 * Only position-independent forms are used (RIP-relative lea, a GOT load
 * for the weak function, calls through the PLT), so the object links into
 * non-PIE and PIE executables and into shared libraries. */
#include "config.h"

#include "elfwriter.h"
#include "wrap.h"

#include <elf.h>
#include <string.h>

/* Pad TEXT with int3 up to a 16-byte boundary so each function starts
 * aligned (filler is never executed). */
static int pad16(struct ow_obj *obj, int text) {
  static const unsigned char int3[16] = {
      0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
      0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc};
  uint64_t size = ow_section_size(obj, text);
  size_t pad = (size_t)((16 - (size & 15)) & 15);
  return pad ? ow_append(obj, text, int3, pad, 1, NULL) : 0;
}

/* Append CODE (LEN bytes) at the end of TEXT; its offset in *AT. */
static int put(struct ow_obj *obj, int text, const unsigned char *code,
               size_t len, uint64_t *at) {
  return ow_append(obj, text, code, len, 1, at);
}

/* "lea SYM(%rip), %rdi" with its R_X86_64_PC32. */
static int lea_rdi(struct ow_obj *obj, int text, int sym) {
  static const unsigned char lea[] = {0x48, 0x8d, 0x3d, 0, 0, 0, 0};
  uint64_t at;
  if (put(obj, text, lea, sizeof(lea), &at))
    return -1;
  return ow_reloc(obj, text, at + 3, R_X86_64_PC32, sym, -4);
}

/* "call SYM@PLT" with its R_X86_64_PLT32. */
static int call_plt(struct ow_obj *obj, int text, int sym) {
  static const unsigned char call[] = {0xe8, 0, 0, 0, 0};
  uint64_t at;
  if (put(obj, text, call, sizeof(call), &at))
    return -1;
  return ow_reloc(obj, text, at + 1, R_X86_64_PLT32, sym, -4);
}

/*
 * .omp_offloading.descriptor_reg:
 *     push %rbx                       ; also aligns the stack to 16
 *     mov  __tgt_register_image_info@GOTPCREL(%rip), %rbx
 *     test %rbx, %rbx                 ; weak: NULL under LLVM 14's runtime
 *     je   1f
 *     lea  .offload_image_info(%rip), %rdi ; call *%rbx   (per image)
 * 1:  lea  .omp_offloading.descriptor(%rip), %rdi
 *     call __tgt_register_lib@PLT
 *     pop  %rbx
 *     ret
 */
int wrap_emit_reg(struct ow_obj *obj, int text,
                  const struct wrap_code_syms *s, uint64_t *size) {
  static const unsigned char push_rbx[] = {0x53};
  static const unsigned char mov_got_rbx[] = {0x48, 0x8b, 0x1d, 0, 0, 0, 0};
  static const unsigned char test_je[] = {0x48, 0x85, 0xdb, 0x0f, 0x84,
                                          0,    0,    0,    0};
  static const unsigned char call_rbx[] = {0xff, 0xd3};
  static const unsigned char pop_ret[] = {0x5b, 0xc3};
  uint64_t start, at, je_at;

  if (pad16(obj, text))
    return -1;
  start = ow_section_size(obj, text);
  if (put(obj, text, push_rbx, sizeof(push_rbx), NULL) ||
      put(obj, text, mov_got_rbx, sizeof(mov_got_rbx), &at) ||
      ow_reloc(obj, text, at + 3, R_X86_64_GOTPCREL, s->image_info_fn, -4) ||
      put(obj, text, test_je, sizeof(test_je), &je_at))
    return -1;
  for (size_t i = 0; i < s->ninfos; i++)
    if (lea_rdi(obj, text, s->infos[i]) ||
        put(obj, text, call_rbx, sizeof(call_rbx), NULL))
      return -1;
  /* The je's rel32 counts from the end of the je instruction. */
  uint64_t skip = ow_section_size(obj, text);
  int32_t rel = (int32_t)(skip - (je_at + sizeof(test_je)));
  unsigned char relb[4];
  memcpy(relb, &rel, 4); /* x86-64 is little-endian, like the host */
  if (ow_patch(obj, text, je_at + 5, relb, 4) ||
      lea_rdi(obj, text, s->desc) || call_plt(obj, text, s->register_lib) ||
      put(obj, text, pop_ret, sizeof(pop_ret), NULL))
    return -1;
  uint64_t end = ow_section_size(obj, text);
  *size = end - start;
  return ow_symbol(obj, ".omp_offloading.descriptor_reg", STB_LOCAL, STT_FUNC,
                   STV_DEFAULT, text, start, end - start);
}

/*
 * .omp_offloading.descriptor_unreg:
 *     push %rax                       ; stack alignment only
 *     lea  .omp_offloading.descriptor(%rip), %rdi
 *     call __tgt_unregister_lib@PLT
 *     pop  %rax
 *     ret
 */
int wrap_emit_unreg(struct ow_obj *obj, int text,
                    const struct wrap_code_syms *s, uint64_t *size) {
  static const unsigned char push_rax[] = {0x50};
  static const unsigned char pop_ret[] = {0x58, 0xc3};
  if (pad16(obj, text))
    return -1;
  uint64_t start = ow_section_size(obj, text);
  if (put(obj, text, push_rax, sizeof(push_rax), NULL) ||
      lea_rdi(obj, text, s->desc) || call_plt(obj, text, s->unregister_lib) ||
      put(obj, text, pop_ret, sizeof(pop_ret), NULL))
    return -1;
  uint64_t end = ow_section_size(obj, text);
  *size = end - start;
  return ow_symbol(obj, ".omp_offloading.descriptor_unreg", STB_LOCAL,
                   STT_FUNC, STV_DEFAULT, text, start, end - start);
}

/* DWARF call-frame bytes used below. */
enum {
  CFA_advance_loc4 = 0x04,
  CFA_def_cfa_offset = 0x0e,
  CFA_offset_rbx = 0x80 | 3, /* DW_CFA_offset, register 3 (rbx) */
  CFA_nop = 0x00
};

/* One FDE: after the 1-byte push at offset 0 the CFA is rsp+16 (and, for
 * the constructor, rbx is saved at CFA-16); after the 1-byte pop just
 * before the final ret it is rsp+8 again. */
static int fde(struct ow_obj *obj, int eh, int func, uint64_t size,
               int saves_rbx) {
  unsigned char b[40];
  size_t n = 0;
  uint64_t at = ow_section_size(obj, eh);
  uint32_t len = 0, cie_ptr = (uint32_t)(at + 4), range = (uint32_t)size;
  uint32_t adv = (uint32_t)(size - 2); /* from offset 1 to size - 1 */
  memcpy(b + n, &len, 4), n += 4;     /* patched below */
  memcpy(b + n, &cie_ptr, 4), n += 4; /* distance back to the CIE at 0 */
  memset(b + n, 0, 4), n += 4;        /* pc_begin, R_X86_64_PC32 */
  memcpy(b + n, &range, 4), n += 4;
  b[n++] = 0;                         /* augmentation data length */
  b[n++] = 0x40 | 1;                  /* DW_CFA_advance_loc 1 */
  b[n++] = CFA_def_cfa_offset, b[n++] = 16;
  if (saves_rbx)
    b[n++] = CFA_offset_rbx, b[n++] = 2; /* 2 * data align (-8) = -16 */
  b[n++] = CFA_advance_loc4;
  memcpy(b + n, &adv, 4), n += 4;
  b[n++] = CFA_def_cfa_offset, b[n++] = 8;
  while (n % 8)
    b[n++] = CFA_nop;
  len = (uint32_t)(n - 4);
  memcpy(b, &len, 4);
  if (ow_append(obj, eh, b, n, 1, &at))
    return -1;
  return ow_reloc(obj, eh, at + 8, R_X86_64_PC32, func, 0);
}

int wrap_emit_unwind(struct ow_obj *obj, int eh, int reg, uint64_t reg_size,
                     int unreg, uint64_t unreg_size) {
  /* CIE: version 1, "zR", code align 1, data align -8, return address
   * column 16, FDE pointers pc-relative sdata4; CFA = rsp+8, return
   * address at CFA-8. */
  static const unsigned char cie[24] = {
      0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 0x01, 0x78, 0x10, 0x01,
      0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0};
  if (ow_append(obj, eh, cie, sizeof(cie), 8, NULL))
    return -1;
  if (fde(obj, eh, reg, reg_size, 1) || fde(obj, eh, unreg, unreg_size, 0))
    return -1;
  return 0;
}
