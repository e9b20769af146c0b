/* sxs_write_summary: the terminal summary of a profile: the process, each runtime and its status
 * (profiling, or declined and why), what it compiled, then the top functions by self and by total
 * weight per runtime (samples, or traced time with calls), and the event stacks seen most.
 * Plain text, or with ANSI colours when the caller says the output is a terminal. */
#include <string.h>

#include "sxs_components.h"
#include "sxs_timeline.h"
#include "sxs_process.h"
#include "sxs_view.h"

/* ANSI sequences, or nothing. */
typedef struct {
  const char *bold, *dim, *hot, *warm, *managed, *native, *reset;
} Palette;

static const Palette plain = {"", "", "", "", "", "", ""};
static const Palette ansi = {"\033[1m", "\033[2m", "\033[31m", "\033[33m", "\033[36m", "\033[35m", "\033[0m"};

static gboolean is_framework_module(const char *module) {
  return g_str_has_prefix(module, "System.") || g_str_equal(module, "mscorlib.dll") ||
         g_str_has_prefix(module, "Microsoft.") || g_str_equal(module, "netstandard.dll");
}

static int compare_module_counts(gconstpointer a, gconstpointer b, gpointer table) {
  guint x = GPOINTER_TO_UINT(g_hash_table_lookup(table, *(const char *const *)a));
  guint y = GPOINTER_TO_UINT(g_hash_table_lookup(table, *(const char *const *)b));
  if (x != y)
    return x < y ? 1 : -1;
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Counters; with the inventory, functions per module and the application's own functions (not
 * the framework's). Without it the profile lists only the functions samples and stacks met, and
 * counts no compilation: the summary says so rather than show zeros. */
static void runtime_compiled(GString *out, const SxsRuntimeModel *r, guint top) {
  const SxsCounters *c = &r->counters;
  g_string_append(out, "  ");
  if (r->inventory.enabled)
    g_string_append_printf(out, "jit_compiled=%" G_GINT64_FORMAT " ", c->jit_compiled);
  g_string_append_printf(out,
                         "modules_loaded=%" G_GINT64_FORMAT " modules_unloaded=%" G_GINT64_FORMAT
                         " exceptions=%" G_GINT64_FORMAT " gcs=%" G_GINT64_FORMAT " threads_created=%" G_GINT64_FORMAT
                         "\n",
                         c->modules_loaded, c->modules_unloaded, c->exceptions, c->gcs, c->threads_created);
  if (!r->inventory.enabled) {
    g_string_append(out, "  inventory off: functions are named where samples and stacks meet them (--inventory "
                         "lists every function compiled or run precompiled)\n");
    return;
  }
  g_autoptr(GHashTable) per_module = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GHashTable) app_seen = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) app = g_ptr_array_new();
  for (guint i = 0; i < r->functions->len; i++) {
    const SxsFunctionRecord *f = r->functions->pdata[i];
    const char *module = f->module ? f->module : "?";
    const char *name = f->name ? f->name : "?";
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(per_module, module));
    g_hash_table_insert(per_module, (gpointer)module, GUINT_TO_POINTER(n + 1));
    if (!is_framework_module(module) && g_hash_table_add(app_seen, (gpointer)name))
      g_ptr_array_add(app, (gpointer)name);
  }
  if (g_hash_table_size(per_module) == 0)
    return;
  g_autofree gpointer *modules = g_hash_table_get_keys_as_array(per_module, NULL);
  guint n_modules = g_hash_table_size(per_module);
  g_qsort_with_data(modules, n_modules, sizeof *modules, compare_module_counts, per_module);
  g_string_append(out, "  functions by module:");
  for (guint j = 0; j < n_modules && j < top; j++)
    g_string_append_printf(out, "%s %s %u", j ? "," : "", (const char *)modules[j],
                           GPOINTER_TO_UINT(g_hash_table_lookup(per_module, modules[j])));
  if (n_modules > top)
    g_string_append_printf(out, ", and %u more", n_modules - top);
  g_string_append_c(out, '\n');
  if (app->len) {
    g_string_append_printf(out, "  application functions (%u):", app->len);
    for (guint j = 0; j < app->len && j < top; j++)
      g_string_append_printf(out, "%s %s", j ? "," : "", (const char *)app->pdata[j]);
    if (app->len > top)
      g_string_append(out, ", ...");
    g_string_append_c(out, '\n');
  }
}

static int compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void runtime_header(GString *out, const SxsRuntimeModel *r, const Palette *p, guint top) {
  g_string_append_printf(out, "%sruntime %d: %s %s%s  %s\n", p->bold, r->id, r->version ? r->version : "?",
                         sxs__runtime_status_name(r->status), p->reset, r->path ? r->path : "?");
  if (r->reason)
    g_string_append_printf(out, "  reason: %s\n", r->reason);
  if (r->caps.attached && r->attached_unix_ms > 0) {
    g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(r->attached_unix_ms / 1000);
    g_autofree char *when = t ? g_date_time_format(t, "%Y-%m-%d %H:%M:%S UTC") : g_strdup("?");
    g_string_append_printf(out, "  attached at %s (what ran before is caught up: modules and JIT-compiled functions)\n",
                           when);
  }
  if (r->status != SXS_RUNTIME_PROFILING)
    return;
  runtime_compiled(out, r, top);
  if (g_hash_table_size(r->features_off)) {
    g_autofree gpointer *keys = g_hash_table_get_keys_as_array(r->features_off, NULL);
    guint n = g_hash_table_size(r->features_off);
    qsort(keys, n, sizeof *keys, compare_strings);
    g_string_append(out, "  off:");
    for (guint i = 0; i < n; i++)
      g_string_append_printf(out, "%s %s (%s)", i ? "," : "", (const char *)keys[i],
                             g_hash_table_lookup(r->features_off, keys[i])
                                 ? (const char *)g_hash_table_lookup(r->features_off, keys[i])
                                 : "?");
    g_string_append_c(out, '\n');
  }
}

