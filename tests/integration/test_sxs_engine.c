/* The cpu-mode sampler's engines through `sxsprof run`, on .NET 10, with tests/apps/Threads (threads
 * named spin-<i> running Spinner.Spin, integer arithmetic with no call and no allocation):
 *   - perf (perf_events, forced with --engine perf): a spinning thread gets 95 % of 999 captures per
 *     second of its own CPU time at 999 Hz, 97 % of 99 at 99 Hz (its CPU time from its counter, so
 *     that a machine busy with other work does not change the count), nearly all in Spinner.Spin;
 *   - timer (--engine timer): the rate it gets is said (in the profile, per thread, and the summary)
 *     and adds up with the periods it lost;
 *   - perf refused (tests/integration/sxs_no_perf: a seccomp filter makes perf_event_open fail with
 *     EACCES): auto and perf both run the timers, say why, and still sample the spinning threads;
 *   - a hardware event (--event cycles): samples of cycles where the machine has a PMU (probed here
 *     with perf_event_open, as the profiler does), else sampling is off with its one-line reason;
 *   - in cpu and wall mode, no sample of a thread of the profiler's own, whose CPU time is reported;
 *   - auto with threads that run in short slices (Threads' pong pairs: bursts of some 20 µs, each
 *     waking the other): they move to CPU-time timers (a counter costs each context switch), the
 *     spinning thread keeps its counter and its rate, the periods still add up to each thread's CPU
 *     time, and the summary says so; --engine perf keeps every thread on a counter.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 300

typedef ItestScratch Fixture;

/* `[sxs_no_perf] sxsprof run <options> --format json,summary -o <scratch> -- dotnet Threads.dll
 * <threads> <spinning> <seconds>`; options is space-separated. */
static ItestRun *run_threads(Fixture *f, gboolean no_perf, const char *options, const char *threads_args) {
  g_autofree char *app = itest_app("Threads");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  if (no_perf)
    g_ptr_array_add(argv, (gpointer)itest_env("SXS_NO_PERF"));
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_SXSPROF"));
  g_ptr_array_add(argv, "run");
  g_auto(GStrv) opts = g_strsplit(options, " ", -1);
  for (char **o = opts; *o; o++)
    g_ptr_array_add(argv, *o);
  const char *tail[] = {"--format", "json,summary,pprof", "-o", f->output, "--", itest_env("SXS_DOTNET"), app};
  for (guint i = 0; i < G_N_ELEMENTS(tail); i++)
    g_ptr_array_add(argv, (gpointer)tail[i]);
  g_auto(GStrv) words = g_strsplit(threads_args, " ", -1);
  for (char **w = words; *w; w++)
    g_ptr_array_add(argv, *w);
  g_ptr_array_add(argv, NULL);
  const char *env[] = {ITEST_NO_PROFILER_ENV, NULL};
  return itest_run((const char *const *)argv->pdata, env, f->dir, TIMEOUT);
}

static JsonObject *samples_of(JsonNode *doc) {
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  g_assert_nonnull(s);
  g_assert_true(json_object_get_boolean_member(s, "enabled"));
  return s;
}

/* The thread_rates entry of the thread named name, or NULL. */
static JsonObject *rate_of(JsonObject *samples, const char *name) {
  JsonArray *rates = json_object_get_array_member(samples, "thread_rates");
  for (guint i = 0; i < json_array_get_length(rates); i++) {
    JsonObject *r = json_array_get_object_element(rates, i);
    if (g_strcmp0(json_object_get_string_member(r, "thread"), name) == 0)
      return r;
  }
  return NULL;
}

/* The samples of the thread named name: all, and those whose stack holds managed frame frame. */
static void samples_of_thread(JsonObject *samples, const char *name, const char *frame, gint64 *ret_all,
                              gint64 *ret_with) {
  *ret_all = *ret_with = 0;
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    if (g_strcmp0(json_object_get_string_member(st, "thread"), name) != 0)
      continue;
    gint64 count = json_object_get_int_member(st, "count");
    *ret_all += count;
    JsonArray *frames = json_object_get_array_member(st, "frames");
    for (guint k = 0; k < json_array_get_length(frames); k++) {
      JsonObject *fr = json_array_get_object_element(frames, k);
      if (g_strcmp0(json_object_get_string_member(fr, "name"), frame) == 0) {
        *ret_with += count;
        break;
      }
    }
  }
}

