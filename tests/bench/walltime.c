/* `walltime PROGRAM [ARGS]`: runs PROGRAM once with the environment it was
 * given and prints its wall time in ms (fork to exit), so that the shell
 * starting this helper is not counted.  Exit status: PROGRAM's (127 when it
 * could not be run, 128 + N when killed by signal N). */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: walltime PROGRAM [ARGS]\n");
    return 2;
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pid_t pid = fork();
  if (pid < 0) {
    perror("walltime: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror("walltime: exec");
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) != pid) {
    perror("walltime: waitpid");
    return 127;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.3f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
