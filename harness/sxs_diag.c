/* sxs_diag: a client of the .NET runtime's diagnostics IPC over its Unix socket.
 *
 * Every message, both ways, is a 20-byte header and an optional payload, little-endian:
 *
 *   0            14       16          17         18         20
 *   +------------+--------+-----------+----------+----------+----------------------------+
 *   | magic      | size   | commandset| commandid| reserved | payload (size - 20 bytes)  |
 *   | "DOTNET_IPC_V1\0"   | u16: header + payload           |                            |
 *   +------------+--------+-----------+----------+----------+----------------------------+
 *
 * A request names its command (set 0x03 profiler: 0x01 AttachProfiler; set 0x04 process: 0x00
 * ProcessInfo, 0x04 ProcessInfo2). The answer's command set is 0xFF (server) with command 0x00 OK,
 * followed by the command's payload, or 0xFF Error, followed by a u32 HRESULT. A string is a u32
 * count of UTF-16 code units including the terminating NUL, then the units (UTF-16LE); an empty
 * count means no string. The runtime closes the connection after each answer.
 *
 * The runtime listens on <TMPDIR>/dotnet-diagnostic-<pid>-<key>-socket, TMPDIR being its own
 * (default /tmp) and <key> its start time in clock ticks since boot (field 22 of /proc/<pid>/stat),
 * so that a recycled pid does not reach a stale socket. */
#include "sxs_diag.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sxs_hresult.h"
#include "sxs_modules.h"
#include "sxs_version.h"

#define DIAG_MAGIC "DOTNET_IPC_V1"
#define DIAG_MAGIC_SIZE 14
#define DIAG_HEADER_SIZE 20
#define DIAG_MAX_MESSAGE 0xFFFF

enum {
  DIAG_SET_PROFILER = 0x03,
  DIAG_SET_PROCESS = 0x04,
  DIAG_SET_SERVER = 0xFF,
};

enum {
  DIAG_PROFILER_ATTACH = 0x01,
  DIAG_PROCESS_INFO = 0x00,
  DIAG_PROCESS_INFO2 = 0x04,
  DIAG_SERVER_OK = 0x00,
  DIAG_SERVER_ERROR = 0xFF,
};

#define DIAG_E_UNKNOWN_COMMAND 0x80131385u

/* How long an AttachProfiler may take beyond its own timeout: loading the library and the
 * profiler's InitializeForAttach run before the runtime answers. */
#define DIAG_ATTACH_GRACE_MS 30000

/* ---- GUIDs ---- */

gboolean sxs_diag_guid_parse(const char *text, SxsDiagGuid *ret) {
  if (!text)
    return FALSE;
  size_t len = strlen(text);
  if (len == 38 && text[0] == '{' && text[37] == '}') {
    text++;
    len = 36;
  }
  if (len != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-')
    return FALSE;
  /* The hex digits in text order: Data1 (4 bytes), Data2 (2), Data3 (2), Data4 (8). */
  guint8 raw[16];
  int n = 0;
  for (size_t i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23)
      continue;
    int hi = g_ascii_xdigit_value(text[i]), lo = g_ascii_xdigit_value(text[i + 1]);
    if (hi < 0 || lo < 0)
      return FALSE;
    raw[n++] = (guint8)(hi << 4 | lo);
    i++;
  }
  /* A GUID in memory: Data1, Data2, Data3 little-endian, Data4 as written. */
  static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  for (int i = 0; i < 16; i++)
    ret->bytes[i] = raw[order[i]];
  return TRUE;
}

/* ---- Messages ---- */

static void put_u16(GByteArray *b, guint16 v) {
  guint8 le[2] = {(guint8)v, (guint8)(v >> 8)};
  g_byte_array_append(b, le, 2);
}

static void put_u32(GByteArray *b, guint32 v) {
  guint8 le[4] = {(guint8)v, (guint8)(v >> 8), (guint8)(v >> 16), (guint8)(v >> 24)};
  g_byte_array_append(b, le, 4);
}

static guint16 get_u16(const guint8 *p) {
  return (guint16)(p[0] | p[1] << 8);
}

static guint32 get_u32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/* A UTF-8 string as the protocol's string: u32 unit count with the NUL, UTF-16LE units. FALSE
 * when it is not valid UTF-8. */
