/* The sampler with many threads and with threads blocked in system calls, through `sxsprof run`,
 * on .NET 10 (dotnet) and 8 (runsxs):
 *   - tests/apps/Threads: 500 threads (499 napping in Thread.Sleep(100), one spinning) in wall mode
 *     at 99 Hz (tests/bench/threads.sh runs the heavier 20 ms naps and two spinning threads). The ticks keep the rate (90 % of it at least, on a busy machine), the profile and the
 *     summary account for every tick made or missed, every thread is in the samples with about
 *     its lifetime of wall time (each sample weighs the periods since its thread's last), and the
 *     napping threads are seen where they nap.
 *   - tests/apps/Syscalls: threads looping on read(), nanosleep(), epoll_wait() and poll() through
 *     P/Invoke into libc, counting what a signal would make visible (EINTR, short results), in
 *     wall mode at 999 Hz: they see nothing, and each is seen blocked in its own call. */
#include <string.h>

#include "itest.h"

#define TIMEOUT 300
#define THREADS 500
#define SPINNING 1
#define SECONDS 3
#define NAP_MS 100

typedef ItestScratch Fixture;

/* `sxsprof run --sample=hz --wall -o <scratch> -- <app> args` on runtime ("dotnet": the SDK's
 * 10, else a runsxs RUNTIME). */
static ItestRun *run_sampled(Fixture *f, const char *runtime, const char *app_name, const char *args, const char *hz) {
  g_autofree char *app = itest_app(app_name);
  g_autofree char *sample = g_strdup_printf("--sample=%s", hz);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  const char *launcher[] = {itest_env("SXS_SXSPROF"), "run", sample,    "--wall", "--format",
                            "json,summary",           "-o",  f->output, "--"};
  for (guint i = 0; i < G_N_ELEMENTS(launcher); i++)
    g_ptr_array_add(argv, (gpointer)launcher[i]);
  g_auto(GStrv) words = g_strsplit(args, " ", -1);
  if (g_str_equal(runtime, "dotnet")) {
    g_ptr_array_add(argv, (gpointer)itest_env("SXS_DOTNET"));
    g_ptr_array_add(argv, app);
    for (char **w = words; *w; w++)
      g_ptr_array_add(argv, *w);
  } else {
    g_ptr_array_add(argv, (gpointer)itest_env("SXS_RUNSXS"));
    g_ptr_array_add(argv, (gpointer)runtime);
    g_ptr_array_add(argv, app);
    g_ptr_array_add(argv, (gpointer)args);
  }
  g_ptr_array_add(argv, NULL);
  const char *env[] = {ITEST_NO_PROFILER_ENV, NULL};
  return itest_run((const char *const *)argv->pdata, env, f->dir, TIMEOUT);
}

static JsonObject *samples_of(JsonNode *doc) {
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  g_assert_nonnull(s);
  g_assert_true(json_object_get_boolean_member(s, "enabled"));
  g_assert_cmpstr(json_object_get_string_member(s, "mode"), ==, "wall");
  g_assert_cmpstr(json_object_get_string_member(s, "walker"), ==, "signal");
  g_assert_true(json_node_is_null(json_object_get_member(s, "off_reason")));
  return s;
}

/* Does the stack hold a frame (managed: named name; native: whose name starts with name)? */
static gboolean stack_has(JsonObject *stack, gboolean managed, const char *name) {
  JsonArray *frames = json_object_get_array_member(stack, "frames");
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    JsonObject *fr = json_array_get_object_element(frames, i);
    const char *frame_name = json_object_get_string_member(fr, "name");
    if (g_str_equal(json_object_get_string_member(fr, "kind"), managed ? "managed" : "native") && frame_name &&
        (managed ? g_str_equal(frame_name, name) : g_str_has_prefix(frame_name, name)))
      return TRUE;
  }
  return FALSE;
}

/* What the samples say of one thread (by OS thread id). */
typedef struct {
  char *name;      /* the name of its heaviest stack */
  gint64 weight;   /* its samples */
  gint64 with;     /* its samples whose stack holds the frame asked for */
  JsonObject *top; /* its heaviest stack */
  gint64 top_count;
} ThreadSamples;

static void thread_samples_free(gpointer p) {
  ThreadSamples *t = p;
  g_free(t->name);
  g_free(t);
}

/* The samples per thread name; `with` counts those whose stack holds managed frame `frame`. */
static GHashTable *samples_by_thread(JsonObject *samples, const char *frame) {
  GHashTable *by_tid = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, thread_samples_free);
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    gint64 tid = json_object_get_int_member(st, "os_tid"), count = json_object_get_int_member(st, "count");
    ThreadSamples *t = g_hash_table_lookup(by_tid, &tid);
    if (!t) {
      t = g_new0(ThreadSamples, 1);
      g_hash_table_insert(by_tid, g_memdup2(&tid, sizeof tid), t);
    }
    t->weight += count;
    if (frame && stack_has(st, TRUE, frame))
      t->with += count;
    if (count > t->top_count) {
      t->top = st;
      t->top_count = count;
      g_free(t->name);
      t->name = g_strdup(json_object_get_string_member(st, "thread"));
    }
  }
  /* By name (a thread whose samples carry another name under an earlier one keeps its last). */
  GHashTable *by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, thread_samples_free);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    ThreadSamples *t = value;
    g_hash_table_iter_steal(&it);
    g_hash_table_replace(by_name, g_strdup(t->name), t);
  }
  g_hash_table_unref(by_tid);
  return by_name;
}

