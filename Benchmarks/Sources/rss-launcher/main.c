// rss-launcher: runs one command and prints "WALL_NS MAXRSS_KIB STATUS".
//
// The peak RSS (wait4's ru_maxrss) of a child is max(the child's own peak, the peak of the memory map
// it exec'ed from): after vfork or fork, that map is its parent's. Spawned from strata-bench (tens of
// MB) the figure would be strata-bench's; spawned from this small program, the floor is this
// program's own few MB (SwiftPM links the Swift runtime even here). strata-bench measures `/bin/true`
// the same way to show that floor: a figure above it is the child's own peak.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rss-launcher PROGRAM [ARGUMENT...]\n");
    return 2;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t pid;
  int spawned = posix_spawn(&pid, argv[1], &actions, NULL, argv + 1, environ);
  if (spawned != 0) {
    fprintf(stderr, "rss-launcher: cannot run %s: errno %d\n", argv[1], spawned);
    return 127;
  }
  int status = 0;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  long long wall = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
  int exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  printf("%lld %ld %d\n", wall, usage.ru_maxrss, exitStatus);
  return 0;
}
