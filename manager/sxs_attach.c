/* sxs_attach: the attach request's client data, and the control thread (see sxs_attach.h). */
#include "sxs_attach.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sxs_manager.h"

#define ATTACH_MAGIC "sxsprof-attach 1"
#define ATTACH_MAX_DATA (64 * 1024)

void sxs__attach_request_clear(SxsAttachRequest *r) {
  g_clear_pointer(&r->config, g_free);
  g_clear_pointer(&r->control, g_free);
  g_clear_pointer(&r->run_id, g_free);
}

char *sxs__attach_request_format(const SxsAttachRequest *r, gsize *ret_len) {
  GString *text = g_string_new(ATTACH_MAGIC "\n");
  g_string_append_printf(text, "config=%s\n", r->config);
  if (r->control)
    g_string_append_printf(text, "control=%s\n", r->control);
  if (r->run_id)
    g_string_append_printf(text, "run_id=%s\n", r->run_id);
  *ret_len = text->len;
  return g_string_free(text, FALSE);
}

gboolean sxs__attach_request_parse(const void *data, gsize len, SxsAttachRequest *ret, char **ret_error) {
  if (!data || len == 0) {
    *ret_error = g_strdup("the attach request carries no client data (attach with sxsprof attach)");
    return FALSE;
  }
  if (len > ATTACH_MAX_DATA || !g_utf8_validate(data, (gssize)len, NULL)) {
    *ret_error = g_strdup("the attach request's client data is not an sxsprof request");
    return FALSE;
  }
  g_autofree char *text = g_strndup(data, len);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  if (!lines[0] || !g_str_equal(g_strchomp(lines[0]), ATTACH_MAGIC)) {
    *ret_error = g_strdup("the attach request's client data is not an sxsprof request (or of another version)");
    return FALSE;
  }
  SxsAttachRequest r = {0};
  for (char **l = lines + 1; *l; l++) {
    char *eq = strchr(*l, '=');
    if (!eq)
      continue;
    *eq = '\0';
    char **slot = g_str_equal(*l, "config")    ? &r.config
                  : g_str_equal(*l, "control") ? &r.control
                  : g_str_equal(*l, "run_id")  ? &r.run_id
                                               : NULL;
    if (slot && !*slot)
      *slot = g_strdup(eq + 1);
  }
  if (!r.config || !g_path_is_absolute(r.config) || (r.control && !g_path_is_absolute(r.control))) {
    sxs__attach_request_clear(&r);
    *ret_error = g_strdup("the attach request names no config file by absolute path");
    return FALSE;
  }
  *ret = r;
  return TRUE;
}

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
    sxs__manager_quiesce();
    sxs__manager_write_profile();
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
    sxs__manager_quiesce();
    int r = sxs__manager_write_profile();
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
