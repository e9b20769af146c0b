/* Reads a saved profile back into the model: the grammar of sxs__profile_render_json, walked once
 * with the pull reader, each value stored where the writer took it from.
 *
 *   file --mmap--> text --SxsJsonReader--> SxsProfileModel      (no tree: peak = text + model)
 *
 * Time and memory stay in proportion to the file whatever it holds: only regular files are read,
 * up to a size limit; nesting is bounded by the reader; every value is checked against the limits
 * of sxs_profile.h as it is read (counts, times, ids, frames per stack, nodes per call tree); a
 * call tree is checked once its array is read (distinct ids, existing parents, no cycle, depth),
 * in one linear pass without recursion, so that nothing after the reader meets a tree it could
 * loop on or a sum it could wrap.
 *
 * Which message a bad file gets is decided after the walk, from what it saw: a "format" other than
 * "sxsprof" first, then a newer "version" (a newer profile may be laid out differently, so its
 * parse errors say nothing), then the reader's error, then a missing "format" or "version".
 */
#include "sxs_profile_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sxs_json_read.h"

GQuark sxs__profile_read_error_quark(void) {
  return g_quark_from_static_string("sxs-profile-read-error-quark");
}

typedef enum {
  FORMAT_MISSING = 0,
  FORMAT_SXSPROF,
  FORMAT_OTHER, /* another string, or not a string */
} ProfileFormat;

/* What the top level said about the document itself. */
typedef struct {
  ProfileFormat format;
  gboolean has_version;
  gint64 version;
  GArray *frame_table; /* SxsStackFrameModel of "frame_table" (version 2); owned */
} ProfileHeader;

static gboolean key_is(const char *key, const char *name) {
  return strcmp(key, name) == 0;
}

/* Values into model fields. Each leaves the field as it was when the value cannot be taken; the
 * reader then holds the error, which ends every loop of the walk. */

static void read_str(SxsJsonReader *r, char **field) {
  char *value;
  if (sxs__json_reader_string(r, &value, NULL)) {
    g_free(*field);
    *field = value;
  }
}

static void read_bool(SxsJsonReader *r, gboolean *field) {
  sxs__json_reader_bool(r, field);
}

/* An integer from min to max. */
static gboolean read_range(SxsJsonReader *r, guint64 min, guint64 max, guint64 *ret_value) {
  return sxs__json_reader_uint64_range(r, min, max, ret_value);
}

static gboolean read_bounded(SxsJsonReader *r, guint64 max, guint64 *ret_value) {
  return read_range(r, 0, max, ret_value);
}

/* A count (samples, calls, events): every sum of them stays exact (see SXS_PROFILE_MAX_COUNT). */
static void read_count(SxsJsonReader *r, guint64 *field) {
  read_bounded(r, SXS_PROFILE_MAX_COUNT, field);
}

/* A runtime's counter: a count kept in a signed field. */
static void read_counter(SxsJsonReader *r, gint64 *field) {
  guint64 v;
  if (read_bounded(r, SXS_PROFILE_MAX_COUNT, &v))
    *field = (gint64)v;
}

/* A time in nanoseconds. */
static void read_ns(SxsJsonReader *r, guint64 *field) {
  read_bounded(r, SXS_PROFILE_MAX_NS, field);
}

/* A moment in ms since the epoch (0: unknown). */
static void read_unix_ms(SxsJsonReader *r, gint64 *field) {
  guint64 v;
  if (read_bounded(r, (guint64)SXS_PROFILE_MAX_UNIX_MS, &v))
    *field = (gint64)v;
}

static void read_uint(SxsJsonReader *r, guint *field) {
  guint64 v;
  if (read_bounded(r, G_MAXUINT, &v))
    *field = (guint)v;
}

static void read_u32(SxsJsonReader *r, uint32_t *field) {
  guint64 v;
  if (read_bounded(r, G_MAXUINT32, &v))
    *field = (uint32_t)v;
}

static void read_int(SxsJsonReader *r, int *field) {
  gint64 v;
  if (!sxs__json_reader_int64(r, &v))
    return;
  if (v < G_MININT || v > G_MAXINT) {
    sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "integer out of range (expected %d to %d)", G_MININT, G_MAXINT);
    return;
  }
  *field = (int)v;
}

/* A string that may not be null. */
static gboolean read_required_str(SxsJsonReader *r, char **ret_value) {
  char *value;
  if (!sxs__json_reader_string(r, &value, NULL))
    return FALSE;
  if (!value) {
    sxs__json_reader_fail(r, SXS_JSON_READ_TYPE, "expected a string, found null");
    return FALSE;
  }
  *ret_value = value;
  return TRUE;
}

/* An address as the writer spells it: "0x" and hex digits. */
static void read_address(SxsJsonReader *r, uintptr_t *field) {
  const char *s;
  gsize len;
  if (!sxs__json_reader_string_view(r, &s, &len))
    return;
  uintptr_t v = 0;
  gboolean ok = s && len > 2 && len <= 2 + 2 * sizeof v && s[0] == '0' && s[1] == 'x';
  for (gsize i = 2; ok && i < len; i++) {
    int d = g_ascii_xdigit_value(s[i]);
    ok = d >= 0;
    v = v << 4 | (uintptr_t)(ok ? d : 0);
  }
  if (!ok) {
    sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "expected an address (\"0x\" and 1 to %d hex digits)",
                          (int)(2 * sizeof v));
    return;
  }
  *field = v;
}

/* A name -> guint64* table (failures, skipped, dropped). */
static void read_count_table(SxsJsonReader *r, GHashTable *table) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    guint64 v;
    if (read_bounded(r, SXS_PROFILE_MAX_COUNT, &v))
      g_hash_table_replace(table, g_strdup(key), g_memdup2(&v, sizeof v));
  }
}

/* A name -> string table (features_off). */
static void read_string_table(SxsJsonReader *r, GHashTable *table) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    char *value;
    if (sxs__json_reader_string(r, &value, NULL))
      g_hash_table_replace(table, g_strdup(key), value);
  }
}

static void read_argv(SxsJsonReader *r, char ***field) {
  if (!sxs__json_reader_begin_array(r))
    return;
  GPtrArray *args = g_ptr_array_new();
  char *arg;
  while (sxs__json_reader_next_element(r))
    if (read_required_str(r, &arg))
      g_ptr_array_add(args, arg);
  g_ptr_array_add(args, NULL);
  g_strfreev(*field);
  *field = (char **)g_ptr_array_free(args, FALSE);
}