/* 500 threads in wall mode at 99 Hz: the rate, the ticks missed, every thread's wall time. The
 * machine may be busy with other work: the rate is asked at 90 %, of the better of two runs when
 * the first falls short (a sampler that cannot keep the rate falls short in both; before the
 * sampler took threads in turn, it made 1 to 13 ticks a second here). */
static void test_threads(Fixture *f, gconstpointer data) {
  const char *runtime = data;
  g_autofree char *args = g_strdup_printf("%d %d %d %d", THREADS, SPINNING, SECONDS, NAP_MS);
  g_autofree char *said = g_strdup_printf("threads started=%d spinning=%d seconds=%d ", THREADS, SPINNING, SECONDS);
  g_autoptr(ItestRun) run = NULL;
  g_autoptr(JsonNode) doc = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    g_autoptr(ItestRun) this_run = run_sampled(f, runtime, "Threads", args, "99");
    itest_assert_exit(this_run, 0);
    g_assert_nonnull(strstr(this_run->out, said));
    g_autoptr(JsonNode) this_doc = itest_load_json(f->profile);
    double hz = json_object_get_double_member(samples_of(this_doc), "achieved_hz");
    g_test_message("%s, run %d: %.1f Hz achieved", runtime, attempt + 1, hz);
    if (doc == NULL || hz > json_object_get_double_member(
                                json_object_get_object_member(json_node_get_object(doc), "samples"), "achieved_hz")) {
      g_clear_pointer(&run, itest_run_free);
      g_clear_pointer(&doc, json_node_unref);
      run = g_steal_pointer(&this_run);
      doc = g_steal_pointer(&this_doc);
    }
    if (hz >= 0.9 * 99)
      break;
  }
  JsonObject *samples = samples_of(doc);
  g_assert_cmpint(json_object_get_int_member(samples, "frequency"), ==, 99);

  /* The rate: ticks made and missed account for the time the sampler ran, and it made nine in
   * ten of them at least. */
  gint64 ticks = json_object_get_int_member(samples, "ticks");
  gint64 missed = json_object_get_int_member(samples, "ticks_missed");
  gint64 duration_ns = json_object_get_int_member(samples, "duration_ns");
  double achieved = json_object_get_double_member(samples, "achieved_hz");
  double scheduled = (double)duration_ns * 99 / 1e9;
  g_test_message("%s: %" G_GINT64_FORMAT " ticks, %" G_GINT64_FORMAT " missed, in %.2f s: %.1f Hz", runtime, ticks,
                 missed, (double)duration_ns / 1e9, achieved);
  g_assert_cmpfloat(ABS((double)(ticks + missed) - scheduled), <=, 2 + scheduled / 100);
  g_assert_cmpfloat(ABS(achieved - (double)ticks * 1e9 / (double)duration_ns), <, 0.06);
  g_assert_cmpfloat(achieved, >=, 0.9 * 99);
  g_assert_cmpint(json_object_get_int_member(samples, "threads"), >=, THREADS + 1);
  g_assert_cmpint(json_object_get_int_member(samples, "threads_per_tick"), ==, 32);
  double per_tick = json_object_get_double_member(samples, "sampled_per_tick");
  g_assert_cmpfloat(per_tick, >=, 8);
  g_assert_cmpfloat(per_tick, <=, 32);
  g_assert_cmpint(json_object_get_int_member(samples, "blocked_walks"), >, 0);

  /* The summary (on the launcher's stderr) says the same. */
  const char *summary = run->err;
  g_autofree char *rate =
      g_strdup_printf("  rate: 99 Hz asked, %.1f achieved, %" G_GINT64_FORMAT " tick%s missed, up to "
                      "32 threads a tick (%.1f on average), ",
                      achieved, missed, missed == 1 ? "" : "s", per_tick);
  if (!strstr(summary, rate))
    g_test_message("summary:\n%s\nexpected: %s", summary, rate);
  g_assert_nonnull(strstr(summary, rate));

  /* Every thread, with about its lifetime of wall time: at least the seconds it napped or spun
   * (less a share for a busy machine), at most the time the sampler ran and the last visit. */
  g_autoptr(GHashTable) by_name = samples_by_thread(samples, NULL);
  const double period_s = 1.0 / 99;
  double lo = 0.7 * SECONDS, hi = (double)duration_ns / 1e9 + 0.5;
  gint64 napped = 0, napped_in_nap = 0, spun = 0, spun_in_spin = 0;
  for (int i = 0; i < THREADS; i++) {
    g_autofree char *name = g_strdup_printf("%s-%d", i < SPINNING ? "spin" : "nap", i);
    ThreadSamples *t = g_hash_table_lookup(by_name, name);
    if (!t)
      g_test_message("no samples of thread %s", name);
    g_assert_nonnull(t);
    double seconds = (double)t->weight * period_s;
    if (seconds < lo || seconds > hi)
      g_test_message("thread %s: %" G_GINT64_FORMAT " samples, %.2f s, not in [%.2f, %.2f]", name, t->weight, seconds,
                     lo, hi);
    g_assert_cmpfloat(seconds, >=, lo);
    g_assert_cmpfloat(seconds, <=, hi);
  }
  /* Where they were: napping threads in Napper.Nap, spinning ones in Spinner.Spin. */
  g_autoptr(GHashTable) in_nap = samples_by_thread(samples, "Napper.Nap");
  g_autoptr(GHashTable) in_spin = samples_by_thread(samples, "Spinner.Spin");
  for (int i = 0; i < THREADS; i++) {
    g_autofree char *name = g_strdup_printf("%s-%d", i < SPINNING ? "spin" : "nap", i);
    ThreadSamples *t = g_hash_table_lookup(i < SPINNING ? in_spin : in_nap, name);
    if (i < SPINNING) {
      spun += t->weight;
      spun_in_spin += t->with;
    } else {
      napped += t->weight;
      napped_in_nap += t->with;
    }
  }
  g_test_message("napping: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                 " samples in Napper.Nap; spinning: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " in Spinner.Spin",
                 napped_in_nap, napped, spun_in_spin, spun);
  g_assert_cmpint(napped_in_nap, >=, napped * 9 / 10);
  g_assert_cmpint(spun_in_spin, >=, spun * 9 / 10);
}

