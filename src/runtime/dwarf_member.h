/* Names the part of a variable at a byte offset from the debug information
 * of the object that declares it (.debug_info): "s.next" for a member of a
 * C struct, "t%v" for a component of a Fortran derived type, "rows[3]" for
 * an element, "m.a[2].p" for a mix.  The checker uses it to say which
 * pointer inside a mapped block holds a host address. */
#ifndef OMPEMU_DWARF_MEMBER_H
#define OMPEMU_DWARF_MEMBER_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* The part at byte OFF of the storage a map clause named EXPR ("s",
 * "rows[0:n]", "a(1:n)") refers to, where EXPR's variable was declared at
 * line LINE (0: any line) and its debug information is in the ELF file
 * PATH.  1 with the name in OUT (OUTLEN bytes); 0 when it cannot be told:
 * no debug information, no such variable, an expression other than a
 * variable or a section of one, a union, bounds known only at run time, or
 * declarations of that name and line that disagree on the name. */
RT_HIDDEN int dw_member_name(const char *path, const char *expr,
                             unsigned line, uint64_t off, char *out,
                             size_t outlen);

/* The byte size of one element of each of the N dimensions of the C
 * array whose section EXPR is ("m[1:2:3][0:2:2]", of m declared at LINE,
 * 0: any), outermost first ("int m[8][4]": 16, 4), from the ELF file PATH:
 * what a non-contiguous update's descriptors leave out (their strides
 * fold in the section's step).  1 with UNIT filled; 0 when not known (no
 * debug information, not an array of N dimensions, declarations that
 * disagree). */
RT_HIDDEN int dw_array_units(const char *path, const char *expr,
                             unsigned line, int64_t *unit, int n);

/* What the byte at OFF of the storage EXPR refers to is (as for
 * dw_member_name): a member's or an element's data; padding no member
 * covers (between members, at a struct's end, the six unused bytes of
 * x86's 16-byte long double), which no program writes; or a byte of a
 * bitfield's storage unit, which the compiler reads to write a field.
 * DW_BYTE_UNKNOWN when it cannot be told. */
enum { DW_BYTE_UNKNOWN = -1, DW_BYTE_DATA, DW_BYTE_PADDING, DW_BYTE_BITFIELD };
RT_HIDDEN int dw_byte_kind(const char *path, const char *expr, unsigned line,
                           uint64_t off);
/* The same for every byte of the part that repeats (an element of the
 * innermost array, or the variable): a malloc'd copy of *PERIOD kinds, the
 * kind of byte OFF at OFF % *PERIOD; NULL when not known. */
RT_HIDDEN signed char *dw_byte_kinds(const char *path, const char *expr,
                                     unsigned line, uint64_t *period);

#endif