/* "process": an object, or null when the profiler could not tell. */
static void read_process(SxsJsonReader *r, SxsProcessInfo **field) {
  if (sxs__json_reader_peek(r) == SXS_JSON_NULL) {
    sxs__json_reader_skip(r);
    g_clear_pointer(field, sxs__process_info_free);
    return;
  }
  if (!sxs__json_reader_begin_object(r))
    return;
  sxs__process_info_free(*field);
  SxsProcessInfo *p = *field = g_new0(SxsProcessInfo, 1);
  p->argv = g_new0(char *, 1);
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "pid"))
      read_int(r, &p->pid);
    else if (key_is(key, "ppid"))
      read_int(r, &p->ppid);
    else if (key_is(key, "executable"))
      read_str(r, &p->executable);
    else if (key_is(key, "command_line"))
      read_argv(r, &p->argv);
    else if (key_is(key, "start_unix_ms"))
      read_unix_ms(r, &p->start_unix_ms);
    else if (key_is(key, "run_id"))
      read_str(r, &p->run_id);
    /* "start_time" is start_unix_ms spelled for people. */
  }
}

/* One frame written out in full: a frame of "frame_table", or (version 1) of a stack's "frames".
 * FALSE when it could not be read (then f holds what was, for the caller to clear). */
static gboolean read_frame(SxsJsonReader *r, SxsStackFrameModel *f) {
  if (!sxs__json_reader_begin_object(r))
    return FALSE;
  int runtime = 0;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "name")) {
      read_str(r, &f->name);
    } else if (key_is(key, "module")) {
      read_str(r, &f->module);
    } else if (key_is(key, "ip")) {
      read_address(r, &f->ip);
    } else if (key_is(key, "sp")) {
      read_address(r, &f->sp);
    } else if (key_is(key, "runtime")) {
      guint64 id;
      if (read_bounded(r, SXS_PROFILE_MAX_RUNTIME_ID, &id))
        runtime = (int)id;
    } else if (key_is(key, "file")) {
      read_str(r, &f->file);
    } else if (key_is(key, "line")) {
      read_u32(r, &f->line);
    } else if (key_is(key, "kind")) {
      const char *kind;
      gsize len;
      if (!sxs__json_reader_string_view(r, &kind, &len))
        continue;
      if (kind && len == strlen("managed") && memcmp(kind, "managed", len) == 0)
        f->managed = TRUE;
      else if (kind && len == strlen("native") && memcmp(kind, "native", len) == 0)
        f->managed = FALSE;
      else
        sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "expected \"managed\" or \"native\"");
    }
  }
  f->runtime_id = f->managed ? runtime : 0;
  return sxs__json_reader_error(r, NULL, NULL, NULL) == SXS_JSON_READ_OK;
}

static void frame_clear(gpointer p) {
  SxsStackFrameModel *f = p;
  g_free(f->name);
  g_free(f->module);
  g_free(f->file);
}

/* "frame_table" (version 2): every distinct frame once, into table. */
static void read_frame_table(SxsJsonReader *r, GArray *table) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (table->len == SXS_PROFILE_MAX_FRAME_TABLE) {
      sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "more than %u frames in the frame table",
                            SXS_PROFILE_MAX_FRAME_TABLE);
      return;
    }
    SxsStackFrameModel f = {0};
    gboolean ok = read_frame(r, &f);
    g_array_append_val(table, f);
    if (!ok)
      return;
  }
}

/* A stack's "frames", appended to s->frames (which then owns their strings, also after an error):
 * indices into table (version 2) or frames written out in full (version 1). */
static void read_frames(SxsJsonReader *r, const GArray *table, SxsStackModel *s) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (s->frames->len == SXS_PROFILE_MAX_STACK_FRAMES) {
      sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "more than %d frames in one stack; expected at most %d",
                            SXS_PROFILE_MAX_STACK_FRAMES, SXS_PROFILE_MAX_STACK_FRAMES);
      return;
    }
    SxsStackFrameModel f = {0};
    if (sxs__json_reader_peek(r) == SXS_JSON_NUMBER) {
      guint64 i;
      if (!table->len) {
        sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "a frame index with no \"frame_table\" before it");
        return;
      }
      if (!read_bounded(r, table->len - 1, &i))
        return;
      f = g_array_index(table, SxsStackFrameModel, i);
      f.name = g_strdup(f.name);
      f.module = g_strdup(f.module);
      f.file = g_strdup(f.file);
      g_array_append_val(s->frames, f);
      continue;
    }
    gboolean ok = read_frame(r, &f);
    g_array_append_val(s->frames, f);
    if (!ok)
      return;
  }
}

/* A stack's "sp" (version 2): its frames' stack pointers, each after the first as the difference
 * from the one before; after "frames", as many. */
static void read_stack_pointers(SxsJsonReader *r, SxsStackModel *s) {
  if (!sxs__json_reader_begin_array(r))
    return;
  guint n = 0;
  uintptr_t sp = 0;
  while (sxs__json_reader_next_element(r)) {
    gint64 delta;
    if (!sxs__json_reader_int64(r, &delta))
      return;
    if (n == s->frames->len) {
      sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "more stack pointers than the %u frames before them",
                            s->frames->len);
      return;
    }
    sp += (uintptr_t)delta;
    g_array_index(s->frames, SxsStackFrameModel, n++).sp = sp;
  }
  if (n != s->frames->len && sxs__json_reader_error(r, NULL, NULL, NULL) == SXS_JSON_READ_OK)
    sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "%u stack pointers for %u frames", n, s->frames->len);
}

/* "stacks": the stacks recorded at events. */
static void read_event_stacks(SxsJsonReader *r, const GArray *table, GPtrArray *stacks) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsStackModel *s = sxs__stack_model_new(NULL, 0);
    g_ptr_array_add(stacks, s);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "event"))
        read_str(r, &s->event);
      else if (key_is(key, "thread"))
        read_u32(r, &s->thread);
      else if (key_is(key, "count"))
        read_count(r, &s->count);
      else if (key_is(key, "frames"))
        read_frames(r, table, s);
      else if (key_is(key, "sp"))
        read_stack_pointers(r, s);
    }
  }
}

/* The "stacks" of "exceptions", "contention" or "allocations": typed, each of one runtime. */
static void read_typed_stacks(SxsJsonReader *r, const GArray *table, SxsProfileKind k, GPtrArray *stacks) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsStackModel *s = sxs__stack_model_new(sxs__profile_kind_name(k), 0);
    g_ptr_array_add(stacks, s);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "runtime"))
        read_int(r, &s->runtime_id);
      else if (key_is(key, "type"))
        read_str(r, &s->type);
      else if (key_is(key, "thread"))
        read_u32(r, &s->thread);
      else if (key_is(key, "count"))
        read_count(r, &s->count);
      else if (key_is(key, "value"))
        read_ns(r, &s->value);
      else if (key_is(key, "frames"))
        read_frames(r, table, s);
      else if (key_is(key, "sp"))
        read_stack_pointers(r, s);
    }
  }
}