/* No sample is of a thread of the profiler's: none named sxsprof-*, none with the id of one listed
 * in profiler_threads; and the sampler's own thread is listed there with the CPU time it used. */
static void assert_profiler_unsampled(JsonObject *samples, const char *summary) {
  JsonArray *own = json_object_get_array_member(samples, "profiler_threads");
  g_assert_nonnull(own);
  gboolean sampler_listed = FALSE;
  g_autoptr(GHashTable) own_tids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < json_array_get_length(own); i++) {
    JsonObject *t = json_array_get_object_element(own, i);
    const char *name = json_object_get_string_member(t, "thread");
    g_assert_true(g_str_has_prefix(name, "sxsprof-"));
    g_hash_table_add(own_tids, GINT_TO_POINTER((int)json_object_get_int_member(t, "os_tid")));
    if (g_str_equal(name, "sxsprof-sampler")) {
      sampler_listed = TRUE;
      g_assert_cmpint(json_object_get_int_member(t, "cpu_ns"), >, 0);
    }
  }
  g_assert_true(sampler_listed);
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  g_assert_cmpuint(json_array_get_length(stacks), >, 0);
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    const char *name = json_object_get_string_member(st, "thread");
    if (g_str_has_prefix(name, "sxsprof-") ||
        g_hash_table_contains(own_tids, GINT_TO_POINTER((int)json_object_get_int_member(st, "os_tid"))))
      g_test_message("a sample of the profiler's thread %s", name);
    g_assert_false(g_str_has_prefix(name, "sxsprof-"));
    g_assert_false(g_hash_table_contains(own_tids, GINT_TO_POINTER((int)json_object_get_int_member(st, "os_tid"))));
  }
  JsonArray *rates = json_object_get_array_member(samples, "thread_rates");
  for (guint i = 0; rates && i < json_array_get_length(rates); i++)
    g_assert_false(
        g_str_has_prefix(json_object_get_string_member(json_array_get_object_element(rates, i), "thread"), "sxsprof-"));
  /* The summary's line of what the profiler cost. */
  g_assert_nonnull(strstr(summary, "  profiler: "));
  g_assert_nonnull(strstr(summary, "s CPU on its own threads, not sampled (sxsprof-"));
}

/* Perf engine forced: each spinning thread's captures per second of its CPU time, at least share
 * of the frequency asked. The better of two runs is kept when the first falls short: a machine
 * busy with other work can hold the sampler thread off its CPU. */
