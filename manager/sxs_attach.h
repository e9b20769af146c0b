/* sxs_attach: what `sxsprof attach` tells the profiler it attaches, and the control channel back
 * to it. It does not speak to any runtime (callback/ does the attach and the catch-up).
 *
 *   sxsprof attach                          target process
 *   --------------                          --------------
 *   listen on control socket
 *   AttachProfiler (diagnostics IPC) ---->  runtime: InitializeForAttach(client data)
 *     client data: "sxsprof-attach 1\n      the profiler: config, run id, control path
 *                   config=PATH\n           ProfilerAttachComplete: modules and JIT'd functions
 *                   control=PATH\n            enumerated, then the control thread connects:
 *                   run_id=ID\n"
 *   <---- "attached <runtime id> <version> modules=N functions=M\n"
 *   "stop\n" (duration over, Ctrl-C) ---->  sampler and stacks stop, the profile is written
 *   <---- "written <profile path>\n"  or  "error <message>\n"
 *
 * A control connection that closes without "stop" counts as one: the profile is written all
 * the same. */
#pragma once

#include <glib.h>

/* The client data of an attach. */
typedef struct {
  char *config;  /* the config file to use (absolute path) */
  char *control; /* the control socket to connect to (absolute path), or NULL */
  char *run_id;  /* recorded in the profile, or NULL */
} SxsAttachRequest;

/* Parses the client data (UTF-8 text, at most 64 KiB). Returns 0, or -EINVAL with *ret_why
 * set (one sentence) when it is not an sxsprof attach request; ret untouched then. */
int sxs__attach_request_parse(const void *data, gsize len, SxsAttachRequest *ret, char **ret_why);
void sxs__attach_request_clear(SxsAttachRequest *r);
/* The client data that sxs__attach_request_parse reads back (config required). Caller frees. */
char *sxs__attach_request_format(const SxsAttachRequest *r, gsize *ret_len);
