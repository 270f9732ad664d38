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
/* The level once read, -1 before: what OMPEMU_TRACE_ON tests inline, so
 * that a check on a hot path costs a load, not a call.  Hidden: the
 * runtime and each plugin keep their own copy (an exported one would be
 * bound to another module's, e.g. a test program's with
 * --export-dynamic). */
extern int ompemu_trace_cur __attribute__((visibility("hidden")));
void ompemu_set_trace_level(int level);

/* Print one trace line "WHO: message" when level <= the trace level. */
void ompemu_trace(int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Diagnostics: the one way anything in ompemu (runtime, plugins, tools)
 * reports a problem.  A diagnostic is one line on stderr: PREFIX then the
 * message.  Every error is counted process-wide: when this copy of the
 * module lives in a plugin loaded by ompemu's runtime, the line is handed to
 * the runtime's copy (ompemu_report_sink, exported by libomptarget.so), so
 * one counter and one set of observers see every diagnostic of the process.
 * LLVM-compatible texts keep LLVM's own prefixes ("Libomptarget error: ");
 * ompemu's own use "WHO: error: " / "WHO: warning: ". */
enum ompemu_severity {
  OMPEMU_NOTE,    /* information the user asked for or should see */
  OMPEMU_WARNING, /* something was ignored or worked around */
  OMPEMU_ERROR,   /* an operation failed */
  OMPEMU_FATAL,   /* the caller aborts next (LLVM's fatal path) */
  /* OR-ed into one of the above: delivered only the first time this exact
   * line comes, process-wide (a setting the runtime and a plugin both
   * read is reported once). */
  OMPEMU_ONCE = 0x100
};
void ompemu_vreport(enum ompemu_severity sev, const char *prefix,
                    const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void ompemu_report(enum ompemu_severity sev, const char *prefix,
                   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "WHO: error: message" / "WHO: warning: message". */
void ompemu_error(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ompemu_warning(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Errors (and fatal errors) delivered by this copy of the module: all of
 * the process's in the runtime's copy, which plugins forward to. */
unsigned long ompemu_error_count(void);

/* A function that wants every diagnostic of the process (the runtime's
 * copy of this module installs one; see ompemu_report_sink). */
typedef void (*ompemu_diag_observer)(enum ompemu_severity sev,
                                     const char *line);
void ompemu_set_diag_observer(ompemu_diag_observer fn);

/* The process-wide sink: defined (and exported) by libomptarget.so only.
 * Plugins' copies of this module find it with dlsym(RTLD_DEFAULT). */
void ompemu_report_sink(int sev, const char *line);
/* Print, count and observe one finished diagnostic line here (what the
 * sink does; used directly when there is no sink). */
void ompemu_diag_deliver(int sev, const char *line);

/* Print a line to stderr exactly as given (no prefix added). */
void ompemu_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write S to stderr with write(2) alone: safe in a signal handler (no
 * stdio, no lock); a failed write gives up quietly. */
void ompemu_write_stderr(const char *s);

static inline int ompemu_trace_level_fast(void) {
  int l = __atomic_load_n(&ompemu_trace_cur, __ATOMIC_ACQUIRE);
  return l >= 0 ? l : ompemu_trace_level();
}
#define OMPEMU_TRACE_ON(level) (ompemu_trace_level_fast() >= (level))

#endif
