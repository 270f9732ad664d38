/* A library that test images NEED through DT_RUNPATH only. */
int emu_dep_value(int x) { return x * 7; }
