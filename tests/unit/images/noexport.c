/* Test image that exports nothing: its only dynamic symbols are undefined
 * weak references, as in a clang 14 device image of a program without
 * kernels.  Its GNU hash table then has empty buckets. */
extern void emu_test_weak_missing(void) __attribute__((weak));
__attribute__((visibility("hidden"))) int noexport_state;
__attribute__((constructor)) static void noexport_init(void) {
  noexport_state = emu_test_weak_missing ? 2 : 1;
}
