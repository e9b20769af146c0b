/* A small synthetic profile for the views' tests: two runtimes, samples on two threads with native
 * frames between managed ones, a timed call tree, exception stacks, and names that break naive
 * writers (quotes, <>, &, ';', unicode, 2,000 characters). Every expected number is a macro here.
 *
 * Samples (cpu, 100 Hz), leaf first:
 *   thread 100 "Main":        70  [rt1] App.Program.Hot       <- [rt1] App.Program.Main <- [native] libc.so.6!__libc_start_main
 *                             10  [rt1] App.Program.Cold      <- [rt1] App.Program.Main <- [native] libc.so.6!__libc_start_main
 *   thread 101 "Worker \"q\"": 15 [rt2] Lib.Box<T>.Run<int> <- [native] libsxsbridge.so!sxs_bridge_call <- [rt1] App.<Main>$
 *                                  <- [native] libc.so.6!__libc_start_main
 *                              4  [rt1] App.<>c__DisplayClass1_0.<Work>b__0 <- [rt1] Ünïcødé.Ström.Tên <- [rt1] App.Say"hi"&'x';y
 *                                  <- [native] libc.so.6!__libc_start_main
 *                              1  [rt1] N...N (2,000 characters) <- [native] libc.so.6!__libc_start_main
 * Call tree of rt1 (timed): Main (1 call, 1000 ns incl, 100 excl) -> Hot (10 calls, 800 excl)
 *                                                                 -> Cold (5 calls, 100 excl)
 * Exception stacks: 7 at [rt1] App.Program.Throw <- [rt1] App.Program.Main, 3 at
 *                   [rt1] App.Program.Rethrow <- [rt1] App.Program.Main.
 */
#pragma once

#include <glib.h>
#include <string.h>

#include "sxs_profile.h"

#define FIXTURE_SAMPLES_TOTAL 100
#define FIXTURE_HOT_SAMPLES 70
#define FIXTURE_HOT_NAME "App.Program.Hot"
#define FIXTURE_HOT_LABEL "[rt1 10.0.1] App.Program.Hot"
#define FIXTURE_COLD_LABEL "[rt1 10.0.1] App.Program.Cold"
#define FIXTURE_MAIN_LABEL "[rt1 10.0.1] App.Program.Main"
#define FIXTURE_LIBC_LABEL "[native] libc.so.6!__libc_start_main"
#define FIXTURE_BRIDGE_LABEL "[native] libsxsbridge.so!sxs_bridge_call"
#define FIXTURE_GENERIC_LABEL "[rt2 8.0.11] Lib.Box<T>.Run<int>"
#define FIXTURE_MAINDOLLAR_LABEL "[rt1 10.0.1] App.<Main>$"
#define FIXTURE_CLOSURE_LABEL "[rt1 10.0.1] App.<>c__DisplayClass1_0.<Work>b__0"
#define FIXTURE_UNICODE_LABEL "[rt1 10.0.1] Ünïcødé.Ström.Tên"
#define FIXTURE_QUOTES_LABEL "[rt1 10.0.1] App.Say\"hi\"&'x';y"
#define FIXTURE_WORKER_THREAD "Worker \"q\""
#define FIXTURE_LONG_NAME_LEN 2000
#define FIXTURE_FREQUENCY 100
#define FIXTURE_CALLS_TOTAL_NS 1000 /* sum of exclusive times */
#define FIXTURE_EXCEPTIONS 10

/* The 2,000-character name; static storage. */
static inline const char *fixture_long_name(void) {
  static char name[FIXTURE_LONG_NAME_LEN + 1];
  if (!name[0]) {
    for (int i = 0; i < FIXTURE_LONG_NAME_LEN; i++)
      name[i] = (char)('A' + i % 26);
    memcpy(name, "Long.", 5);
  }
  return name;
}

/* "[rt1 10.0.1] " + the long name; caller frees. */
static inline char *fixture_long_label(void) {
  return g_strconcat("[rt1 10.0.1] ", fixture_long_name(), NULL);
}

static inline void fixture_frame(SxsStackModel *s, gboolean managed, int runtime, const char *name, const char *module,
                                 guintptr ip) {
  SxsStackFrameModel f = {.managed = managed,
                          .runtime_id = managed ? runtime : 0,
                          .name = g_strdup(name),
                          .module = g_strdup(module),
                          .ip = ip,
                          .sp = 0x7ffd0000 + s->frames->len * 0x40};
  g_array_append_val(s->frames, f);
}

static inline void fixture_libc(SxsStackModel *s) {
  fixture_frame(s, FALSE, 0, "libc.so.6!__libc_start_main+0x8a", "libc.so.6", 0x7f0000001000 + s->frames->len);
}

static inline SxsStackModel *fixture_sample(SxsProfileModel *m, guint32 tid, const char *thread_name, guint64 count) {
  SxsStackModel *s = sxs__stack_model_new(NULL, tid);
  s->thread_name = g_strdup(thread_name);
  s->count = count;
  g_ptr_array_add(m->samples.stacks, s);
  return s;
}

