/* sxs_output: snapshot -> render -> write, and the moments a profile is written (see sxs_output.h).
 *
 * Each write copies the registry under its locks (sxs__manager_copy), adds the recorders' parts
 * (their own locks), and renders and writes outside every lock but write_lock, which serializes
 * writers so two never interleave their files. Every write but a dying process's first waits for
 * the naming thread to name what was queued (sxs_naming.h), so the profile lists every function
 * the inventory counted and the stacks' frames have their names. The profile is written at each runtime's Shutdown,
 * every flush= seconds, and again at process exit (a destructor), because not every runtime gets a
 * Shutdown. Between them, the output thread appends what changed to the spool every
 * SXS_SPOOL_PERIOD_MS (sxs_spool_write.c), so a process killed by SIGKILL loses at most that much;
 * and a signal that ends the process wakes the thread at once (sxs_ending.c):
 *
 *   output thread: poll(wake pipe, until the next spool batch or flush)
 *     woken by an ending signal --> spool batch saying so; without the launcher also the profile
 *                                   and its views --> done pipe (the handler lets the signal go on)
 *     spool period passed       --> spool batch (what changed)
 *     flush= passed             --> the queued names waited for, then the profile, alone
 *     stop                      --> returns (quiesce, exit)
 *
 * Under the launcher (SXSPROF_LAUNCHER) the process writes no views and, when a signal ends it,
 * only the spool: the launcher rebuilds the profile from it and renders the views after the
 * process died, so the time from the signal to the death does not grow with the profile.
 *
 * Lock order: write_lock, then the registry's locks (taken inside sxs__manager_copy) and the
 * recorders'; the spool's lock is never taken inside write_lock. Nothing here runs on a hot or signal path (sxs_ending.c's handler only
 * writes a byte and polls). */
#include "sxs_output.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "sxs_ending.h"
#include "sxs_events.h"
#include "sxs_formats.h"
#include "sxs_naming.h"
#include "sxs_json.h"
#include "sxs_process.h"
#include "sxs_sampler.h"
#include "sxs_spool_write.h"
#include "sxs_lines.h"
#include "sxs_stacks.h"
#include "sxs_timeline_rec.h"
#include "sxs_trace.h"

/* `write_lock` serializes writes and guards last_digest, views_digest and views_skipped_logged;
 * flush_stop is atomic; flush_thread and flush_running are touched by one caller at a time
 * (Initialize, an attach's config, quiesce, exit). */
typedef struct {
  GMutex write_lock;
  guint64 last_digest;             /* sxs__text_digest of the document last written */
  guint64 views_digest;            /* ... of the document the views were last written for */
  gboolean written, views_written; /* whether last_digest, views_digest hold one */
  gboolean final_written;          /* written after the last runtime's Shutdown (atomic) */
  gboolean views_skipped_logged;   /* the views left out (nothing to show) were logged */
  pthread_t flush_thread;          /* the output thread */
  gboolean flush_running;          /* flush_thread was started and not yet joined */
  int flush_stop;                  /* atomic: the output thread is to return */
} SxsOutput;

/* Zero-initialized GMutex and GCond need no init when static. */
static SxsOutput output;

SxsProfileModel *sxs__output_snapshot(void) {
  SxsProfileModel *m = sxs__manager_copy();
  /* Reading the hooks' counters and the recorded stacks happens outside the registry's locks. */
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    sxs__trace_fill(r->id, r);
    sxs__naming_fill(r->id, r);
  }
  g_autoptr(GHashTable) by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
  sxs__stacks_fill(m, by_id);
  sxs__events_fill(m);
  sxs__sampler_fill(m);
  sxs__lines_fill(m);
  sxs__timeline_rec_fill(m, by_id);
  return m;
}

char *sxs__output_render_profile(gsize *ret_len) {
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  return sxs__profile_render_json(m, ret_len);
}

/* The other formats formats= asks for, beside the profile, from the model just written. Runs
 * with write_lock held and no other lock. */