static void test_perf_rate(Fixture *f, gconstpointer data) {
  int hz = GPOINTER_TO_INT(data);
  double share = hz >= 999 ? 0.95 : 0.97;
  g_autofree char *options = g_strdup_printf("--sample=%d --engine perf", hz);
  /* At 99 Hz a capture is 1 % of a hundred: more CPU seconds for the thread. */
  const char *args = hz >= 999 ? "2 1 3" : "2 1 6";
  double worst = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    g_autoptr(ItestRun) run = run_threads(f, FALSE, options, args);
    itest_assert_exit(run, 0);
    g_assert_nonnull(strstr(run->out, "threads started=2 spinning=1"));
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    JsonObject *samples = samples_of(doc);
    g_assert_cmpstr(json_object_get_string_member(samples, "mode"), ==, "cpu");
    g_assert_cmpstr(json_object_get_string_member(samples, "engine"), ==, "perf");
    g_assert_cmpstr(json_object_get_string_member(samples, "engine_reason"), ==, "engine=perf asked for");
    g_assert_cmpstr(json_object_get_string_member(samples, "event"), ==, "cpu-time");
    g_assert_cmpint(json_object_get_int_member(samples, "event_period"), ==, 1000000000 / hz);
    JsonObject *spin = rate_of(samples, "spin-0");
    g_assert_nonnull(spin);
    gint64 captures = json_object_get_int_member(spin, "captures");
    gint64 cpu_ns = json_object_get_int_member(spin, "cpu_ns");
    gint64 expiries = json_object_get_int_member(spin, "expiries");
    g_assert_cmpint(cpu_ns, >, 300000000);
    double per_cpu_s = (double)captures * 1e9 / (double)cpu_ns;
    g_test_message("%d Hz, run %d: spin-0 %" G_GINT64_FORMAT " captures, %" G_GINT64_FORMAT " periods in %.3f s CPU: "
                   "%.1f per CPU second",
                   hz, attempt + 1, captures, expiries, (double)cpu_ns / 1e9, per_cpu_s);
    /* The periods it stands for are its CPU time (within a period and the first one's, and the periods' dither:
     * a capture after a short period stands for a whole one, taken back from the next ones, so what is accounted
     * can run a few periods ahead when the run ends: half a percent at most). */
    g_assert_cmpfloat(ABS((double)expiries - (double)cpu_ns * hz / 1e9), <=, 2 + (double)expiries / 200);
    g_assert_cmpfloat(ABS(json_object_get_double_member(spin, "achieved_hz") - per_cpu_s), <=, 0.051);
    /* Its samples are its captures, nearly all in Spinner.Spin. */
    gint64 all = 0, in_spin = 0;
    samples_of_thread(samples, "spin-0", "Spinner.Spin", &all, &in_spin);
    g_assert_cmpint(all, >=, captures);
    g_assert_cmpint(in_spin, >=, all * 9 / 10);
    assert_profiler_unsampled(samples, run->err);
    /* The summary says the engine and the thread's rate. */
    g_assert_nonnull(strstr(run->err, "  engine: perf (engine=perf asked for)\n"));
    g_autofree char *line = g_strdup_printf(" spin-0 %.1f Hz (%.2f s CPU, ", per_cpu_s, (double)cpu_ns / 1e9);
    if (!strstr(run->err, line))
      g_test_message("summary:\n%s\nexpected: %s", run->err, line);
    g_assert_nonnull(strstr(run->err, line));
    worst = MAX(worst, per_cpu_s);
    if (per_cpu_s >= share * hz)
      break;
  }
  g_assert_cmpfloat(worst, >=, share * hz);
}

/* The timer engine forced: its rate is what the kernel's tick allows, and it is said. */
static void test_timer(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(ItestRun) run = run_threads(f, FALSE, "--sample=999 --engine timer", "2 1 3");
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpstr(json_object_get_string_member(samples, "engine"), ==, "timer");
  g_assert_cmpstr(json_object_get_string_member(samples, "engine_reason"), ==, "engine=timer asked for");
  JsonObject *spin = rate_of(samples, "spin-0");
  g_assert_nonnull(spin);
  gint64 captures = json_object_get_int_member(spin, "captures");
  gint64 expiries = json_object_get_int_member(spin, "expiries");
  gint64 cpu_ns = json_object_get_int_member(spin, "cpu_ns");
  g_test_message("timer engine, 999 Hz: spin-0 %" G_GINT64_FORMAT " captures, %" G_GINT64_FORMAT " periods, %.3f s CPU",
                 captures, expiries, (double)cpu_ns / 1e9);
  g_assert_cmpint(captures, >, 0);
  /* Every period of its CPU is accounted for: captured, or lost (merged into a later expiry). */
  g_assert_cmpint(expiries, >=, captures);
  g_assert_cmpfloat(ABS((double)expiries - (double)cpu_ns * 999 / 1e9), <=, 2 + (double)expiries / 50);
  /* The process's rate is the captures over the CPU time their periods cover, and said so. */
  gint64 ticks = json_object_get_int_member(samples, "ticks");
  gint64 missed = json_object_get_int_member(samples, "ticks_missed");
  double achieved = json_object_get_double_member(samples, "achieved_hz");
  g_assert_cmpfloat(ABS(achieved - 999.0 * (double)ticks / (double)(ticks + missed)), <, 0.5);
  g_autofree char *rate = g_strdup_printf("  rate: 999 Hz asked, %.1f achieved, %" G_GINT64_FORMAT " tick%s missed, ",
                                          achieved, missed, missed == 1 ? "" : "s");
  g_assert_nonnull(strstr(run->err, rate));
  g_assert_nonnull(strstr(run->err, "  engine: timer (engine=timer asked for)\n"));
  gint64 all = 0, in_spin = 0;
  samples_of_thread(samples, "spin-0", "Spinner.Spin", &all, &in_spin);
  g_assert_cmpint(in_spin, >=, all * 9 / 10);
  assert_profiler_unsampled(samples, run->err);
}