/* Threads blocked in system calls, sampled at 999 Hz: no call of theirs fails or comes back
 * short, and each is seen blocked in its own call, below its own loop. */
static void test_syscalls(Fixture *f, gconstpointer data) {
  const char *runtime = data;
  g_autoptr(ItestRun) run = run_sampled(f, runtime, "Syscalls", "3", "999");
  itest_assert_exit(run, 0);
  g_autoptr(GRegex) re = g_regex_new("^syscalls seconds=3 read=(\\d+) sleep=(\\d+) epoll=(\\d+) poll=(\\d+) "
                                     "eintr=(\\d+) short=(\\d+)$",
                                     G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  g_assert_true(g_regex_match(re, run->out, 0, &mi));
  gint64 counts[6];
  for (int i = 0; i < 6; i++) {
    g_autofree char *v = g_match_info_fetch(mi, i + 1);
    counts[i] = g_ascii_strtoll(v, NULL, 10);
  }
  g_test_message("%s", run->out);
  /* 3 s of calls of 5 or 10 ms each, fewer on a busy machine; not one interrupted. */
  g_assert_cmpint(counts[0], >=, 150);
  for (int i = 1; i < 4; i++)
    g_assert_cmpint(counts[i], >=, 75);
  g_assert_cmpint(counts[4], ==, 0);
  g_assert_cmpint(counts[5], ==, 0);

  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_of(doc);
  g_assert_cmpint(json_object_get_int_member(samples, "frequency"), ==, 999);
  g_assert_cmpint(json_object_get_int_member(samples, "blocked_walks"), >=, 50);
  static const struct {
    const char *thread, *loop, *call;
  } expect[] = {
      {"sys-read", "Syscalls.ReadLoop.Once", "libc.so.6!read"},
      {"sys-sleep", "Syscalls.SleepLoop.Once", "libc.so.6!nanosleep"},
      {"sys-epoll", "Syscalls.EpollLoop.Once", "libc.so.6!epoll_wait"},
      {"sys-poll", "Syscalls.PollLoop.Once", "libc.so.6!poll"},
  };
  g_autoptr(GHashTable) by_name = samples_by_thread(samples, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    ThreadSamples *t = g_hash_table_lookup(by_name, expect[i].thread);
    g_assert_nonnull(t);
    /* Its heaviest stack: the libc call, under the loop's own method. */
    g_test_message("%s: %" G_GINT64_FORMAT " samples, heaviest stack %" G_GINT64_FORMAT, expect[i].thread, t->weight,
                   t->top_count);
    g_assert_cmpint(t->top_count, >=, t->weight / 2);
    g_assert_true(stack_has(t->top, TRUE, expect[i].loop));
    g_assert_true(stack_has(t->top, FALSE, expect[i].call));
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/sxs/sampling/rate/threads/10", Fixture, "dotnet", itest_scratch_setup, test_threads,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/rate/threads/8", Fixture, "8.0", itest_scratch_setup, test_threads, itest_scratch_teardown);
  g_test_add("/sxs/sampling/syscalls/10", Fixture, "dotnet", itest_scratch_setup, test_syscalls,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/syscalls/8", Fixture, "8.0", itest_scratch_setup, test_syscalls, itest_scratch_teardown);
  return g_test_run();
}
