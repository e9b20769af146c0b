/* Stack truth: tests/apps/StackTruth runs call chains known by construction, one thread a pattern,
 * and prints the chain each must show. Sampled at 999 Hz, every pattern's share of samples whose
 * managed frames, from the pattern's leaf-most frame down to the thread's root, are exactly the
 * expected chain must reach the bar: per walker (signal, suspend), per mode (cpu, wall), per
 * runtime (10, 8, 3.1) and side by side (two runtimes in one runsxs process). The table of every
 * configuration is printed (docs/PERFORMANCE.md keeps one).
 *
 * The measure, per sample (a distinct stack's count):
 *   - its managed frames, leaf first; the pattern frames are those of a class named in an expected
 *     chain (Truth.<Class>...), the helper frames those of the classes the app lists as
 *     `truth-above` (shared arithmetic, the clock: tier-0 code does not inline them), allowed only
 *     above the first pattern frame;
 *   - a sample with a frame of a `truth-driver` class (Main starting or joining the threads)
 *     belongs to no pattern;
 *   - the sample belongs to the pattern of its first pattern frame (and that frame's runtime);
 *   - it is exact when the frames from there down match one of the pattern's chains (from a
 *     frame of the chain named as that frame is: a sample in a caller's own code has the chain's
 *     tail from there; in a recursion, from any of its calls): each named frame equal, `...`
 *     one or more frames of no Truth class, and below the chain's root only frames of no Truth
 *     class (the runtime's thread start); and when no frame of the stack is a bare address;
 *   - a sample on a pattern's thread with no pattern frame at all but a bare address counts as a
 *     sample of that pattern that is not exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180
#define SECONDS "3"
/* The bar: a pattern the walks get right has at least this share exact. */
#define BAR 0.995
/* What the fixed patterns are held to until they reach BAR on every engine: a guard against the
 * fixes regressing (before them osr-leaf read Leaf < Leaf in nearly every sample, catch and finally
 * lost Handle in about half). With the perf_events engine, samples land where the CPU really is:
 * in the throw before a handler, and in an OSR method's transition, which the walks still read
 * wrong in a few percent of samples (docs/design.md, "Stack truth"). */
#define GUARD 0.90
/* The floor of the patterns a frameless tier-1 method broke (before the signal walker stepped such a method by its
 * prologue's frame, 20-40 % of their samples were exact; after it 85-100 %, the misses being the samples taken
 * before the sampler has read a new method's prologue or seen its new code mapping). */
#define FLOOR 0.75
/* The floor of the dynamic methods' patterns (2-12 % exact before their code was noted, 70-100 % after, on 3.1 too
 * since a learned rule is followed where code is mapped writable) and of the patterns held since the frame at each
 * interrupted instruction and the walks made again (88-100 % in the runs measured): wall mode side by side counts a
 * wrong capture of a thread that does not run at every tick, and samples in runtime stubs (bare addresses) took
 * single runs of expression-tree and ready-to-run there to 74 %. A guard against their collapse; all patterns together
 * are held closer (SIGNAL_ALL_*). */
#define LOOSE_FLOOR 0.50
/* What the signal walker's samples of all patterns together are held to, in cpu and in wall mode (57-68 % exact before
 * the walks' fixes; 97-99 % in cpu mode and 95-99 % in wall mode on 10, 8, 3.1 and side by side after the frame at
 * each interrupted instruction and the walks made again; 99.2-100 % in both modes once steps from code mapped since
 * the last read were walked again and OSR frames' Tier-0 records read where their prologue puts them, the least seen
 * 98.8 % side by side in wall mode, which counts a wrong stack of a thread that does not run at every tick;
 * docs/PERFORMANCE.md, "Stack truth"). */