/* "exceptions", "contention", "allocations". */
static void read_event_profile(SxsJsonReader *r, const GArray *table, SxsProfileKind k, SxsEventProfileModel *p) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "enabled"))
      read_bool(r, &p->enabled);
    else if (key_is(key, "events"))
      read_count(r, &p->events);
    else if (key_is(key, "unwalked"))
      read_count(r, &p->unwalked);
    else if (key_is(key, "value"))
      read_ns(r, &p->value);
    else if (key_is(key, "sampling"))
      read_str(r, &p->sampling);
    else if (key_is(key, "stacks"))
      read_typed_stacks(r, table, k, p->stacks);
  }
}

/* "samples"."stacks": per thread; "thread" is the thread's name, or its OS id when it has none. */
static void read_sample_stacks(SxsJsonReader *r, const GArray *table, GPtrArray *stacks) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsStackModel *s = sxs__stack_model_new("sample", 0);
    g_ptr_array_add(stacks, s);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "thread"))
        read_str(r, &s->thread_name);
      else if (key_is(key, "os_tid"))
        read_u32(r, &s->thread);
      else if (key_is(key, "count"))
        read_count(r, &s->count);
      else if (key_is(key, "frames"))
        read_frames(r, table, s);
      else if (key_is(key, "sp"))
        read_stack_pointers(r, s);
    }
    char tid[16];
    g_snprintf(tid, sizeof tid, "%u", s->thread);
    if (s->thread_name && strcmp(s->thread_name, tid) == 0)
      g_clear_pointer(&s->thread_name, g_free);
  }
}

static void read_functions(SxsJsonReader *r, GPtrArray *functions) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsFunctionRecord *f = g_new0(SxsFunctionRecord, 1);
    g_ptr_array_add(functions, f);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "name")) {
        read_str(r, &f->name);
      } else if (key_is(key, "module")) {
        read_str(r, &f->module);
      } else if (key_is(key, "jit_compiled")) {
        read_uint(r, &f->jit_compiled);
      } else if (key_is(key, "inlined")) {
        read_uint(r, &f->inlined);
      } else if (key_is(key, "precompiled")) {
        read_uint(r, &f->precompiled);
      } else if (key_is(key, "file")) {
        read_str(r, &f->file);
      } else if (key_is(key, "line")) {
        read_u32(r, &f->line);
      } else if (key_is(key, "calls")) {
        /* Only functions call tracing counted have calls. */
        f->traced = TRUE;
        read_count(r, &f->calls);
      } else if (key_is(key, "inclusive_ns")) {
        read_ns(r, &f->inclusive_ns);
      } else if (key_is(key, "exclusive_ns")) {
        read_ns(r, &f->exclusive_ns);
      }
    }
  }
}

/* "inventory": naming_threads beyond the model's room are read and left out. */
static void read_inventory(SxsJsonReader *r, SxsInventoryModel *inv) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "enabled")) {
      read_bool(r, &inv->enabled);
    } else if (key_is(key, "events")) {
      read_count(r, &inv->events);
    } else if (key_is(key, "named")) {
      read_count(r, &inv->named);
    } else if (key_is(key, "dropped")) {
      read_count(r, &inv->dropped);
    } else if (key_is(key, "naming_threads")) {
      if (!sxs__json_reader_begin_array(r))
        return;
      while (sxs__json_reader_next_element(r)) {
        guint32 tid = 0;
        if (inv->n_naming_threads >= SXS_INVENTORY_MAX_NAMERS) {
          sxs__json_reader_skip(r);
          continue;
        }
        read_u32(r, &tid);
        inv->naming_threads[inv->n_naming_threads++] = tid;
      }
    }
  }
}

static void read_tracing(SxsJsonReader *r, SxsTracingModel *t) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "enabled"))
      read_bool(r, &t->enabled);
    else if (key_is(key, "path"))
      read_str(r, &t->path);
    else if (key_is(key, "routing"))
      read_str(r, &t->routing);
    else if (key_is(key, "hooks"))
      read_str(r, &t->hooks);
    else if (key_is(key, "timing"))
      read_bool(r, &t->timing);
    else if (key_is(key, "reason"))
      read_str(r, &t->reason);
    else if (key_is(key, "functions_mapped"))
      read_count(r, &t->functions_mapped);
    else if (key_is(key, "functions_hooked"))
      read_count(r, &t->functions_hooked);
    else if (key_is(key, "tailcalls"))
      read_count(r, &t->tailcalls);
    else if (key_is(key, "unwound"))
      read_count(r, &t->unwound);
    else if (key_is(key, "open_frames"))
      read_count(r, &t->open_frames);
    else if (key_is(key, "depth_overflows"))
      read_count(r, &t->depth_overflows);
    else if (key_is(key, "tree_overflows"))
      read_count(r, &t->tree_overflows);
  }
}

/* Where a node's depth is not known yet, and where it is being found (on the current walk). */
#define DEPTH_UNKNOWN 0u
#define DEPTH_WALKING G_MAXUINT32
#define NO_PARENT G_MAXUINT32

/* Checks a call tree once it is read, failing at the first node that breaks a rule: ids distinct,
 * each parent 0 (a root) or the id of a node, no cycle of parents, no path deeper than
 * SXS_PROFILE_MAX_CALL_DEPTH. Linear and without recursion: each node's depth is found once, on
 * a walk up its parents that stops at a root or at a node whose depth is known. offsets[i] is
 * where node i starts in the text. */
static void check_call_tree(SxsJsonReader *r, GPtrArray *call_tree, const gsize *offsets) {
  guint n = call_tree->len;
  g_autoptr(GHashTable) index_of = g_hash_table_new(g_direct_hash, g_direct_equal); /* id -> index + 1 */
  for (guint i = 0; i < n; i++) {
    const SxsCallNode *node = call_tree->pdata[i];
    guint other = GPOINTER_TO_UINT(g_hash_table_lookup(index_of, GUINT_TO_POINTER(node->id)));
    if (other) {
      sxs__json_reader_fail_at(r, offsets[i], SXS_JSON_READ_VALUE,
                               "node [%u] has the id %u of node [%u]; expected a distinct id for each node", i,
                               node->id, other - 1);
      return;
    }
    g_hash_table_insert(index_of, GUINT_TO_POINTER(node->id), GUINT_TO_POINTER(i + 1));
  }
  g_autofree guint32 *parent = g_new(guint32, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    const SxsCallNode *node = call_tree->pdata[i];
    guint p = node->parent ? GPOINTER_TO_UINT(g_hash_table_lookup(index_of, GUINT_TO_POINTER(node->parent))) : 0;
    if (node->parent && !p) {
      sxs__json_reader_fail_at(r, offsets[i], SXS_JSON_READ_VALUE,
                               "node [%u] (id %u) has parent %u, which is no node's id; expected 0 (a root) or the "
                               "id of a node of this tree",
                               i, node->id, node->parent);
      return;
    }
    parent[i] = node->parent ? p - 1 : NO_PARENT;
  }
  g_autofree guint32 *depth = g_new0(guint32, MAX(n, 1));
  g_autoptr(GArray) walk = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint i = 0; i < n; i++) {
    g_array_set_size(walk, 0);
    guint32 at = i;
    while (at != NO_PARENT && depth[at] == DEPTH_UNKNOWN) {
      depth[at] = DEPTH_WALKING;
      g_array_append_val(walk, at);
      at = parent[at];
    }
    if (at != NO_PARENT && depth[at] == DEPTH_WALKING) {
      sxs__json_reader_fail_at(r, offsets[at], SXS_JSON_READ_VALUE,
                               "node [%u] (id %u) is its own ancestor: its parents form a cycle; expected every "
                               "chain of parents to end at a root (parent 0)",
                               at, ((const SxsCallNode *)call_tree->pdata[at])->id);
      return;
    }
    guint32 d = at == NO_PARENT ? 0 : depth[at];
    for (guint k = walk->len; k-- > 0;) {
      guint32 node = g_array_index(walk, guint32, k);
      depth[node] = ++d;
      if (d > SXS_PROFILE_MAX_CALL_DEPTH) {
        sxs__json_reader_fail_at(r, offsets[node], SXS_JSON_READ_VALUE,
                                 "node [%u] (id %u) is %u calls deep; expected call paths of at most %d calls", node,
                                 ((const SxsCallNode *)call_tree->pdata[node])->id, d, SXS_PROFILE_MAX_CALL_DEPTH);
        return;
      }
    }
  }
}

