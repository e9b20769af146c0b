/* sxs_engine_perf: the sampler's perf_events engine (mode=cpu): one counter per thread, counting
 * that thread's CPU time (the kernel's task clock) or one of the processor's hardware events, that
 * overflows every period and raises the sampler's signal on that thread. It opens, reads and
 * closes the counters; the sampler decides which threads get one and collects what the handler
 * captured. It does not walk stacks. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

#include "sxs_config.h"

/* The counters' signal info: si_code of a counter's overflow (the kernel's SIGIO band, POLL_IN;
 * POLL_HUP once a counter with an overflow limit is disabled). */
#define SXS_ENGINE_PERF_SI_CODE_IN 1
#define SXS_ENGINE_PERF_SI_CODE_HUP 6

/*
 * Whether this process may count event on its threads: opens one counter on the calling thread
 * and closes it at once. Returns 0, or -errno with *ret_why (owned) set to one line that names
 * the refusal and its likely cause, e.g. "perf_event_open: Permission denied (EACCES;
 * perf_event_paranoid=3)" or "cycles: no hardware counter (ENOENT: the machine has no PMU ...)".
 * Context: any thread; normal context.
 */
int sxs__engine_perf_probe(SxsSamplingEvent event, char **ret_why);

/* The period a sample stands for: for cpu-time, ns of CPU time (1 s / frequency); for a hardware
 * event, a count of events chosen so that a thread busy on a core of about 1 GHz is sampled near
 * the frequency asked. */
guint64 sxs__engine_perf_period(SxsSamplingEvent event, int frequency);

/* The unit of an event's period: "nanoseconds" for cpu-time, "count" for the hardware events. */
const char *sxs__engine_perf_unit(SxsSamplingEvent event);

/*
 * Opens thread tid's counter for event, overflowing every period, each overflow raising signo on
 * tid itself (F_SETOWN_EX with F_OWNER_TID, F_SETSIG; the signal's si_fd names the counter), and
 * starts it. Returns the counter's file descriptor (close-on-exec), or -errno. Context: the
 * sampler thread.
 */
int sxs__engine_perf_open(pid_t tid, SxsSamplingEvent event, guint64 period, int signo);

/* The counter's value (ns of CPU time, or events) into *ret_count. Returns 0 or -errno. Context:
 * any thread, the signal handler included; async-signal-safe (one read system call). */
int sxs__engine_perf_read(int fd, guint64 *ret_count);

/* The counter's next periods (PERF_EVENT_IOC_PERIOD). Returns 0 or -errno. Context: any thread, the signal
 * handler included; async-signal-safe (one ioctl). */
int sxs__engine_perf_set_period(int fd, guint64 period);

/* Stops the counter and closes it (no signal after this returns). Context: the sampler thread. */
void sxs__engine_perf_close(int fd);
