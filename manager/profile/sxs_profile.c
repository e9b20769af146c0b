/* sxs_profile: the profile model and its JSON writer.
 *
 *   live registry (manager, locked) --copy--> SxsProfileModel --render--> JSON text --> file
 *                                   (short)                   (no lock)
 */
#include "sxs_profile.h"

#include <stdlib.h>
#include <string.h>

#include "sxs_json.h"

SxsFunctionRecord *sxs__function_record_copy(const SxsFunctionRecord *f) {
  SxsFunctionRecord *c = g_new0(SxsFunctionRecord, 1);
  c->name = g_strdup(f->name);
  c->module = g_strdup(f->module);
  c->jit_compiled = f->jit_compiled;
  c->inlined = f->inlined;
  c->precompiled = f->precompiled;
  c->function_id = f->function_id;
  c->traced = f->traced;
  c->calls = f->calls;
  c->inclusive_ns = f->inclusive_ns;
  c->exclusive_ns = f->exclusive_ns;
  c->file = g_strdup(f->file);
  c->line = f->line;
  return c;
}

void sxs__function_record_free(gpointer p) {
  SxsFunctionRecord *f = p;
  if (!f)
    return;
  g_free(f->name);
  g_free(f->module);
  g_free(f->file);
  g_free(f);
}

SxsThreadRecord *sxs__thread_record_copy(const SxsThreadRecord *t) {
  SxsThreadRecord *c = g_new0(SxsThreadRecord, 1);
  *c = *t;
  c->name = g_strdup(t->name);
  return c;
}

void sxs__thread_record_free(gpointer p) {
  SxsThreadRecord *t = p;
  if (!t)
    return;
  g_free(t->name);
  g_free(t);
}

static void stack_frame_clear(gpointer p) {
  SxsStackFrameModel *f = p;
  g_free(f->name);
  g_free(f->module);
  g_free(f->file);
}

static void lines_module_free(gpointer p) {
  SxsLinesModuleModel *m = p;
  g_free(m->module);
  g_free(m->status);
  g_free(m->where);
  g_free(m);
}

static void lines_method_free(gpointer p) {
  SxsLinesMethodModel *m = p;
  g_free(m->name);
  g_free(m);
}

SxsStackModel *sxs__stack_model_new(const char *event, uint32_t thread) {
  SxsStackModel *s = g_new0(SxsStackModel, 1);
  s->event = g_strdup(event);
  s->thread = thread;
  s->frames = g_array_new(FALSE, TRUE, sizeof(SxsStackFrameModel));
  g_array_set_clear_func(s->frames, stack_frame_clear);
  return s;
}

void sxs__stack_model_free(gpointer p) {
  SxsStackModel *s = p;
  if (!s)
    return;
  g_free(s->event);
  g_free(s->thread_name);
  g_free(s->type);
  g_array_unref(s->frames);
  g_free(s);
}

int sxs__stack_model_compare(gconstpointer a, gconstpointer b) {
  const SxsStackModel *x = *(SxsStackModel *const *)a, *y = *(SxsStackModel *const *)b;
  int c = strcmp(x->event, y->event);
  if (c)
    return c;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->runtime_id != y->runtime_id)
    return x->runtime_id < y->runtime_id ? -1 : 1;
  return g_strcmp0(x->type, y->type);
}

void sxs__thread_rate_model_free(gpointer p) {
  SxsThreadRateModel *r = p;
  if (!r)
    return;
  g_free(r->name);
  g_free(r);
}

SxsThreadRateModel *sxs__thread_rate_model_copy(const SxsThreadRateModel *r) {
  SxsThreadRateModel *c = g_memdup2(r, sizeof *r);
  c->name = g_strdup(r->name);
  return c;
}

int sxs__thread_rate_model_compare(gconstpointer a, gconstpointer b) {
  const SxsThreadRateModel *x = *(SxsThreadRateModel *const *)a, *y = *(SxsThreadRateModel *const *)b;
  guint64 vx = x->cpu_ns + x->events, vy = y->cpu_ns + y->events;
  if (vx != vy)
    return vx > vy ? -1 : 1;
  return x->os_tid < y->os_tid ? -1 : x->os_tid > y->os_tid;
}

SxsStackModel *sxs__stack_model_copy(const SxsStackModel *s) {
  SxsStackModel *c = sxs__stack_model_new(s->event, s->thread);
  c->count = s->count;
  c->thread_name = g_strdup(s->thread_name);
  c->runtime_id = s->runtime_id;
  c->type = g_strdup(s->type);
  c->value = s->value;
  g_array_set_size(c->frames, s->frames->len);
  for (guint i = 0; i < s->frames->len; i++) {
    SxsStackFrameModel *f = &g_array_index(c->frames, SxsStackFrameModel, i);
    *f = g_array_index(s->frames, SxsStackFrameModel, i);
    f->name = g_strdup(f->name);
    f->module = g_strdup(f->module);
    f->file = g_strdup(f->file);
  }
  return c;
}

SxsStackModel *sxs__stack_model_copy_borrowed(const SxsStackModel *s) {
  SxsStackModel *c = sxs__stack_model_new(s->event, s->thread);
  g_array_set_clear_func(c->frames, NULL);
  c->count = s->count;
  c->thread_name = g_strdup(s->thread_name);
  c->runtime_id = s->runtime_id;
  c->type = g_strdup(s->type);
  c->value = s->value;
  g_array_append_vals(c->frames, s->frames->data, s->frames->len);
  return c;
}

void sxs__timeline_event_clear(gpointer p) {
  g_free(((SxsTimelineEvent *)p)->name);
}

static const char *const timeline_event_names[SXS_TIMELINE_N_EVENTS] = {
    "gc",          "pause",         "exception",    "lock-wait", "allocation", "thread-start", "thread-end",
    "module-load", "runtime-start", "runtime-stop", "jit",       "heap",       "request"};

const char *sxs__timeline_event_name(SxsTimelineEventKind k) {
  return k < SXS_TIMELINE_N_EVENTS ? timeline_event_names[k] : "unknown";
}

gboolean sxs__timeline_event_parse(const char *name, SxsTimelineEventKind *ret_kind) {
  for (int k = 0; k < SXS_TIMELINE_N_EVENTS; k++)
    if (g_strcmp0(name, timeline_event_names[k]) == 0) {
      *ret_kind = (SxsTimelineEventKind)k;
      return TRUE;
    }
  return FALSE;
}

int sxs__timeline_sample_compare(gconstpointer a, gconstpointer b) {
  const SxsTimelineSample *x = a, *y = b;
  if (x->t_us != y->t_us)
    return x->t_us < y->t_us ? -1 : 1;
  return x->stack->thread < y->stack->thread ? -1 : x->stack->thread > y->stack->thread;
}

int sxs__timeline_event_compare(gconstpointer a, gconstpointer b) {
  const SxsTimelineEvent *x = a, *y = b;
  return x->start_us < y->start_us ? -1 : x->start_us > y->start_us;
}

