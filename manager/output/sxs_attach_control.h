/* sxs_attach_control: the profiler's end of the control channel of `sxsprof attach` (the
 * exchange is drawn in sxs_attach.h): the stop it serves is one of output's writes. */
#pragma once

/* Starts the control thread for an attached runtime: it connects to `socket_path`, says
 * "attached ..." with `hello`, and serves the stop request. Returns 0 or -errno (logged).
 * Context: the runtime's thread in ProfilerAttachComplete; the thread it starts calls nothing in
 * any runtime. */
int sxs__attach_control_start(const char *socket_path, const char *hello);
