/* libsxsjit.so: a native code generator inside a .NET program, for the tests of native names. It
 * writes one function's machine code into anonymous executable memory, says so in the process's
 * perf map (/tmp/perf-PID.map, as JITs other than the runtime's do), and runs it. The app
 * tests/apps/NativeJit calls it through P/Invoke. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The generated function: long loop(long n) counts n down to 0 and returns it. Four nops first, so
 * that a return address or an interrupted instruction minus one still falls inside it. */
static const uint8_t loop_code[] = {
    0x90, 0x90, 0x90, 0x90, /* nop x4 */
    0x48, 0x89, 0xf8,       /* mov %rdi,%rax */
    0x48, 0xff, 0xc8,       /* 1: dec %rax */
    0x75, 0xfb,             /* jnz 1b */
    0xc3,                   /* ret */
};

static long (*loop_fn)(long);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void generate(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint8_t *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return;
  memcpy(mem, loop_code, sizeof loop_code);
  if (mprotect(mem, page, PROT_READ | PROT_EXEC) != 0)
    return;
  char path[64], line[128];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  int n = snprintf(line, sizeof line, "%lx %zx sxs_jit_loop\n", (unsigned long)(uintptr_t)mem, sizeof loop_code);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, line, (size_t)n) != n)
    return;
  close(fd);
  loop_fn = (long (*)(long))(uintptr_t)mem;
}

/* Runs the generated loop over n; returns what it returns (0), or -1 when it could not be made. */
__attribute__((visibility("default"))) long sxs_jit_spin(long n) {
  pthread_once(&once, generate);
  return loop_fn ? loop_fn(n) : -1;
}