/* perf_event_open refused (a seccomp filter): auto and perf both fall back to the timers, and say
 * why; the spinning thread is still sampled where it spins. */
static void test_refused(Fixture *f, gconstpointer data) {
  const char *engine = data;
  g_autofree char *options = g_strdup_printf("--sample=999 --engine %s", engine);
  g_autoptr(ItestRun) run = run_threads(f, TRUE, options, "2 1 2");
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpstr(json_object_get_string_member(samples, "engine"), ==, "timer");
  g_autofree char *paranoid = NULL;
  g_assert_true(g_file_get_contents("/proc/sys/kernel/perf_event_paranoid", &paranoid, NULL, NULL));
  g_autofree char *reason = g_strdup_printf(
      "perf_event_open: EACCES (Permission denied; perf_event_paranoid=%d); the CPU-time timers instead",
      (int)g_ascii_strtoll(paranoid, NULL, 10));
  g_assert_cmpstr(json_object_get_string_member(samples, "engine_reason"), ==, reason);
  g_autofree char *line = g_strdup_printf("  engine: timer (%s)\n", reason);
  g_assert_nonnull(strstr(run->err, line));
  g_assert_true(json_node_is_null(json_object_get_member(samples, "off_reason")));
  gint64 all = 0, in_spin = 0;
  samples_of_thread(samples, "spin-0", "Spinner.Spin", &all, &in_spin);
  g_test_message("engine=%s refused: spin-0 %" G_GINT64_FORMAT " samples, %" G_GINT64_FORMAT " in Spinner.Spin", engine,
                 all, in_spin);
  g_assert_cmpint(all, >=, 50);
  g_assert_cmpint(in_spin, >=, all * 9 / 10);
  JsonObject *spin = rate_of(samples, "spin-0");
  g_assert_nonnull(spin);
  g_assert_cmpint(json_object_get_int_member(spin, "captures"), >, 0);
}

/* Can this process count cycles on itself? As the profiler probes it. */
static gboolean machine_has_cycles(int *ret_errno) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.sample_period = 1000000;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  long fd = syscall(SYS_perf_event_open, &attr, 0L, -1L, -1L, 0UL);
  *ret_errno = fd < 0 ? errno : 0;
  if (fd >= 0)
    close((int)fd);
  return fd >= 0;
}

/* --event cycles: samples of cycles (pprof's cycles/count) where there is a PMU; where there is
 * none, sampling is off with the reason, and the program runs as without the profiler. */