static gboolean put_string(GByteArray *b, const char *utf8) {
  glong units = 0;
  g_autofree gunichar2 *w = g_utf8_to_utf16(utf8, -1, NULL, &units, NULL);
  if (!w)
    return FALSE;
  put_u32(b, (guint32)units + 1);
  for (glong i = 0; i <= units; i++)
    put_u16(b, w[i]);
  return TRUE;
}

/* A request: the header, then the payload. */
static GByteArray *message_new(guint8 commandset, guint8 commandid) {
  GByteArray *b = g_byte_array_new();
  guint8 magic[DIAG_MAGIC_SIZE] = {0};
  memcpy(magic, DIAG_MAGIC, sizeof DIAG_MAGIC);
  g_byte_array_append(b, magic, DIAG_MAGIC_SIZE);
  put_u16(b, 0); /* size, set by message_finish */
  g_byte_array_append(b, &commandset, 1);
  g_byte_array_append(b, &commandid, 1);
  put_u16(b, 0);
  return b;
}

static gboolean message_finish(GByteArray *b) {
  if (b->len > DIAG_MAX_MESSAGE)
    return FALSE;
  b->data[DIAG_MAGIC_SIZE] = (guint8)b->len;
  b->data[DIAG_MAGIC_SIZE + 1] = (guint8)(b->len >> 8);
  return TRUE;
}

static int send_all(int fd, const guint8 *data, gsize len) {
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
    data += n;
    len -= (gsize)n;
  }
  return 0;
}

/* Reads exactly len bytes; -ECONNRESET when the runtime closes the connection first. */
static int recv_all(int fd, guint8 *data, gsize len) {
  while (len > 0) {
    ssize_t n = recv(fd, data, len, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
    if (n == 0)
      return -ECONNRESET;
    data += n;
    len -= (gsize)n;
  }
  return 0;
}

/* Sends a request and reads the answer's header and payload. Returns 0 with *ret_id (OK or
 * Error) and *ret_payload (g_free), or -errno. */
static int round_trip(const char *path, int timeout_ms, GByteArray *request, guint8 *ret_id, guint8 **ret_payload,
                      gsize *ret_len) {
  int fd = sxs_diag_connect(path, timeout_ms);
  if (fd < 0)
    return fd;
  int r = send_all(fd, request->data, request->len);
  guint8 header[DIAG_HEADER_SIZE];
  if (r == 0)
    r = recv_all(fd, header, sizeof header);
  if (r == 0 && (memcmp(header, DIAG_MAGIC, sizeof DIAG_MAGIC) != 0 || header[16] != DIAG_SET_SERVER ||
                 get_u16(header + DIAG_MAGIC_SIZE) < DIAG_HEADER_SIZE))
    r = -EPROTO;
  g_autofree guint8 *payload = NULL;
  gsize len = 0;
  if (r == 0) {
    len = get_u16(header + DIAG_MAGIC_SIZE) - DIAG_HEADER_SIZE;
    payload = g_malloc(len ? len : 1);
    r = recv_all(fd, payload, len);
  }
  close(fd);
  if (r < 0)
    return r;
  *ret_id = header[17];
  *ret_payload = g_steal_pointer(&payload);
  *ret_len = len;
  return 0;
}

/* Reads a protocol string at *pos; NULL (answer malformed) past the end. */
static char *take_string(const guint8 *p, gsize len, gsize *pos) {
  if (len - *pos < 4)
    return NULL;
  guint32 units = get_u32(p + *pos);
  *pos += 4;
  if (units == 0)
    return g_strdup("");
  if (units > (len - *pos) / 2)
    return NULL;
  g_autofree gunichar2 *w = g_new(gunichar2, units);
  for (guint32 i = 0; i < units; i++)
    w[i] = get_u16(p + *pos + 2 * i);
  *pos += 2 * (gsize)units;
  /* The count includes the NUL; convert up to it. */
  glong n = w[units - 1] == 0 ? (glong)units - 1 : (glong)units;
  char *s = g_utf16_to_utf8(w, n, NULL, NULL, NULL);
  return s ? s : g_strdup("");
}

/* ---- Connections ---- */

int sxs_diag_connect(const char *path, int timeout_ms) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path)
    return -ENAMETOOLONG;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  /* The send timeout also bounds connect() on a Unix socket whose backlog is full. */
  struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int r;
  do {
    r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  } while (r < 0 && errno == EINTR);
  if (r < 0) {
    r = errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
    close(fd);
    return r;
  }
  return fd;
}