void sxs__timeline_model_check_labels(SxsTimelineModel *t) {
  /* to[label]: what it becomes (0: none), each name kept once in its first place. */
  guint n = t->labels->len;
  g_autofree guint *to = g_new0(guint, n + 1);
  g_autoptr(GHashTable) first = g_hash_table_new(g_str_hash, g_str_equal);
  GPtrArray *kept = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < n; i++) {
    char *name = t->labels->pdata[i] ? t->labels->pdata[i] : "?";
    gpointer at = g_hash_table_lookup(first, name);
    if (!at) {
      g_ptr_array_add(kept, g_strdup(name));
      at = GUINT_TO_POINTER(kept->len);
      g_hash_table_insert(first, kept->pdata[kept->len - 1], at);
    }
    to[i + 1] = GPOINTER_TO_UINT(at);
  }
  for (guint i = 0; i < t->samples->len; i++) {
    SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    s->label = s->label <= n ? to[s->label] : 0;
  }
  for (guint i = 0; i < t->events->len; i++) {
    SxsTimelineEvent *e = &sxs__vec_index(t->events, SxsTimelineEvent, i);
    e->label = e->label <= n ? to[e->label] : 0;
  }
  g_ptr_array_unref(t->labels);
  t->labels = kept;
}

void sxs__timeline_model_clear(SxsTimelineModel *t) {
  SxsVec *samples = t->samples, *events = t->events, *seconds = t->seconds;
  GPtrArray *labels = t->labels;
  sxs__vec_truncate(samples, 0);
  sxs__vec_truncate(events, 0);
  sxs__vec_truncate(seconds, 0);
  g_ptr_array_set_size(labels, 0);
  *t = (SxsTimelineModel){.samples = samples, .events = events, .seconds = seconds, .labels = labels};
}

SxsProfileModel *sxs__profile_model_new(void) {
  SxsProfileModel *m = g_new0(SxsProfileModel, 1);
  m->runtimes = g_ptr_array_new_with_free_func(sxs__runtime_model_free);
  m->stacks = g_ptr_array_new_with_free_func(sxs__stack_model_free);
  m->walks.failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  m->walks.skipped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  m->samples.dropped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  m->samples.stacks = g_ptr_array_new_with_free_func(sxs__stack_model_free);
  m->samples.thread_rates = g_ptr_array_new_with_free_func(sxs__thread_rate_model_free);
  m->samples.profiler_threads = g_ptr_array_new_with_free_func(sxs__thread_rate_model_free);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    m->profiles[k].stacks = g_ptr_array_new_with_free_func(sxs__stack_model_free);
  m->lines.modules = g_ptr_array_new_with_free_func(lines_module_free);
  m->lines.retiered = g_ptr_array_new_with_free_func(lines_method_free);
  m->timeline.samples = sxs__vec_new(sizeof(SxsTimelineSample));
  m->timeline.events = sxs__vec_new(sizeof(SxsTimelineEvent));
  sxs__vec_set_clear_func(m->timeline.events, sxs__timeline_event_clear);
  m->timeline.seconds = sxs__vec_new(sizeof(SxsTimelineSecond));
  m->timeline.labels = g_ptr_array_new_with_free_func(g_free);
  return m;
}

static void call_node_free(gpointer p) {
  SxsCallNode *n = p;
  g_free(n->name);
  g_free(n);
}

SxsRuntimeModel *sxs__runtime_model_new(void) {
  SxsRuntimeModel *r = g_new0(SxsRuntimeModel, 1);
  r->functions = g_ptr_array_new_with_free_func(sxs__function_record_free);
  r->threads = g_ptr_array_new_with_free_func(sxs__thread_record_free);
  r->features_off = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  r->call_tree = g_ptr_array_new_with_free_func(call_node_free);
  return r;
}

void sxs__runtime_model_free(gpointer p) {
  SxsRuntimeModel *r = p;
  if (!r)
    return;
  g_free(r->reason);
  g_free(r->version);
  g_free(r->clr_version);
  g_free(r->version_source);
  g_free(r->path);
  g_free(r->allocation_sampling);
  g_ptr_array_unref(r->functions);
  g_ptr_array_unref(r->threads);
  g_hash_table_unref(r->features_off);
  g_ptr_array_unref(r->call_tree);
  g_free(r->tracing.path);
  g_free(r->tracing.routing);
  g_free(r->tracing.hooks);
  g_free(r->tracing.reason);
  g_free(r);
}

void sxs__profile_model_free(SxsProfileModel *m) {
  if (!m)
    return;
  sxs__process_info_free(m->process);
  g_free(m->mode);
  g_free(m->config);
  g_free(m->log);
  g_ptr_array_unref(m->runtimes);
  g_ptr_array_unref(m->stacks);
  g_hash_table_unref(m->walks.failures);
  g_hash_table_unref(m->walks.skipped);
  g_hash_table_unref(m->samples.dropped);
  g_ptr_array_unref(m->samples.stacks);
  g_free(m->samples.mode);
  g_free(m->samples.walker);
  g_free(m->samples.off_reason);
  g_free(m->samples.engine);
  g_free(m->samples.engine_reason);
  g_free(m->samples.event);
  g_free(m->samples.event_unit);
  g_ptr_array_unref(m->samples.thread_rates);
  g_ptr_array_unref(m->samples.profiler_threads);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    g_free(m->profiles[k].sampling);
    g_ptr_array_unref(m->profiles[k].stacks);
  }
  g_ptr_array_unref(m->lines.modules);
  g_ptr_array_unref(m->lines.retiered);
  sxs__vec_free(m->timeline.samples);
  sxs__vec_free(m->timeline.events);
  sxs__vec_free(m->timeline.seconds);
  g_ptr_array_unref(m->timeline.labels);
  g_free(m);
}

const char *sxs__profile_kind_name(SxsProfileKind k) {
  static const char *const names[SXS_PROFILE_N_KINDS] = {"exceptions", "contention", "allocations"};
  return k < SXS_PROFILE_N_KINDS ? names[k] : "none";
}

const char *sxs__runtime_status_name(SxsRuntimeStatus s) {
  switch (s) {
  case SXS_RUNTIME_PROFILING: return "profiling";
  case SXS_RUNTIME_DECLINED: return "declined";
  case SXS_RUNTIME_PENDING: break;
  }
  return "pending";
}

static int compare_functions(gconstpointer a, gconstpointer b) {
  const SxsFunctionRecord *x = *(SxsFunctionRecord *const *)a, *y = *(SxsFunctionRecord *const *)b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->module, y->module);
}

static int compare_threads(gconstpointer a, gconstpointer b) {
  const SxsThreadRecord *x = *(SxsThreadRecord *const *)a, *y = *(SxsThreadRecord *const *)b;
  if (x->os_tid != y->os_tid)
    return (x->os_tid > y->os_tid) - (x->os_tid < y->os_tid);
  return (x->thread_id > y->thread_id) - (x->thread_id < y->thread_id);
}

void sxs__runtime_model_sort(SxsRuntimeModel *r) {
  g_ptr_array_sort(r->functions, compare_functions);
  g_ptr_array_sort(r->threads, compare_threads);
}

/* A time in ms since the epoch as "2026-11-22T21:55:48.123Z", or null for 0. */
static void render_time(SxsJsonWriter *w, const char *key, gint64 unix_ms) {
  if (unix_ms <= 0) {
    sxs__json_member_string(w, key, NULL);
    return;
  }
  g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(unix_ms / 1000);
  g_autofree char *iso = t ? g_date_time_format(t, "%Y-%m-%dT%H:%M:%S") : NULL;
  g_autofree char *stamp = iso ? g_strdup_printf("%s.%03dZ", iso, (int)(unix_ms % 1000)) : NULL;
  sxs__json_member_string(w, key, stamp);
}

