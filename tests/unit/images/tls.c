/* Test image with thread-local storage (PT_TLS), which the emu loader
 * refuses. */
__thread int tls_counter = 3;
int bump(void) { return ++tls_counter; }