#define SIGNAL_ALL_CPU 0.97
#define SIGNAL_ALL_WALL 0.95
/* What the suspend walker's samples of all patterns together are held to. In wall mode threads parked for a
 * suspension (in the runtime's activation signal handler, or in its return-address hijack stub) were walked through
 * the signal frame and the stub by rules that do not hold there, and lost their interrupted frame: 62-89 % exact on
 * 10, 8, 3.1 and side by side before those frames were stepped, 88-96 % after (docs/PERFORMANCE.md, "Stack truth");
 * in cpu mode 93-99 %, then 99.3-99.9 % on 10, 8, 3.1 and side by side once the timers' captures it counts as their
 * own frames name them were walked as the signal walker's are (their stack copies walked again, OSR frames' Tier-0
 * records learnt; 95.4-98.3 % before on 10 and side by side), every pattern then at 100 % in most runs but the
 * filter on 10 (64-94 %: its runtime's walk has Throw < Handle under the filter; it weighs about 1.5 points of the
 * whole, so the hold leaves room for it). Wall mode moves by more than ten points between runs: a thread is reached about 7 times a
 * second, so one capture stands for hundreds of samples (1,499 for one wrong stack of dynamic-method, with the filter's
 * two 1,369 and 623: 81.1 % in one run of .NET 10 where the runs around it read 88-96 %). A guard against collapse. */
#define SUSPEND_ALL_CPU 0.96
#define SUSPEND_ALL_WALL 0.75
/* Fewer samples than this and a share says nothing: a held pattern fails. */
#define MIN_SAMPLES 20
/* In cpu mode every pattern's thread runs all along: with either walker each has at least this many samples (the
 * suspend walker's batches once took the threads' captures in the same order every time, and up to 13 of the 22
 * patterns had none while 23 threads were busy; 29-280 each since). */
#define MIN_SEEN 5

/* What each pattern is held to, and why. Every pattern is measured and printed; a held pattern
 * (bar > 0, with the walker named or with both) must reach its bar; the others are not held yet,
 * each for the reason given (docs/design.md, "Stack truth", has the evidence). A pattern listed
 * nowhere is held to BAR. */
typedef struct {
  const char *pattern;
  const char *walker; /* NULL: both */
  double bar;
  const char *why;
} Hold;