void sxs_diag_process_info_clear(SxsDiagProcessInfo *info) {
  g_clear_pointer(&info->command_line, g_free);
  g_clear_pointer(&info->os, g_free);
  g_clear_pointer(&info->arch, g_free);
  g_clear_pointer(&info->assembly, g_free);
  g_clear_pointer(&info->version, g_free);
}

/* ProcessInfo (v1) or ProcessInfo2 (v2): u64 pid, 16-byte cookie, command line, OS, arch, and
 * with v2 the entry assembly's name and the product version. */
static int process_info(const char *path, int timeout_ms, gboolean v2, SxsDiagProcessInfo *ret) {
  g_autoptr(GByteArray) req = message_new(DIAG_SET_PROCESS, v2 ? DIAG_PROCESS_INFO2 : DIAG_PROCESS_INFO);
  message_finish(req);
  guint8 id = 0;
  g_autofree guint8 *p = NULL;
  gsize len = 0;
  int r = round_trip(path, timeout_ms, req, &id, &p, &len);
  if (r < 0)
    return r;
  if (id == DIAG_SERVER_ERROR)
    return len >= 4 && get_u32(p) == DIAG_E_UNKNOWN_COMMAND ? -EOPNOTSUPP : -EPROTO;
  if (id != DIAG_SERVER_OK || len < 24)
    return -EPROTO;
  SxsDiagProcessInfo info = {0};
  info.pid = (guint64)get_u32(p) | (guint64)get_u32(p + 4) << 32;
  memcpy(info.cookie, p + 8, 16);
  gsize pos = 24;
  info.command_line = take_string(p, len, &pos);
  info.os = info.command_line ? take_string(p, len, &pos) : NULL;
  info.arch = info.os ? take_string(p, len, &pos) : NULL;
  if (v2) {
    info.assembly = info.arch ? take_string(p, len, &pos) : NULL;
    info.version = info.assembly ? take_string(p, len, &pos) : NULL;
  }
  if (!info.arch || (v2 && !info.version)) {
    sxs_diag_process_info_clear(&info);
    return -EPROTO;
  }
  *ret = info;
  return 0;
}

int sxs_diag_process_info(const char *path, int timeout_ms, SxsDiagProcessInfo *ret) {
  return process_info(path, timeout_ms, TRUE, ret);
}

int sxs_diag_attach_profiler(const char *path, guint32 attach_timeout_ms, const SxsDiagGuid *clsid,
                             const char *profiler_path, const void *client_data, gsize client_len,
                             guint32 *ret_hresult) {
  g_autoptr(GByteArray) req = message_new(DIAG_SET_PROFILER, DIAG_PROFILER_ATTACH);
  put_u32(req, attach_timeout_ms);
  g_byte_array_append(req, clsid->bytes, sizeof clsid->bytes);
  if (!put_string(req, profiler_path))
    return -EINVAL;
  if (client_len > DIAG_MAX_MESSAGE)
    return -EMSGSIZE;
  put_u32(req, (guint32)client_len);
  if (client_len)
    g_byte_array_append(req, client_data, (guint)client_len);
  if (!message_finish(req))
    return -EMSGSIZE;
  guint8 id = 0;
  g_autofree guint8 *p = NULL;
  gsize len = 0;
  int timeout = (int)MIN(attach_timeout_ms, (guint32)G_MAXINT - DIAG_ATTACH_GRACE_MS) + DIAG_ATTACH_GRACE_MS;
  int r = round_trip(path, timeout, req, &id, &p, &len);
  if (r < 0)
    return r;
  if ((id != DIAG_SERVER_OK && id != DIAG_SERVER_ERROR) || len < 4)
    return -EPROTO;
  guint32 hr = get_u32(p);
  /* OK carries the attach's own (success) HRESULT; only Error carries a failure. */
  *ret_hresult = id == DIAG_SERVER_OK ? 0 : (hr ? hr : 0x80004005u);
  return 0;
}

/* ---- Finding sockets ---- */

/* The process's start time in clock ticks since boot, as the runtime computes its key. */
static int start_time_key(pid_t pid, guint64 *ret) {
  g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(path, &text, NULL, &error))
    return error->code == G_FILE_ERROR_NOENT ? -ESRCH : -EACCES;
  /* The command (field 2) may hold spaces and parentheses: count from its closing one. */
  const char *p = strrchr(text, ')');
  if (!p)
    return -EPROTO;
  g_auto(GStrv) fields = g_strsplit(p + 2, " ", 0);
  /* fields[0] is field 3 (state), so field 22 is fields[19]. */
  if (g_strv_length(fields) < 20)
    return -EPROTO;
  *ret = g_ascii_strtoull(fields[19], NULL, 10);
  return 0;
}