static void render_process(SxsJsonWriter *w, const SxsProcessInfo *p) {
  sxs__json_key(w, "process");
  if (!p) {
    sxs__json_null(w);
    return;
  }
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "pid", p->pid);
  sxs__json_member_int(w, "ppid", p->ppid);
  sxs__json_member_string(w, "executable", p->executable);
  sxs__json_key(w, "command_line");
  sxs__json_begin_array(w);
  for (char **a = p->argv; a && *a; a++)
    sxs__json_string(w, *a);
  sxs__json_end_array(w);
  render_time(w, "start_time", p->start_unix_ms);
  sxs__json_member_int(w, "start_unix_ms", p->start_unix_ms);
  sxs__json_member_string(w, "run_id", p->run_id);
  sxs__json_end_object(w);
}

static int compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "features_off", "tracing" and "call_tree" of a runtime. */
static void render_tracing(SxsJsonWriter *w, const SxsRuntimeModel *r) {
  sxs__json_key(w, "features_off");
  sxs__json_begin_object(w);
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, r->features_off);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_ptr_array_add(names, key);
  g_ptr_array_sort(names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    sxs__json_member_string(w, names->pdata[i], g_hash_table_lookup(r->features_off, names->pdata[i]));
  sxs__json_end_object(w);

  const SxsTracingModel *t = &r->tracing;
  sxs__json_key(w, "tracing");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "enabled", t->enabled);
  sxs__json_member_string(w, "path", t->path);
  sxs__json_member_string(w, "routing", t->routing);
  sxs__json_member_string(w, "hooks", t->hooks);
  sxs__json_member_bool(w, "timing", t->timing);
  sxs__json_member_string(w, "reason", t->reason);
  sxs__json_member_uint(w, "functions_mapped", t->functions_mapped);
  sxs__json_member_uint(w, "functions_hooked", t->functions_hooked);
  sxs__json_member_uint(w, "tailcalls", t->tailcalls);
  sxs__json_member_uint(w, "unwound", t->unwound);
  sxs__json_member_uint(w, "open_frames", t->open_frames);
  sxs__json_member_uint(w, "depth_overflows", t->depth_overflows);
  sxs__json_member_uint(w, "tree_overflows", t->tree_overflows);
  sxs__json_end_object(w);

  sxs__json_key(w, "call_tree");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_uint(w, "id", n->id);
    sxs__json_member_uint(w, "parent", n->parent);
    sxs__json_member_string(w, "name", n->name);
    sxs__json_member_uint(w, "calls", n->calls);
    if (t->timing) {
      sxs__json_member_uint(w, "inclusive_ns", n->inclusive_ns);
      sxs__json_member_uint(w, "exclusive_ns", n->exclusive_ns);
    }
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
}