static void write_views_locked(const SxsConfig *cfg, const char *profile_path, const SxsProfileModel *model) {
  guint extra = cfg->formats & SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_JSON);
  if (!extra)
    return;
  g_autoptr(SxsView) view = sxs__view_new(model, NULL);
  g_autofree char *base = sxs__formats_base(profile_path);
  g_autofree char *skipped = NULL, *error = NULL;
  SxsRenderOptions options = {.top = 10, .kind = SXS_VIEW_N_KINDS};
  /* Each view that cannot be written (a full disk) keeps its last good file and gets its own line;
   * the others are still written. A view with nothing to show removes an older file of its name,
   * from an earlier run. Not synced, like the profile (write_profile). */
  if (sxs__formats_write(view, base, extra, &options, SXS_FORMATS_DROP_STALE, NULL, NULL, NULL, &skipped, &error) < 0) {
    g_auto(GStrv) lines = g_strsplit(error, "\n", -1);
    for (char **l = lines; *l; l++)
      sxs__manager_log("%s", *l);
  }
  /* Said once (the periodic flush would repeat it), and only when there are stacks: without any,
   * every view is left out and the launcher says why. */
  if (skipped && !output.views_skipped_logged && sxs__view_primary_kind(view) != SXS_VIEW_N_KINDS) {
    g_strdelimit(skipped, "\n", ';');
    sxs__manager_log("not written: %s", skipped);
    output.views_skipped_logged = TRUE;
  }
}

/* Writes the profile, and with_views the files formats= asks for beside it. The periodic flush
 * writes the profile alone: rendering every view of a large profile each minute would cost a
 * long-running service CPU time for files nobody reads before the end; Shutdown, exit and an
 * attach's stop write the views too (sxsprof report renders them from any flushed profile). */
static int write_profile(gboolean with_views) {
  const SxsConfig *cfg = sxs__manager_config();
  if (!cfg)
    return -EINVAL;
  g_mutex_lock(&output.write_lock);
  g_autofree char *profile_path = sxs__manager_profile_path();
  if (!profile_path) {
    g_mutex_unlock(&output.write_lock);
    return -EINVAL;
  }
  g_autoptr(SxsProfileModel) model = sxs__output_snapshot();
  /* The text is mapped apart from the program's heap (sxs_json.h, SxsText). */
  g_auto(SxsText) doc = sxs__profile_render_json_text(model);
  const char *text = doc.data;
  gsize len = doc.len;
  guint64 digest = sxs__text_digest(text, len);
  int r = 0;
  /* The exit-time write usually follows a Shutdown write of the same document, and a quiet
   * service flushes the same document again and again: the file is already right, and another
   * replace would only cost the process time. The replace is atomic but not synced: the process
   * (most often on its way out) must not wait for the disk, 2-5 ms for a hello-world's profile
   * and far more on a busy disk; the rename alone already shows every reader a whole document,
   * also when the process dies, and only a crash of the machine within the kernel's writeback
   * delay could lose it. */
  if (!output.written || output.last_digest != digest || !g_file_test(profile_path, G_FILE_TEST_EXISTS)) {
    r = sxs__file_write_atomic(profile_path, text, len, 0);
    if (r < 0) {
      sxs__manager_log("cannot write the profile to %s: %s", profile_path, g_strerror(-r));
    } else {
      output.last_digest = digest;
      output.written = TRUE;
    }
  }
  /* The views of this document, unless they were written for it already. */
  if (r == 0 && with_views && (!output.views_written || output.views_digest != digest)) {
    write_views_locked(cfg, profile_path, model);
    output.views_digest = digest;
    output.views_written = TRUE;
  }
  g_mutex_unlock(&output.write_lock);
  return r;
}

/* How long a write waits for the naming thread to name what was queued before it. */
#define OUTPUT_NAMING_WAIT_MS 2000

/* Waits for the names of what was queued so far, so that the profile lists every function the
 * inventory counted (not on the way out of a dying process: sxs_ending.c's path writes what is
 * named). */
static void wait_for_names(void) {
  if (!sxs__naming_drain(NULL, OUTPUT_NAMING_WAIT_MS))
    sxs__manager_log("the functions queued for naming were not all named %d ms before a write of the profile; the rest "
                     "follows in the next one",
                     OUTPUT_NAMING_WAIT_MS);
}

int sxs__output_write(void) {
  wait_for_names();
  return write_profile(TRUE);
}

