/* sxs_no_perf: runs a command where perf_event_open is refused, as a container's seccomp profile or
 * a raised perf_event_paranoid would refuse it: a seccomp filter makes every perf_event_open of the
 * command (and of the processes it starts) fail with EACCES, then the command is executed.
 *
 * Usage: sxs_no_perf COMMAND [ARGS...]       exits 127 when the filter or the exec fails */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sxs_no_perf COMMAND [ARGS...]\n");
    return 127;
  }
  /* Any other architecture's system call numbers are not these: the filter lets them be. */
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    fprintf(stderr, "sxs_no_perf: cannot install the seccomp filter: %s\n", strerror(errno));
    return 127;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "sxs_no_perf: cannot run %s: %s\n", argv[1], strerror(errno));
  return 127;
}