static const Hold holds[] = {
    {"osr-leaf", "signal", GUARD, "an OSR frame is stepped over its Tier-0 frame to its caller"},
    /* Held to the floor, not the guard: the samples in the throw before the handler (Throw < Run, the dispatch's
     * managed frame missing) reached 12 % of a wall-mode run on a loaded machine. */
    {"catch", "signal", FLOOR, "a handler's frame pointer is its parent's: the walk goes on from the parent"},
    {"finally", "signal", FLOOR, "as catch"},
    /* The signal walker steps a frameless tier-1 method by its prologue's frame size once the sampler has read it. */
    {"osr-loop", "signal", FLOOR, "a frameless method is stepped by the frame its prologue builds"},
    {"osr-main", "signal", FLOOR, "as osr-loop"},
    {"recursion", "signal", FLOOR, "as osr-loop"},
    {"shared-generic", "signal", FLOOR, "as osr-loop"},
    {"struct-generic", "signal", FLOOR, "as osr-loop"},
    {"stackalloc", "signal", FLOOR, "as osr-loop"},
    {"qsort-unmanaged", "signal", FLOOR, "as osr-loop"},
    {"pool-item", "signal", FLOOR, "as osr-loop"},
    {"async-await", "signal", FLOOR, "as osr-loop"},
    /* Dynamic methods (and IL stubs) are named and walked from the code the runtime reports for them, on 3.1 too
     * (code mapped writable: a learned rule's target is checked against every executable mapping). */
    {"qsort-delegate", "signal", FLOOR, "the reverse P/Invoke stub is a dynamic method: [dynamic method]"},
    {"expression-tree", "signal", LOOSE_FLOOR, "the compiled lambda is a dynamic method: [dynamic method]"},
    {"dynamic-method", "signal", LOOSE_FLOOR, "as expression-tree"},
    /* Held since the frame at each interrupted instruction, the walks made again and the rules of code mapped writable
     * (88-100 % in every configuration measured; the misses: the first samples of a new code version whose skipped
     * frames lie beyond the copy, a runtime stub at the leaf, an OSR transition). */
    {"generic-virtual", "signal", LOOSE_FLOOR, "a frameless method at every tier change"},
    {"tiering", "signal", LOOSE_FLOOR, "a frameless leaf interrupted inside its own frame, at every tier change"},
    {"closures", "signal", LOOSE_FLOOR, "as generic-virtual"},
    {"linq", "signal", LOOSE_FLOOR, "as generic-virtual"},
    {"list-sort", "signal", LOOSE_FLOOR, "as generic-virtual"},
    {"ready-to-run", "signal", LOOSE_FLOOR, "as generic-virtual"},
    {"blocking-pinvoke", "signal", LOOSE_FLOOR, "a blocked thread walked from outside"},
    /* The expected chain is the frame-pointer walk's (the filter funclet's rbp is its parent's, so the walk goes on
     * from Handle's caller); the runtime's own walk (walker=suspend) reports the frames the filter runs on top of,
     * live in the first pass: Leaf < Check < Handle < Throw < Handle < Run (design.md, "Stack truth"). The signal
     * walker, held since a walk made again that ends at its copy meets the first walk (98-100 %, 86 % in one
     * side-by-side wall-mode run before it), to the loose floor as the patterns above. */
    {"filter", "signal", LOOSE_FLOOR, "a filter funclet's frame pointer is its parent's: the walk goes on from Handle"},
    {"filter", "suspend", 0,
     "a filter runs on top of the throwing frames: the runtime's walk has Throw < Handle under it, the "
     "frame-pointer walk does not"},
    /* The suspend walker is held on all its patterns together (SUSPEND_ALL_*), not pattern by pattern: in wall mode
     * one wrong capture of a thread that does not run counts at every tick, so a pattern's share moves by tens of
     * points between runs, and its cpu-mode rows rest on some 200-300 samples. */
    {"osr-loop", "suspend", 0, "suspend walker: held with all patterns together"},
    {"osr-leaf", "suspend", 0, "as osr-loop"},
    {"osr-main", "suspend", 0, "as osr-loop"},
    {"recursion", "suspend", 0, "as osr-loop"},
    {"shared-generic", "suspend", 0, "as osr-loop"},
    {"generic-virtual", "suspend", 0, "as osr-loop"},
    {"struct-generic", "suspend", 0, "as osr-loop"},
    {"catch", "suspend", 0, "as osr-loop"},
    {"finally", "suspend", 0, "as osr-loop"},
    {"tiering", "suspend", 0, "as osr-loop"},
    {"closures", "suspend", 0, "as osr-loop"},
    {"linq", "suspend", 0, "as osr-loop"},
    {"list-sort", "suspend", 0, "as osr-loop"},
    {"ready-to-run", "suspend", 0, "as osr-loop"},
    {"stackalloc", "suspend", 0, "as osr-loop"},
    {"pool-item", "suspend", 0, "as osr-loop"},
    {"qsort-unmanaged", "suspend", 0, "as osr-loop"},
    {"blocking-pinvoke", "suspend", 0, "as osr-loop"},
    {"qsort-delegate", "suspend", 0, "as osr-loop"},
    {"expression-tree", "suspend", 0, "as osr-loop"},
    {"dynamic-method", "suspend", 0, "as osr-loop"},
    /* Main starts the pattern; its first Task.Delay starts the runtime's timer thread, and Thread.StartCore waits
     * while the suspensions hold the runtime (0.3-1.1 s in wall-mode runs): a true stack, counted at every tick. */
    {"async-await", "suspend", 0, "as osr-loop; Main waits in Thread.StartCore for the timer thread in wall mode"},
};

/* How pattern is held with walker (NULL: to BAR). */
static const Hold *hold_of(const char *pattern, const char *walker) {
  for (guint i = 0; i < G_N_ELEMENTS(holds); i++)
    if (g_str_equal(holds[i].pattern, pattern) && (!holds[i].walker || g_str_equal(holds[i].walker, walker)))
      return &holds[i];
  return NULL;
}

