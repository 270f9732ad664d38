/* The user's call of an OpenMP API routine, named from the routine's
 * return address for messages: the source file and line from the calling
 * object's line table (dwarf_line.c), the argument expressions from the
 * source line when the file can be read, or the object and offset
 * (prog+0x1234, as addr2line takes it) without -g.  Resolved only when a
 * message is written. */
#ifndef OMPEMU_CALLSITE_H
#define OMPEMU_CALLSITE_H

#include "rt.h"

#include <stddef.h>

#define CALLSITE_ARGS 12

struct callsite {
  char where[1100]; /* "prog.c:14", "prog+0x1234", or "" when unknown */
  int has_line;    /* WHERE is a file and line */
  int fortran;     /* the source is Fortran (for callsite_split) */
  int nargs;       /* argument expressions found (0: source unread) */
  char args[CALLSITE_ARGS][96];
};

/* Names the call of API (e.g. "omp_target_free"; "": where only) that
 * returns to RA. */
RT_HIDDEN void callsite_resolve(const void *ra, const char *api,
                                struct callsite *cs);
/* Only where it is: "prog.c:14" / "prog+0x1234" into BUF, "" unknown. */
RT_HIDDEN void callsite_where(const void *ra, char *buf, size_t len);
/* The return address of the call that made the frame RA returns into
 * (the caller of the function holding the call site RA), when RA is on
 * the current thread's stack; else NULL (callsite_caller.c). */
RT_HIDDEN const void *callsite_caller(const void *ra);
/* The source file's base name ("f.f90") of the call that returns to RA,
 * into BUF: 1, or 0 without a line table for it. */
RT_HIDDEN int callsite_file(const void *ra, char *buf, size_t len);

/* The file of the loaded object holding ADDR (code or data) into PATH:
 * 1, or 0 when no object holds it. */
RT_HIDDEN int callsite_object(const void *addr, char *path, size_t len);

/* The name of the function that starts at ADDR, from its object's symbol
 * table (static functions too) into NAME: 1, or 0 when none is known
 * (a stripped object, an address inside a function). */
RT_HIDDEN int callsite_function(const void *addr, char *name, size_t len);

/* The source file's base name of the function SYM of the object holding
 * IN_OBJ, from its symbol table and line table, into FILE: 1, or 0. */
RT_HIDDEN int callsite_symbol_file(const void *in_obj, const char *sym,
                                   char *file, size_t len);

/* While a front door of a construct runs with an observer on: the return
 * address of the program's call into it (else NULL).  Check mode takes
 * the source file of a flang construct from it, whose location names
 * the program unit and the line but no file. */
RT_HIDDEN extern __thread const void *rt_construct_ra;

/* The expression of argument I (0-based), or NULL when unknown. */
RT_HIDDEN const char *callsite_arg(const struct callsite *cs, int i);
/* Splits the argument list of the call of API in TEXT (a source line and
 * those after it) that starts at or after byte COL0 of its first line
 * (or anywhere on it) into CS->args.  The number found, 0 when TEXT holds
 * no call of API.  Any case of the name is accepted; comments are
 * skipped, and with CS->fortran set, continuations (&). */
RT_HIDDEN int callsite_split(const char *text, size_t col0, const char *api,
                             struct callsite *cs);

#endif