static void render_runtime(SxsJsonWriter *w, const SxsRuntimeModel *r) {
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "id", r->id);
  sxs__json_member_string(w, "version", r->version);
  sxs__json_member_string(w, "clr_version", r->clr_version);
  sxs__json_member_string(w, "version_source", r->version_source);
  sxs__json_member_string(w, "path", r->path);
  sxs__json_member_string(w, "status", sxs__runtime_status_name(r->status));
  sxs__json_member_string(w, "reason", r->reason);
  sxs__json_member_int(w, "info_version", r->caps.info_version);
  sxs__json_key(w, "capabilities");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "event_mask2", r->caps.event_mask2);
  sxs__json_member_bool(w, "basic_gc", r->caps.basic_gc);
  sxs__json_member_bool(w, "elt3", r->caps.elt3);
  sxs__json_member_bool(w, "suspend", r->caps.suspend);
  sxs__json_end_object(w);
  sxs__json_member_bool(w, "attached", r->caps.attached);
  render_time(w, "attached_at", r->caps.attached ? r->attached_unix_ms : 0);
  sxs__json_member_int(w, "attached_unix_ms", r->caps.attached ? r->attached_unix_ms : 0);
  sxs__json_member_bool(w, "shutdown_seen", r->shut_down);

  sxs__json_key(w, "counters");
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "jit_compiled", r->counters.jit_compiled);
  sxs__json_member_int(w, "modules_loaded", r->counters.modules_loaded);
  sxs__json_member_int(w, "modules_unloaded", r->counters.modules_unloaded);
  sxs__json_member_int(w, "exceptions", r->counters.exceptions);
  sxs__json_member_int(w, "gcs", r->counters.gcs);
  sxs__json_member_int(w, "threads_created", r->counters.threads_created);
  sxs__json_end_object(w);
  if (r->allocation_sampling)
    sxs__json_member_string(w, "allocation_sampling", r->allocation_sampling);
  if (r->heap.gcs > 0) {
    sxs__json_key(w, "heap");
    sxs__json_begin_object(w);
    sxs__json_member_uint(w, "gcs", r->heap.gcs);
    sxs__json_member_uint(w, "after_last_gc", r->heap.after_last_gc);
    sxs__json_member_uint(w, "after_gc_max", r->heap.after_gc_max);
    sxs__json_end_object(w);
  }

  sxs__json_key(w, "inventory");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "enabled", r->inventory.enabled);
  sxs__json_member_uint(w, "events", r->inventory.events);
  sxs__json_member_uint(w, "named", r->inventory.named);
  sxs__json_member_uint(w, "dropped", r->inventory.dropped);
  sxs__json_key(w, "naming_threads");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->inventory.n_naming_threads && i < SXS_INVENTORY_MAX_NAMERS; i++)
    sxs__json_uint(w, r->inventory.naming_threads[i]);
  sxs__json_end_array(w);
  sxs__json_end_object(w);

  sxs__json_key(w, "functions");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->functions->len; i++) {
    const SxsFunctionRecord *f = r->functions->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_string(w, "name", f->name);
    sxs__json_member_string(w, "module", f->module);
    sxs__json_member_int(w, "jit_compiled", f->jit_compiled);
    sxs__json_member_int(w, "inlined", f->inlined);
    sxs__json_member_int(w, "precompiled", f->precompiled);
    if (f->file) {
      sxs__json_member_string(w, "file", f->file);
      sxs__json_member_uint(w, "line", f->line);
    }
    if (f->traced) {
      sxs__json_member_uint(w, "calls", f->calls);
      if (r->tracing.timing) {
        sxs__json_member_uint(w, "inclusive_ns", f->inclusive_ns);
        sxs__json_member_uint(w, "exclusive_ns", f->exclusive_ns);
      }
    }
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);

  render_tracing(w, r);

  sxs__json_key(w, "threads");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->threads->len; i++) {
    const SxsThreadRecord *t = r->threads->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_int(w, "os_tid", t->os_tid);
    sxs__json_member_string(w, "name", t->name);
    sxs__json_member_bool(w, "destroyed", t->destroyed);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

/* A string -> guint64* table as an object, keys sorted. */
static void render_count_table(SxsJsonWriter *w, const char *key, GHashTable *table) {
  sxs__json_key(w, key);
  sxs__json_begin_object(w);
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array(table, NULL);
  guint n = g_hash_table_size(table);
  qsort(keys, n, sizeof *keys, compare_strings);
  for (guint i = 0; i < n; i++)
    sxs__json_member_uint(w, keys[i], *(const guint64 *)g_hash_table_lookup(table, keys[i]));
  sxs__json_end_object(w);
}

typedef struct FrameTable FrameTable;
static void render_frames(SxsJsonWriter *w, const FrameTable *t, const SxsStackModel *s);

/* v rounded to tenths (v >= 0). */
static double tenths(double v) {
  return (double)(guint64)(v * 10 + 0.5) / 10;
}

/* "thread_rates" (with rates: each thread's captures, periods and rate per second of its CPU) or
 * "profiler_threads" (the CPU time of each). */
static void render_thread_rates(SxsJsonWriter *w, const char *key, const GPtrArray *rates, gboolean with_rates) {
  sxs__json_key(w, key);
  sxs__json_begin_array(w);
  for (guint i = 0; i < rates->len; i++) {
    const SxsThreadRateModel *r = rates->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_uint(w, "os_tid", r->os_tid);
    sxs__json_member_string(w, "thread", r->name);
    if (with_rates) {
      sxs__json_member_uint(w, "captures", r->captures);
      sxs__json_member_uint(w, "expiries", r->expiries);
      sxs__json_member_uint(w, "events", r->events);
    }
    sxs__json_member_uint(w, "cpu_ns", r->cpu_ns);
    if (with_rates && r->timer_ns > 0)
      sxs__json_member_uint(w, "timer_ns", r->timer_ns);
    if (with_rates)
      sxs__json_member_double(w, "achieved_hz",
                              r->cpu_ns > 0 ? tenths((double)r->captures * 1e9 / (double)r->cpu_ns) : 0);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
}

/* "samples". */
void sxs__samples_quality(const SxsSamplesModel *sm, SxsSamplesQuality *ret) {
  *ret = (SxsSamplesQuality){0};
  for (guint i = 0; sm->stacks && i < sm->stacks->len; i++) {
    const SxsStackModel *st = sm->stacks->pdata[i];
    ret->samples = sxs__saturating_add(ret->samples, st->count, SXS_PROFILE_MAX_COUNT);
    for (guint f = 0; st->frames && f < st->frames->len; f++) {
      const SxsStackFrameModel *fr = &g_array_index(st->frames, SxsStackFrameModel, f);
      if (!fr->managed && fr->name && g_str_has_prefix(fr->name, "0x")) {
        ret->unnamed = sxs__saturating_add(ret->unnamed, st->count, SXS_PROFILE_MAX_COUNT);
        break;
      }
    }
  }
  ret->other_walker = g_strcmp0(sm->walker, "suspend") == 0 ? sm->ticks_signal : sm->ticks_suspend;
}

static void render_samples(SxsJsonWriter *w, const FrameTable *t, const SxsSamplesModel *sm) {
  sxs__json_key(w, "samples");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "enabled", sm->enabled);
  sxs__json_member_int(w, "frequency", sm->frequency);
  sxs__json_member_string(w, "mode", sm->mode);
  sxs__json_member_string(w, "walker", sm->walker);
  sxs__json_member_string(w, "off_reason", sm->off_reason);
  sxs__json_member_string(w, "engine", sm->engine);
  sxs__json_member_string(w, "engine_reason", sm->engine_reason);
  sxs__json_member_string(w, "event", sm->event);
  sxs__json_member_string(w, "event_unit", sm->event_unit);
  sxs__json_member_uint(w, "event_period", sm->event_period);
  sxs__json_member_uint(w, "ticks", sm->ticks);
  sxs__json_member_uint(w, "ticks_missed", sm->ticks_missed);
  sxs__json_member_uint(w, "duration_ns", sm->duration_ns);
  sxs__json_member_uint(w, "wall_ns", sm->wall_ns);
  /* Derived, for readers: ticks a second over the time they cover, samples a tick. */
  sxs__json_member_double(w, "achieved_hz", tenths(sxs__samples_achieved_hz(sm)));
  sxs__json_member_uint(w, "threads", sm->threads);
  sxs__json_member_uint(w, "threads_per_tick", sm->threads_per_tick);
  sxs__json_member_double(w, "sampled_per_tick", sm->ticks > 0 ? tenths((double)sm->taken / (double)sm->ticks) : 0);
  sxs__json_member_uint(w, "blocked_walks", sm->blocked_walks);
  sxs__json_member_uint(w, "blocked_walk_ns", sm->blocked_walk_ns);
  sxs__json_key(w, "ticks_by_walker");
  sxs__json_begin_object(w);
  sxs__json_member_uint(w, "signal", sm->ticks_signal);
  sxs__json_member_uint(w, "suspend", sm->ticks_suspend);
  sxs__json_end_object(w);
  sxs__json_member_uint(w, "taken", sm->taken);
  sxs__json_member_uint(w, "weight", sm->weight);
  sxs__json_member_uint(w, "frames", sm->frames);
  sxs__json_member_uint(w, "capture_ns", sm->capture_ns);
  sxs__json_member_uint(w, "capture_ns_max", sm->capture_ns_max);
  sxs__json_member_uint(w, "capture_ns_p50", sm->capture_ns_p50);
  sxs__json_member_uint(w, "capture_ns_p90", sm->capture_ns_p90);
  sxs__json_member_uint(w, "capture_ns_p99", sm->capture_ns_p99);
  sxs__json_member_uint(w, "resolve_ns", sm->resolve_ns);
  sxs__json_member_uint(w, "suspensions", sm->suspensions);
  sxs__json_member_uint(w, "walks_reused", sm->walks_reused);
  if (sm->walks_redone > 0) /* written only when some were, so that a profile saved before it reads back the same */
    sxs__json_member_uint(w, "walks_redone", sm->walks_redone);
  render_count_table(w, "dropped", sm->dropped);
  SxsSamplesQuality q;
  sxs__samples_quality(sm, &q);
  sxs__json_key(w, "quality");
  sxs__json_begin_object(w);
  sxs__json_member_uint(w, "samples", q.samples);
  sxs__json_member_uint(w, "unnamed", q.unnamed);
  sxs__json_member_uint(w, "other_walker", q.other_walker);
  sxs__json_end_object(w);
  render_thread_rates(w, "thread_rates", sm->thread_rates, TRUE);
  render_thread_rates(w, "profiler_threads", sm->profiler_threads, FALSE);
  sxs__json_key(w, "stacks");
  sxs__json_begin_array(w);
  for (guint i = 0; i < sm->stacks->len; i++) {
    const SxsStackModel *s = sm->stacks->pdata[i];
    sxs__json_begin_object_inline(w);
    if (s->thread_name && *s->thread_name)
      sxs__json_member_string(w, "thread", s->thread_name);
    else {
      char tid[16];
      g_snprintf(tid, sizeof tid, "%u", s->thread);
      sxs__json_member_string(w, "thread", tid);
    }
    sxs__json_member_uint(w, "os_tid", s->thread);
    sxs__json_member_uint(w, "count", s->count);
    render_frames(w, t, s);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

/* "stacks" and "stack_walks". */
static void render_stacks(SxsJsonWriter *w, const FrameTable *t, const SxsProfileModel *m) {
  sxs__json_key(w, "stacks");
  sxs__json_begin_array(w);
  for (guint i = 0; i < m->stacks->len; i++) {
    const SxsStackModel *s = m->stacks->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_string(w, "event", s->event);
    sxs__json_member_uint(w, "thread", s->thread);
    sxs__json_member_uint(w, "count", s->count);
    render_frames(w, t, s);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);

  sxs__json_key(w, "stack_walks");
  sxs__json_begin_object(w);
  sxs__json_key(w, "events");
  sxs__json_begin_object(w);
  sxs__json_member_uint(w, "exception", m->walks.events[0]);
  sxs__json_member_uint(w, "jit", m->walks.events[1]);
  sxs__json_member_uint(w, "gc", m->walks.events[2]);
  sxs__json_end_object(w);
  sxs__json_member_uint(w, "made", m->walks.made);
  sxs__json_member_uint(w, "failed", m->walks.failed);
  sxs__json_member_uint(w, "empty", m->walks.empty);
  sxs__json_member_uint(w, "truncated", m->walks.truncated);
  sxs__json_member_uint(w, "runtime_walks", m->walks.runtime_walks);
  sxs__json_member_uint(w, "unknown_frames", m->walks.unknown_frames);
  sxs__json_member_uint(w, "stacks_dropped", m->walks.stacks_dropped);
  sxs__json_member_uint(w, "stacks_merged", m->walks.stacks_merged);
  sxs__json_member_uint(w, "frames", m->walks.frames);
  sxs__json_member_uint(w, "native_frames", m->walks.native_frames);
  sxs__json_member_uint(w, "stacks_named", m->walks.stacks_named);
  /* Written where known: a profile of a build before the tree reads back to its own text. */
  if (m->walks.stack_nodes || m->walks.recorder_bytes) {
    sxs__json_member_uint(w, "stack_nodes", m->walks.stack_nodes);
    sxs__json_member_uint(w, "recorder_bytes", m->walks.recorder_bytes);
  }
  sxs__json_key(w, "time_ns");
  sxs__json_begin_object(w);
  sxs__json_member_uint(w, "native_walk", m->walks.ns_native);
  sxs__json_member_uint(w, "classification", m->walks.ns_classify);
  sxs__json_member_uint(w, "runtime_walks", m->walks.ns_runtime_walks);
  sxs__json_member_uint(w, "merge", m->walks.ns_merge);
  sxs__json_member_uint(w, "naming", m->walks.ns_naming);
  sxs__json_member_uint(w, "naming_first_stack", m->walks.ns_naming_first);
  sxs__json_end_object(w);
  render_count_table(w, "failures", m->walks.failures);
  render_count_table(w, "skipped", m->walks.skipped);
  sxs__json_end_object(w);
}

/* "exceptions", "contention", "allocations": one of the event profiles, its stacks typed and tagged
 * with their runtime. */
static void render_event_profile(SxsJsonWriter *w, const FrameTable *t, SxsProfileKind k,
                                 const SxsEventProfileModel *p) {
  sxs__json_key(w, sxs__profile_kind_name(k));
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "enabled", p->enabled);
  sxs__json_member_uint(w, "events", p->events);
  sxs__json_member_uint(w, "unwalked", p->unwalked);
  sxs__json_member_uint(w, "value", p->value);
  if (p->sampling)
    sxs__json_member_string(w, "sampling", p->sampling);
  sxs__json_key(w, "stacks");
  sxs__json_begin_array(w);
  for (guint i = 0; i < p->stacks->len; i++) {
    const SxsStackModel *s = p->stacks->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_int(w, "runtime", s->runtime_id);
    sxs__json_member_string(w, "type", s->type);
    sxs__json_member_uint(w, "thread", s->thread);
    sxs__json_member_uint(w, "count", s->count);
    sxs__json_member_uint(w, "value", s->value);
    render_frames(w, t, s);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

/* "lines": how managed frames were given source lines, and where each assembly's PDB came from. */
static void render_lines(SxsJsonWriter *w, const SxsLinesModel *l) {
  sxs__json_key(w, "lines");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "enabled", l->enabled);
  sxs__json_member_uint(w, "stacks", l->stacks);
  sxs__json_member_uint(w, "frames_resolved", l->frames_resolved);
  sxs__json_member_uint(w, "frames_unresolved", l->frames_unresolved);
  sxs__json_member_uint(w, "methods", l->methods);
  sxs__json_member_uint(w, "code_versions", l->code_versions);
  sxs__json_member_uint(w, "ns_resolving", l->ns_resolving);
  sxs__json_member_uint(w, "ns_first", l->ns_first);
  sxs__json_key(w, "modules");
  sxs__json_begin_array(w);
  for (guint i = 0; i < l->modules->len; i++) {
    const SxsLinesModuleModel *m = l->modules->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_int(w, "runtime", m->runtime_id);
    sxs__json_member_string(w, "module", m->module);
    sxs__json_member_string(w, "pdb", m->status);
    sxs__json_member_string(w, "where", m->where);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_key(w, "retiered");
  sxs__json_begin_array(w);
  for (guint i = 0; i < l->retiered->len; i++) {
    const SxsLinesMethodModel *m = l->retiered->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_int(w, "runtime", m->runtime_id);
    sxs__json_member_string(w, "name", m->name);
    sxs__json_member_uint(w, "code_versions", m->versions);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

/* The frame table: each distinct frame (kind, runtime, name, module, file, line) once, in the order
 * the stacks first name it; a stack's "frames" are indices into it. */
struct FrameTable {
  GHashTable *index; /* const SxsStackFrameModel* (in the model) -> index + 1 */
  GPtrArray *frames; /* const SxsStackFrameModel*, by index; not owned */
};

static guint frame_hash(gconstpointer p) {
  const SxsStackFrameModel *f = p;
  guint h = g_str_hash(f->name ? f->name : "") * 31 + g_str_hash(f->module ? f->module : "");
  h = h * 31 + (f->file ? g_str_hash(f->file) : 0);
  return h * 31 + f->line * 7 + (guint)f->runtime_id * 3 + (f->managed ? 1 : 0);
}

static gboolean frame_equal(gconstpointer a, gconstpointer b) {
  const SxsStackFrameModel *x = a, *y = b;
  return x->managed == y->managed && x->runtime_id == y->runtime_id && x->line == y->line &&
         g_strcmp0(x->name, y->name) == 0 && g_strcmp0(x->module, y->module) == 0 && g_strcmp0(x->file, y->file) == 0;
}

static void frame_table_add_stacks(FrameTable *t, const GPtrArray *stacks) {
  for (guint i = 0; i < stacks->len; i++) {
    const SxsStackModel *s = stacks->pdata[i];
    for (guint j = 0; j < s->frames->len; j++) {
      const SxsStackFrameModel *f = &g_array_index(s->frames, SxsStackFrameModel, j);
      if (g_hash_table_lookup(t->index, f))
        continue;
      g_ptr_array_add(t->frames, (gpointer)f);
      g_hash_table_insert(t->index, (gpointer)f, GUINT_TO_POINTER(t->frames->len));
    }
  }
}

static void frame_table_init(FrameTable *t, const SxsProfileModel *m) {
  t->index = g_hash_table_new(frame_hash, frame_equal);
  t->frames = g_ptr_array_new();
  frame_table_add_stacks(t, m->stacks);
  frame_table_add_stacks(t, m->samples.stacks);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    frame_table_add_stacks(t, m->profiles[k].stacks);
}

static void frame_table_clear(FrameTable *t) {
  g_hash_table_unref(t->index);
  g_ptr_array_unref(t->frames);
}

/* "frame_table": one line per frame. */
static void render_frame_table(SxsJsonWriter *w, const FrameTable *t) {
  sxs__json_key(w, "frame_table");
  sxs__json_begin_array(w);
  for (guint i = 0; i < t->frames->len; i++) {
    const SxsStackFrameModel *f = t->frames->pdata[i];
    sxs__json_begin_object_inline(w);
    sxs__json_member_string(w, "kind", f->managed ? "managed" : "native");
    if (f->managed)
      sxs__json_member_int(w, "runtime", f->runtime_id);
    sxs__json_member_string(w, "name", f->name);
    sxs__json_member_string(w, "module", f->module);
    if (f->file) {
      sxs__json_member_string(w, "file", f->file);
      sxs__json_member_uint(w, "line", f->line);
    }
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
}

/* A stack's "frames" (frame table indices, leaf first) and "sp" (its frames' stack pointers, each
 * after the first as its difference from the one before: the merged walks are sorted by them). */
static void render_frames(SxsJsonWriter *w, const FrameTable *t, const SxsStackModel *s) {
  sxs__json_key(w, "frames");
  sxs__json_begin_array_inline(w);
  for (guint j = 0; j < s->frames->len; j++)
    sxs__json_uint(
        w, GPOINTER_TO_UINT(g_hash_table_lookup(t->index, &g_array_index(s->frames, SxsStackFrameModel, j))) - 1);
  sxs__json_end_array(w);
  sxs__json_key(w, "sp");
  sxs__json_begin_array_inline(w);
  uintptr_t before = 0;
  for (guint j = 0; j < s->frames->len; j++) {
    uintptr_t sp = g_array_index(s->frames, SxsStackFrameModel, j).sp;
    sxs__json_int(w, (gint64)(sp - before));
    before = sp;
  }
  sxs__json_end_array(w);
}

/* Stack -> its index in stacks (as written). */
static GHashTable *stack_index_new(const GPtrArray *stacks) {
  GHashTable *index = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < stacks->len; i++)
    g_hash_table_insert(index, stacks->pdata[i], GUINT_TO_POINTER(i + 1));
  return index;
}

static int compare_samples_by_thread(gconstpointer a, gconstpointer b) {
  const SxsTimelineSample *x = *(const SxsTimelineSample *const *)a, *y = *(const SxsTimelineSample *const *)b;
  if (x->stack->thread != y->stack->thread)
    return x->stack->thread < y->stack->thread ? -1 : 1;
  if (x->t_us != y->t_us)
    return x->t_us < y->t_us ? -1 : 1;
  return x < y ? -1 : x > y;
}

SxsProfileKind sxs__timeline_event_profile(SxsTimelineEventKind k) {
  return k == SXS_TIMELINE_EXCEPTION    ? SXS_PROFILE_EXCEPTIONS
         : k == SXS_TIMELINE_LOCK_WAIT  ? SXS_PROFILE_CONTENTION
         : k == SXS_TIMELINE_ALLOCATION ? SXS_PROFILE_ALLOCATIONS
                                        : SXS_PROFILE_N_KINDS;
}

/* "timeline": per thread, its samples' times (microseconds after the thread's previous sample, the
 * first after the start) and stacks (indices into samples.stacks); the events; the folded seconds. */
static void render_timeline(SxsJsonWriter *w, const SxsProfileModel *m) {
  const SxsTimelineModel *t = &m->timeline;
  if (!t->present)
    return;
  sxs__json_key(w, "timeline");
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "clock", "microseconds since the process started (monotonic)");
  sxs__json_member_uint(w, "window_us", t->window_us);
  sxs__json_member_uint(w, "cap_bytes", t->cap_bytes);
  sxs__json_member_uint(w, "detail_bytes", t->detail_bytes);
  sxs__json_member_uint(w, "detail_from_us", t->detail_from_us);
  sxs__json_member_uint(w, "end_us", t->end_us);
  sxs__json_member_uint(w, "start_unix_us", t->start_unix_us);
  sxs__json_member_uint(w, "monotonic_start_us", t->monotonic_start_us);
  sxs__json_member_uint(w, "folded_samples", t->folded_samples);
  sxs__json_member_uint(w, "dropped_events", t->dropped_events);
  if (t->labels->len) {
    sxs__json_key(w, "labels");
    sxs__json_begin_array_inline(w);
    for (guint i = 0; i < t->labels->len; i++)
      sxs__json_string(w, t->labels->pdata[i]);
    sxs__json_end_array(w);
  }
  g_autoptr(GHashTable) samples_index = stack_index_new(m->samples.stacks);
  g_autoptr(SxsVec) by_thread = sxs__vec_new(sizeof(SxsTimelineSample *));
  sxs__vec_reserve(by_thread, t->samples->len);
  for (guint i = 0; i < t->samples->len; i++) {
    SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    if (g_hash_table_contains(samples_index, s->stack))
      sxs__vec_append_val(by_thread, s);
  }
  sxs__vec_sort(by_thread, compare_samples_by_thread);
  sxs__json_key(w, "threads");
  sxs__json_begin_array(w);
  for (guint i = 0; i < by_thread->len;) {
    uint32_t tid = sxs__vec_index(by_thread, SxsTimelineSample *, i)->stack->thread;
    guint end = i;
    gboolean weighted = FALSE, labelled = FALSE;
    while (end < by_thread->len && sxs__vec_index(by_thread, SxsTimelineSample *, end)->stack->thread == tid) {
      weighted |= sxs__vec_index(by_thread, SxsTimelineSample *, end)->weight != 1;
      labelled |= sxs__vec_index(by_thread, SxsTimelineSample *, end)->label != 0;
      end++;
    }
    sxs__json_begin_object_inline(w);
    sxs__json_member_uint(w, "os_tid", tid);
    sxs__json_key(w, "t");
    sxs__json_begin_array_inline(w);
    guint64 prev = 0;
    for (guint j = i; j < end; j++) {
      const SxsTimelineSample *s = sxs__vec_index(by_thread, SxsTimelineSample *, j);
      sxs__json_uint(w, s->t_us - prev);
      prev = s->t_us;
    }
    sxs__json_end_array(w);
    sxs__json_key(w, "s");
    sxs__json_begin_array_inline(w);
    for (guint j = i; j < end; j++)
      sxs__json_uint(w, GPOINTER_TO_UINT(g_hash_table_lookup(
                            samples_index, sxs__vec_index(by_thread, SxsTimelineSample *, j)->stack)) -
                            1);
    sxs__json_end_array(w);
    if (weighted) {
      sxs__json_key(w, "w");
      sxs__json_begin_array_inline(w);
      for (guint j = i; j < end; j++)
        sxs__json_uint(w, sxs__vec_index(by_thread, SxsTimelineSample *, j)->weight);
      sxs__json_end_array(w);
    }
    if (labelled) {
      sxs__json_key(w, "l");
      sxs__json_begin_array_inline(w);
      for (guint j = i; j < end; j++)
        sxs__json_uint(w, sxs__vec_index(by_thread, SxsTimelineSample *, j)->label);
      sxs__json_end_array(w);
    }
    sxs__json_end_object(w);
    i = end;
  }
  sxs__json_end_array(w);
  GHashTable *profile_index[SXS_PROFILE_N_KINDS];
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    profile_index[k] = stack_index_new(m->profiles[k].stacks);
  sxs__json_key(w, "events");
  sxs__json_begin_array(w);
  for (guint i = 0; i < t->events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(t->events, SxsTimelineEvent, i);
    sxs__json_begin_object_inline(w);
    sxs__json_member_string(w, "kind", sxs__timeline_event_name(e->kind));
    sxs__json_member_int(w, "runtime", e->runtime_id);
    sxs__json_member_uint(w, "thread", e->thread);
    sxs__json_member_uint(w, "start_us", e->start_us);
    if (e->dur_us)
      sxs__json_member_uint(w, "dur_us", e->dur_us);
    /* A compilation's FunctionID means nothing once its process is gone: only when it has no name. */
    if (e->value && (e->kind != SXS_TIMELINE_JIT || !e->name))
      sxs__json_member_uint(w, "value", e->value);
    if (e->reason)
      sxs__json_member_int(w, "reason", e->reason);
    if (e->name)
      sxs__json_member_string(w, "name", e->name);
    SxsProfileKind pk = sxs__timeline_event_profile(e->kind);
    guint at =
        e->stack && pk < SXS_PROFILE_N_KINDS ? GPOINTER_TO_UINT(g_hash_table_lookup(profile_index[pk], e->stack)) : 0;
    if (at)
      sxs__json_member_uint(w, "stack", at - 1);
    if (e->label)
      sxs__json_member_uint(w, "label", e->label);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    g_hash_table_unref(profile_index[k]);
  sxs__json_key(w, "seconds");
  sxs__json_begin_array(w);
  for (guint i = 0; i < t->seconds->len; i++) {
    const SxsTimelineSecond *sec = &sxs__vec_index(t->seconds, SxsTimelineSecond, i);
    sxs__json_begin_array_inline(w);
    sxs__json_uint(w, sec->second);
    sxs__json_uint(w, sec->thread);
    sxs__json_uint(w, sec->samples);
    sxs__json_end_array(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

char *sxs__profile_render_json(const SxsProfileModel *m, gsize *ret_len) {
  SxsText t = sxs__profile_render_json_text(m);
  return sxs__text_steal(&t, ret_len);
}

SxsText sxs__profile_render_json_text(const SxsProfileModel *m) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "format", "sxsprof");
  sxs__json_member_int(w, "version", SXS_PROFILE_VERSION);
  sxs__json_member_int(w, "pid", m->process ? m->process->pid : 0);
  render_process(w, m->process);
  sxs__json_member_string(w, "mode", m->mode);
  sxs__json_member_string(w, "config", m->config);
  sxs__json_member_string(w, "log", m->log);
  sxs__json_key(w, "runtimes");
  sxs__json_begin_array(w);
  for (guint i = 0; i < m->runtimes->len; i++)
    render_runtime(w, m->runtimes->pdata[i]);
  sxs__json_end_array(w);
  FrameTable table;
  frame_table_init(&table, m);
  render_frame_table(w, &table);
  render_stacks(w, &table, m);
  render_samples(w, &table, &m->samples);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    render_event_profile(w, &table, (SxsProfileKind)k, &m->profiles[k]);
  frame_table_clear(&table);
  render_lines(w, &m->lines);
  render_timeline(w, m);
  sxs__json_end_object(w);
  return sxs__json_writer_take(w);
}

/* Moves every element of from[] to the end of into[], leaving from empty. */
static void move_all(GPtrArray *into, GPtrArray *from) {
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add(into, from->pdata[i]);
  g_ptr_array_set_free_func(from, NULL);
  g_ptr_array_set_size(from, 0);
  g_ptr_array_set_free_func(from, sxs__stack_model_free);
}

/* Gives from's runtimes ids after into's highest, and their frames with them. */
static void renumber_frames(GPtrArray *stacks, GHashTable *new_ids) {
  for (guint i = 0; i < stacks->len; i++) {
    SxsStackModel *s = stacks->pdata[i];
    for (guint j = 0; j < s->frames->len; j++) {
      SxsStackFrameModel *f = &g_array_index(s->frames, SxsStackFrameModel, j);
      if (f->managed)
        f->runtime_id = GPOINTER_TO_INT(g_hash_table_lookup(new_ids, GINT_TO_POINTER(f->runtime_id)));
    }
  }
}

/* Adds the counts of table from (string -> guint64*) to into, saturating. */
static void add_count_table(GHashTable *into, GHashTable *from) {
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, from);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    guint64 *have = g_hash_table_lookup(into, key);
    if (!have) {
      have = g_new0(guint64, 1);
      g_hash_table_insert(into, g_strdup(key), have);
    }
    *have = sxs__saturating_add(*have, *(const guint64 *)value, SXS_PROFILE_MAX_COUNT);
  }
}

void sxs__profile_model_merge(SxsProfileModel *into, SxsProfileModel *from) {
  /* Each process's timeline runs on its own clock: a merged profile has none. */
  sxs__timeline_model_clear(&into->timeline);
  sxs__timeline_model_clear(&from->timeline);
  int next = 0;
  for (guint i = 0; i < into->runtimes->len; i++)
    next = MAX(next, ((SxsRuntimeModel *)into->runtimes->pdata[i])->id);
  /* Old id -> new id; a frame of an id no runtime has becomes runtime 0's (unknown). */
  g_autoptr(GHashTable) new_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < from->runtimes->len; i++) {
    SxsRuntimeModel *r = from->runtimes->pdata[i];
    int id = ++next;
    g_hash_table_insert(new_ids, GINT_TO_POINTER(r->id), GINT_TO_POINTER(id));
    r->id = id;
    for (guint t = 0; t < r->threads->len; t++)
      ((SxsThreadRecord *)r->threads->pdata[t])->runtime_id = id;
    g_ptr_array_add(into->runtimes, r);
  }
  g_ptr_array_set_free_func(from->runtimes, NULL);
  g_ptr_array_set_size(from->runtimes, 0);
  g_ptr_array_set_free_func(from->runtimes, sxs__runtime_model_free);
  renumber_frames(from->stacks, new_ids);
  renumber_frames(from->samples.stacks, new_ids);
  move_all(into->stacks, from->stacks);
  move_all(into->samples.stacks, from->samples.stacks);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    SxsEventProfileModel *pa = &into->profiles[k], *pb = &from->profiles[k];
    for (guint i = 0; i < pb->stacks->len; i++) {
      SxsStackModel *s = pb->stacks->pdata[i];
      s->runtime_id = GPOINTER_TO_INT(g_hash_table_lookup(new_ids, GINT_TO_POINTER(s->runtime_id)));
    }
    renumber_frames(pb->stacks, new_ids);
    move_all(pa->stacks, pb->stacks);
    pa->enabled |= pb->enabled;
    pa->events += pb->events;
    pa->unwalked += pb->unwalked;
    pa->value += pb->value;
    if (!pa->sampling)
      pa->sampling = g_steal_pointer(&pb->sampling);
  }

  SxsSamplesModel *a = &into->samples;
  const SxsSamplesModel *b = &from->samples;
  if (b->enabled || b->stacks->len) {
    /* Samples of different frequencies or modes add up as counts only: no period then. */
    if (a->frequency && b->frequency && a->frequency != b->frequency)
      a->frequency = -1;
    else if (!a->frequency)
      a->frequency = b->frequency;
    if (a->mode && b->mode && !g_str_equal(a->mode, b->mode)) {
      g_free(a->mode);
      a->mode = g_strdup("mixed");
    } else if (!a->mode && b->mode) {
      a->mode = g_strdup(b->mode);
    }
    if (a->engine && b->engine && !g_str_equal(a->engine, b->engine)) {
      g_free(a->engine);
      a->engine = g_strdup("mixed");
    } else if (!a->engine && b->engine) {
      a->engine = g_strdup(b->engine);
      a->engine_reason = g_strdup(b->engine_reason);
    }
    if (a->event && b->event && !g_str_equal(a->event, b->event)) {
      g_free(a->event);
      a->event = g_strdup("mixed");
      a->event_period = 0;
    } else if (!a->event && b->event) {
      a->event = g_strdup(b->event);
      a->event_unit = g_strdup(b->event_unit);
      a->event_period = b->event_period;
    }
    if (a->walker && b->walker && !g_str_equal(a->walker, b->walker)) {
      g_free(a->walker);
      a->walker = g_strdup("mixed");
    } else if (!a->walker && b->walker) {
      a->walker = g_strdup(b->walker);
    }
    a->enabled |= b->enabled;
  }
  a->ticks = sxs__saturating_add(a->ticks, b->ticks, SXS_PROFILE_MAX_COUNT);
  a->ticks_missed = sxs__saturating_add(a->ticks_missed, b->ticks_missed, SXS_PROFILE_MAX_COUNT);
  a->duration_ns = sxs__saturating_add(a->duration_ns, b->duration_ns, SXS_PROFILE_MAX_NS);
  /* Processes of one run overlap (a starter and its child): the longest stands for the run. */
  a->wall_ns = MAX(a->wall_ns, b->wall_ns);
  a->threads = MAX(a->threads, b->threads);
  a->threads_per_tick = MAX(a->threads_per_tick, b->threads_per_tick);
  a->blocked_walks = sxs__saturating_add(a->blocked_walks, b->blocked_walks, SXS_PROFILE_MAX_COUNT);
  a->blocked_walk_ns = sxs__saturating_add(a->blocked_walk_ns, b->blocked_walk_ns, SXS_PROFILE_MAX_NS);
  a->ticks_signal = sxs__saturating_add(a->ticks_signal, b->ticks_signal, SXS_PROFILE_MAX_COUNT);
  a->ticks_suspend = sxs__saturating_add(a->ticks_suspend, b->ticks_suspend, SXS_PROFILE_MAX_COUNT);
  a->taken = sxs__saturating_add(a->taken, b->taken, SXS_PROFILE_MAX_COUNT);
  a->weight = sxs__saturating_add(a->weight, b->weight, SXS_PROFILE_MAX_COUNT);
  a->frames = sxs__saturating_add(a->frames, b->frames, SXS_PROFILE_MAX_COUNT);
  a->capture_ns = sxs__saturating_add(a->capture_ns, b->capture_ns, SXS_PROFILE_MAX_NS);
  /* Quantiles do not add up: a merged profile keeps the largest of each. */
  a->capture_ns_max = MAX(a->capture_ns_max, b->capture_ns_max);
  a->capture_ns_p50 = MAX(a->capture_ns_p50, b->capture_ns_p50);
  a->capture_ns_p90 = MAX(a->capture_ns_p90, b->capture_ns_p90);
  a->capture_ns_p99 = MAX(a->capture_ns_p99, b->capture_ns_p99);
  a->resolve_ns = sxs__saturating_add(a->resolve_ns, b->resolve_ns, SXS_PROFILE_MAX_NS);
  a->suspensions = sxs__saturating_add(a->suspensions, b->suspensions, SXS_PROFILE_MAX_COUNT);
  a->walks_reused = sxs__saturating_add(a->walks_reused, b->walks_reused, SXS_PROFILE_MAX_COUNT);
  a->walks_redone = sxs__saturating_add(a->walks_redone, b->walks_redone, SXS_PROFILE_MAX_COUNT);
  add_count_table(a->dropped, b->dropped);
  for (guint i = 0; i < b->thread_rates->len; i++)
    g_ptr_array_add(a->thread_rates, sxs__thread_rate_model_copy(b->thread_rates->pdata[i]));
  g_ptr_array_sort(a->thread_rates, sxs__thread_rate_model_compare);
  for (guint i = 0; i < b->profiler_threads->len; i++)
    g_ptr_array_add(a->profiler_threads, sxs__thread_rate_model_copy(b->profiler_threads->pdata[i]));
  g_ptr_array_sort(a->profiler_threads, sxs__thread_rate_model_compare);

  SxsWalkCounters *w = &into->walks;
  const SxsWalkCounters *x = &from->walks;
  for (int e = 0; e < 3; e++)
    w->events[e] = sxs__saturating_add(w->events[e], x->events[e], SXS_PROFILE_MAX_COUNT);
  w->made = sxs__saturating_add(w->made, x->made, SXS_PROFILE_MAX_COUNT);
  w->failed = sxs__saturating_add(w->failed, x->failed, SXS_PROFILE_MAX_COUNT);
  w->runtime_walks = sxs__saturating_add(w->runtime_walks, x->runtime_walks, SXS_PROFILE_MAX_COUNT);
  w->unknown_frames = sxs__saturating_add(w->unknown_frames, x->unknown_frames, SXS_PROFILE_MAX_COUNT);
  w->stacks_dropped = sxs__saturating_add(w->stacks_dropped, x->stacks_dropped, SXS_PROFILE_MAX_COUNT);
  w->stacks_merged = sxs__saturating_add(w->stacks_merged, x->stacks_merged, SXS_PROFILE_MAX_COUNT);
  w->frames = sxs__saturating_add(w->frames, x->frames, SXS_PROFILE_MAX_COUNT);
  w->native_frames = sxs__saturating_add(w->native_frames, x->native_frames, SXS_PROFILE_MAX_COUNT);
  w->stacks_named = sxs__saturating_add(w->stacks_named, x->stacks_named, SXS_PROFILE_MAX_COUNT);
  w->stack_nodes = sxs__saturating_add(w->stack_nodes, x->stack_nodes, SXS_PROFILE_MAX_COUNT);
  w->recorder_bytes = sxs__saturating_add(w->recorder_bytes, x->recorder_bytes, SXS_PROFILE_MAX_COUNT);
  w->ns_native = sxs__saturating_add(w->ns_native, x->ns_native, SXS_PROFILE_MAX_NS);
  w->ns_classify = sxs__saturating_add(w->ns_classify, x->ns_classify, SXS_PROFILE_MAX_NS);
  w->ns_runtime_walks = sxs__saturating_add(w->ns_runtime_walks, x->ns_runtime_walks, SXS_PROFILE_MAX_NS);
  w->ns_merge = sxs__saturating_add(w->ns_merge, x->ns_merge, SXS_PROFILE_MAX_NS);
  w->ns_naming = sxs__saturating_add(w->ns_naming, x->ns_naming, SXS_PROFILE_MAX_NS);
  w->ns_naming_first = sxs__saturating_add(w->ns_naming_first, x->ns_naming_first, SXS_PROFILE_MAX_NS);
  w->empty = sxs__saturating_add(w->empty, x->empty, SXS_PROFILE_MAX_COUNT);
  w->truncated = sxs__saturating_add(w->truncated, x->truncated, SXS_PROFILE_MAX_COUNT);
  add_count_table(w->failures, x->failures);
  add_count_table(w->skipped, x->skipped);

  SxsLinesModel *l = &into->lines;
  SxsLinesModel *y = &from->lines;
  l->enabled |= y->enabled;
  l->stacks += y->stacks;
  l->frames_resolved += y->frames_resolved;
  l->frames_unresolved += y->frames_unresolved;
  l->methods += y->methods;
  l->code_versions += y->code_versions;
  l->ns_resolving += y->ns_resolving;
  l->ns_first += y->ns_first;
  for (guint i = 0; i < y->modules->len; i++) {
    SxsLinesModuleModel *m = y->modules->pdata[i];
    m->runtime_id = GPOINTER_TO_INT(g_hash_table_lookup(new_ids, GINT_TO_POINTER(m->runtime_id)));
  }
  for (guint i = 0; i < y->retiered->len; i++) {
    SxsLinesMethodModel *m = y->retiered->pdata[i];
    m->runtime_id = GPOINTER_TO_INT(g_hash_table_lookup(new_ids, GINT_TO_POINTER(m->runtime_id)));
  }
  g_ptr_array_extend_and_steal(l->modules, g_steal_pointer(&y->modules));
  g_ptr_array_extend_and_steal(l->retiered, g_steal_pointer(&y->retiered));
  y->modules = g_ptr_array_new_with_free_func(lines_module_free);
  y->retiered = g_ptr_array_new_with_free_func(lines_method_free);
}