/* The folders a process's runtime puts its sockets in: its own TMPDIR (or /tmp), and, when its
 * environment cannot be read, this process's TMPDIR and /tmp. */
static GPtrArray *socket_folders(pid_t pid) {
  GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *path = g_strdup_printf("/proc/%d/environ", (int)pid);
  g_autofree char *env = NULL;
  gsize len = 0;
  if (g_file_get_contents(path, &env, &len, NULL)) {
    const char *tmpdir = NULL;
    for (gsize off = 0; off < len; off += strlen(env + off) + 1)
      if (g_str_has_prefix(env + off, "TMPDIR="))
        tmpdir = env + off + 7;
    g_ptr_array_add(dirs, g_strdup(tmpdir && *tmpdir ? tmpdir : "/tmp"));
  } else {
    const char *own = g_getenv("TMPDIR");
    if (own && *own)
      g_ptr_array_add(dirs, g_strdup(own));
    g_ptr_array_add(dirs, g_strdup("/tmp"));
  }
  /* "/tmp/" and "/tmp" are one folder. */
  for (guint i = 0; i < dirs->len; i++) {
    char *d = dirs->pdata[i];
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
      d[--n] = '\0';
  }
  if (dirs->len == 2 && g_str_equal(dirs->pdata[0], dirs->pdata[1]))
    g_ptr_array_remove_index(dirs, 1);
  return dirs;
}

static gboolean is_socket(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Does name read <prefix><digits><suffix>? Sets *ret_number. */
static gboolean name_matches(const char *name, const char *prefix, const char *suffix, guint64 *ret_number) {
  if (!g_str_has_prefix(name, prefix) || !g_str_has_suffix(name, suffix))
    return FALSE;
  if (strlen(name) < strlen(prefix) + strlen(suffix) + 1)
    return FALSE;
  const char *digits = name + strlen(prefix);
  if (strspn(digits, "0123456789") != strlen(digits) - strlen(suffix))
    return FALSE;
  *ret_number = g_ascii_strtoull(digits, NULL, 10);
  return TRUE;
}

int sxs_diag_default_socket(pid_t pid, char **ret_path) {
  guint64 key = 0;
  int r = start_time_key(pid, &key);
  if (r == -ESRCH)
    return r;
  g_autoptr(GPtrArray) dirs = socket_folders(pid);
  g_autofree char *prefix = g_strdup_printf("dotnet-diagnostic-%d-", (int)pid);
  for (guint i = 0; i < dirs->len; i++) {
    g_autofree char *exact = g_strdup_printf("%s/%s%" G_GUINT64_FORMAT "-socket", (char *)dirs->pdata[i], prefix, key);
    if (r == 0 && is_socket(exact)) {
      *ret_path = g_steal_pointer(&exact);
      return 0;
    }
  }
  /* A runtime that could not read its start time uses key 0; take any key of this pid then, the
   * newest socket first (an older one may be left over by an earlier process with this pid). */
  g_autofree char *best = NULL;
  time_t best_time = 0;
  for (guint i = 0; i < dirs->len; i++) {
    g_autoptr(GDir) dir = g_dir_open(dirs->pdata[i], 0, NULL);
    const char *name;
    guint64 other = 0;
    while (dir && (name = g_dir_read_name(dir))) {
      if (!name_matches(name, prefix, "-socket", &other))
        continue;
      g_autofree char *path = g_build_filename(dirs->pdata[i], name, NULL);
      struct stat st;
      if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (!best || st.st_mtime > best_time)) {
        g_free(best);
        best = g_steal_pointer(&path);
        best_time = st.st_mtime;
      }
    }
  }
  if (!best)
    return -ENOENT;
  *ret_path = g_steal_pointer(&best);
  return 0;
}

void sxs_diag_endpoint_free(gpointer p) {
  SxsDiagEndpoint *e = p;
  if (!e)
    return;
  g_free(e->path);
  g_free(e->version);
  g_free(e);
}

/* The folders of the libcoreclr.so files the process has mapped, each once: one per runtime
 * (runsxs runs a second runtime of one version from a private copy). Empty when unreadable. */