static double percent(guint64 part, guint64 whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *heat(const Palette *p, double pct) {
  return pct >= 20.0 ? p->hot : pct >= 5.0 ? p->warm : "";
}

/* Rows by total, then self, then label. */
static int compare_by_total(gconstpointer a, gconstpointer b, gpointer data) {
  const SxsView *v = data;
  const SxsViewFrameTotal *x = a, *y = b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  return strcmp(((const SxsViewFrame *)v->frames->pdata[x->frame])->label,
                ((const SxsViewFrame *)v->frames->pdata[y->frame])->label);
}

/* One "top N" table of frames: by self (by_self) or by total. */
static void frame_table(GString *out, const SxsView *v, GArray *rows, guint64 whole, gboolean by_self, guint top,
                        const Palette *p) {
  g_autoptr(GArray) sorted = g_array_copy(rows);
  if (!by_self)
    g_array_sort_with_data(sorted, compare_by_total, (gpointer)v);
  g_string_append_printf(out, "    %s%10s %7s %10s %7s  function%s\n", p->dim, "self", "self%", "total", "total%",
                         p->reset);
  for (guint i = 0; i < sorted->len && i < top; i++) {
    const SxsViewFrameTotal *row = &g_array_index(sorted, SxsViewFrameTotal, i);
    if (by_self && row->self == 0)
      break;
    const SxsViewFrame *f = v->frames->pdata[row->frame];
    double ps = percent(row->self, whole), pt = percent(row->total, whole);
    /* By line (sxsprof report --lines), a row is one line of a function. */
    g_autofree char *name = f->line ? sxs__view_frame_title(f, FALSE) : g_strdup(f->name);
    g_string_append_printf(out, "    %s%10" G_GUINT64_FORMAT " %6.1f%% %10" G_GUINT64_FORMAT " %6.1f%%  %s%s\n",
                           heat(p, by_self ? ps : pt), row->self, ps, row->total, pt, name, p->reset);
  }
}

/* A row of the native code table: a named function, or a library's unnamed code as one row. */
typedef struct {
  char *name;
  guint64 self, total;
  guint addresses; /* unnamed: how many distinct addresses */
} NativeRow;

static int compare_native_rows(gconstpointer a, gconstpointer b) {
  const NativeRow *x = a, *y = b;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Native code by self: named functions as they are, and each library's code that no symbol names
 * as one row (a runtime without symbols is one row, not hundreds of addresses). */
static void native_table(GString *out, const SxsView *v, guint64 whole, guint top, const Palette *p) {
  g_autoptr(GArray) frames = sxs__view_frame_totals(v, SXS_VIEW_SAMPLES, 0);
  g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(NativeRow));
  g_autoptr(GHashTable) by_lib = g_hash_table_new(g_str_hash, g_str_equal); /* library -> row index + 1 */
  g_autofree guint32 *lib_of = g_new0(guint32, MAX(v->frames->len, 1));     /* frame -> row index + 1 */
  for (guint i = 0; i < frames->len; i++) {
    const SxsViewFrameTotal *t = &g_array_index(frames, SxsViewFrameTotal, i);
    const SxsViewFrame *f = v->frames->pdata[t->frame];
    if (!sxs__components_unnamed(f)) {
      NativeRow row = {.name = g_strdup(f->name), .self = t->self, .total = t->total};
      g_array_append_val(rows, row);
      continue;
    }
    const char *lib = f->module && *f->module ? f->module : "(no module)";
    guint index = GPOINTER_TO_UINT(g_hash_table_lookup(by_lib, lib));
    if (!index) {
      NativeRow row = {.name = g_strdup(lib)};
      g_array_append_val(rows, row);
      index = rows->len;
      g_hash_table_insert(by_lib, (gpointer)lib, GUINT_TO_POINTER(index));
    }
    NativeRow *row = &g_array_index(rows, NativeRow, index - 1);
    row->self += t->self;
    row->addresses++;
    lib_of[t->frame] = index;
  }
  /* A library's total: the stacks with any of its unnamed frames, each counted once. */
  g_autofree guint32 *seen = g_new0(guint32, rows->len + 1);
  guint32 stamp = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_SAMPLES);
  for (const SxsViewStack *st; (st = sxs__view_iter_next_stack(&it));) {
    stamp++;
    for (guint d = 0; d < st->depth; d++) {
      guint32 index = lib_of[st->frames[d]];
      if (index && seen[index] != stamp) {
        seen[index] = stamp;
        g_array_index(rows, NativeRow, index - 1).total += st->weight;
      }
    }
  }
  g_array_sort(rows, compare_native_rows);
  g_string_append_printf(out, "    %s%10s %7s %10s %7s  function%s\n", p->dim, "self", "self%", "total", "total%",
                         p->reset);
  for (guint i = 0; i < rows->len; i++) {
    NativeRow *row = &g_array_index(rows, NativeRow, i);
    if (i < top && row->self > 0) {
      double ps = percent(row->self, whole), pt = percent(row->total, whole);
      g_autofree char *what = !row->addresses ? NULL
                              : g_str_equal(row->name, "(no module)")
                                  ? g_strdup_printf("code no module owns (%u addresses)", row->addresses)
                                  : g_strdup_printf("%s (no symbols: %u addresses)", row->name, row->addresses);
      g_string_append_printf(out, "    %s%10" G_GUINT64_FORMAT " %6.1f%% %10" G_GUINT64_FORMAT " %6.1f%%  %s%s\n",
                             heat(p, ps), row->self, ps, row->total, pt, what ? what : row->name, p->reset);
    }
    g_free(row->name);
  }
}