typedef ItestScratch Fixture;

typedef struct {
  const char *name;      /* /sxs/sampling-truth/<name> */
  const char *runtime_a; /* "dotnet" (the SDK's 10) or a runsxs RUNTIME */
  const char *runtime_b; /* second runtime of the same runsxs process, or NULL */
  const char *walker;
  const char *mode;
} Config;

typedef struct {
  char *name;
  GPtrArray *chains; /* GStrv each: leaf first; "..." for framework frames */
} Pattern;

typedef struct {
  GPtrArray *patterns;  /* Pattern* */
  GHashTable *class_of; /* "OsrLoop" -> Pattern* (borrowed) */
  GHashTable *above;    /* "Work" -> "" */
  GHashTable *driver;   /* "Driver" -> "" */
  GArray *modules;      /* guint64 pairs [lo, hi): the shared libraries' executable mappings */
} Manifest;

typedef struct {
  gint64 samples, exact, bare;
  GHashTable *wrong; /* stack text -> gint64 count (boxed in a pointer) */
} Row;

static void pattern_free(gpointer p) {
  Pattern *pat = p;
  g_free(pat->name);
  g_ptr_array_unref(pat->chains);
  g_free(pat);
}

static void row_free(gpointer p) {
  Row *r = p;
  g_hash_table_unref(r->wrong);
  g_free(r);
}

/* "Truth.OsrLoop.Run" -> "OsrLoop"; NULL for a frame of no Truth class. */
static char *truth_class(const char *name) {
  if (!g_str_has_prefix(name, "Truth."))
    return NULL;
  const char *c = name + strlen("Truth.");
  const char *dot = strchr(c, '.');
  return dot ? g_strndup(c, (gsize)(dot - c)) : NULL;
}

/* The `truth` lines the app printed (under runsxs, each runtime prints its own). */
static void manifest_read(Manifest *m, const char *out) {
  m->patterns = g_ptr_array_new_with_free_func(pattern_free);
  m->class_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  m->above = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  m->driver = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  m->modules = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, "truth-module ")) {
      g_auto(GStrv) words = g_strsplit(*l, " ", 4);
      g_assert_true(g_strv_length(words) == 4);
      guint64 range[2] = {g_ascii_strtoull(words[1], NULL, 16), g_ascii_strtoull(words[2], NULL, 16)};
      g_assert_cmpuint(range[0], <, range[1]);
      g_array_append_vals(m->modules, range, 2);
      continue;
    }
    if (g_str_has_prefix(*l, "truth-above ") || g_str_has_prefix(*l, "truth-driver ")) {
      GHashTable *set = g_str_has_prefix(*l, "truth-above ") ? m->above : m->driver;
      g_auto(GStrv) words = g_strsplit(strchr(*l, ' ') + 1, " ", -1);
      for (char **w = words; *w; w++)
        if (g_str_has_prefix(*w, "Truth."))
          g_hash_table_replace(set, g_strdup(*w + strlen("Truth.")), (gpointer) "");
      continue;
    }
    if (!g_str_has_prefix(*l, "truth ") || g_str_has_prefix(*l, "truth done"))
      continue;
    const char *rest = *l + strlen("truth ");
    const char *sp = strchr(rest, ' ');
    g_assert_nonnull(sp);
    g_autofree char *name = g_strndup(rest, (gsize)(sp - rest));
    Pattern *pat = NULL;
    for (guint i = 0; i < m->patterns->len; i++)
      if (g_str_equal(((Pattern *)m->patterns->pdata[i])->name, name))
        pat = m->patterns->pdata[i];
    if (!pat) {
      pat = g_new0(Pattern, 1);
      pat->name = g_steal_pointer(&name);
      pat->chains = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
      g_ptr_array_add(m->patterns, pat);
    }
    /* Under runsxs each runtime prints the same lines. */
    gboolean seen = FALSE;
    for (guint i = 0; i < pat->chains->len && !seen; i++) {
      g_autofree char *joined = g_strjoinv(" < ", pat->chains->pdata[i]);
      seen = g_str_equal(joined, sp + 1);
    }
    if (seen)
      continue;
    /* A line cut by another runtime's line (they print at once) would give one pattern another's frames. */
    g_assert_null(strstr(sp + 1, "truth"));
    GStrv chain = g_strsplit(sp + 1, " < ", -1);
    g_ptr_array_add(pat->chains, chain);
    for (char **f = chain; *f; f++) {
      g_autofree char *cls = truth_class(*f);
      if (cls)
        g_hash_table_replace(m->class_of, g_steal_pointer(&cls), pat);
    }
  }
}

