/* Whole-file reading for the tools (see readfile.h). */
#include "config.h"

#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tool_read_file(const char *prog, const char *what, const char *path,
                   unsigned char **out, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "%s: error: cannot open %s'%s': %s\n", prog, what, path,
            strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    fprintf(stderr, "%s: error: %s'%s' is not a regular file\n", prog, what,
            path);
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size, done = 0;
  unsigned char *buf = malloc(size ? size : 1);
  if (!buf) {
    fprintf(stderr, "%s: error: %s'%s' is too large to read (%zu bytes)\n",
            prog, what, path, size);
    close(fd);
    return -1;
  }
  while (done < size) {
    ssize_t r = read(fd, buf + done, size - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      fprintf(stderr, "%s: error: cannot read %s'%s': %s\n", prog, what, path,
              r < 0 ? strerror(errno) : "file shrank while reading");
      free(buf);
      close(fd);
      return -1;
    }
    done += (size_t)r;
  }
  close(fd);
  *out = buf;
  *len = size;
  return 0;
}
