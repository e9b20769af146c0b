/* Stress with several runtimes in one runsxs process, and proof that the signal repairs matter.
 *
 * Every scenario runs tests/apps/SxsStress in each runtime concurrently (runsxs without --st):
 * induced GCs, a spinning thread that only the activation signal can stop, thrown exceptions,
 * hardware NullReferenceExceptions (main thread and thread pool), divide-by-zero and calls into
 * a peer runtime through libsxsbridge. A pass needs exit 0, no timeout, and one complete
 * "stress ok" line per runtime with non-zero counts.
 *
 * The fault scenarios turn repairs off and require the documented fault to show up (a crash or
 * a hang, measured to reproduce on every try on the development machine; the test asks for
 * FAULT_MIN of FAULT_TRIES), then run the same scenario with the repairs and require a pass.
 * docs/harness-signals.md explains the faults. */
#include <glib.h>
#include <signal.h>
#include <string.h>

#include "itest.h"

#define STRESS_SECONDS "3"
#define RUN_TIMEOUT 60  /* a healthy run takes about 10 s on 2 cores */
#define HANG_TIMEOUT 25 /* a 3 s stress run still going after this is hung */
#define REPEATS 3
#define FAULT_TRIES 3
#define FAULT_MIN 2

/* One runtime of a scenario: the RUNTIME operand and the app's arguments. */
typedef struct {
  const char *runtime;
  const char *args;
} StressRuntime;

/* Runs runsxs with the stress app in every runtime. extra_env: NULL-terminated "K=V" entries or
 * NULL; extra_opt: one more runsxs option or NULL. */
static ItestRun *stress_run(const StressRuntime *rts, guint n, const char *extra_opt, const char *const *extra_env,
                            int timeout) {
  g_autofree char *app = itest_app("SxsStress");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_RUNSXS"));
  if (extra_opt)
    g_ptr_array_add(argv, (gpointer)extra_opt);
  for (guint i = 0; i < n; i++) {
    g_ptr_array_add(argv, (gpointer)rts[i].runtime);
    g_ptr_array_add(argv, app);
    g_ptr_array_add(argv, (gpointer)rts[i].args);
  }
  g_ptr_array_add(argv, NULL);
  return itest_run((const char *const *)argv->pdata, extra_env, NULL, timeout);
}

/* Asserts one "stress ok" line per runtime, each with every counter present and non-zero
 * (bridge only when the runtime had a peer). */