/* Where the samples went by component (each sample counts in its leaf's component), every
 * component that has any, most first; shares of the samples shown, summing to 100 %. */
static void components_table(GString *out, const SxsView *v, const Palette *p) {
  SxsComponentTotals t;
  sxs__components_totals(v, SXS_VIEW_SAMPLES, &t);
  if (t.total > 0) {
    guint order[SXS_N_COMPONENTS];
    guint n = 0;
    for (guint c = 0; c < SXS_N_COMPONENTS; c++)
      if (t.weight[c] > 0)
        order[n++] = c;
    for (guint i = 1; i < n; i++) /* insertion sort: at most nine */
      for (guint j = i; j > 0 && t.weight[order[j]] > t.weight[order[j - 1]]; j--) {
        guint x = order[j];
        order[j] = order[j - 1];
        order[j - 1] = x;
      }
    g_string_append(out, "  by component (a sample counts in the component of its leaf frame):\n");
    g_string_append_printf(out, "    %s%10s %7s  component%s\n", p->dim, "samples", "share", p->reset);
    for (guint i = 0; i < n; i++)
      g_string_append_printf(out, "    %10" G_GUINT64_FORMAT " %6.1f%%  %s %s(%s)%s\n", t.weight[order[i]],
                             percent(t.weight[order[i]], t.total), sxs__components_name((SxsComponent)order[i]), p->dim,
                             sxs__components_about((SxsComponent)order[i]), p->reset);
  }
  sxs__components_clear(&t);
}

/* A reason samples were dropped, in plain words (docs/usage.md lists them too); NULL for one this
 * table does not know. */
static const char *dropped_meaning(const char *reason) {
  static const struct {
    const char *reason, *meaning;
  } meanings[] = {
      {"thread inside a walk",
       "the thread was already being walked (for an event, or the other walker) when its sample "
       "was due; a stack is never walked twice at once"},
      {"stack not found", "the thread's stack pointer lay in no stack the sampler knew of (a thread that had just "
                          "started, or one on another stack); the sampler reads the stacks again"},
      {"walk failed", "the walk of the thread's stack found no frame it could read"},
      {"too many threads for timers", "the process has more threads than the kernel gives CPU-time timers; those "
                                      "threads were not sampled"},
      {"timer not created", "the kernel refused a CPU-time timer for the thread"},
      {"thread gone", "the thread ended between being chosen and being signalled"},
      {"signal not sent", "the kernel refused to send the thread the sampling signal"},
      {"no answer in time", "the thread did not run the sampling signal's handler in time (it was not scheduled)"},
      {"capture abandoned at stop", "sampling stopped while the thread's capture was under way"},
      {"signal blocked by the thread", "the thread blocks the sampling signal (the runtime does so around some of its "
                                       "own work)"},
      {"runtime could not be suspended", "the suspend walker could not stop the runtime (a GC or shutdown under way); "
                                         "its threads were not walked at that tick"},
      {"no counter for the thread", "neither a perf_events counter nor a CPU-time timer could be made for the "
                                    "thread; it was not sampled"},
      {"runtime not suspended", "the suspend walker found the runtime not suspended when it walked; its threads were "
                                "not walked at that tick"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(meanings); i++)
    if (g_str_equal(reason, meanings[i].reason))
      return meanings[i].meaning;
  if (g_str_has_prefix(reason, "runtime walk incomplete"))
    return "the runtime's own walk of a suspended thread ended with the error named (its frames are left out)";
  return NULL;
}

/* The reasons samples were dropped, most first (then by name). */
static gint compare_dropped(gconstpointer a, gconstpointer b, gpointer dropped) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  guint64 nx = *(const guint64 *)g_hash_table_lookup(dropped, x),
          ny = *(const guint64 *)g_hash_table_lookup(dropped, y);
  if (nx != ny)
    return nx > ny ? -1 : 1;
  return strcmp(x, y);
}

/* Is module one of a .NET runtime's own native libraries (libcoreclr.so, libclrjit.so, libclrgc.so,
 * libSystem.Native.so, libhostpolicy.so, libhostfxr.so, libmscordaccore.so, ...)? */