static GPtrArray *mapped_runtime_folders(pid_t pid) {
  GPtrArray *folders = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *path = g_strdup_printf("/proc/%d/maps", (int)pid);
  g_autofree char *maps = NULL;
  if (!g_file_get_contents(path, &maps, NULL, NULL))
    return folders;
  g_auto(GStrv) lines = g_strsplit(maps, "\n", -1);
  for (char **l = lines; *l; l++) {
    const char *file = strchr(*l, '/');
    if (!file || !g_str_has_suffix(file, "/libcoreclr.so"))
      continue;
    g_autofree char *dir = g_path_get_dirname(file);
    if (!g_ptr_array_find_with_equal_func(folders, dir, g_str_equal, NULL))
      g_ptr_array_add(folders, g_steal_pointer(&dir));
  }
  return folders;
}

/* Probes one socket: the endpoint when a runtime of `pid` answers on it, NULL otherwise (nobody
 * listens, or a process that had this pid before left it behind). */
static SxsDiagEndpoint *probe(pid_t pid, int index, const char *path) {
  SxsDiagProcessInfo info = {0};
  int r = process_info(path, 3000, TRUE, &info);
  if (r == -EOPNOTSUPP)
    r = process_info(path, 3000, FALSE, &info);
  if (r == -EOPNOTSUPP) {
    /* .NET Core 3.x answers, but knows no ProcessInfo (it came with 5.0): the socket's name, which
     * holds the pid (and the start time, or runsxs's runtime number), is all it tells. */
    SxsDiagEndpoint *e = g_new0(SxsDiagEndpoint, 1);
    e->index = index;
    e->path = g_strdup(path);
    return e;
  }
  if (r < 0 || info.pid != (guint64)pid) {
    sxs_diag_process_info_clear(&info);
    return NULL;
  }
  SxsDiagEndpoint *e = g_new0(SxsDiagEndpoint, 1);
  e->index = index;
  e->path = g_strdup(path);
  e->version = g_steal_pointer(&info.version);
  memcpy(e->cookie, info.cookie, sizeof e->cookie);
  sxs_diag_process_info_clear(&info);
  return e;
}

static gint endpoint_by_index(gconstpointer a, gconstpointer b) {
  const SxsDiagEndpoint *x = *(SxsDiagEndpoint *const *)a, *y = *(SxsDiagEndpoint *const *)b;
  return (x->index > y->index) - (x->index < y->index);
}

GPtrArray *sxs_diag_find_endpoints(pid_t pid, int *ret_errno) {
  if (kill(pid, 0) < 0 && errno == ESRCH) {
    *ret_errno = -ESRCH;
    return NULL;
  }
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(sxs_diag_endpoint_free);
  g_autoptr(GPtrArray) dirs = socket_folders(pid);
  g_autofree char *prefix = g_strdup_printf(SXS_RUNSXS_SOCKET_PREFIX "%d-rt", (int)pid);
  for (guint i = 0; i < dirs->len; i++) {
    g_autoptr(GDir) dir = g_dir_open(dirs->pdata[i], 0, NULL);
    const char *name;
    guint64 index = 0;
    while (dir && (name = g_dir_read_name(dir))) {
      if (!name_matches(name, prefix, SXS_RUNSXS_SOCKET_SUFFIX, &index) || index == 0 || index > G_MAXINT)
        continue;
      g_autofree char *path = g_build_filename(dirs->pdata[i], name, NULL);
      SxsDiagEndpoint *e = probe(pid, (int)index, path);
      if (e)
        g_ptr_array_add(found, e);
    }
  }
  g_ptr_array_sort(found, endpoint_by_index);
  g_autofree char *def = NULL;
  int r = sxs_diag_default_socket(pid, &def);
  if (r == -ESRCH) {
    *ret_errno = r;
    return NULL;
  }
  SxsDiagEndpoint *e = r == 0 ? probe(pid, 0, def) : NULL;
  static const guint8 no_cookie[16] = {0};
  for (guint i = 0; e && memcmp(e->cookie, no_cookie, sizeof no_cookie) != 0 && i < found->len; i++) {
    const SxsDiagEndpoint *other = found->pdata[i];
    if (memcmp(other->cookie, e->cookie, sizeof e->cookie) == 0)
      g_clear_pointer(&e, sxs_diag_endpoint_free);
  }
  g_autoptr(GPtrArray) mapped = mapped_runtime_folders(pid);
  if (e) {
    /* The process's only runtime is runtime 1. With several and no numbered sockets, whichever
     * runtime bound the shared name first answers there, and its number is unknown. */
    if (found->len == 0 && mapped->len <= 1)
      e->index = 1;
    g_ptr_array_add(found, e);
  }
  /* Runtimes before .NET 6 do not tell their version: the mapped libcoreclr.so's folder does when
   * there is only one. */
  if (found->len == 1 && mapped->len == 1 && !((SxsDiagEndpoint *)found->pdata[0])->version)
    ((SxsDiagEndpoint *)found->pdata[0])->version = sxs_diag_folder_version(mapped->pdata[0]);
  return g_steal_pointer(&found);
}