static void manifest_clear(Manifest *m) {
  g_ptr_array_unref(m->patterns);
  g_hash_table_unref(m->class_of);
  g_hash_table_unref(m->above);
  g_hash_table_unref(m->driver);
  g_array_unref(m->modules);
}

/* Do the managed frames names[from..n) match the chain's tokens from tok on (see the top of the
 * file)? */
static gboolean chain_matches_at(char **names, guint n, guint from, char **tok) {
  guint pos = from;
  for (; *tok; tok++) {
    if (g_str_equal(*tok, "...")) {
      guint start = pos;
      while (pos < n && !g_str_has_prefix(names[pos], "Truth."))
        pos++;
      if (pos == start)
        return FALSE;
      continue;
    }
    if (pos >= n || !g_str_equal(names[pos], *tok))
      return FALSE;
    pos++;
  }
  for (; pos < n; pos++)
    if (g_str_has_prefix(names[pos], "Truth."))
      return FALSE;
  return TRUE;
}

/* Do the managed frames names[from..n) match the chain? The chain is matched from one of its
 * frames named as names[from] is: a sample in a caller's own code has the chain's tail from that
 * caller down, and in a recursion that caller may be any of its calls (a sample while the
 * recursion is built or unwound is in one of them; a sample in the leaf still needs every call). */
static gboolean chain_matches(char **names, guint n, guint from, char **chain) {
  for (char **tok = chain; *tok; tok++)
    if (g_str_equal(*tok, names[from]) && chain_matches_at(names, n, from, tok))
      return TRUE;
  return FALSE;
}

static gboolean is_bare(const char *name) {
  return g_str_has_prefix(name, "0x");
}

static Row *row_get(GHashTable *rows, const char *pattern, gint64 runtime) {
  g_autofree char *key = g_strdup_printf("%s\t%" G_GINT64_FORMAT, pattern, runtime);
  Row *r = g_hash_table_lookup(rows, key);
  if (!r) {
    r = g_new0(Row, 1);
    r->wrong = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_insert(rows, g_steal_pointer(&key), r);
  }
  return r;
}

/* Counts every sample of the profile into rows ("<pattern>\t<runtime id>" -> Row); into
 * *ret_samples and *ret_bare all the samples and those with a frame left as a bare address. */