static gboolean runtime_library(const char *module) {
  static const char *const prefixes[] = {"libcoreclr", "libclr", "libSystem.", "libhost", "libmscor"};
  if (!module || !g_str_has_suffix(module, ".so"))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(prefixes); i++)
    if (g_str_has_prefix(module, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* One line, when samples sit in runtime libraries that no symbol names ("libcoreclr.so+0x5fb3cb"):
 * how many, in which, and where their names would come from. */
static void unnamed_runtime_note(GString *out, const SxsView *v, GArray *rows, guint64 whole, const Palette *p) {
  guint64 unnamed = 0;
  g_autoptr(GPtrArray) modules = g_ptr_array_new();
  for (guint i = 0; i < rows->len; i++) {
    const SxsViewFrameTotal *row = &g_array_index(rows, SxsViewFrameTotal, i);
    const SxsViewFrame *f = v->frames->pdata[row->frame];
    size_t len = f->module ? strlen(f->module) : 0;
    if (row->self == 0 || !runtime_library(f->module) || strncmp(f->name, f->module, len) != 0 ||
        !g_str_has_prefix(f->name + len, "+0x"))
      continue;
    unnamed += row->self;
    if (!g_ptr_array_find_with_equal_func(modules, f->module, g_str_equal, NULL))
      g_ptr_array_add(modules, f->module);
  }
  if (unnamed == 0)
    return;
  g_ptr_array_sort(modules, compare_strings);
  g_autoptr(GString) list = g_string_new(NULL);
  for (guint i = 0; i < modules->len; i++)
    g_string_append_printf(list, "%s%s", i ? ", " : "", (const char *)modules->pdata[i]);
  g_string_append_printf(out,
                         "  %sunnamed runtime code:%s %" G_GUINT64_FORMAT
                         " samples (%.1f%%) in %s, which carry no symbols; their debug files "
                         "(%s.dbg, ...) come with the runtime's symbols: dotnet-symbol --symbols puts them beside "
                         "the library, sxsprof run --debug-dir DIR reads a folder of them\n",
                         p->dim, p->reset, unnamed, percent(unnamed, whole), list->str,
                         (const char *)modules->pdata[0]);
}

/* The threads that ran most and the rate each was sampled at (per second of its own CPU time), and
 * the CPU time of the profiler's own threads, which are never sampled. */
#define SUMMARY_RATE_THREADS 5
static void thread_rates_lines(GString *out, const SxsSamplesModel *sm) {
  g_autofree char *rates = sxs__view_thread_rates(sm, SUMMARY_RATE_THREADS);
  if (rates)
    g_string_append_printf(out, "  per thread: %s\n", rates);
  if (sm->profiler_threads->len == 0)
    return;
  guint64 own = 0;
  for (guint i = 0; i < sm->profiler_threads->len; i++)
    own += ((const SxsThreadRateModel *)sm->profiler_threads->pdata[i])->cpu_ns;
  g_string_append_printf(out, "  profiler: %.3f s CPU on its own threads, not sampled (", (double)own / 1e9);
  for (guint i = 0; i < sm->profiler_threads->len; i++) {
    const SxsThreadRateModel *r = sm->profiler_threads->pdata[i];
    g_string_append_printf(out, "%s%s %.3f s", i ? ", " : "", r->name ? r->name : "?", (double)r->cpu_ns / 1e9);
  }
  g_string_append_printf(out, "), %.3f s in the sampled threads' signal handlers\n", (double)sm->capture_ns / 1e9);
}

/* engine=auto: the threads sampled by a CPU-time timer part of the time although the engine is perf
 * (they ran in short slices, where a counter costs each context switch), and their share of the
 * CPU time sampled; nothing when there were none. */
static void engine_moves_text(GString *out, const SxsSamplesModel *sm) {
  guint moved = 0;
  guint64 on_timer = 0, cpu = 0;
  for (guint i = 0; sm->thread_rates && i < sm->thread_rates->len; i++) {
    const SxsThreadRateModel *r = sm->thread_rates->pdata[i];
    cpu += r->cpu_ns;
    on_timer += MIN(r->timer_ns, r->cpu_ns);
    moved += r->timer_ns > 0;
  }
  if (moved == 0 || cpu == 0)
    return;
  g_string_append_printf(out,
                         "; %u thread%s on a CPU-time timer for %.1f%% of the CPU time sampled: they ran in "
                         "short slices, where a perf counter costs each context switch",
                         moved, moved == 1 ? "" : "s", 100.0 * (double)on_timer / (double)cpu);
}

/* Top frames of the samples, per runtime and for native code. */
static void samples_section(GString *out, const SxsView *v, const SxsRenderOptions *o, const Palette *p) {
  guint64 whole = 0, stacks = 0;
  guint threads = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_SAMPLES);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));) {
    whole = sxs__saturating_add(whole, g->total, SXS_PROFILE_MAX_NS);
    stacks += g->stacks->len;
    threads++;
  }
  const SxsSamplesModel *sm = &v->model->samples;
  if (!sm->enabled && whole == 0)
    return;
  g_string_append_printf(out,
                         "%ssamples:%s %s, %d Hz, %s walker: %" G_GUINT64_FORMAT
                         " samples on %u thread%s, %" G_GUINT64_FORMAT " distinct stacks\n",
                         p->bold, p->reset, sm->mode ? sm->mode : "?", sm->frequency, sm->walker ? sm->walker : "?",
                         whole, threads, threads == 1 ? "" : "s", stacks);
  if (sm->off_reason)
    g_string_append_printf(out, "  off: %s\n", sm->off_reason);
  if (sxs__samples_hardware(sm))
    g_string_append_printf(out, "  event: %s, a sample every %" G_GUINT64_FORMAT " on a thread's CPU\n", sm->event,
                           sm->event_period);
  if (sm->engine) {
    g_string_append_printf(out, "  engine: %s (%s)", sm->engine, sm->engine_reason ? sm->engine_reason : "?");
    engine_moves_text(out, sm);
    g_string_append_c(out, '\n');
  }
  /* Whether the sampler kept the rate asked, and what it could not sample. */
  if (sm->ticks > 0) {
    g_autofree char *rate = sxs__view_sampling_rate(sm);
    g_string_append_printf(out, "  rate: %s\n", rate);
  }
  /* How far the stacks can be trusted: frames no runtime named, ticks of the other walker. */
  SxsSamplesQuality q;
  sxs__samples_quality(sm, &q);
  if (q.unnamed > 0 || q.other_walker > 0)
    g_string_append_printf(out,
                           "  walk quality: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                           " samples (%.1f %%) hold a frame left as an address (a stub or dynamic method; its "
                           "managed caller may be missing), %" G_GUINT64_FORMAT " tick%s by the other walker\n",
                           q.unnamed, q.samples, q.samples ? 100.0 * (double)q.unnamed / (double)q.samples : 0.0,
                           q.other_walker, q.other_walker == 1 ? "" : "s");
  if (v->model->walks.stacks_merged > 0)
    g_string_append_printf(out,
                           "  stacks merged: %" G_GUINT64_FORMAT
                           " events met a new stack after the profile held as many distinct stacks as it keeps; "
                           "each was counted under its leaf function, its callers shown as one frame "
                           "\"[more distinct stacks than the profile keeps]\"\n",
                           v->model->walks.stacks_merged);
  thread_rates_lines(out, sm);
  if (sm->dropped && g_hash_table_size(sm->dropped) > 0) {
    g_autoptr(GPtrArray) reasons = g_ptr_array_new();
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, sm->dropped);
    while (g_hash_table_iter_next(&it, &key, NULL))
      g_ptr_array_add(reasons, key);
    g_ptr_array_sort_with_data(reasons, compare_dropped, sm->dropped);
    g_string_append(out, "  dropped:");
    for (guint i = 0; i < reasons->len; i++)
      g_string_append_printf(out, "%s %s %" G_GUINT64_FORMAT, i ? "," : "", (const char *)reasons->pdata[i],
                             *(const guint64 *)g_hash_table_lookup(sm->dropped, reasons->pdata[i]));
    g_string_append_c(out, '\n');
    /* What each reason means, for the reader who wonders whether to trust the rest. */
    for (guint i = 0; i < reasons->len; i++) {
      const char *why = dropped_meaning(reasons->pdata[i]);
      if (why)
        g_string_append_printf(out, "    %s%s: %s%s\n", p->dim, (const char *)reasons->pdata[i], why, p->reset);
    }
  }
  if (whole == 0)
    return;
  components_table(out, v, p);
  /* Runtimes first, then native code. */
  for (guint i = 0; i <= v->model->runtimes->len; i++) {
    const SxsRuntimeModel *r = i < v->model->runtimes->len ? v->model->runtimes->pdata[i] : NULL;
    if (v->runtime_id && r && r->id != v->runtime_id)
      continue;
    g_autoptr(GArray) rows = sxs__view_frame_totals(v, SXS_VIEW_SAMPLES, r ? r->id : 0);
    if (rows->len == 0)
      continue;
    g_autofree char *who =
        r ? g_strdup_printf("%sruntime %d (%s)%s", p->managed, r->id, r->version ? r->version : "?", p->reset)
          : g_strdup_printf("%snative code%s", p->native, p->reset);
    g_string_append_printf(out, "  %s, top %u by self:\n", who, o->top);
    /* Native code by total is the host's trunk (_start, main, the runtime's entry): only self. */
    if (!r) {
      native_table(out, v, whole, o->top, p);
      unnamed_runtime_note(out, v, rows, whole, p);
      continue;
    }
    frame_table(out, v, rows, whole, TRUE, o->top, p);
    g_string_append_printf(out, "  %s, top %u by total:\n", who, o->top);
    frame_table(out, v, rows, whole, FALSE, o->top, p);
  }
}

