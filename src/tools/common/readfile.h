/* Reading a whole input file into memory, shared by ompemu-wrap and
 * ompemu-dump so both refuse the same things with the same messages. */
#ifndef OMPEMU_TOOLS_READFILE_H
#define OMPEMU_TOOLS_READFILE_H

#include <stddef.h>

/* Read all of PATH (a regular file) into a new buffer (*out, *len bytes;
 * the caller frees it).  0, or -1 after printing "PROG: error: ..." where
 * the file is called WHAT'PATH' (WHAT is "" or e.g. "image "). */
int tool_read_file(const char *prog, const char *what, const char *path,
                   unsigned char **out, size_t *len);

#endif
