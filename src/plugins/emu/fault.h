/* The emu device's fault handler (fault.c): SIGSEGV and SIGBUS on an
 * address of a device range or of the host-pointer alias range, or on any
 * address while the faulting thread runs a kernel, get one message naming
 * the kernel, the device block (or the host pointer behind an alias) and,
 * when the runtime can name it, the variable; a fault just below the stack
 * pointer of a thread running a kernel is a stack overflow.  In check mode
 * the process then ends with the check exit status; otherwise the previous
 * handler (or the default action) takes the fault.  Where the process ends
 * (check mode, or no previous handler), which of a kernel's faulting
 * threads is reported is chosen by fault_hold.c.  Faults that are not the device's
 * go to the previous handler (ASan's, for instance) untouched. */
#ifndef EMU_FAULT_H
#define EMU_FAULT_H

#include <stddef.h>
#include <stdint.h>

struct emu_arena;

/* Default exit status of a check-mode finding (OMPEMU_CHECK_EXIT). */
#define EMU_CHECK_EXIT_DEFAULT 99

/* Add (ON) or remove an arena the handler describes; the first addition
 * installs the handler. */
void fault_register_arena(struct emu_arena *a, int on);
/* The alias range [BASE, BASE+SIZE) and how to describe an address in it
 * (alias.c).  DESCRIBE writes the message's tail into BUF. */
void fault_register_alias(uintptr_t base, size_t size,
                          void (*describe)(uintptr_t x, char *buf,
                                           size_t len));
/* Check mode on or off, and the exit status of a finding. */
void fault_set_check(int on, int exit_status);
/* Check mode: give the calling thread, about to run device code, an
 * alternate signal stack (once), so that a stack overflow in device code
 * reaches the handler and is reported as one. */
void fault_thread_altstack(void);
/* Install the handler now, or again if another one replaced it. */
void fault_install(void);

#endif