static int compare_exclusive(gconstpointer a, gconstpointer b) {
  const SxsFunctionRecord *x = *(const SxsFunctionRecord *const *)a, *y = *(const SxsFunctionRecord *const *)b;
  if (x->exclusive_ns != y->exclusive_ns)
    return x->exclusive_ns > y->exclusive_ns ? -1 : 1;
  if (x->calls != y->calls)
    return x->calls > y->calls ? -1 : 1;
  return g_strcmp0(x->name, y->name);
}

static int compare_inclusive(gconstpointer a, gconstpointer b) {
  const SxsFunctionRecord *x = *(const SxsFunctionRecord *const *)a, *y = *(const SxsFunctionRecord *const *)b;
  if (x->inclusive_ns != y->inclusive_ns)
    return x->inclusive_ns > y->inclusive_ns ? -1 : 1;
  return compare_exclusive(a, b);
}

static void calls_table(GString *out, GPtrArray *fns, guint64 whole, gboolean timed, guint top, const Palette *p) {
  if (timed)
    g_string_append_printf(out, "    %s%12s %12s %7s %12s %7s  function%s\n", p->dim, "calls", "self ms", "self%",
                           "total ms", "total%", p->reset);
  else
    g_string_append_printf(out, "    %s%12s  function%s\n", p->dim, "calls", p->reset);
  for (guint i = 0; i < fns->len && i < top; i++) {
    const SxsFunctionRecord *f = fns->pdata[i];
    if (timed) {
      double ps = percent(f->exclusive_ns, whole), pt = percent(f->inclusive_ns, whole);
      g_string_append_printf(out, "    %s%12" G_GUINT64_FORMAT " %12.3f %6.1f%% %12.3f %6.1f%%  %s%s\n", heat(p, ps),
                             f->calls, (double)f->exclusive_ns / 1e6, ps, (double)f->inclusive_ns / 1e6, pt, f->name,
                             p->reset);
    } else {
      g_string_append_printf(out, "    %12" G_GUINT64_FORMAT "  %s\n", f->calls, f->name);
    }
  }
}

