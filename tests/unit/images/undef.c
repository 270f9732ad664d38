/* Test image calling a function nothing defines. */
extern int emu_missing_function(int);
int call_missing(int x) { return emu_missing_function(x) + 1; }