static void measure(const Manifest *m, JsonObject *samples, GHashTable *rows, gint64 *ret_samples, gint64 *ret_bare) {
  *ret_samples = *ret_bare = 0;
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    gint64 count = json_object_get_int_member(st, "count");
    JsonArray *frames = json_object_get_array_member(st, "frames");
    guint nf = json_array_get_length(frames);
    g_autofree char **names = g_new0(char *, nf + 1);
    g_autofree gint64 *runtimes = g_new0(gint64, nf + 1);
    guint n = 0;
    gboolean bare = FALSE;
    g_autofree char *bare_at = NULL;
    for (guint j = 0; j < nf; j++) {
      JsonObject *f = json_array_get_object_element(frames, j);
      const char *name = json_object_get_string_member(f, "name");
      if (is_bare(name) && !bare) {
        bare = TRUE;
        /* Which frame it is: the frame above it (its callee) names where the walk met it. */
        const char *callee =
            j > 0 ? json_object_get_string_member(json_array_get_object_element(frames, j - 1), "name") : "(the leaf)";
        bare_at = g_strdup_printf("%s, under %s, frame %u of %u", name, callee, j, nf);
      }
      if (!g_str_equal(json_object_get_string_member(f, "kind"), "managed"))
        continue;
      runtimes[n] = json_object_get_int_member(f, "runtime");
      names[n++] = (char *)name;
    }
    /* The first Truth frame that is not a helper's. */
    *ret_samples += count;
    if (bare)
      *ret_bare += count;
    guint first = n;
    const Pattern *pat = NULL;
    gboolean driver = FALSE;
    for (guint j = 0; j < n; j++) {
      g_autofree char *cls = truth_class(names[j]);
      if (!cls || g_hash_table_contains(m->above, cls))
        continue;
      driver |= g_hash_table_contains(m->driver, cls);
      if (first == n) {
        first = j;
        pat = g_hash_table_lookup(m->class_of, cls);
      }
    }
    if (driver)
      continue;
    gint64 runtime = first < n ? runtimes[first] : 0;
    if (!pat) {
      /* No pattern frame: only a bare address on a pattern's own thread counts (against it). */
      const char *thread = json_object_get_string_member(st, "thread");
      if (!bare || !thread)
        continue;
      for (guint k = 0; k < m->patterns->len; k++)
        if (g_str_equal(((Pattern *)m->patterns->pdata[k])->name, thread))
          pat = m->patterns->pdata[k];
      if (!pat)
        continue;
    }
    Row *r = row_get(rows, pat->name, runtime);
    r->samples += count;
    if (bare)
      r->bare += count;
    gboolean exact = FALSE;
    for (guint k = 0; !bare && first < n && k < pat->chains->len && !exact; k++)
      exact = chain_matches(names, n, first, pat->chains->pdata[k]);
    if (exact) {
      r->exact += count;
      continue;
    }
    g_autofree char *joined = g_strjoinv(" < ", names);
    g_autofree char *text = bare ? g_strconcat(joined, " (bare address: ", bare_at, ")", NULL) : g_strdup(joined);
    gint64 seen = GPOINTER_TO_SIZE(g_hash_table_lookup(r->wrong, text));
    g_hash_table_replace(r->wrong, g_strdup(text), GSIZE_TO_POINTER(seen + count));
  }
}

static char *write_config(Fixture *f, const Config *c) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[sampling]\nenabled=true\nfrequency=999\n"
                                          "walker=%s\nmode=%s\n",
                                          f->output, c->walker, c->mode);
  return itest_write_file(f->dir, "sxsprof.conf", text);
}