static void read_call_tree(SxsJsonReader *r, GPtrArray *call_tree) {
  if (!sxs__json_reader_begin_array(r))
    return;
  g_autoptr(GArray) offsets = g_array_new(FALSE, FALSE, sizeof(gsize));
  while (sxs__json_reader_next_element(r)) {
    if (call_tree->len == SXS_PROFILE_MAX_CALL_NODES) {
      sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "more than %u nodes in one call tree; expected at most %u",
                            SXS_PROFILE_MAX_CALL_NODES, SXS_PROFILE_MAX_CALL_NODES);
      return;
    }
    if (!sxs__json_reader_begin_object(r))
      return;
    gsize offset = sxs__json_reader_value_offset(r);
    g_array_append_val(offsets, offset);
    SxsCallNode *n = g_new0(SxsCallNode, 1);
    g_ptr_array_add(call_tree, n);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      guint64 v;
      if (key_is(key, "id")) {
        if (read_range(r, 1, G_MAXUINT, &v))
          n->id = (guint)v;
      } else if (key_is(key, "parent")) {
        read_uint(r, &n->parent);
      } else if (key_is(key, "name")) {
        read_str(r, &n->name);
      } else if (key_is(key, "calls")) {
        read_count(r, &n->calls);
      } else if (key_is(key, "inclusive_ns")) {
        read_ns(r, &n->inclusive_ns);
      } else if (key_is(key, "exclusive_ns")) {
        read_ns(r, &n->exclusive_ns);
      }
    }
  }
  if (sxs__json_reader_error(r, NULL, NULL, NULL) == SXS_JSON_READ_OK)
    check_call_tree(r, call_tree, (const gsize *)offsets->data);
}

static void read_threads(SxsJsonReader *r, GPtrArray *threads) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsThreadRecord *t = g_new0(SxsThreadRecord, 1);
    g_ptr_array_add(threads, t);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "os_tid"))
        read_u32(r, &t->os_tid);
      else if (key_is(key, "name"))
        read_str(r, &t->name);
      else if (key_is(key, "destroyed"))
        read_bool(r, &t->destroyed);
    }
  }
}

static void read_capabilities(SxsJsonReader *r, SxsCapabilities *caps) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "event_mask2"))
      read_bool(r, &caps->event_mask2);
    else if (key_is(key, "basic_gc"))
      read_bool(r, &caps->basic_gc);
    else if (key_is(key, "elt3"))
      read_bool(r, &caps->elt3);
    else if (key_is(key, "suspend"))
      read_bool(r, &caps->suspend);
  }
}

static void read_counters(SxsJsonReader *r, SxsCounters *c) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "jit_compiled"))
      read_counter(r, &c->jit_compiled);
    else if (key_is(key, "modules_loaded"))
      read_counter(r, &c->modules_loaded);
    else if (key_is(key, "modules_unloaded"))
      read_counter(r, &c->modules_unloaded);
    else if (key_is(key, "exceptions"))
      read_counter(r, &c->exceptions);
    else if (key_is(key, "gcs"))
      read_counter(r, &c->gcs);
    else if (key_is(key, "threads_created"))
      read_counter(r, &c->threads_created);
  }
}

/* "heap": sizes in bytes, kept to what pprof's int64 holds as the other values. */
static void read_heap(SxsJsonReader *r, SxsHeapModel *h) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "gcs"))
      read_count(r, &h->gcs);
    else if (key_is(key, "after_last_gc"))
      read_ns(r, &h->after_last_gc);
    else if (key_is(key, "after_gc_max"))
      read_ns(r, &h->after_gc_max);
  }
}

static void read_status(SxsJsonReader *r, SxsRuntimeStatus *field) {
  static const SxsRuntimeStatus all[] = {SXS_RUNTIME_PENDING, SXS_RUNTIME_PROFILING, SXS_RUNTIME_DECLINED};
  const char *s;
  gsize len;
  if (!sxs__json_reader_string_view(r, &s, &len))
    return;
  for (gsize i = 0; s && i < G_N_ELEMENTS(all); i++) {
    const char *name = sxs__runtime_status_name(all[i]);
    if (len == strlen(name) && memcmp(s, name, len) == 0) {
      *field = all[i];
      return;
    }
  }
  sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "expected \"profiling\", \"declined\" or \"pending\"");
}