/* ---- Runtime folders ---- */

char *sxs_diag_folder_version(const char *folder) {
  /* What the runtime's own files say (its CoreLib, .version, manifest), as the profiler reads it. */
  g_autofree char *coreclr = g_build_filename(folder, "libcoreclr.so", NULL);
  char *version = NULL;
  SxsVersionSource source = SXS_VERSION_SOURCE_NONE;
  if (sxs__modules_runtime_version(coreclr, NULL, &version, &source) == 0 && source != SXS_VERSION_SOURCE_FOLDER)
    return version;
  g_free(version);
  g_autofree char *name = g_path_get_basename(folder);
  /* A runsxs private copy: <version>-<12 hex digits>-copy<N>. */
  char *copy = g_strrstr(name, "-copy");
  if (copy && copy[5] && strspn(copy + 5, "0123456789") == strlen(copy + 5)) {
    *copy = '\0';
    char *hash = strrchr(name, '-');
    if (hash && strlen(hash + 1) == 12 && strspn(hash + 1, "0123456789abcdef") == 12)
      *hash = '\0';
  }
  SxsVersion v;
  return sxs__version_parse(name, &v) ? g_strdup(name) : NULL;
}

int sxs_diag_process_watch(pid_t pid) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  return fd < 0 ? -errno : fd;
}

int sxs_diag_process_exit(pid_t pid, int *ret_status) {
  g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  g_autofree char *stat = NULL;
  if (!g_file_get_contents(path, &stat, NULL, NULL))
    return -ECHILD;
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses, the fields after the last
   * ')' do not. The state is field 3, the exit code field 52 (Linux 3.5 and later). */
  const char *close = strrchr(stat, ')');
  if (!close)
    return -EBUSY;
  g_auto(GStrv) fields = g_strsplit(g_strstrip((char *)close + 1), " ", -1);
  if (!fields[0] || (!g_str_equal(fields[0], "Z") && !g_str_equal(fields[0], "X")))
    return -EBUSY;
  if (g_strv_length(fields) < 50)
    return -ECHILD;
  *ret_status = (int)g_ascii_strtoll(fields[49], NULL, 10);
  return 0;
}

char *sxs_diag_describe_exit(int status) {
  if (WIFEXITED(status))
    return g_strdup_printf("exited with status %d", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char *name = sigabbrev_np(WTERMSIG(status));
    return g_strdup_printf("was killed by signal %d%s%s%s%s", WTERMSIG(status), name ? " (SIG" : "", name ? name : "",
                           name ? ")" : "", WCOREDUMP(status) ? " and dumped core" : "");
  }
  return g_strdup_printf("ended with status 0x%x", (unsigned)status);
}

char *sxs_diag_mapped_runtime_version(pid_t pid) {
  g_autoptr(GPtrArray) folders = mapped_runtime_folders(pid);
  return folders->len == 1 ? sxs_diag_folder_version(folders->pdata[0]) : NULL;
}

/* ---- HRESULTs ---- */

/* The names and meanings are those of the table beside the ABI (sxs_hresult.h); the HRESULTs an
 * attach can answer are those with a meaning. */
static const SxsHresult *hresult_find(guint32 hr) {
  const SxsHresult *h = sxs__hresult_find((HRESULT)hr);
  return h && h->attach_meaning ? h : NULL;
}

const char *sxs_diag_hresult_meaning(guint32 hr) {
  const SxsHresult *h = hresult_find(hr);
  return h ? h->attach_meaning : NULL;
}

char *sxs_diag_hresult_describe(guint32 hr) {
  const SxsHresult *h = hresult_find(hr);
  if (!h)
    return g_strdup_printf("HRESULT 0x%08X", hr);
  return g_strdup_printf("%s (0x%08X): %s", h->name, hr, h->attach_meaning);
}
