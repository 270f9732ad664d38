/* Test image needing libemudep.so, found only through its DT_RUNPATH. */
extern int emu_dep_value(int);
int call_dep(int x) { return emu_dep_value(x) + 1; }