/* One runtime; *ret_offset: where its object starts. */
static void read_runtime(SxsJsonReader *r, SxsRuntimeModel *rt, gsize *ret_offset) {
  if (!sxs__json_reader_begin_object(r))
    return;
  *ret_offset = sxs__json_reader_value_offset(r);
  /* Profiles written before the inventory was an option always had it. */
  rt->inventory.enabled = TRUE;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "id")) {
      guint64 id;
      if (read_range(r, 1, SXS_PROFILE_MAX_RUNTIME_ID, &id))
        rt->id = (int)id;
    } else if (key_is(key, "version"))
      read_str(r, &rt->version);
    else if (key_is(key, "clr_version"))
      read_str(r, &rt->clr_version);
    else if (key_is(key, "version_source"))
      read_str(r, &rt->version_source);
    else if (key_is(key, "path"))
      read_str(r, &rt->path);
    else if (key_is(key, "status"))
      read_status(r, &rt->status);
    else if (key_is(key, "reason"))
      read_str(r, &rt->reason);
    else if (key_is(key, "info_version"))
      read_int(r, &rt->caps.info_version);
    else if (key_is(key, "capabilities"))
      read_capabilities(r, &rt->caps);
    else if (key_is(key, "attached"))
      read_bool(r, &rt->caps.attached);
    else if (key_is(key, "attached_unix_ms"))
      read_unix_ms(r, &rt->attached_unix_ms);
    else if (key_is(key, "shutdown_seen"))
      read_bool(r, &rt->shut_down);
    else if (key_is(key, "counters"))
      read_counters(r, &rt->counters);
    else if (key_is(key, "heap"))
      read_heap(r, &rt->heap);
    else if (key_is(key, "allocation_sampling"))
      read_str(r, &rt->allocation_sampling);
    else if (key_is(key, "inventory"))
      read_inventory(r, &rt->inventory);
    else if (key_is(key, "functions"))
      read_functions(r, rt->functions);
    else if (key_is(key, "features_off"))
      read_string_table(r, rt->features_off);
    else if (key_is(key, "tracing"))
      read_tracing(r, &rt->tracing);
    else if (key_is(key, "call_tree"))
      read_call_tree(r, rt->call_tree);
    else if (key_is(key, "threads"))
      read_threads(r, rt->threads);
  }
  /* The profile lists a runtime's threads inside it. */
  for (guint i = 0; i < rt->threads->len; i++)
    ((SxsThreadRecord *)rt->threads->pdata[i])->runtime_id = rt->id;
}

/* The runtimes, each id given once: frames and merges find a runtime by its id. */
static void read_runtimes(SxsJsonReader *r, GPtrArray *runtimes) {
  if (!sxs__json_reader_begin_array(r))
    return;
  g_autoptr(GHashTable) index_of = g_hash_table_new(g_direct_hash, g_direct_equal); /* id -> index + 1 */
  while (sxs__json_reader_next_element(r)) {
    SxsRuntimeModel *rt = sxs__runtime_model_new();
    g_ptr_array_add(runtimes, rt);
    gsize offset = 0;
    read_runtime(r, rt, &offset);
    if (!rt->id || sxs__json_reader_error(r, NULL, NULL, NULL) != SXS_JSON_READ_OK)
      continue;
    guint other = GPOINTER_TO_UINT(g_hash_table_lookup(index_of, GINT_TO_POINTER(rt->id)));
    if (other) {
      sxs__json_reader_fail_at(r, offset, SXS_JSON_READ_VALUE,
                               "runtime id %d is also runtimes[%u]'s; expected a distinct id for each runtime", rt->id,
                               other - 1);
      return;
    }
    g_hash_table_insert(index_of, GINT_TO_POINTER(rt->id), GUINT_TO_POINTER(runtimes->len));
  }
}

static void read_walk_events(SxsJsonReader *r, SxsWalkCounters *w) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "exception"))
      read_count(r, &w->events[0]);
    else if (key_is(key, "jit"))
      read_count(r, &w->events[1]);
    else if (key_is(key, "gc"))
      read_count(r, &w->events[2]);
  }
}

static void read_walk_times(SxsJsonReader *r, SxsWalkCounters *w) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "native_walk"))
      read_ns(r, &w->ns_native);
    else if (key_is(key, "classification"))
      read_ns(r, &w->ns_classify);
    else if (key_is(key, "runtime_walks"))
      read_ns(r, &w->ns_runtime_walks);
    else if (key_is(key, "merge"))
      read_ns(r, &w->ns_merge);
    else if (key_is(key, "naming"))
      read_ns(r, &w->ns_naming);
    else if (key_is(key, "naming_first_stack"))
      read_ns(r, &w->ns_naming_first);
  }
}

static void read_stack_walks(SxsJsonReader *r, SxsWalkCounters *w) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "events"))
      read_walk_events(r, w);
    else if (key_is(key, "made"))
      read_count(r, &w->made);
    else if (key_is(key, "failed"))
      read_count(r, &w->failed);
    else if (key_is(key, "empty"))
      read_count(r, &w->empty);
    else if (key_is(key, "truncated"))
      read_count(r, &w->truncated);
    else if (key_is(key, "runtime_walks"))
      read_count(r, &w->runtime_walks);
    else if (key_is(key, "unknown_frames"))
      read_count(r, &w->unknown_frames);
    else if (key_is(key, "stacks_dropped"))
      read_count(r, &w->stacks_dropped);
    else if (key_is(key, "stacks_merged"))
      read_count(r, &w->stacks_merged);
    else if (key_is(key, "frames"))
      read_count(r, &w->frames);
    else if (key_is(key, "native_frames"))
      read_count(r, &w->native_frames);
    else if (key_is(key, "stacks_named"))
      read_count(r, &w->stacks_named);
    else if (key_is(key, "stack_nodes"))
      read_count(r, &w->stack_nodes);
    else if (key_is(key, "recorder_bytes"))
      read_count(r, &w->recorder_bytes);
    else if (key_is(key, "time_ns"))
      read_walk_times(r, w);
    else if (key_is(key, "failures"))
      read_count_table(r, w->failures);
    else if (key_is(key, "skipped"))
      read_count_table(r, w->skipped);
  }
}

static void read_ticks_by_walker(SxsJsonReader *r, SxsSamplesModel *sm) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "signal"))
      read_count(r, &sm->ticks_signal);
    else if (key_is(key, "suspend"))
      read_count(r, &sm->ticks_suspend);
  }
}

/* "thread_rates" or "profiler_threads": SxsThreadRateModel* into rates. */
static void read_thread_rates(SxsJsonReader *r, GPtrArray *rates) {
  if (!sxs__json_reader_begin_array(r))
    return;
  while (sxs__json_reader_next_element(r)) {
    if (!sxs__json_reader_begin_object(r))
      return;
    SxsThreadRateModel *t = g_new0(SxsThreadRateModel, 1);
    g_ptr_array_add(rates, t);
    const char *key;
    while (sxs__json_reader_next_member(r, &key)) {
      if (key_is(key, "os_tid"))
        read_u32(r, &t->os_tid);
      else if (key_is(key, "thread"))
        read_str(r, &t->name);
      else if (key_is(key, "captures"))
        read_count(r, &t->captures);
      else if (key_is(key, "expiries"))
        read_count(r, &t->expiries);
      else if (key_is(key, "events"))
        read_count(r, &t->events);
      else if (key_is(key, "cpu_ns"))
        read_ns(r, &t->cpu_ns);
      else if (key_is(key, "timer_ns"))
        read_ns(r, &t->timer_ns);
    }
  }
}

