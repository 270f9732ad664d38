/* ompemu-dump's notes: what could not be read or understood, collected
 * while reading and printed with the report. */
#include "config.h"

#include "dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dump_note(struct dump_notes *notes, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  char **n = realloc(notes->msgs, (notes->n + 1) * sizeof(char *));
  if (!n)
    return;
  notes->msgs = n;
  if ((n[notes->n] = strdup(buf)))
    notes->n++;
}
