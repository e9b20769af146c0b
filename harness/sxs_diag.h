/* sxs_diag: a client of the .NET runtime's diagnostics IPC (the "diagnostic port", a Unix stream
 * socket each runtime of 3.0 or later listens on): finding a process's sockets, ProcessInfo2 to
 * tell its runtimes apart, and AttachProfiler. It does not speak EventPipe, dumps or any other
 * command set, and it never changes the target beyond the one request it sends. */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* The GUID of a COM class, in the little-endian byte layout the runtime reads. */
typedef struct {
  guint8 bytes[16];
} SxsDiagGuid;

/* Parses "{0560F28C-910E-4FDA-94A2-5FACD8966E48}" (braces optional). */
gboolean sxs_diag_guid_parse(const char *text, SxsDiagGuid *ret);

/* What ProcessInfo2 (command set 0x04, command 0x04) answers. */
typedef struct {
  guint64 pid;
  guint8 cookie[16];  /* the runtime instance's cookie: different for every runtime, even in one process */
  char *command_line; /* UTF-8; "" when the runtime sent none */
  char *os, *arch;    /* "Linux", "x64" */
  char *assembly;     /* the managed entry point's assembly name */
  char *version;      /* the runtime's product version ("10.0.12") */
} SxsDiagProcessInfo;

void sxs_diag_process_info_clear(SxsDiagProcessInfo *info);

/* One place a process's runtime listens: the runtime's default socket, or one runsxs
 * --diagnostics opened for its runtime `index`. */
typedef struct {
  int index;         /* runsxs runtime index (1-based); 0 for the default socket */
  char *path;        /* the socket */
  char *version;     /* product version (ProcessInfo2, else libcoreclr.so's folder); NULL when unknown */
  guint8 cookie[16]; /* the runtime instance's (ProcessInfo) */
} SxsDiagEndpoint;

void sxs_diag_endpoint_free(gpointer e);

/* runsxs --diagnostics gives runtime N of process PID the socket <TMPDIR>/SXS_RUNSXS_SOCKET_PREFIX
 * <pid>-rt<N>SXS_RUNSXS_SOCKET_SUFFIX: runsxs makes the name, sxsprof attach looks for it. */
#define SXS_RUNSXS_SOCKET_PREFIX "sxsprof-runsxs-"
#define SXS_RUNSXS_SOCKET_SUFFIX ".sock"

/* The diagnostics socket the runtime of `pid` created by default:
 * <TMPDIR>/dotnet-diagnostic-<pid>-<start time in clock ticks>-socket, TMPDIR being the target's
 * (default /tmp). Also accepts another start-time key for that pid in that folder, since the
 * runtime falls back to 0 when it cannot read its own start time. Returns 0 with *ret_path set,
 * -ESRCH when there is no such process, -ENOENT when it has no socket. */
int sxs_diag_default_socket(pid_t pid, char **ret_path);

/* Every endpoint of `pid`, probed with ProcessInfo2 (ProcessInfo before .NET 6): runsxs's
 * per-runtime sockets (<TMPDIR>/sxsprof-runsxs-<pid>-rt<N>.sock) by index, then the default socket
 * unless it reaches a runtime already listed (same cookie). The default socket alone is runtime 1
 * when the process maps one libcoreclr.so, index 0 when it maps several (only one answers there).
 * Sockets that do not answer, or answer for another pid (left behind by an earlier process), are
 * left out. Returns an array of SxsDiagEndpoint (maybe empty), or NULL with *ret_errno = -ESRCH
 * when there is no such process. */
GPtrArray *sxs_diag_find_endpoints(pid_t pid, int *ret_errno);

/* The version of the libcoreclr.so's folder the process has mapped ("2.0.0"), when exactly one
 * is mapped; NULL otherwise. A runsxs private copy (<version>-<hash>-copy<N>) gives <version>. */
char *sxs_diag_mapped_runtime_version(pid_t pid);

/* A descriptor that becomes readable (POLLIN) when process `pid` ends (pidfd_open), also when it
 * is not our child; -errno when there is none (-ESRCH: no such process). */
int sxs_diag_process_watch(pid_t pid);

/* How process `pid`, which need not be our child, ended, while that can still be told: 0 with
 * *ret_status set as waitpid() would give it, when the process has exited and its parent has not
 * collected it yet (a zombie: /proc/<pid>/stat holds its exit code); -ECHILD when it has exited
 * and its status went to its parent; -EBUSY when it still runs. */
int sxs_diag_process_exit(pid_t pid, int *ret_status);

/* "exited with status 3", "was killed by signal 9 (SIGKILL)", "was killed by signal 6 (SIGABRT)
 * and dumped core": what a waitpid() status says. Caller frees. */
char *sxs_diag_describe_exit(int status);

/* The version of the runtime in a folder: what its own files say (sxs__modules_runtime_version:
 * its CoreLib's informational version, .version, manifest), else what the folder's name stands
 * for: the name itself ("10.0.12", "10.0.0-rc.1.25451.107"), or for a runsxs private copy
 * (<version>-<hash>-copy<N>) <version>. NULL when neither gives a version. */
char *sxs_diag_folder_version(const char *folder);

/* Connects to a diagnostics socket with send and receive timeouts of timeout_ms. Returns the
 * socket (close-on-exec), or -errno (-ENOENT, -ECONNREFUSED for a socket nobody listens on,
 * -EACCES). */
int sxs_diag_connect(const char *path, int timeout_ms);

/* Asks for ProcessInfo2. Returns 0 with *ret filled, -EOPNOTSUPP when the runtime does not know
 * the command (before .NET 6), -EPROTO for an answer that does not parse, or -errno of the
 * connection (-ETIMEDOUT, -ECONNRESET when the runtime closes it without answering). */
int sxs_diag_process_info(const char *path, int timeout_ms, SxsDiagProcessInfo *ret);

/* Sends AttachProfiler (command set 0x03, command 0x01) and waits for the answer (up to
 * attach_timeout_ms plus 30 s). Returns 0 with *ret_hresult set to the runtime's answer (0 when it
 * loaded the profiler, the error HRESULT otherwise), -EMSGSIZE when the request does not fit in
 * one message, or -errno of the connection (-ETIMEDOUT, -EPROTO for an answer that does not
 * parse). */
int sxs_diag_attach_profiler(const char *path, guint32 attach_timeout_ms, const SxsDiagGuid *clsid,
                             const char *profiler_path, const void *client_data, gsize client_len,
                             guint32 *ret_hresult);

/* One sentence, without a final period, on what an HRESULT means for an attach: "a profiler is
 * already loaded in this runtime (a runtime takes only one)"; NULL when unknown. */
const char *sxs_diag_hresult_meaning(guint32 hr);

/* "CORPROF_E_PROFILER_ALREADY_ACTIVE (0x8013136A): a profiler is already loaded ...", or
 * "HRESULT 0x80001234" for an unknown one. Caller frees. */
char *sxs_diag_hresult_describe(guint32 hr);