static void read_samples(SxsJsonReader *r, const GArray *table, SxsSamplesModel *sm) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "enabled"))
      read_bool(r, &sm->enabled);
    else if (key_is(key, "frequency"))
      read_int(r, &sm->frequency);
    else if (key_is(key, "mode"))
      read_str(r, &sm->mode);
    else if (key_is(key, "walker"))
      read_str(r, &sm->walker);
    else if (key_is(key, "off_reason"))
      read_str(r, &sm->off_reason);
    else if (key_is(key, "engine"))
      read_str(r, &sm->engine);
    else if (key_is(key, "engine_reason"))
      read_str(r, &sm->engine_reason);
    else if (key_is(key, "event"))
      read_str(r, &sm->event);
    else if (key_is(key, "event_unit"))
      read_str(r, &sm->event_unit);
    else if (key_is(key, "event_period"))
      read_count(r, &sm->event_period);
    else if (key_is(key, "thread_rates"))
      read_thread_rates(r, sm->thread_rates);
    else if (key_is(key, "profiler_threads"))
      read_thread_rates(r, sm->profiler_threads);
    else if (key_is(key, "ticks"))
      read_count(r, &sm->ticks);
    else if (key_is(key, "ticks_missed"))
      read_count(r, &sm->ticks_missed);
    else if (key_is(key, "duration_ns"))
      read_ns(r, &sm->duration_ns);
    else if (key_is(key, "wall_ns"))
      read_ns(r, &sm->wall_ns);
    else if (key_is(key, "threads"))
      read_count(r, &sm->threads);
    else if (key_is(key, "threads_per_tick"))
      read_count(r, &sm->threads_per_tick);
    else if (key_is(key, "blocked_walks"))
      read_count(r, &sm->blocked_walks);
    else if (key_is(key, "blocked_walk_ns"))
      read_ns(r, &sm->blocked_walk_ns);
    else if (key_is(key, "ticks_by_walker"))
      read_ticks_by_walker(r, sm);
    else if (key_is(key, "taken"))
      read_count(r, &sm->taken);
    else if (key_is(key, "weight"))
      read_count(r, &sm->weight);
    else if (key_is(key, "frames"))
      read_count(r, &sm->frames);
    else if (key_is(key, "capture_ns"))
      read_ns(r, &sm->capture_ns);
    else if (key_is(key, "capture_ns_max"))
      read_ns(r, &sm->capture_ns_max);
    else if (key_is(key, "capture_ns_p50"))
      read_ns(r, &sm->capture_ns_p50);
    else if (key_is(key, "capture_ns_p90"))
      read_ns(r, &sm->capture_ns_p90);
    else if (key_is(key, "capture_ns_p99"))
      read_ns(r, &sm->capture_ns_p99);
    else if (key_is(key, "resolve_ns"))
      read_ns(r, &sm->resolve_ns);
    else if (key_is(key, "suspensions"))
      read_count(r, &sm->suspensions);
    else if (key_is(key, "walks_reused"))
      read_count(r, &sm->walks_reused);
    else if (key_is(key, "walks_redone"))
      read_count(r, &sm->walks_redone);
    else if (key_is(key, "dropped"))
      read_count_table(r, sm->dropped);
    else if (key_is(key, "stacks"))
      read_sample_stacks(r, table, sm->stacks);
  }
}

/* A stack index of the timeline: into stacks, as read before it. */
static SxsStackModel *read_stack_index(SxsJsonReader *r, const GPtrArray *stacks) {
  guint64 v;
  if (!read_bounded(r, G_MAXUINT32, &v))
    return NULL;
  if (v >= stacks->len) {
    sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "stack %" G_GUINT64_FORMAT " out of range (%u stacks)", v,
                          stacks->len);
    return NULL;
  }
  return stacks->pdata[v];
}

/* "timeline"."threads"[i]: t (deltas), s (stack indices), w (weights, optional) and l (labels,
 * optional), one each a sample. */
static void read_timeline_thread(SxsJsonReader *r, const SxsProfileModel *m, SxsVec *samples) {
  if (!sxs__json_reader_begin_object(r))
    return;
  g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_autoptr(GPtrArray) stacks = g_ptr_array_new();
  g_autoptr(GArray) weights = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_autoptr(GArray) labels = g_array_new(FALSE, FALSE, sizeof(guint));
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "l") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r)) {
        guint64 l = 0;
        if (!read_bounded(r, G_MAXUINT16, &l))
          break;
        guint l32 = (guint)l;
        g_array_append_val(labels, l32);
      }
    } else if (key_is(key, "t") && sxs__json_reader_begin_array(r)) {
      guint64 at = 0;
      while (sxs__json_reader_next_element(r)) {
        guint64 d = 0;
        if (!read_bounded(r, SXS_PROFILE_MAX_NS, &d))
          break;
        at += d;
        g_array_append_val(times, at);
      }
    } else if (key_is(key, "s") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r)) {
        SxsStackModel *s = read_stack_index(r, m->samples.stacks);
        if (!s)
          break;
        g_ptr_array_add(stacks, s);
      }
    } else if (key_is(key, "w") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r)) {
        guint64 wt = 1;
        if (!read_range(r, 1, G_MAXUINT32, &wt))
          break;
        guint32 w32 = (guint32)wt;
        g_array_append_val(weights, w32);
      }
    } else {
      sxs__json_reader_skip(r);
    }
  }
  if (sxs__json_reader_message(r))
    return;
  if (times->len != stacks->len || (weights->len && weights->len != times->len) ||
      (labels->len && labels->len != times->len)) {
    sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "a thread's t, s, w and l differ in length (%u, %u, %u, %u)",
                          times->len, stacks->len, weights->len, labels->len);
    return;
  }
  for (guint i = 0; i < times->len; i++) {
    SxsTimelineSample s = {.t_us = g_array_index(times, guint64, i),
                           .stack = stacks->pdata[i],
                           .weight = weights->len ? g_array_index(weights, guint32, i) : 1,
                           .label = labels->len ? g_array_index(labels, guint, i) : 0};
    sxs__vec_append_val(samples, s);
  }
}

static void read_timeline_event(SxsJsonReader *r, const SxsProfileModel *m, SxsVec *events) {
  if (!sxs__json_reader_begin_object(r))
    return;
  SxsTimelineEvent e = {.kind = SXS_TIMELINE_N_EVENTS};
  guint64 stack = G_MAXUINT64;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "kind")) {
      g_autofree char *kind = NULL;
      read_str(r, &kind);
      if (kind && !sxs__timeline_event_parse(kind, &e.kind))
        e.kind = SXS_TIMELINE_N_EVENTS; /* a kind this reader does not know: left out */
    } else if (key_is(key, "runtime"))
      read_int(r, &e.runtime_id);
    else if (key_is(key, "thread"))
      read_u32(r, &e.thread);
    else if (key_is(key, "start_us"))
      read_ns(r, &e.start_us);
    else if (key_is(key, "dur_us"))
      read_ns(r, &e.dur_us);
    else if (key_is(key, "value"))
      read_ns(r, &e.value);
    else if (key_is(key, "reason"))
      read_int(r, &e.reason);
    else if (key_is(key, "name"))
      read_str(r, &e.name);
    else if (key_is(key, "stack"))
      read_bounded(r, G_MAXUINT32, &stack);
    else if (key_is(key, "label")) {
      guint64 l = 0;
      if (read_bounded(r, G_MAXUINT16, &l))
        e.label = (guint)l;
    } else
      sxs__json_reader_skip(r);
  }
  SxsProfileKind pk = sxs__timeline_event_profile(e.kind);
  if (stack != G_MAXUINT64 && pk < SXS_PROFILE_N_KINDS && stack < m->profiles[pk].stacks->len)
    e.stack = m->profiles[pk].stacks->pdata[stack];
  if (e.kind < SXS_TIMELINE_N_EVENTS && !sxs__json_reader_message(r))
    sxs__vec_append_val(events, e);
  else
    g_free(e.name);
}