static void test_cycles(Fixture *f, gconstpointer data) {
  (void)data;
  int e = 0;
  gboolean pmu = machine_has_cycles(&e);
  g_test_message("this machine %s cycles (perf_event_open: %s)", pmu ? "counts" : "cannot count",
                 pmu ? "ok" : g_strerror(e));
  g_autoptr(ItestRun) run = run_threads(f, FALSE, "--event cycles", "2 1 2");
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "threads started=2 spinning=1"));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpstr(json_object_get_string_member(samples, "event"), ==, "cycles");
  g_assert_cmpstr(json_object_get_string_member(samples, "event_unit"), ==, "count");
  if (!pmu) {
    g_assert_true(e == ENOENT || e == EOPNOTSUPP || e == ENODEV);
    const char *name = e == ENOENT ? "ENOENT" : e == EOPNOTSUPP ? "EOPNOTSUPP" : "ENODEV";
    g_autofree char *reason = g_strdup_printf("event=cycles: no hardware counter for it (perf_event_open: %s, %s): the "
                                              "processor exposes no PMU here (a virtual machine often does not)",
                                              name, g_strerror(e));
    g_assert_cmpstr(json_object_get_string_member(samples, "off_reason"), ==, reason);
    g_autofree char *line = g_strdup_printf("  off: %s\n", reason);
    g_assert_nonnull(strstr(run->err, line));
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(samples, "stacks")), ==, 0);
    g_assert_cmpint(json_object_get_int_member(samples, "ticks"), ==, 0);
    return;
  }
  g_assert_cmpstr(json_object_get_string_member(samples, "engine"), ==, "perf");
  g_assert_true(json_node_is_null(json_object_get_member(samples, "off_reason")));
  g_assert_cmpint(json_object_get_int_member(samples, "event_period"), ==, 1000000000 / 99);
  gint64 all = 0, in_spin = 0;
  samples_of_thread(samples, "spin-0", "Spinner.Spin", &all, &in_spin);
  g_assert_cmpint(all, >=, 20);
  g_assert_cmpint(in_spin, >=, all * 9 / 10);
  JsonObject *spin = rate_of(samples, "spin-0");
  g_assert_nonnull(spin);
  g_assert_cmpint(json_object_get_int_member(spin, "events"), >, 0);
  g_assert_nonnull(strstr(run->err, "  event: cycles, a sample every 10101010 on a thread's CPU\n"));
  /* pprof names the sample type after the event. */
  g_autofree char *pprof_path = g_strdup_printf("%s.pb.gz", f->output);
  g_autofree char *gz = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(pprof_path, &gz, &len, NULL));
  g_autoptr(GConverter) dec = G_CONVERTER(g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP));
  g_autoptr(GInputStream) mem = g_memory_input_stream_new_from_data(gz, (gssize)len, NULL);
  g_autoptr(GInputStream) in = g_converter_input_stream_new(mem, dec);
  g_autoptr(GByteArray) raw = g_byte_array_new();
  guint8 buf[65536];
  gssize n;
  while ((n = g_input_stream_read(in, buf, sizeof buf, NULL, NULL)) > 0)
    g_byte_array_append(raw, buf, (guint)n);
  g_assert_nonnull(memmem(raw->data, raw->len, "cycles", 6));
}

/* Wall mode samples every thread, blocked or not: never one of the profiler's. */
static void test_wall_unsampled(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(ItestRun) run = run_threads(f, FALSE, "--sample=999 --wall --flush 1", "4 1 2");
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpstr(json_object_get_string_member(samples, "mode"), ==, "wall");
  g_assert_true(json_node_is_null(json_object_get_member(samples, "engine")));
  assert_profiler_unsampled(samples, run->err);
  /* The output thread (flushing every second) is one of them, seen and left out. */
  JsonArray *own = json_object_get_array_member(samples, "profiler_threads");
  gboolean output_listed = FALSE;
  for (guint i = 0; i < json_array_get_length(own); i++)
    output_listed |=
        g_str_equal(json_object_get_string_member(json_array_get_object_element(own, i), "thread"), "sxsprof-output");
  g_assert_true(output_listed);
}