/* Sampling ends with the last profiled runtime: what follows is the process's exit (the profiler
 * writing this profile among it), and no recorder has anything more to add, so the profile
 * written then is final: the exit does not render it again. */
static gboolean runtime_stopping(SxsRuntime *rt) {
  gboolean last = sxs__manager_runtime_shutdown(rt) == 0;
  if (last)
    sxs__sampler_stop();
  return last;
}

void sxs__output_runtime_stopping(SxsRuntime *rt) {
  runtime_stopping(rt);
}

void sxs__output_runtime_shutdown(SxsRuntime *rt) {
  gboolean last = runtime_stopping(rt);
  if (sxs__output_write() == 0 && last)
    __atomic_store_n(&output.final_written, TRUE, __ATOMIC_RELEASE);
}

/* Does a launcher wait for this process, to rebuild its profile from the spool and render its
 * views? Only while that launcher runs. */
static gboolean launcher_waits(void) {
  const char *pid = g_getenv(SXS_LAUNCHER_ENV);
  if (!pid || !*pid)
    return FALSE;
  long p = strtol(pid, NULL, 10);
  return p > 0 && kill((pid_t)p, 0) == 0;
}

/* A signal is ending the process: the spool gets everything recorded and says so; without a
 * launcher to rebuild the profile, the process writes the profile and its views itself. */
static void write_ending(int signal) {
  int r = sxs__spool_append(signal);
  if (!launcher_waits() && write_profile(TRUE) == 0) {
    sxs__spool_remove();
    return;
  }
  if (r < 0)
    write_profile(FALSE);
}

/* A profile written, or a spool compacted, built a copy of everything recorded and its text, and
 * freed them: the allocator keeps what they took unless asked to give back its free pages, and a
 * long run's resident memory would then grow by the largest of those copies at every write. */
