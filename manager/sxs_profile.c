/* sxs_profile: the profile model and its JSON writer.
 *
 *   live registry (manager, locked) --copy--> SxsProfileModel --render--> JSON text --> file
 *                                   (short)                   (no lock)
 */
#include "sxs_profile.h"

#include <string.h>

#include "sxs_json.h"

SxsFunctionRecord *sxs__function_record_copy(const SxsFunctionRecord *f) {
  SxsFunctionRecord *c = g_new0(SxsFunctionRecord, 1);
  c->name = g_strdup(f->name);
  c->module = g_strdup(f->module);
  c->jit_compiled = f->jit_compiled;
  c->inlined = f->inlined;
  c->precompiled = f->precompiled;
  return c;
}

void sxs__function_record_free(gpointer p) {
  SxsFunctionRecord *f = p;
  if (!f)
    return;
  g_free(f->name);
  g_free(f->module);
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

SxsProfileModel *sxs__profile_model_new(void) {
  SxsProfileModel *m = g_new0(SxsProfileModel, 1);
  m->runtimes = g_ptr_array_new_with_free_func(sxs__runtime_model_free);
  return m;
}

SxsRuntimeModel *sxs__runtime_model_new(void) {
  SxsRuntimeModel *r = g_new0(SxsRuntimeModel, 1);
  r->functions = g_ptr_array_new_with_free_func(sxs__function_record_free);
  r->threads = g_ptr_array_new_with_free_func(sxs__thread_record_free);
  return r;
}

void sxs__runtime_model_free(gpointer p) {
  SxsRuntimeModel *r = p;
  if (!r)
    return;
  g_free(r->reason);
  g_free(r->version);
  g_free(r->clr_version);
  g_free(r->path);
  g_ptr_array_unref(r->functions);
  g_ptr_array_unref(r->threads);
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
  g_free(m);
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
  if (p->start_unix_ms > 0) {
    g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(p->start_unix_ms / 1000);
    g_autofree char *iso = t ? g_date_time_format(t, "%Y-%m-%dT%H:%M:%S") : NULL;
    g_autofree char *stamp = iso ? g_strdup_printf("%s.%03dZ", iso, (int)(p->start_unix_ms % 1000)) : NULL;
    sxs__json_member_string(w, "start_time", stamp);
  } else {
    sxs__json_member_string(w, "start_time", NULL);
  }
  sxs__json_member_int(w, "start_unix_ms", p->start_unix_ms);
  sxs__json_member_string(w, "run_id", p->run_id);
  sxs__json_end_object(w);
}

static void render_runtime(SxsJsonWriter *w, const SxsRuntimeModel *r) {
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "id", r->id);
  sxs__json_member_string(w, "version", r->version);
  sxs__json_member_string(w, "clr_version", r->clr_version);
  sxs__json_member_string(w, "path", r->path);
  sxs__json_member_string(w, "status", sxs__runtime_status_name(r->status));
  sxs__json_member_string(w, "reason", r->reason);
  sxs__json_member_int(w, "info_version", r->caps.info_version);
  sxs__json_key(w, "capabilities");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "event_mask2", r->caps.event_mask2);
  sxs__json_member_bool(w, "basic_gc", r->caps.basic_gc);
  sxs__json_end_object(w);
  sxs__json_member_bool(w, "shutdown_seen", r->shut_down);

  sxs__json_key(w, "counters");
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "jit_compiled", r->counters.jit_compiled);
  sxs__json_member_int(w, "modules_loaded", r->counters.modules_loaded);
  sxs__json_member_int(w, "exceptions", r->counters.exceptions);
  sxs__json_member_int(w, "gcs", r->counters.gcs);
  sxs__json_member_int(w, "threads_created", r->counters.threads_created);
  sxs__json_end_object(w);

  sxs__json_key(w, "functions");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->functions->len; i++) {
    const SxsFunctionRecord *f = r->functions->pdata[i];
    sxs__json_begin_object(w);
    sxs__json_member_string(w, "name", f->name);
    sxs__json_member_string(w, "module", f->module);
    sxs__json_member_int(w, "jit_compiled", f->jit_compiled);
    sxs__json_member_int(w, "inlined", f->inlined);
    sxs__json_member_int(w, "precompiled", f->precompiled);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);

  sxs__json_key(w, "threads");
  sxs__json_begin_array(w);
  for (guint i = 0; i < r->threads->len; i++) {
    const SxsThreadRecord *t = r->threads->pdata[i];
    sxs__json_begin_object(w);
    sxs__json_member_int(w, "os_tid", t->os_tid);
    sxs__json_member_string(w, "name", t->name);
    sxs__json_member_bool(w, "destroyed", t->destroyed);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

char *sxs__profile_render_json(const SxsProfileModel *m, gsize *ret_len) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "format", "sxsprof");
  sxs__json_member_int(w, "version", 1);
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
  sxs__json_end_object(w);
  return sxs__json_writer_steal(w, ret_len);
}