/* Traced functions of each runtime: by exclusive time, by inclusive time (or by calls). */
static void calls_section(GString *out, const SxsView *v, const SxsRenderOptions *o, const Palette *p) {
  for (guint i = 0; i < v->model->runtimes->len; i++) {
    const SxsRuntimeModel *r = v->model->runtimes->pdata[i];
    if (v->runtime_id && r->id != v->runtime_id)
      continue;
    g_autoptr(GPtrArray) fns = g_ptr_array_new();
    guint64 whole = 0, calls = 0;
    for (guint j = 0; j < r->functions->len; j++) {
      const SxsFunctionRecord *f = r->functions->pdata[j];
      if (f->traced && f->calls) {
        g_ptr_array_add(fns, (gpointer)f);
        whole = sxs__saturating_add(whole, f->exclusive_ns, SXS_PROFILE_MAX_NS);
        calls = sxs__saturating_add(calls, f->calls, SXS_PROFILE_MAX_NS);
      }
    }
    if (fns->len == 0)
      continue;
    gboolean timed = r->tracing.timing;
    g_string_append_printf(out, "%straced calls, %sruntime %d (%s)%s:%s %" G_GUINT64_FORMAT " calls of %u functions",
                           p->bold, p->managed, r->id, r->version ? r->version : "?", p->reset, p->reset, calls,
                           fns->len);
    if (timed)
      g_string_append_printf(out, ", %.3f ms", (double)whole / 1e6);
    g_string_append_c(out, '\n');
    if (timed) {
      g_ptr_array_sort(fns, compare_exclusive);
      g_string_append_printf(out, "  top %u by self time:\n", o->top);
      calls_table(out, fns, whole, TRUE, o->top, p);
      g_ptr_array_sort(fns, compare_inclusive);
      g_string_append_printf(out, "  top %u by total time:\n", o->top);
      calls_table(out, fns, whole, TRUE, o->top, p);
    } else {
      g_ptr_array_sort(fns, compare_exclusive);
      g_string_append_printf(out, "  top %u by calls:\n", o->top);
      calls_table(out, fns, whole, FALSE, o->top, p);
    }
  }
}

/* The event stacks seen most, leaf and a few callers each. */
static void events_section(GString *out, const SxsView *v, const SxsRenderOptions *o, const Palette *p) {
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_EVENTS);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));) {
    g_string_append_printf(out, "%s%s stacks:%s %" G_GUINT64_FORMAT " events, %u distinct stacks, seen most:\n",
                           p->bold, g->event, p->reset, g->total, g->stacks->len);
    for (guint s = 0; s < g->stacks->len && s < o->top; s++) {
      const SxsViewStack *st = &g_array_index(g->stacks, SxsViewStack, s);
      g_string_append_printf(out, "  %8" G_GUINT64_FORMAT "  ", st->weight);
      guint shown = 0;
      for (guint d = st->depth; d-- > 0 && shown < 4; shown++) {
        const SxsViewFrame *f = v->frames->pdata[st->frames[d]];
        g_autofree char *title = f->line ? sxs__view_frame_title(f, TRUE) : g_strdup(f->label);
        g_string_append_printf(out, "%s%s", shown ? " <- " : "", title);
      }
      if (st->depth > shown)
        g_string_append_printf(out, " <- ... (%u more)", st->depth - shown);
      g_string_append_c(out, '\n');
    }
  }
}

/* A quantity in a profile's unit, for people. */
static char *profile_quantity(SxsViewKind kind, guint64 value) {
  if (kind == SXS_VIEW_CONTENTION)
    return g_strdup_printf("%.3f ms", (double)value / 1e6);
  if (kind == SXS_VIEW_ALLOCATIONS)
    return sxs__view_size_text(value);
  return g_strdup_printf("%" G_GUINT64_FORMAT, value);
}

/* Is this frame the runtime's own throwing or waiting machinery: native code, the managed
 * exception dispatch of .NET 9 and later (System.Runtime.EH), or the lock being entered (Monitor,
 * .NET 9's System.Threading.Lock)? */
static gboolean machinery_frame(const SxsViewFrame *f) {
  return !f->managed || g_str_has_prefix(f->name, "System.Runtime.EH.") ||
         g_str_has_prefix(f->name, "System.Threading.Monitor.") || g_str_has_prefix(f->name, "System.Threading.Lock.");
}

/* Up to three frames of a stack from depth `from` towards the root, untagged: where it happened,
 * the runtime's machinery above the first managed frame left out (all of it when none is managed). */
