/* sxs_attach_control: the control thread of an attach (see sxs_attach_control.h): it says the
 * runtime is attached, waits for the stop, then quiets the profiler and writes the profile. */
#include "sxs_attach_control.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sxs_manager.h"
#include "sxs_output.h"

typedef struct {
  char *path;
  char *hello;
} Control;

static gboolean send_line(int fd, const char *line) {
  size_t len = strlen(line), done = 0;
  while (done < len) {
    ssize_t n = send(fd, line + done, len - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    done += (size_t)n;
  }
  return TRUE;
}

/* Waits for "stop" (or the end of the connection), then quiets the profiler, writes the profile
 * and says where it went. */
static void *control_main(void *arg) {
  Control *c = arg;
  pthread_setname_np(pthread_self(), "sxsprof-attach");
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  gboolean connected = FALSE;
  if (fd >= 0 && strlen(c->path) < sizeof addr.sun_path) {
    memcpy(addr.sun_path, c->path, strlen(c->path) + 1);
    connected = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
  }
  if (!connected) {
    /* Nobody will ask for the profile: stop the expensive work now and write what there is. */
    sxs__manager_log("attach: cannot connect to the control socket %s (%s); sampling stops, the profile is "
                     "written now and at exit",
                     c->path, g_strerror(errno));
    sxs__output_quiesce();
    sxs__output_finish();
  } else if (send_line(fd, c->hello)) {
    /* Anything that is not a line saying "stop" before the connection ends is ignored. */
    GString *in = g_string_new(NULL);
    char buf[256];
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_string_append_len(in, buf, n);
      if (g_str_has_prefix(in->str, "stop\n") || strstr(in->str, "\nstop\n"))
        break;
      /* Only whole lines matter: keep the last one's start, never more than a few bytes. */
      const char *nl = strrchr(in->str, '\n');
      if (nl)
        g_string_erase(in, 0, nl - in->str);
      if (in->len > 64)
        g_string_erase(in, 0, in->len - 8);
    }
    g_string_free(in, TRUE);
    sxs__output_quiesce();
    int r = sxs__output_finish();
    g_autofree char *path = sxs__manager_profile_path();
    g_autofree char *reply = r == 0 && path ? g_strdup_printf("written %s\n", path)
                                            : g_strdup_printf("error cannot write the profile: %s\n", g_strerror(-r));
    send_line(fd, reply);
    sxs__manager_log("attach: stop requested; profile written to %s", path ? path : "(nowhere)");
  }
  if (fd >= 0)
    close(fd);
  g_free(c->path);
  g_free(c->hello);
  g_free(c);
  return NULL;
}

int sxs__attach_control_start(const char *socket_path, const char *hello) {
  Control *c = g_new0(Control, 1);
  c->path = g_strdup(socket_path);
  c->hello = g_strdup(hello);
  /* Signals meant for the program are never handled on this thread. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int r = pthread_create(&thread, &attr, control_main, c);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {
    sxs__manager_log("attach: cannot start the control thread (%s)", g_strerror(r));
    g_free(c->path);
    g_free(c->hello);
    g_free(c);
    return -r;
  }
  return 0;
}