/* "timeline": read after the stacks it points into (the writer puts it last). */
static void read_timeline(SxsJsonReader *r, SxsProfileModel *m) {
  if (!sxs__json_reader_begin_object(r))
    return;
  SxsTimelineModel *t = &m->timeline;
  t->present = TRUE;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "window_us"))
      read_ns(r, &t->window_us);
    else if (key_is(key, "cap_bytes"))
      read_ns(r, &t->cap_bytes);
    else if (key_is(key, "detail_bytes"))
      read_ns(r, &t->detail_bytes);
    else if (key_is(key, "detail_from_us"))
      read_ns(r, &t->detail_from_us);
    else if (key_is(key, "end_us"))
      read_ns(r, &t->end_us);
    else if (key_is(key, "start_unix_us"))
      read_ns(r, &t->start_unix_us);
    else if (key_is(key, "monotonic_start_us"))
      read_ns(r, &t->monotonic_start_us);
    else if (key_is(key, "folded_samples"))
      read_count(r, &t->folded_samples);
    else if (key_is(key, "dropped_events"))
      read_count(r, &t->dropped_events);
    else if (key_is(key, "labels") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r)) {
        char *label = NULL;
        read_str(r, &label);
        g_ptr_array_add(t->labels, label ? label : g_strdup("?"));
      }
    } else if (key_is(key, "threads") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r))
        read_timeline_thread(r, m, t->samples);
    } else if (key_is(key, "events") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r))
        read_timeline_event(r, m, t->events);
    } else if (key_is(key, "seconds") && sxs__json_reader_begin_array(r)) {
      while (sxs__json_reader_next_element(r)) {
        SxsTimelineSecond sec = {0};
        guint64 v[3] = {0};
        guint n = 0;
        if (!sxs__json_reader_begin_array(r))
          break;
        while (sxs__json_reader_next_element(r))
          if (n < 3)
            read_bounded(r, SXS_PROFILE_MAX_NS, &v[n++]);
          else
            sxs__json_reader_skip(r);
        if (n != 3) {
          sxs__json_reader_fail(r, SXS_JSON_READ_VALUE, "a second is [second, thread, samples]");
          break;
        }
        sec.second = v[0];
        sec.thread = (uint32_t)MIN(v[1], G_MAXUINT32);
        sec.samples = v[2];
        sxs__vec_append_val(t->seconds, sec);
      }
    } else
      sxs__json_reader_skip(r);
  }
  sxs__timeline_model_check_labels(t);
  sxs__vec_sort(t->samples, sxs__timeline_sample_compare);
  sxs__vec_sort(t->events, sxs__timeline_event_compare);
}

static gboolean version_read(gint64 version) {
  return version >= SXS_PROFILE_VERSION_OLDEST && version <= SXS_PROFILE_VERSION;
}

/* "format": FALSE when it says the document is something else, which ends the walk. */
static gboolean read_format(SxsJsonReader *r, ProfileHeader *h) {
  const char *s;
  gsize len;
  SxsJsonType type = sxs__json_reader_peek(r);
  if (type == SXS_JSON_INVALID || (type == SXS_JSON_STRING && !sxs__json_reader_string_view(r, &s, &len)))
    return FALSE;
  if (type != SXS_JSON_STRING || len != strlen("sxsprof") || memcmp(s, "sxsprof", len) != 0) {
    h->format = FORMAT_OTHER;
    return FALSE;
  }
  h->format = FORMAT_SXSPROF;
  return TRUE;
}

/* The whole document, its top level an object. Stops early at a "format" other than sxsprof and
 * at a "version" this sxsprof does not read once the format is known. */
static void read_document(SxsJsonReader *r, SxsProfileModel *m, ProfileHeader *h) {
  if (!sxs__json_reader_begin_object(r))
    return;
  const char *key;
  while (sxs__json_reader_next_member(r, &key)) {
    if (key_is(key, "format")) {
      if (!read_format(r, h) || (h->has_version && !version_read(h->version)))
        return;
    } else if (key_is(key, "version")) {
      if (sxs__json_reader_int64(r, &h->version))
        h->has_version = TRUE;
      if (h->has_version && !version_read(h->version) && h->format == FORMAT_SXSPROF)
        return;
    } else if (key_is(key, "process")) {
      read_process(r, &m->process);
    } else if (key_is(key, "mode")) {
      read_str(r, &m->mode);
    } else if (key_is(key, "config")) {
      read_str(r, &m->config);
    } else if (key_is(key, "log")) {
      read_str(r, &m->log);
    } else if (key_is(key, "runtimes")) {
      read_runtimes(r, m->runtimes);
    } else if (key_is(key, "frame_table")) {
      read_frame_table(r, h->frame_table);
    } else if (key_is(key, "stacks")) {
      read_event_stacks(r, h->frame_table, m->stacks);
    } else if (key_is(key, "stack_walks")) {
      read_stack_walks(r, &m->walks);
    } else if (key_is(key, "samples")) {
      read_samples(r, h->frame_table, &m->samples);
    } else if (key_is(key, "exceptions")) {
      read_event_profile(r, h->frame_table, SXS_PROFILE_EXCEPTIONS, &m->profiles[SXS_PROFILE_EXCEPTIONS]);
    } else if (key_is(key, "contention")) {
      read_event_profile(r, h->frame_table, SXS_PROFILE_CONTENTION, &m->profiles[SXS_PROFILE_CONTENTION]);
    } else if (key_is(key, "allocations")) {
      read_event_profile(r, h->frame_table, SXS_PROFILE_ALLOCATIONS, &m->profiles[SXS_PROFILE_ALLOCATIONS]);
    } else if (key_is(key, "timeline")) {
      read_timeline(r, m);
    }
    /* The top-level "pid" repeats process.pid. */
  }
  sxs__json_reader_end(r);
}

static gboolean only_space(const char *text, gsize len) {
  for (gsize i = 0; i < len; i++)
    if (text[i] != ' ' && text[i] != '\n' && text[i] != '\r' && text[i] != '\t')
      return FALSE;
  return TRUE;
}

/* Sets error from what the walk saw (the order is explained at the top of the file). FALSE when
 * the document is a profile this sxsprof reads. */
