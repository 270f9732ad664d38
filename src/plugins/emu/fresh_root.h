/* Teams constructs of one team on a fresh libomp root (fresh_root.c): the
 * emu device's answer to libomp 14's abort in __kmp_serialized_parallel
 * (kmp_runtime.cpp:1122) when a thread that has led a real parallel team
 * forks a one-team league whose parallel region is serialized. */
#ifndef EMU_FRESH_ROOT_H
#define EMU_FRESH_ROOT_H

/* The stand-in the loader binds NAME to in an image that can serialize a
 * parallel region (it imports __kmpc_serialized_parallel), NULL for names
 * this file does not stand in for, when libomp is not in the process, or
 * when OMPEMU_TEAMS_FRESH_ROOT=0. */
void *fresh_root_lookup(const char *name);

#endif