/* engine=auto (data NULL) or perf: Threads 2 1 3 20 1 (spin-0, nap-1, pong-0a and pong-0b) at 999 Hz. */
static void test_short_slices(Fixture *f, gconstpointer data) {
  const char *engine = data ? data : "auto";
  gboolean forced = data != NULL;
  g_autofree char *options = g_strdup_printf("--sample=999 --engine %s", engine);
  g_autoptr(ItestRun) run = run_threads(f, FALSE, options, "2 1 3 20 1");
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "threads started=2 spinning=1"));
  g_assert_nonnull(strstr(run->out, " bounces="));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpstr(json_object_get_string_member(samples, "engine"), ==, "perf");
  g_assert_cmpstr(json_object_get_string_member(samples, "engine_reason"), ==,
                  forced ? "engine=perf asked for" : "perf_event_open allowed");
  const char *names[] = {"spin-0", "pong-0a", "pong-0b"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    JsonObject *r = rate_of(samples, names[i]);
    g_assert_nonnull(r);
    gint64 captures = json_object_get_int_member(r, "captures");
    gint64 expiries = json_object_get_int_member(r, "expiries");
    gint64 cpu_ns = json_object_get_int_member(r, "cpu_ns");
    gint64 timer_ns = json_object_has_member(r, "timer_ns") ? json_object_get_int_member(r, "timer_ns") : 0;
    gint64 all = 0, in_work = 0;
    gboolean spins = i == 0;
    samples_of_thread(samples, names[i], spins ? "Spinner.Spin" : "Ponger.Burst", &all, &in_work);
    g_test_message("engine=%s: %s %" G_GINT64_FORMAT " captures, %" G_GINT64_FORMAT " periods, %.3f s CPU, %.3f s "
                   "of it on a timer; %" G_GINT64_FORMAT " samples, %" G_GINT64_FORMAT " in its work",
                   engine, names[i], captures, expiries, (double)cpu_ns / 1e9, (double)timer_ns / 1e9, all, in_work);
    /* On a machine busy with other tests a pong thread got 0.2 s of CPU in the 3 s (0.5 s for spin-0). */
    g_assert_cmpint(cpu_ns, >, 100000000);
    /* The periods its samples stand for are its CPU time, whichever engine sampled it when (a timer
     * reached at the scheduler's tick stands for the periods it missed): within 5 %. */
    g_assert_cmpfloat(ABS((double)expiries - (double)cpu_ns * 999 / 1e9), <=, 5 + (double)expiries / 20);
    g_assert_cmpint(all, >=, captures);
    /* A pong thread's time is its burst and its waking and waiting (AutoResetEvent, the futex):
     * about a quarter of it on a timer on a quiet machine; on a counter, or on a machine busy with
     * other work, the waking and waiting take more (544 of 1,171 samples in the burst on counters,
     * 154 of 463 on a loaded machine). Spin-0 calls nothing: all of its samples are in Spin. */
    g_assert_cmpint(in_work, >=, spins ? all * 9 / 10 : all / 4);
    if (spins || forced) {
      /* On a counter all along: the rate asked. */
      g_assert_cmpint(timer_ns, ==, 0);
      g_assert_cmpfloat((double)captures * 1e9 / (double)cpu_ns, >=, 0.95 * 999);
    } else {
      /* Moved at the first rescan after the first judgement: most of its CPU time on a timer. */
      g_assert_cmpint(timer_ns, >=, cpu_ns / 2);
      g_assert_cmpint(timer_ns, <=, cpu_ns);
    }
  }
  if (forced) {
    g_assert_nonnull(strstr(run->err, "  engine: perf (engine=perf asked for)\n"));
  } else {
    /* The pong threads, and maybe a runtime thread in short slices too (its JIT's background
     * worker, woken for each method to compile). */
    const char *line = strstr(run->err, "  engine: perf (perf_event_open allowed); ");
    guint moved =
        line ? (guint)g_ascii_strtoull(line + strlen("  engine: perf (perf_event_open allowed); "), NULL, 10) : 0;
    if (moved < 2)
      g_test_message("summary:\n%s", run->err);
    g_assert_cmpuint(moved, >=, 2);
    g_assert_nonnull(strstr(line, " threads on a CPU-time timer for "));
    g_assert_nonnull(strstr(run->err, "% of the CPU time sampled: they ran in short slices, where a perf counter costs "
                                      "each context switch\n"));
    g_assert_nonnull(strstr(run->err, "% on a timer)"));
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/sxs/engine/perf/999", Fixture, GINT_TO_POINTER(999), itest_scratch_setup, test_perf_rate,
             itest_scratch_teardown);
  g_test_add("/sxs/engine/perf/99", Fixture, GINT_TO_POINTER(99), itest_scratch_setup, test_perf_rate,
             itest_scratch_teardown);
  g_test_add("/sxs/engine/timer", Fixture, NULL, itest_scratch_setup, test_timer, itest_scratch_teardown);
  g_test_add("/sxs/engine/refused/auto", Fixture, "auto", itest_scratch_setup, test_refused, itest_scratch_teardown);
  g_test_add("/sxs/engine/refused/perf", Fixture, "perf", itest_scratch_setup, test_refused, itest_scratch_teardown);
  g_test_add("/sxs/engine/event/cycles", Fixture, NULL, itest_scratch_setup, test_cycles, itest_scratch_teardown);
  g_test_add("/sxs/engine/short-slices/auto", Fixture, NULL, itest_scratch_setup, test_short_slices,
             itest_scratch_teardown);
  g_test_add("/sxs/engine/short-slices/perf", Fixture, "perf", itest_scratch_setup, test_short_slices,
             itest_scratch_teardown);
  g_test_add("/sxs/engine/wall/profiler-unsampled", Fixture, NULL, itest_scratch_setup, test_wall_unsampled,
             itest_scratch_teardown);
  return g_test_run();
}
