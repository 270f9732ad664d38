/* Helpers shared by the emu device unit tests: capture what a call prints
 * on stderr, so tests can check error messages. */
#ifndef EMU_TESTUTIL_H
#define EMU_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct capture {
  int fd;
  int saved;
  FILE *f;
};

/* Redirect file descriptor FD (1 or 2) into a temporary file. */
static inline void capture_fd_begin(struct capture *c, int fd) {
  fflush(stdout);
  fflush(stderr);
  c->fd = fd;
  c->f = tmpfile();
  c->saved = dup(fd);
  dup2(fileno(c->f), fd);
}

/* Redirect stderr into a temporary file until capture_end. */
static inline void capture_begin(struct capture *c) { capture_fd_begin(c, 2); }

/* Restore the descriptor; the captured text (malloc'd, caller frees). */
static inline char *capture_end(struct capture *c) {
  fflush(stdout);
  fflush(stderr);
  dup2(c->saved, c->fd);
  close(c->saved);
  long n = ftell(c->f);
  if (n < 0)
    n = 0;
  char *s = calloc(1, (size_t)n + 1);
  rewind(c->f);
  if (n && fread(s, 1, (size_t)n, c->f) != (size_t)n)
    s[0] = 0;
  fclose(c->f);
  return s;
}

#endif