static void assert_stress_lines(const ItestRun *run, guint expected, gboolean bridged) {
  g_autoptr(GRegex) re = g_regex_new("^stress ok seconds=" STRESS_SECONDS " gcs=(\\d+) exceptions=(\\d+) nre=(\\d+) "
                                     "nre_pool=(\\d+) div0=(\\d+) spins=(\\d+) bridge=(\\d+) clr=[0-9.]+$",
                                     G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  guint lines = 0;
  g_regex_match(re, run->out, 0, &mi);
  while (g_match_info_matches(mi)) {
    for (int group = 1; group <= 7; group++) {
      g_autofree char *v = g_match_info_fetch(mi, group);
      guint64 count = g_ascii_strtoull(v, NULL, 10);
      if (group == 7 && !bridged)
        g_assert_cmpuint(count, ==, 0);
      else
        g_assert_cmpuint(count, >, 0);
    }
    lines++;
    g_match_info_next(mi, NULL);
  }
  if (lines != expected)
    g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  g_assert_cmpuint(lines, ==, expected);
  g_assert_null(strstr(run->out, "stress FAILED"));
}

static void stress_repeat(const StressRuntime *rts, guint n, gboolean bridged) {
  for (int i = 0; i < REPEATS; i++) {
    g_autoptr(ItestRun) run = stress_run(rts, n, NULL, NULL, RUN_TIMEOUT);
    itest_assert_exit(run, 0);
    assert_stress_lines(run, n, bridged);
  }
}

/* 10 and 2.0, each calling into the other. */
static void test_stress_two(void) {
  const StressRuntime rts[] = {{"10.0", STRESS_SECONDS " 2"}, {"2.0.0", STRESS_SECONDS " 1"}};
  stress_repeat(rts, G_N_ELEMENTS(rts), TRUE);
}

/* 10, a private copy of 10, and 2.0, calling around a ring 1 -> 3 -> 2 -> 1. */
static void test_stress_three(void) {
  const StressRuntime rts[] = {
      {"10.0", STRESS_SECONDS " 3"}, {"10.0", STRESS_SECONDS " 1"}, {"2.0.0", STRESS_SECONDS " 2"}};
  stress_repeat(rts, G_N_ELEMENTS(rts), TRUE);
}

/* Whether a run shows a fault: killed by a signal (crash) or still running at its timeout. */
static gboolean run_faulted(const ItestRun *run) {
  return run->timed_out || run->exit_code > 128;
}

/* Runs the scenario without some repairs until FAULT_MIN faults were seen (at most FAULT_TRIES
 * runs) and asserts they were, then once with all repairs and asserts a clean pass. */
static void fault_then_fixed(const StressRuntime *rts, guint n, const char *extra_opt, const char *const *extra_env,
                             const char *fault) {
  int faults = 0, tries = 0;
  while (tries < FAULT_TRIES && faults < FAULT_MIN) {
    g_autoptr(ItestRun) run = stress_run(rts, n, extra_opt, extra_env, HANG_TIMEOUT);
    tries++;
    if (run_faulted(run)) {
      faults++;
      g_test_message("%s: try %d faulted (%s, exit %d)", fault, tries, run->timed_out ? "hung" : "crashed",
                     run->exit_code);
    } else {
      g_test_message("%s: try %d did not fault (exit %d)", fault, tries, run->exit_code);
    }
  }
  g_assert_cmpint(faults, >=, FAULT_MIN);

  g_autoptr(ItestRun) run = stress_run(rts, n, NULL, NULL, RUN_TIMEOUT);
  itest_assert_exit(run, 0);
  assert_stress_lines(run, n, FALSE);
}

/* Fault 2 with every repair off (--no-signal-fixes): the runtime initialized first never gets
 * its activation signals, so its GC waits forever for its spinning thread. With only the stack
 * repair on (RUNSXS_SIGNAL_FIXES=altstack) it hangs the same way; docs/harness-signals.md. */
static void test_fault_no_fixes(void) {
  const StressRuntime rts[] = {{"10.0", STRESS_SECONDS}, {"2.0.0", STRESS_SECONDS}};
  fault_then_fixed(rts, G_N_ELEMENTS(rts), "--no-signal-fixes", NULL, "no signal fixes");
}

/* The PAL's own alternate stack: 13.5 KiB with a guard page of 4 KiB (docs/harness-signals.md). */
#define PAL_ALTSTACK_USABLE (13 * 1024 + 512 - 4096)
/* About one kernel signal frame with AVX-512 state: how far from the edge a measured peak still
 * leaves another run's overflow possible. */
#define PAL_ALTSTACK_MARGIN 3400

/* The deepest any thread went into its alternate stack in a run of the scenario with every repair
 * on: runsxs measures it on its own stack (RUNSXS_SIGNALS_DEBUG=1), the same handler frames and
 * kernel signal frames the PAL's stack would hold. */
static guint64 altstack_peak(const StressRuntime *rts, guint n) {
  const char *const env[] = {"RUNSXS_SIGNALS_DEBUG=1", NULL};
  g_autoptr(ItestRun) run = stress_run(rts, n, NULL, env, RUN_TIMEOUT);
  itest_assert_exit(run, 0);
  assert_stress_lines(run, n, FALSE);
  g_autoptr(GRegex) re = g_regex_new("alternate stack peak (\\d+) bytes", 0, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  guint64 peak = 0, threads = 0;
  g_regex_match(re, run->err, 0, &mi);
  while (g_match_info_matches(mi)) {
    g_autofree char *v = g_match_info_fetch(mi, 1);
    peak = MAX(peak, g_ascii_strtoull(v, NULL, 10));
    threads++;
    g_match_info_next(mi, NULL);
  }
  g_assert_cmpuint(threads, >, 0);
  return peak;
}

/* Fault 1: two 2.0 runtimes nest four SIGSEGV handlers (two PALs each) on the PAL's 13.5 KiB
 * alternate stack, which overflows on a hardware NullReferenceException when the kernel's signal
 * frames are large (AVX-512 state, about 3.3 KiB each): the process dies of SIGSEGV. Where they
 * are smaller the four handlers fit, and the same run must pass without the repair: which of the
 * two is due follows from the deepest use measured with the repair on. The activation repair
 * stays on so the crash is not hidden by a hang. */
static void test_fault_altstack_crash(void) {
  const StressRuntime rts[] = {{"2.0.0", STRESS_SECONDS}, {"2.0.0", STRESS_SECONDS}};
  const char *const env[] = {"RUNSXS_SIGNAL_FIXES=activation", NULL};
  guint64 peak = altstack_peak(rts, G_N_ELEMENTS(rts));
  g_test_message("alternate stack: deepest use %" G_GUINT64_FORMAT " bytes with the repair, %d usable on the PAL's",
                 peak, PAL_ALTSTACK_USABLE);
  if (peak >= PAL_ALTSTACK_USABLE) {
    fault_then_fixed(rts, G_N_ELEMENTS(rts), NULL, env, "alternate stack overflow");
    return;
  }
  for (int i = 0; i < FAULT_TRIES; i++) {
    g_autoptr(ItestRun) run = stress_run(rts, G_N_ELEMENTS(rts), NULL, env, HANG_TIMEOUT);
    /* One run's deepest use is not every run's: within a signal frame of the edge (the nesting
     * depends on timing, and on a loaded machine more handlers overlap), an overflow is as
     * expected as a pass, and then the run with the repair must pass. */
    if (run->exit_code == 128 + SIGSEGV && peak + PAL_ALTSTACK_MARGIN >= PAL_ALTSTACK_USABLE) {
      g_test_message("alternate stack: try %d overflowed (deepest measured use %" G_GUINT64_FORMAT
                     " bytes, within %d of the edge)",
                     i + 1, peak, PAL_ALTSTACK_MARGIN);
      g_autoptr(ItestRun) fixed = stress_run(rts, G_N_ELEMENTS(rts), NULL, NULL, RUN_TIMEOUT);
      itest_assert_exit(fixed, 0);
      assert_stress_lines(fixed, G_N_ELEMENTS(rts), FALSE);
      return;
    }
    itest_assert_exit(run, 0);
    assert_stress_lines(run, G_N_ELEMENTS(rts), FALSE);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sxs/stress/two-runtimes", test_stress_two);
  g_test_add_func("/sxs/stress/three-runtimes", test_stress_three);
  g_test_add_func("/sxs/stress/fault/altstack-crash", test_fault_altstack_crash);
  g_test_add_func("/sxs/stress/fault/no-signal-fixes", test_fault_no_fixes);
  return g_test_run();
}
