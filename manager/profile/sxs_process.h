/* sxs_process: who this process is (pid, parent, executable, command line, start time) and which
 * files its profile and log go to, so that every process of a program tree that inherits the
 * profiler writes its own profile and none overwrites another's. It writes no file itself. */
#pragma once

#include <glib.h>
#include <stdint.h>

/* Environment variables the sxsprof launcher sets for the program it runs. */
#define SXS_OUTPUT_ENV "SXSPROF_OUTPUT"       /* the output prefix or folder (grammar of output=) */
#define SXS_OWNER_PID_ENV "SXSPROF_OWNER_PID" /* the pid that owns <prefix>.json */
#define SXS_RUN_ID_ENV "SXSPROF_RUN_ID"       /* recorded in every profile of the run */
#define SXS_LAUNCHER_ENV                                                                                               \
  "SXSPROF_LAUNCHER" /* the launcher's pid: it rebuilds the profile of a process a \
                                               * signal ended from its spool, and renders the views */

/* The identity of a process, recorded in its profile. */
typedef struct {
  int pid;
  int ppid;
  char *executable;     /* /proc/<pid>/exe resolved; NULL when unreadable */
  char **argv;          /* the command line; never NULL (may be empty) */
  gint64 start_unix_ms; /* when the process started (boot time + its start tick), 0 when unknown */
  char *run_id;         /* SXSPROF_RUN_ID, NULL when the process was not started by the launcher */
} SxsProcessInfo;

/* Reads the identity of the calling process. Never NULL. */
SxsProcessInfo *sxs__process_info_self(void);
SxsProcessInfo *sxs__process_info_copy(const SxsProcessInfo *p);
/* Accepts NULL. */
void sxs__process_info_free(SxsProcessInfo *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsProcessInfo, sxs__process_info_free)

/* A command line as one line of text, arguments holding spaces, quotes or shell characters
 * quoted; cut to max_chars characters (never inside a UTF-8 sequence) with "..." when max_chars
 * is not 0. Caller frees. */
char *sxs__process_command_line(char *const *argv, guint max_chars);

/* The name a profile in an output folder is given: the executable's base name, or, when the
 * executable is the `dotnet` host running an assembly (`dotnet [exec] path/app.dll ...`), the
 * assembly's name without ".dll". Only characters [A-Za-z0-9._+-] are kept. Never NULL. */
char *sxs__process_program_name(const char *executable, const char *const *argv);

/* Does this process own <prefix>.json, or is it one of several processes of a tree that write
 * <prefix>.<pid>.json? With owner_env (SXSPROF_OWNER_PID) set, exactly the process with that pid
 * owns it. Without, the process owns it unless one of its ancestors has `library` mapped (it is
 * then a child of a profiled process that inherited the profiler's environment). */
gboolean sxs__process_owns_prefix(int pid, const char *owner_env, const char *library);

/* The profile and default log files of a process:
 *   prefix, owner:      <prefix>.json              <prefix>.log
 *   prefix, not owner:  <prefix>.<pid>.json        <prefix>.log
 *   folder:             <folder>/<program>-<pid>.json   <folder>/sxsprof.log
 * All processes of a run share the log; each line carries its pid. */
void sxs__process_output_paths(const char *output, gboolean is_folder, gboolean owner, int pid, const char *program,
                               char **ret_profile, char **ret_log);