static char *profile_site(const SxsView *v, const SxsViewStack *st, guint from) {
  guint at = from;
  while (at > 0 && machinery_frame(v->frames->pdata[st->frames[at - 1]]))
    at--;
  if (at > 0)
    from = at;
  GString *site = g_string_new(NULL);
  guint shown = 0;
  for (guint d = from; d-- > 0 && shown < 3; shown++) {
    const SxsViewFrame *f = v->frames->pdata[st->frames[d]];
    g_string_append_printf(site, "%s%s", shown ? " <- " : "", f->name);
  }
  if (shown == 0)
    g_string_append(site, "(no frame)");
  return g_string_free(site, FALSE);
}

typedef struct {
  guint32 frame; /* the type's frame; G_MAXUINT32 for untyped stacks */
  guint64 weight, count;
  GHashTable *sites; /* site text -> guint64[2] {weight, count}; owned */
} ProfileRow;

static int compare_rows(gconstpointer a, gconstpointer b) {
  const ProfileRow *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

typedef struct {
  const char *site;
  const guint64 *sum;
} SiteRow;

static int compare_sites(gconstpointer a, gconstpointer b) {
  const SiteRow *x = a, *y = b;
  if (x->sum[0] != y->sum[0])
    return x->sum[0] > y->sum[0] ? -1 : 1;
  return strcmp(x->site, y->site);
}

/* The event profiles, per runtime: exceptions and allocations by type, each type's top sites
 * (the frames under it); contention by site (where the waits began), with the time waited. */
static void profiles_section(GString *out, const SxsView *v, const SxsRenderOptions *o, const Palette *p) {
  for (SxsViewKind kind = SXS_VIEW_EXCEPTIONS; kind <= SXS_VIEW_ALLOCATIONS; kind++) {
    gboolean typed = kind != SXS_VIEW_CONTENTION;
    SxsViewIter it;
    sxs__view_iter_init(&it, v, kind);
    for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));) {
      g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(ProfileRow));
      for (guint i = 0; i < g->stacks->len; i++) {
        const SxsViewStack *st = &g_array_index(g->stacks, SxsViewStack, i);
        guint32 frame = typed && st->depth > 0 ? st->frames[st->depth - 1] : G_MAXUINT32;
        ProfileRow *row = NULL;
        for (guint r = 0; r < rows->len && !row; r++)
          if (g_array_index(rows, ProfileRow, r).frame == frame)
            row = &g_array_index(rows, ProfileRow, r);
        if (!row) {
          ProfileRow fresh = {.frame = frame, .sites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)};
          g_array_append_val(rows, fresh);
          row = &g_array_index(rows, ProfileRow, rows->len - 1);
        }
        row->weight += st->weight;
        row->count += st->count;
        char *site = profile_site(v, st, typed && st->depth > 0 ? st->depth - 1 : st->depth);
        guint64 *sum = g_hash_table_lookup(row->sites, site);
        if (!sum) {
          sum = g_new0(guint64, 2);
          g_hash_table_insert(row->sites, site, sum);
        } else {
          g_free(site);
        }
        sum[0] += st->weight;
        sum[1] += st->count;
      }
      g_array_sort(rows, compare_rows);
      const SxsRuntimeModel *r = sxs__view_runtime(v, g->runtime_id);
      g_autofree char *total = profile_quantity(kind, g->total);
      const char *title = kind == SXS_VIEW_EXCEPTIONS   ? "exceptions by type"
                          : kind == SXS_VIEW_CONTENTION ? "lock contention by site"
                                                        : "allocations by type";
      g_string_append_printf(out, "%s%s, %sruntime %d (%s)%s:%s %s", p->bold, title, p->managed, g->runtime_id,
                             r && r->version ? r->version : "?", p->reset, p->reset, total);
      if (kind == SXS_VIEW_CONTENTION)
        g_string_append_printf(out, " waited in %" G_GUINT64_FORMAT " contention%s\n", g->total_count,
                               g->total_count == 1 ? "" : "s");
      else if (kind == SXS_VIEW_ALLOCATIONS)
        g_string_append_printf(out, " in %" G_GUINT64_FORMAT " objects (estimated), %u type%s\n", g->total_count,
                               rows->len, rows->len == 1 ? "" : "s");
      else
        g_string_append_printf(out, " exception%s, %u type%s\n", g->total == 1 ? "" : "s", rows->len,
                               rows->len == 1 ? "" : "s");
      if (kind == SXS_VIEW_ALLOCATIONS && r && r->heap.gcs > 0) {
        g_autofree char *last = profile_quantity(kind, r->heap.after_last_gc);
        g_autofree char *max = profile_quantity(kind, r->heap.after_gc_max);
        g_string_append_printf(out, "  heap after GC: %s after the last of %" G_GUINT64_FORMAT " GC%s, %s at most\n",
                               last, r->heap.gcs, r->heap.gcs == 1 ? "" : "s", max);
      }
      for (guint i = 0; i < rows->len; i++) {
        ProfileRow *row = &g_array_index(rows, ProfileRow, i);
        g_autoptr(GArray) sites = g_array_new(FALSE, FALSE, sizeof(SiteRow));
        GHashTableIter hi;
        gpointer key, value;
        g_hash_table_iter_init(&hi, row->sites);
        while (g_hash_table_iter_next(&hi, &key, &value)) {
          SiteRow sr = {key, value};
          g_array_append_val(sites, sr);
        }
        g_array_sort(sites, compare_sites);
        if (i < o->top) {
          g_autofree char *q = profile_quantity(kind, row->weight);
          if (typed) {
            const SxsViewFrame *f = v->frames->pdata[row->frame];
            g_string_append_printf(out, "  %12s %5.1f%%  %s%s%s", q, percent(row->weight, g->total), p->managed,
                                   f->name, p->reset);
            if (kind == SXS_VIEW_ALLOCATIONS)
              g_string_append_printf(out, "  (%" G_GUINT64_FORMAT " objects)", row->count);
            g_string_append_c(out, '\n');
          }
          for (guint j = 0; j < sites->len && j < (typed ? 3u : o->top); j++) {
            const SiteRow *sr = &g_array_index(sites, SiteRow, j);
            g_autofree char *sq = profile_quantity(kind, sr->sum[0]);
            g_string_append_printf(out, "  %s%12s %5.1f%%  at %s", typed ? "  " : "", sq, percent(sr->sum[0], g->total),
                                   sr->site);
            if (kind == SXS_VIEW_CONTENTION)
              g_string_append_printf(out, "  (%" G_GUINT64_FORMAT " contention%s)", sr->sum[1],
                                     sr->sum[1] == 1 ? "" : "s");
            g_string_append_c(out, '\n');
          }
        }
        g_hash_table_unref(row->sites);
      }
    }
  }
}

