/* Test image calling a function that only the device runtime defines. */
extern int emu_test_rtl_only(void);
int call_rtl_only(void) { return emu_test_rtl_only(); }