static void give_back_freed_memory(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

/* The output thread: a spool batch every SXS_SPOOL_PERIOD_MS, the profile every flush= seconds
 * (0: never), and what a dying process needs as soon as an ending signal's handler wakes it. It
 * calls nothing in any runtime and holds no registry lock while it formats or writes.
 * Context: its own thread, every signal blocked. */
static void *flush_main(void *arg) {
  gint64 flush_period = (gint64)GPOINTER_TO_INT(arg) * G_TIME_SPAN_SECOND;
  gint64 spool_period = SXS_SPOOL_PERIOD_MS * G_TIME_SPAN_MILLISECOND;
  gint64 now = g_get_monotonic_time();
  gint64 next_flush = flush_period > 0 ? now + flush_period : G_MAXINT64;
  /* The first batch one period in, like every other: a process killed before still loses at most
   * that much, and a short one (a hello-world ends within 100 ms) writes no spool at all, which
   * saves it a file created, written, renamed and removed again, and a render of its state. */
  gint64 next_spool = now + spool_period;
  gboolean ended = FALSE, spool_failed_logged = FALSE;
  sxs__ending_set_listening(TRUE);
  while (!__atomic_load_n(&output.flush_stop, __ATOMIC_ACQUIRE)) {
    int signal = sxs__ending_signal();
    if (signal && !ended) {
      ended = TRUE;
      write_ending(signal);
      sxs__ending_done();
      /* The process is about to die: no new spool in the meantime. One that lives on (its
       * runtime ended it in an orderly way, or the signal was handled after all) resumes. */
      next_spool = g_get_monotonic_time() + 2 * SXS_ENDING_WAIT_MS * G_TIME_SPAN_MILLISECOND;
      continue;
    }
    now = g_get_monotonic_time();
    if (now >= next_spool) {
      SxsSpoolStats before, after;
      sxs__spool_stats(&before);
      int r = sxs__spool_append(0);
      sxs__spool_stats(&after);
      if (after.compactions != before.compactions)
        give_back_freed_memory();
      if (r < 0 && !spool_failed_logged) {
        sxs__manager_log("cannot write the spool beside the profile (%s); a process killed now keeps only the "
                         "last profile written",
                         g_strerror(-r));
        spool_failed_logged = TRUE;
      }
      next_spool = now + spool_period;
    }
    if (now >= next_flush) {
      wait_for_names();
      write_profile(FALSE);
      give_back_freed_memory();
      next_flush = now + flush_period;
    }
    now = g_get_monotonic_time();
    gint64 wait = MIN(next_spool, next_flush) - now;
    struct pollfd p = {.fd = sxs__ending_wake_fd(), .events = POLLIN};
    if (wait > 0 && poll(&p, p.fd >= 0 ? 1 : 0, (int)MIN(wait / 1000 + 1, G_MAXINT)) > 0)
      sxs__ending_drain();
  }
  sxs__ending_set_listening(FALSE);
  return NULL;
}

static void start_flush_thread(int seconds) {
  if (output.flush_running)
    return;
  __atomic_store_n(&output.flush_stop, 0, __ATOMIC_RELEASE);
  /* Signals meant for the program (SIGTERM, SIGINT, the runtimes' own) must never be handled on
   * this thread: it starts with all of them blocked. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int r = pthread_create(&output.flush_thread, NULL, flush_main, GINT_TO_POINTER(MAX(seconds, 0)));
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {
    sxs__manager_log("cannot start the output thread (%s); the profile is written at shutdown and exit only",
                     g_strerror(r));
    return;
  }
  pthread_setname_np(output.flush_thread, "sxsprof-output");
  output.flush_running = TRUE;
}

static void stop_flush_thread(void) {
  if (!output.flush_running)
    return;
  __atomic_store_n(&output.flush_stop, 1, __ATOMIC_RELEASE);
  sxs__ending_wake();
  if (!pthread_equal(pthread_self(), output.flush_thread))
    pthread_join(output.flush_thread, NULL);
  output.flush_running = FALSE;
}

void sxs__output_start(void) {
  const SxsConfig *cfg = sxs__manager_config();
  if (!cfg)
    return;
  sxs__ending_install();
  /* After an attach's stop the periodic rewrite stays off (the exit still writes once more). */
  if (!sxs__manager_quiet())
    start_flush_thread(cfg->flush_seconds);
}

int sxs__output_finish(void) {
  int r = sxs__output_write();
  if (r == 0)
    sxs__spool_remove();
  return r;
}

void sxs__output_quiesce(void) {
  sxs__manager_set_quiet(TRUE);
  sxs__sampler_stop();
  /* No periodic rewrite after a stop (the exit still writes it once more, with what came since). */
  stop_flush_thread();
}

int sxs__output_attach_config(const char *config_path, const char *run_id, char **ret_why) {
  /* The flush of the old config must not write while the config and paths change. */
  stop_flush_thread();
  int r = sxs__manager_attach_config(config_path, run_id, ret_why);
  sxs__output_start();
  return r;
}

void sxs__output_reset_for_tests(void) {
  stop_flush_thread();
  sxs__naming_reset_for_tests();
  sxs__manager_reset_for_tests();
  sxs__stacks_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
  g_mutex_lock(&output.write_lock);
  output.written = output.views_written = output.final_written = FALSE;
  g_mutex_unlock(&output.write_lock);
  sxs__spool_remove();
  const SxsConfig *cfg = sxs__manager_config();
  if (cfg)
    start_flush_thread(cfg->flush_seconds);
}

/* Process exit (or the library's final unload): write the profile once more, whatever Shutdown
 * calls did or did not arrive. Runs on the exiting thread; other runtime threads may still be
 * delivering callbacks, which the locks keep consistent. */
__attribute__((destructor)) static void output_at_exit(void) {
  if (!sxs__manager_active())
    return;
  /* A child forked without exec is not the process this profile describes. */
  if (sxs__manager_pid() != (int)getpid())
    return;
  stop_flush_thread();
  sxs__sampler_stop();
  guint n = sxs__manager_runtime_count();
  if (n == 0)
    return;
  /* After the last runtime's Shutdown wrote it, the profile on disk is already final. */
  int r = 0;
  if (__atomic_load_n(&output.final_written, __ATOMIC_ACQUIRE))
    sxs__spool_remove();
  else
    r = sxs__output_finish();
  if (r == 0) {
    g_autofree char *path = sxs__manager_profile_path();
    sxs__manager_log("profile of %u runtime%s written to %s", n, n == 1 ? "" : "s", path);
  }
}