static inline SxsRuntimeModel *fixture_runtime(SxsProfileModel *m, int id, const char *version) {
  SxsRuntimeModel *r = sxs__runtime_model_new();
  r->id = id;
  r->status = SXS_RUNTIME_PROFILING;
  r->version = g_strdup(version);
  r->clr_version = g_strdup(version);
  r->path = g_strdup_printf("/usr/share/dotnet/shared/Microsoft.NETCore.App/%s/libcoreclr.so", version);
  r->caps.info_version = 10;
  g_ptr_array_add(m->runtimes, r);
  return r;
}

static inline void fixture_call(SxsRuntimeModel *r, guint id, guint parent, const char *name, guint64 calls,
                                guint64 incl, guint64 excl) {
  SxsCallNode *n = g_new0(SxsCallNode, 1);
  n->id = id;
  n->parent = parent;
  n->name = g_strdup(name);
  n->calls = calls;
  n->inclusive_ns = incl;
  n->exclusive_ns = excl;
  g_ptr_array_add(r->call_tree, n);
}

static inline void fixture_function(SxsRuntimeModel *r, const char *name, guint64 calls, guint64 incl, guint64 excl) {
  SxsFunctionRecord *f = g_new0(SxsFunctionRecord, 1);
  f->name = g_strdup(name);
  f->module = g_strdup("App.dll");
  f->jit_compiled = 1;
  f->traced = TRUE;
  f->calls = calls;
  f->inclusive_ns = incl;
  f->exclusive_ns = excl;
  g_ptr_array_add(r->functions, f);
}

/* The model described at the top of this file; free with sxs__profile_model_free. */
static inline SxsProfileModel *fixture_model(void) {
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 4242;
  m->process->ppid = 1;
  m->process->executable = g_strdup("/usr/share/dotnet/dotnet");
  m->process->argv = g_new0(char *, 3);
  m->process->argv[0] = g_strdup("dotnet");
  m->process->argv[1] = g_strdup("App.dll");
  m->process->start_unix_ms = G_GINT64_CONSTANT(1795000000000);
  m->mode = g_strdup("pick-all");

  SxsRuntimeModel *r1 = fixture_runtime(m, 1, "10.0.1");
  r1->counters.exceptions = FIXTURE_EXCEPTIONS;
  r1->tracing.enabled = TRUE;
  r1->tracing.timing = TRUE;
  fixture_function(r1, "App.Program.Main", 1, 1000, 100);
  fixture_function(r1, "App.Program.Hot", 10, 800, 800);
  fixture_function(r1, "App.Program.Cold", 5, 100, 100);
  fixture_call(r1, 1, 0, "App.Program.Main", 1, 1000, 100);
  fixture_call(r1, 2, 1, "App.Program.Hot", 10, 800, 800);
  fixture_call(r1, 3, 1, "App.Program.Cold", 5, 100, 100);
  SxsRuntimeModel *r2 = fixture_runtime(m, 2, "8.0.11");
  g_hash_table_insert(r2->features_off, g_strdup("tracing"), g_strdup("not asked for"));

  m->samples.enabled = TRUE;
  m->samples.frequency = FIXTURE_FREQUENCY;
  m->samples.mode = g_strdup("cpu");
  m->samples.walker = g_strdup("signal");
  m->samples.taken = FIXTURE_SAMPLES_TOTAL;
  m->samples.weight = FIXTURE_SAMPLES_TOTAL;

  SxsStackModel *s = fixture_sample(m, 100, "Main", FIXTURE_HOT_SAMPLES);
  fixture_frame(s, TRUE, 1, FIXTURE_HOT_NAME, "App.dll", 0x7e0000001000);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7e0000002000);
  fixture_libc(s);
  s = fixture_sample(m, 100, "Main", 10);
  fixture_frame(s, TRUE, 1, "App.Program.Cold", "App.dll", 0x7e0000003000);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7e0000002010);
  fixture_libc(s);
  s = fixture_sample(m, 101, FIXTURE_WORKER_THREAD, 15);
  fixture_frame(s, TRUE, 2, "Lib.Box<T>.Run<int>", "Lib.dll", 0x7d0000001000);
  fixture_frame(s, FALSE, 0, "libsxsbridge.so!sxs_bridge_call+0x10", "libsxsbridge.so", 0x7c0000001010);
  fixture_frame(s, TRUE, 1, "App.<Main>$", "App.dll", 0x7e0000004000);
  fixture_libc(s);
  s = fixture_sample(m, 101, FIXTURE_WORKER_THREAD, 4);
  fixture_frame(s, TRUE, 1, "App.<>c__DisplayClass1_0.<Work>b__0", "App.dll", 0x7e0000005000);
  fixture_frame(s, TRUE, 1, "Ünïcødé.Ström.Tên", "App.dll", 0x7e0000006000);
  fixture_frame(s, TRUE, 1, "App.Say\"hi\"&'x';y", "App.dll", 0x7e0000007000);
  fixture_libc(s);
  s = fixture_sample(m, 101, FIXTURE_WORKER_THREAD, 1);
  fixture_frame(s, TRUE, 1, fixture_long_name(), "App.dll", 0x7e0000008000);
  fixture_libc(s);

  s = sxs__stack_model_new("exception", 100);
  s->count = 7;
  fixture_frame(s, TRUE, 1, "App.Program.Throw", "App.dll", 0x7e0000009000);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7e0000002020);
  g_ptr_array_add(m->stacks, s);
  s = sxs__stack_model_new("exception", 100);
  s->count = 3;
  fixture_frame(s, TRUE, 1, "App.Program.Rethrow", "App.dll", 0x7e000000a000);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7e0000002030);
  g_ptr_array_add(m->stacks, s);
  m->walks.events[0] = FIXTURE_EXCEPTIONS;
  return m;
}