static void test_truth(Fixture *f, gconstpointer data) {
  const Config *c = data;
  g_autofree char *app = itest_app("StackTruth");
  g_autofree char *args = g_strdup_printf("%s %s", SECONDS, c->mode);
  g_autofree char *cfg = write_config(f, c);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autoptr(ItestRun) run = NULL;
  if (g_str_equal(c->runtime_a, "dotnet")) {
    const char *argv[] = {itest_env("SXS_DOTNET"), app, SECONDS, c->mode, NULL};
    run = itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
  } else if (!c->runtime_b) {
    const char *argv[] = {itest_env("SXS_RUNSXS"), c->runtime_a, app, args, NULL};
    run = itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
  } else {
    const char *argv[] = {itest_env("SXS_RUNSXS"), c->runtime_a, app, args, c->runtime_b, app, args, NULL};
    run = itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
  }
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "truth done patterns="));

  Manifest m;
  manifest_read(&m, run->out);
  g_assert_cmpuint(m.patterns->len, >=, 20);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = json_object_get_object_member(json_node_get_object(doc), "samples");
  g_assert_nonnull(samples);
  g_assert_cmpstr(json_object_get_string_member(samples, "walker"), ==, c->walker);
  g_assert_cmpstr(json_object_get_string_member(samples, "mode"), ==, c->mode);
  g_autoptr(GHashTable) rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, row_free);
  gint64 all_samples = 0, all_bare = 0;
  measure(&m, samples, rows, &all_samples, &all_bare);
  /* The profile says how far its stacks can be trusted, and says it of these very stacks. */
  JsonObject *quality = json_object_get_object_member(samples, "quality");
  g_assert_nonnull(quality);
  g_assert_cmpint(json_object_get_int_member(quality, "samples"), ==, all_samples);
  g_assert_cmpint(json_object_get_int_member(quality, "unnamed"), ==, all_bare);
  /* A frame in a shared library the process had loaded is named (its module at least), whenever the
   * library was loaded: a frame met before the module map knew its library (the JIT's, in the first
   * samples of its first compilations, with every later sample of the same stack) kept its bare
   * address, about 3 % of a cpu-mode run's samples. Checked after the table is printed. */
  g_assert_cmpuint(m.modules->len, >=, 4);
  guint bare_in_modules = 0;
  JsonArray *table_frames = json_object_get_array_member(json_node_get_object(doc), "frame_table");
  for (guint i = 0; i < json_array_get_length(table_frames); i++) {
    const char *name = json_object_get_string_member(json_array_get_object_element(table_frames, i), "name");
    guint64 addr = is_bare(name) ? g_ascii_strtoull(name, NULL, 16) : 0;
    for (guint k = 0; addr && k + 1 < m.modules->len; k += 2)
      if (addr >= g_array_index(m.modules, guint64, k) && addr < g_array_index(m.modules, guint64, k + 1)) {
        g_test_message("frame %s is in a loaded shared library, unnamed", name);
        bare_in_modules++;
      }
  }

  JsonObject *by_walker = json_object_get_object_member(samples, "ticks_by_walker");
  g_assert_cmpint(json_object_get_int_member(quality, "other_walker"), ==,
                  json_object_get_int_member(by_walker, g_str_equal(c->walker, "signal") ? "suspend" : "signal"));

  /* The table, one row a pattern and runtime, then the wrong stacks of each failing row. */
  guint nruntimes = c->runtime_b ? 2 : 1;
  GString *table = g_string_new(NULL);
  g_string_append_printf(table, "stack truth, %s%s%s, walker=%s, mode=%s:\n", c->runtime_a, c->runtime_b ? " + " : "",
                         c->runtime_b ? c->runtime_b : "", c->walker, c->mode);
  g_string_append_printf(table, "  %-18s %3s %8s %8s %8s\n", "pattern", "rt", "samples", "exact", "bare");
  GString *details = g_string_new(NULL);
  guint failed = 0;
  for (guint i = 0; i < m.patterns->len; i++) {
    const Pattern *pat = m.patterns->pdata[i];
    for (gint64 rt = 1; rt <= (gint64)nruntimes; rt++) {
      g_autofree char *key = g_strdup_printf("%s\t%" G_GINT64_FORMAT, pat->name, rt);
      Row *r = g_hash_table_lookup(rows, key);
      gint64 total = r ? r->samples : 0, exact = r ? r->exact : 0, bare = r ? r->bare : 0;
      double share = total ? (double)exact / (double)total : 0;
      const Hold *hold = hold_of(pat->name, c->walker);
      double bar = hold ? hold->bar : BAR;
      /* Held to BAR: no bare address either; under the guard, bare samples count only as not exact. */
      gboolean ok = bar == 0 || (total >= MIN_SAMPLES && share >= bar && (bar < BAR || bare == 0));
      gboolean seen = !g_str_equal(c->mode, "cpu") || total >= MIN_SEEN;
      if (!seen)
        g_string_append_printf(table, "  %-18s %3" G_GINT64_FORMAT " FAIL: fewer than %d samples in cpu mode\n",
                               pat->name, rt, MIN_SEEN);
      ok = ok && seen;
      g_string_append_printf(
          table, "  %-18s %3" G_GINT64_FORMAT " %8" G_GINT64_FORMAT " %7.1f%% %8" G_GINT64_FORMAT "  %s%s\n", pat->name,
          rt, total, 100 * share, bare, ok ? "" : "FAIL ",
          bar >= BAR     ? "held"
          : bar >= GUARD ? "held to 90 % (the fix's guard; 99.5 % not reached on every engine)"
          : bar >= FLOOR ? "held to 75 % (the floor of the frameless-method fix)"
          : bar > 0      ? "held to 50 % (a floor: wall mode side by side moves far)"
                         : hold->why);
      if (exact == total && ok)
        continue;
      if (!ok)
        failed++;
      g_autofree char *expected = g_strjoinv(" < ", pat->chains->pdata[0]);
      g_string_append_printf(details, "%s (runtime %" G_GINT64_FORMAT "), expected %s; wrong:\n", pat->name, rt,
                             expected);
      if (!r)
        continue;
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init(&it, r->wrong);
      while (g_hash_table_iter_next(&it, &k, &v))
        g_string_append_printf(details, "  %6" G_GSIZE_FORMAT "  %s\n", GPOINTER_TO_SIZE(v), (const char *)k);
    }
  }
  /* Each walker's samples of every pattern together. */
  {
    gint64 all = 0, all_exact = 0;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, rows);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
      all += ((Row *)v)->samples;
      all_exact += ((Row *)v)->exact;
    }
    double share = all ? (double)all_exact / (double)all : 0;
    gboolean cpu = g_str_equal(c->mode, "cpu");
    double held = g_str_equal(c->walker, "signal") ? (cpu ? SIGNAL_ALL_CPU : SIGNAL_ALL_WALL)
                                                   : (cpu ? SUSPEND_ALL_CPU : SUSPEND_ALL_WALL);
    gboolean ok = share >= held;
    g_string_append_printf(table, "  all patterns: %.1f %% of %" G_GINT64_FORMAT " samples exact  %sheld to %.0f %%\n",
                           100 * share, all, ok ? "" : "FAIL ", 100 * held);
    if (!ok)
      failed++;
  }
  if (bare_in_modules > 0) {
    g_string_append_printf(table, "  FAIL: %u frames unnamed in loaded shared libraries\n", bare_in_modules);
    failed++;
  }
  g_test_message("%s", table->str);
  if (failed)
    g_test_message("%s", details->str);
  if (g_getenv("SXS_TRUTH_TABLE"))
    fprintf(stderr, "%s%s", table->str, failed || g_str_equal(g_getenv("SXS_TRUTH_TABLE"), "all") ? details->str : "");
  g_string_free(table, TRUE);
  g_string_free(details, TRUE);
  manifest_clear(&m);
  g_assert_cmpuint(failed, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const char *const walkers[] = {"signal", "suspend"};
  static const char *const modes[] = {"cpu", "wall"};
  static const struct {
    const char *label, *a, *b;
  } runtimes[] = {
      {"10", "dotnet", NULL},
      {"8", "8.0", NULL},
      {"3.1", "3.1", NULL},
      {"10+8", "10.0", "8.0"},
  };
  static Config configs[G_N_ELEMENTS(runtimes) * 4];
  guint n = 0;
  for (guint r = 0; r < G_N_ELEMENTS(runtimes); r++)
    for (guint w = 0; w < G_N_ELEMENTS(walkers); w++)
      for (guint mo = 0; mo < G_N_ELEMENTS(modes); mo++) {
        Config *c = &configs[n++];
        c->name = g_strdup_printf("/sxs/sampling-truth/%s/%s/%s", runtimes[r].label, walkers[w], modes[mo]);
        c->runtime_a = runtimes[r].a;
        c->runtime_b = runtimes[r].b;
        c->walker = walkers[w];
        c->mode = modes[mo];
        g_test_add(c->name, Fixture, c, itest_scratch_setup, test_truth, itest_scratch_teardown);
      }
  return g_test_run();
}
