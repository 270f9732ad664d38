/* ompemu-wrap: reads the device images, checks them, builds the wrapper
 * object and writes it atomically (temporary file in the output's
 * directory, then rename), so a failure never leaves a partial OUT.o. */
#include "config.h"

#include "../common/readfile.h"
#include "elfwriter.h"
#include "wrap.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wrap_read_images(struct wrap_opts *opts) {
  for (size_t i = 0; i < opts->nimages; i++) {
    struct wrap_image *im = &opts->images[i];
    if (tool_read_file("ompemu-wrap", "image ", im->path, &im->bytes,
                       &im->size))
      return -1;
    if (im->size == 0) {
      fprintf(stderr, "ompemu-wrap: error: image '%s' is empty\n", im->path);
      return -1;
    }
    int is_elf = im->size >= SELFMAG && memcmp(im->bytes, ELFMAG, SELFMAG) == 0;
    if (!is_elf && !opts->allow_non_elf) {
      fprintf(stderr,
              "ompemu-wrap: error: image '%s' is not an ELF file (%zu bytes); "
              "pass --allow-non-elf to embed it anyway\n",
              im->path, im->size);
      return -1;
    }
  }
  return 0;
}

/* Write OBJ to PATH through a temporary file in the same directory. */
static int write_atomically(struct ow_obj *obj, const char *path) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp)
    return -1;
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
  memcpy(tmp, path, dirlen);
  sprintf(tmp + dirlen, ".%s.XXXXXX", path + dirlen);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "ompemu-wrap: error: cannot create '%s' (for '%s'): %s\n",
            tmp, path, strerror(errno));
    free(tmp);
    return -1;
  }
  int rc = ow_write(obj, fd, path);
  if (rc == 0) {
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0 || fsync(fd) != 0) {
      fprintf(stderr, "ompemu-wrap: error: cannot finish '%s': %s\n", tmp,
              strerror(errno));
      rc = -1;
    }
  }
  if (close(fd) != 0 && rc == 0) {
    fprintf(stderr, "ompemu-wrap: error: cannot write '%s': %s\n", tmp,
            strerror(errno));
    rc = -1;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    fprintf(stderr, "ompemu-wrap: error: cannot rename '%s' to '%s': %s\n",
            tmp, path, strerror(errno));
    rc = -1;
  }
  if (rc != 0)
    unlink(tmp);
  free(tmp);
  return rc;
}

int main(int argc, char **argv) {
  struct wrap_opts opts;
  memset(&opts, 0, sizeof(opts));
  int rc = 1;
  struct ow_obj *obj = NULL;

  if (wrap_parse_args(argc, argv, &opts))
    goto out;
  if (opts.help) {
    wrap_print_help();
    rc = 0;
    goto out;
  }
  if (opts.version) {
    printf("ompemu-wrap (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
    rc = 0;
    goto out;
  }
  if (wrap_check_target(opts.target) || wrap_read_images(&opts))
    goto out;
  obj = ow_new();
  if (!obj) {
    fprintf(stderr, "ompemu-wrap: error: out of memory\n");
    goto out;
  }
  if (wrap_build(obj, &opts) || write_atomically(obj, opts.output))
    goto out;
  rc = 0;
out:
  ow_free(obj);
  wrap_free_args(&opts);
  return rc;
}