/* A large model: n_stacks distinct sample stacks of depth frames each, drawn from n_functions
 * functions over two runtimes and a few native modules, weights summing to n_samples. */
static inline SxsProfileModel *fixture_large_model(guint n_stacks, guint depth, guint n_functions, guint64 n_samples) {
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 1;
  m->process->argv = g_new0(char *, 1);
  fixture_runtime(m, 1, "10.0.1");
  fixture_runtime(m, 2, "8.0.11");
  m->samples.enabled = TRUE;
  m->samples.frequency = 999;
  m->samples.mode = g_strdup("cpu");
  guint64 left = n_samples;
  GRand *rand = g_rand_new_with_seed(42);
  for (guint i = 0; i < n_stacks; i++) {
    guint64 count = i + 1 == n_stacks ? left : MIN(left, n_samples / n_stacks + (i % 7));
    left -= count;
    SxsStackModel *s = fixture_sample(m, 1000 + i % 8, NULL, count);
    for (guint d = 0; d < depth; d++) {
      /* Frames go leaf first: a shared trunk near the root (the last frames), diverse leaves. */
      guint from_root = depth - 1 - d;
      guint f = d < 2 ? (i * 7919 + d) % n_functions
                      : (from_root < depth / 2 ? from_root : (guint)g_rand_int_range(rand, 0, (gint32)n_functions));
      if (f % 10 == 9) {
        g_autofree char *name = g_strdup_printf("libnative%u.so!native_%u+0x%x", f % 5, f, d);
        g_autofree char *module = g_strdup_printf("libnative%u.so", f % 5);
        fixture_frame(s, FALSE, 0, name, module, 0x7f0000000000 + f);
      } else {
        g_autofree char *name = g_strdup_printf("Ns%u.Type%u.Method%u", f % 13, f % 101, f);
        fixture_frame(s, TRUE, 1 + f % 2, name, "App.dll", 0x7e0000000000 + f);
      }
    }
  }
  g_rand_free(rand);
  return m;
}

/* Gives the fixture's Hot samples lines: 50 on line 42, 20 on line 43 of Program.cs, and Hot's
 * record the line it begins on, 40. Main, its caller, calls it from line 12. */
#define FIXTURE_LINES_FILE "/src/App/Program.cs"
static inline void fixture_add_lines(SxsProfileModel *m) {
  SxsStackModel *hot = NULL;
  for (guint i = 0; i < m->samples.stacks->len && !hot; i++) {
    SxsStackModel *s = m->samples.stacks->pdata[i];
    if (g_str_equal(g_array_index(s->frames, SxsStackFrameModel, 0).name, FIXTURE_HOT_NAME))
      hot = s;
  }
  g_assert_nonnull(hot);
  SxsStackModel *other = sxs__stack_model_copy(hot);
  hot->count = 50;
  other->count = 20;
  g_ptr_array_add(m->samples.stacks, other);
  SxsStackFrameModel *f = &g_array_index(hot->frames, SxsStackFrameModel, 0);
  f->file = g_strdup(FIXTURE_LINES_FILE);
  f->line = 42;
  f = &g_array_index(other->frames, SxsStackFrameModel, 0);
  f->file = g_strdup(FIXTURE_LINES_FILE);
  f->line = 43;
  SxsStackModel *both[] = {hot, other};
  for (guint i = 0; i < 2; i++) {
    f = &g_array_index(both[i]->frames, SxsStackFrameModel, 1);
    f->file = g_strdup(FIXTURE_LINES_FILE);
    f->line = 12;
  }
  SxsRuntimeModel *r1 = m->runtimes->pdata[0];
  for (guint i = 0; i < r1->functions->len; i++) {
    SxsFunctionRecord *fn = r1->functions->pdata[i];
    if (g_str_equal(fn->name, FIXTURE_HOT_NAME)) {
      fn->file = g_strdup(FIXTURE_LINES_FILE);
      fn->line = 40;
    }
  }
}
