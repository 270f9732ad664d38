/* ompemu's own trace and diagnostics, shared by the runtime, the plugins and
 * the tools.  One line per event, prefixed with the component ("ompemu:",
 * "emu:"), addresses printed as 0x%016lx everywhere so traces diff cleanly.
 * OMPEMU_TRACE=0|1|2|3 selects the level (0 off, 1 events, 2 verbose,
 * 3 every copy and translation); OMPEMU_TRACE_FILE sends it to a file.
 * Errors always print, to stderr. */
#ifndef OMPEMU_TRACE_H
#define OMPEMU_TRACE_H

#include <stdarg.h>
#include <stdint.h>

#define OMPEMU_PTR "0x%016lx"
#define OMPEMU_P(p) ((unsigned long)(uintptr_t)(p))

/* Current trace level (read once from OMPEMU_TRACE, changeable). */
int ompemu_trace_level(void);
void ompemu_set_trace_level(int level);

/* Print one trace line "WHO: message" when level <= the trace level. */
void ompemu_trace(int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print an error line "WHO: error: message" to stderr, always. */
void ompemu_error(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print a line to stderr exactly as given (no prefix added). */
void ompemu_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define OMPEMU_TRACE_ON(level) (ompemu_trace_level() >= (level))

#endif