/* The summary never fails: a profile with nothing recorded still names its process and runtimes.
 * Context: any thread; allocates. */
/* CPU (or wall time), allocations, lock waits and exceptions by endpoint (--endpoints): each counts
 * for the request its thread worked for when it happened (sxs_activity.h). */
static void endpoints_section(GString *out, const SxsView *v, const Palette *p) {
  g_autoptr(GArray) totals = sxs__timeline_label_totals(v->model);
  if (!totals)
    return;
  const SxsSamplesModel *sm = &v->model->samples;
  gboolean wall = g_strcmp0(sm->mode, "wall") == 0;
  double period_ns = sm->frequency > 0 && !sxs__samples_hardware(sm) ? 1e9 / sm->frequency : 0;
  guint64 all = 0, wait = 0;
  for (guint i = 0; i < totals->len; i++) {
    const SxsTimelineLabelTotals *l = &g_array_index(totals, SxsTimelineLabelTotals, i);
    all += l->samples;
    wait += l->lock_wait_us;
  }
  g_string_append_printf(out,
                         "%sby endpoint:%s %s, allocations and lock waits of the requests each endpoint served (a "
                         "sample or event counts for the request its thread worked for then)\n",
                         p->bold, p->reset, wall ? "wall time" : "CPU");
  g_string_append_printf(out, "    %s%8s %9s %7s %12s %10s %10s %10s %7s  endpoint%s\n", p->dim, "requests", "samples",
                         "share", wall ? "wall/request" : "CPU/request", "time/req", "alloc", "lock wait", "of wait",
                         p->reset);
  for (guint i = 0; i < totals->len; i++) {
    const SxsTimelineLabelTotals *l = &g_array_index(totals, SxsTimelineLabelTotals, i);
    if (l->samples == 0 && l->requests == 0 && l->alloc_bytes == 0 && l->lock_wait_us == 0)
      continue;
    g_autofree char *per = l->requests && period_ns > 0
                               ? sxs__view_duration((guint64)((double)l->samples * period_ns / (double)l->requests))
                               : g_strdup("-");
    g_autofree char *mean = l->requests ? sxs__view_duration(l->request_us * 1000 / l->requests) : g_strdup("-");
    g_autofree char *bytes = g_format_size_full(l->alloc_bytes, G_FORMAT_SIZE_IEC_UNITS);
    g_autofree char *waited = sxs__view_duration(l->lock_wait_us * 1000);
    g_string_append_printf(
        out, "    %8" G_GUINT64_FORMAT " %9" G_GUINT64_FORMAT " %6.1f%% %12s %10s %10s %10s %6.1f%%  %s\n", l->requests,
        l->samples, percent(l->samples, all), per, mean, l->alloc_bytes ? bytes : "-", l->lock_wait_us ? waited : "-",
        percent(l->lock_wait_us, wait), l->name ? l->name : "(no request)");
  }
}

char *sxs__write_summary(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  (void)ret_why; /* a summary always has something to say */
  SxsRenderOptions defaults = {.top = 10};
  if (!o)
    o = &defaults;
  SxsRenderOptions opt = *o;
  if (opt.top == 0)
    opt.top = 10;
  const Palette *p = opt.color ? &ansi : &plain;
  const SxsProfileModel *m = v->model;
  GString *out = g_string_new(NULL);
  g_autofree char *command = sxs__process_command_line(m->process ? m->process->argv : NULL, 120);
  guint n = m->runtimes->len;
  g_string_append_printf(out, "%spid %d:%s %s  (mode %s, %u runtime%s)\n", p->bold, m->process ? m->process->pid : 0,
                         p->reset, command, m->mode ? m->mode : "?", n, n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++)
    if (!v->runtime_id || ((const SxsRuntimeModel *)m->runtimes->pdata[i])->id == v->runtime_id)
      runtime_header(out, m->runtimes->pdata[i], p, opt.top);
  samples_section(out, v, &opt, p);
  endpoints_section(out, v, p);
  calls_section(out, v, &opt, p);
  events_section(out, v, &opt, p);
  profiles_section(out, v, &opt, p);
  if (ret_len)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