static gboolean profile_error(const char *source, SxsJsonReader *r, const ProfileHeader *h, GError **error) {
  const char *what;
  int line, column;
  SxsJsonReadError e = sxs__json_reader_error(r, &what, &line, &column);
  if (h->format == FORMAT_OTHER) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_PROFILE,
                "%s is not an sxsprof profile (its \"format\" is not \"sxsprof\")", source);
    return TRUE;
  }
  if (h->has_version && h->version > SXS_PROFILE_VERSION && (h->format == FORMAT_SXSPROF || e != SXS_JSON_READ_OK)) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_VERSION,
                "%s was written by a newer sxsprof (profile version %" G_GINT64_FORMAT
                "; this sxsprof reads versions %d to %d)",
                source, h->version, SXS_PROFILE_VERSION_OLDEST, SXS_PROFILE_VERSION);
    return TRUE;
  }
  switch (e) {
  case SXS_JSON_READ_SYNTAX:
  case SXS_JSON_READ_DEPTH:
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_JSON, "%s is not JSON: %s", source,
                sxs__json_reader_message(r));
    return TRUE;
  case SXS_JSON_READ_EOF:
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_TRUNCATED,
                "%s is truncated: %s at line %d, column %d", source, what, line, column);
    return TRUE;
  case SXS_JSON_READ_TYPE:
  case SXS_JSON_READ_VALUE: {
    if (h->format == FORMAT_MISSING)
      break;
    g_autofree char *path = sxs__json_reader_path(r);
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_INVALID, "%s: %s: %s at line %d, column %d",
                source, *path ? path : "(top level)", what, line, column);
    return TRUE;
  }
  case SXS_JSON_READ_OK: break;
  }
  if (h->format == FORMAT_MISSING) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_PROFILE,
                "%s is not an sxsprof profile (it has no \"format\": \"sxsprof\")", source);
    return TRUE;
  }
  if (!h->has_version || h->version < 1) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_PROFILE,
                "%s is not an sxsprof profile (it has no \"version\" of 1 or more)", source);
    return TRUE;
  }
  return FALSE;
}

/* sxs__profile_read, with source naming the text in messages. */
static SxsProfileModel *profile_read_source(const char *source, const char *text, gsize len, GError **error) {
  if (only_space(text, len)) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_EMPTY, "%s is empty", source);
    return NULL;
  }
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, len);
  SxsJsonType top = sxs__json_reader_peek(&r);
  if (top != SXS_JSON_OBJECT && top != SXS_JSON_INVALID) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_PROFILE,
                "%s is not an sxsprof profile (its top level is %s, not an object)", source,
                top == SXS_JSON_ARRAY    ? "an array"
                : top == SXS_JSON_STRING ? "a string"
                : top == SXS_JSON_NUMBER ? "a number"
                                         : "a literal");
    return NULL;
  }
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  ProfileHeader h = {.frame_table = g_array_new(FALSE, TRUE, sizeof(SxsStackFrameModel))};
  g_array_set_clear_func(h.frame_table, frame_clear);
  read_document(&r, m, &h);
  g_array_unref(h.frame_table);
  if (profile_error(source, &r, &h, error))
    return NULL;
  return g_steal_pointer(&m);
}

SxsProfileModel *sxs__profile_read(const char *text, gsize len, GError **error) {
  return profile_read_source("the profile", text, len, error);
}

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a folder";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/* Reads a regular file that says it is empty (a /proc or /sys file) to its end, or to one byte
 * past max_size. NULL with errno set on failure. */
static char *read_all(int fd, guint64 max_size, gsize *ret_len) {
  GByteArray *data = g_byte_array_sized_new(4096); /* never NULL when freed, also when empty */
  guint8 chunk[65536];
  while (data->len <= max_size) {
    ssize_t n = read(fd, chunk, (size_t)MIN(sizeof chunk, max_size + 1 - data->len));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int saved = errno;
      g_byte_array_unref(data);
      errno = saved;
      return NULL;
    }
    if (n == 0)
      break;
    g_byte_array_append(data, chunk, (guint)n);
  }
  *ret_len = data->len;
  return (char *)g_byte_array_free(data, FALSE);
}

G_GNUC_PRINTF(4, 5)
static SxsProfileModel *load_fail(GError **error, int fd, int code, const char *format, ...) {
  if (fd >= 0)
    close(fd);
  va_list args;
  va_start(args, format);
  g_autofree char *message = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, SXS_PROFILE_READ_ERROR, code, message);
  return NULL;
}

SxsProfileModel *sxs__profile_load(const char *path, guint64 max_size, GError **error) {
  if (max_size == 0)
    max_size = SXS_PROFILE_MAX_FILE_SIZE;
  /* O_NONBLOCK: opening a FIFO that has no writer must not wait for one. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return load_fail(error, -1, SXS_PROFILE_READ_ERROR_FILE, "cannot open %s: %s", path, g_strerror(errno));
  struct stat st;
  if (fstat(fd, &st) < 0)
    return load_fail(error, fd, SXS_PROFILE_READ_ERROR_FILE, "cannot read %s: %s", path, g_strerror(errno));
  if (S_ISDIR(st.st_mode))
    return load_fail(error, fd, SXS_PROFILE_READ_ERROR_FILE, "%s is a folder, not a profile", path);
  if (!S_ISREG(st.st_mode))
    return load_fail(error, fd, SXS_PROFILE_READ_ERROR_FILE, "%s is %s, not a profile; expected a regular file", path,
                     file_kind(st.st_mode));
  if ((guint64)st.st_size > max_size)
    return load_fail(error, fd, SXS_PROFILE_READ_ERROR_TOO_LARGE,
                     "%s is %" G_GUINT64_FORMAT " bytes; expected a profile of at most %" G_GUINT64_FORMAT " bytes",
                     path, (guint64)st.st_size, max_size);

  SxsProfileModel *m;
  if (st.st_size > 0) {
    gsize len = (gsize)st.st_size;
    void *text = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    int saved = errno;
    close(fd);
    if (text == MAP_FAILED)
      return load_fail(error, -1, SXS_PROFILE_READ_ERROR_FILE, "cannot read %s: %s", path, g_strerror(saved));
    m = profile_read_source(path, text, len, error);
    munmap(text, len);
    return m;
  }
  gsize len = 0;
  g_autofree char *text = read_all(fd, max_size, &len);
  int saved = errno;
  close(fd);
  if (!text)
    return load_fail(error, -1, SXS_PROFILE_READ_ERROR_FILE, "cannot read %s: %s", path, g_strerror(saved));
  if (len > max_size)
    return load_fail(error, -1, SXS_PROFILE_READ_ERROR_TOO_LARGE,
                     "%s is more than %" G_GUINT64_FORMAT " bytes; expected a profile of at most %" G_GUINT64_FORMAT
                     " bytes",
                     path, max_size, max_size);
  return profile_read_source(path, text, len, error);
}
