/* sxs_diff: two views compared (see sxs_diff.h): frames matched by key, stacks merged by their
 * keys, per frame totals with their changes and noise, and the merged tree the flame graph draws. */
#include "sxs_diff.h"

#include <math.h>
#include <string.h>

/* Does out end with s? */
static gboolean ends_with(const GString *out, const char *s) {
  gsize n = strlen(s);
  return out->len >= n && memcmp(out->str + out->len - n, s, n) == 0;
}

/* Is the ordinal starting at out's end one the compiler numbers: after "__DisplayClass", after
 * ">X__" (b lambdas, d state machines, c closures' classes, 9 cached delegates, ...), or after the
 * '|' of a local function's "<Outer>g__Name|"? */
static gboolean before_ordinal(const GString *out) {
  if (ends_with(out, "__DisplayClass"))
    return TRUE;
  if (out->len >= 4 && ends_with(out, "__") && out->str[out->len - 4] == '>' && g_ascii_isalnum(out->str[out->len - 3]))
    return TRUE;
  if (ends_with(out, "|")) {
    const char *g = g_strrstr_len(out->str, (gssize)out->len, ">g__");
    return g != NULL;
  }
  return FALSE;
}

char *sxs__diff_normalize_name(const char *name) {
  if (!name)
    return g_strdup("?");
  GString *out = g_string_sized_new(strlen(name));
  for (const char *p = name; *p;) {
    if (g_ascii_isdigit(*p) && before_ordinal(out)) {
      /* digits, then any "_digits" */
      while (g_ascii_isdigit(*p) || (*p == '_' && g_ascii_isdigit(p[1])))
        p++;
      g_string_append_c(out, '#');
      continue;
    }
    g_string_append_c(out, *p++);
  }
  return g_string_free(out, FALSE);
}

/* The key a view frame matches by. */
static char *frame_key(const SxsViewFrame *f, gboolean exact) {
  if (!f->managed) {
    const char *name = f->name && *f->name ? f->name : "";
    const char *plus = strstr(name, "+0x");
    g_autofree char *module = NULL;
    if (f->module && *f->module)
      module = g_path_get_basename(f->module);
    else if (plus && plus > name)
      module = g_strndup(name, plus - name);
    gboolean address = !*name || plus || g_str_has_prefix(name, "0x");
    return g_strdup_printf("[native] %s!%s", module ? module : "?", address ? "?" : name);
  }
  char *key = exact ? g_strdup(f->name ? f->name : "?") : sxs__diff_normalize_name(f->name);
  if (f->line && f->file) {
    const char *slash = strrchr(f->file, '/'), *back = strrchr(f->file, '\\');
    const char *base = MAX(slash, back);
    char *with = g_strdup_printf("%s (%s:%u)", key, base ? base + 1 : f->file, f->line);
    g_free(key);
    key = with;
  }
  return key;
}

static void diff_frame_free(gpointer p) {
  SxsDiffFrame *f = p;
  g_free(f->key);
  g_free(f);
}

void sxs__diff_free(SxsDiff *d) {
  if (!d)
    return;
  for (guint i = 0; i < d->stacks->len; i++)
    g_free(g_array_index(d->stacks, SxsDiffStack, i).frames);
  g_array_unref(d->stacks);
  g_ptr_array_unref(d->frames);
  g_free(d);
}

typedef struct {
  SxsDiff *d;
  GHashTable *by_key;   /* key (borrowed from the frame) -> index + 1 */
  GHashTable *by_stack; /* GBytes of the frames (borrowed) -> stack index + 1 */
  GArray *scratch;      /* guint32 frames of the stack being added */
} DiffBuilder;

static guint32 intern(DiffBuilder *b, const SxsViewFrame *vf) {
  char *key = frame_key(vf, b->d->options.exact_names);
  gpointer hit = g_hash_table_lookup(b->by_key, key);
  if (hit) {
    g_free(key);
    return GPOINTER_TO_UINT(hit) - 1;
  }
  SxsDiffFrame *f = g_new0(SxsDiffFrame, 1);
  f->key = key;
  f->managed = vf->managed;
  f->runtime_id = vf->managed ? vf->runtime_id : 0;
  g_ptr_array_add(b->d->frames, f);
  g_hash_table_insert(b->by_key, f->key, GUINT_TO_POINTER(b->d->frames->len));
  return b->d->frames->len - 1;
}

static void add_side(DiffBuilder *b, const SxsView *v, SxsViewKind k, int side) {
  if (!v)
    return;
  /* view frame index -> diff frame index, G_MAXUINT32 until met */
  g_autoptr(GArray) map = g_array_sized_new(FALSE, FALSE, sizeof(guint32), v->frames->len);
  g_array_set_size(map, v->frames->len);
  memset(map->data, 0xff, sizeof(guint32) * v->frames->len);
  /* view frame index -> its runtime's bit */
  g_autofree guint64 *bits = g_new0(guint64, MAX(v->frames->len, 1));
  for (guint i = 0; i < v->frames->len; i++) {
    const SxsViewFrame *f = g_ptr_array_index(v->frames, i);
    if (f->managed && f->runtime_id >= 1 && f->runtime_id <= 64)
      bits[i] = G_GUINT64_CONSTANT(1) << (f->runtime_id - 1);
  }
  SxsViewIter it;
  sxs__view_iter_init(&it, v, k);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    if (s->depth == 0 || (s->weight == 0 && s->count == 0))
      continue;
    /* The key: the frames, then the runtimes' bits in two more words. */
    g_array_set_size(b->scratch, s->depth + 2);
    guint32 *frames = (guint32 *)b->scratch->data;
    guint64 runtimes = 0;
    for (guint i = 0; i < s->depth; i++) {
      guint32 *slot = &g_array_index(map, guint32, s->frames[i]);
      if (*slot == G_MAXUINT32)
        *slot = intern(b, g_ptr_array_index(v->frames, s->frames[i]));
      frames[i] = *slot;
      runtimes |= bits[s->frames[i]];
    }
    memcpy(frames + s->depth, &runtimes, sizeof runtimes);
    GBytes *key = g_bytes_new_static(frames, (s->depth + 2) * sizeof *frames);
    gpointer hit = g_hash_table_lookup(b->by_stack, key);
    g_bytes_unref(key);
    SxsDiffStack *ds;
    if (hit) {
      ds = &g_array_index(b->d->stacks, SxsDiffStack, GPOINTER_TO_UINT(hit) - 1);
    } else {
      SxsDiffStack fresh = {
          .frames = g_memdup2(frames, (s->depth + 2) * sizeof *frames), .depth = s->depth, .runtimes = runtimes};
      g_array_append_val(b->d->stacks, fresh);
      ds = &g_array_index(b->d->stacks, SxsDiffStack, b->d->stacks->len - 1);
      g_hash_table_insert(b->by_stack, g_bytes_new_static(ds->frames, (s->depth + 2) * sizeof *frames),
                          GUINT_TO_POINTER(b->d->stacks->len));
    }
    /* Allocations count upscaled objects, not what was sampled: one sample per
     * SXS_DIFF_ALLOCATION_SAMPLE bytes is what their noise comes from. */
    guint64 count =
        k == SXS_VIEW_ALLOCATIONS
            ? (s->weight ? MAX(1, (s->weight + SXS_DIFF_ALLOCATION_SAMPLE / 2) / SXS_DIFF_ALLOCATION_SAMPLE) : 0)
            : s->count;
    ds->weight[side] = sxs__saturating_add(ds->weight[side], s->weight, SXS_PROFILE_MAX_NS);
    ds->count[side] = sxs__saturating_add(ds->count[side], count, SXS_PROFILE_MAX_NS);
    b->d->total[side] = sxs__saturating_add(b->d->total[side], s->weight, SXS_PROFILE_MAX_NS);
    b->d->total_count[side] = sxs__saturating_add(b->d->total_count[side], count, SXS_PROFILE_MAX_NS);
  }
}

SxsDiff *sxs__diff_new(const SxsView *base, const SxsView *new_view, SxsViewKind k, const SxsDiffOptions *o) {
  if (k >= SXS_VIEW_N_KINDS) {
    k = new_view ? sxs__view_primary_kind(new_view) : SXS_VIEW_N_KINDS;
    if (k >= SXS_VIEW_N_KINDS && base)
      k = sxs__view_primary_kind(base);
  }
  SxsDiff *d = g_new0(SxsDiff, 1);
  d->kind = k;
  d->frames = g_ptr_array_new_with_free_func(diff_frame_free);
  d->stacks = g_array_new(FALSE, FALSE, sizeof(SxsDiffStack));
  if (o)
    d->options = *o;
  d->unit = "samples";
  if (k < SXS_VIEW_N_KINDS)
    d->unit = new_view && sxs__view_primary_kind(new_view) != SXS_VIEW_N_KINDS ? sxs__view_kind_unit(new_view, k)
              : base                                                           ? sxs__view_kind_unit(base, k)
                                                                               : "samples";
  if (k >= SXS_VIEW_N_KINDS)
    return d;
  DiffBuilder b = {.d = d,
                   .by_key = g_hash_table_new(g_str_hash, g_str_equal),
                   .by_stack = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL),
                   .scratch = g_array_new(FALSE, FALSE, sizeof(guint32))};
  /* NEW first: a key's runtime is NEW's when both have it. */
  add_side(&b, new_view, k, SXS_DIFF_NEW);
  add_side(&b, base, k, SXS_DIFF_BASE);
  g_hash_table_unref(b.by_key);
  g_hash_table_unref(b.by_stack);
  g_array_unref(b.scratch);
  return d;
}

SxsDiff *sxs__diff_restrict(const SxsDiff *d, int runtime_id) {
  SxsDiff *r = g_new0(SxsDiff, 1);
  r->kind = d->kind;
  r->unit = d->unit;
  r->options = d->options;
  r->frames = g_ptr_array_ref(d->frames);
  r->stacks = g_array_new(FALSE, FALSE, sizeof(SxsDiffStack));
  guint64 bit = runtime_id >= 1 && runtime_id <= 64 ? G_GUINT64_CONSTANT(1) << (runtime_id - 1) : 0;
  for (guint i = 0; i < d->stacks->len; i++) {
    const SxsDiffStack *s = &g_array_index(d->stacks, SxsDiffStack, i);
    if (!(s->runtimes & bit))
      continue;
    SxsDiffStack c = *s;
    c.frames = g_memdup2(s->frames, (s->depth + 2) * sizeof *s->frames);
    g_array_append_val(r->stacks, c);
    for (int side = 0; side < 2; side++) {
      r->total[side] += s->weight[side];
      r->total_count[side] += s->count[side];
    }
  }
  return r;
}

SxsDiffChange sxs__diff_noise(const guint64 w[2], const guint64 n[2], const guint64 W[2], const guint64 N[2],
                              gboolean absolute) {
  SxsDiffChange c = {0};
  double n0 = (double)n[0], n1 = (double)n[1], w0 = (double)w[0], w1 = (double)w[1];
  /* the frame's weight per count over the whole profile's: 1 for samples */
  double per = n0 + n1 > 0 ? (w0 + w1) / (n0 + n1) : 1.0;
  if (absolute) {
    c.before = w0;
    c.after = w1;
    c.error = sqrt(n0 + n1) * per;
  } else {
    double Wt0 = (double)W[0], Wt1 = (double)W[1], N0 = (double)N[0], N1 = (double)N[1];
    c.before = Wt0 > 0 ? w0 / Wt0 : 0.0;
    c.after = Wt1 > 0 ? w1 / Wt1 : 0.0;
    double overall = N0 + N1 > 0 ? (Wt0 + Wt1) / (N0 + N1) : 1.0;
    double scale = overall > 0 ? per / overall : 1.0;
    if (N0 > 0 && N1 > 0) {
      double p = (n0 + n1) / (N0 + N1);
      c.error = sqrt(p * (1 - p) * (1 / N0 + 1 / N1)) * scale;
    } else {
      c.error = 0; /* one side has nothing: every change is the whole of the other */
    }
  }
  c.change = c.after - c.before;
  c.beyond = c.change != 0 && fabs(c.change) > SXS_DIFF_NOISE_ERRORS * c.error;
  return c;
}

GArray *sxs__diff_frame_totals(const SxsDiff *d) {
  guint nf = d->frames->len;
  GArray *all = g_array_sized_new(FALSE, TRUE, sizeof(SxsDiffFrameTotal), nf);
  g_array_set_size(all, nf);
  g_autofree guint32 *stamp = g_new0(guint32, MAX(nf, 1));
  for (guint i = 0; i < d->stacks->len; i++) {
    const SxsDiffStack *s = &g_array_index(d->stacks, SxsDiffStack, i);
    for (int side = 0; side < 2; side++) {
      SxsDiffFrameTotal *leaf = &g_array_index(all, SxsDiffFrameTotal, s->frames[s->depth - 1]);
      leaf->self[side] += s->weight[side];
      leaf->self_count[side] += s->count[side];
    }
    for (guint j = 0; j < s->depth; j++) {
      guint32 f = s->frames[j];
      if (stamp[f] == i + 1)
        continue; /* recursion: once per stack */
      stamp[f] = i + 1;
      SxsDiffFrameTotal *t = &g_array_index(all, SxsDiffFrameTotal, f);
      for (int side = 0; side < 2; side++) {
        t->total[side] += s->weight[side];
        t->total_count[side] += s->count[side];
      }
    }
  }
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SxsDiffFrameTotal));
  for (guint f = 0; f < nf; f++) {
    SxsDiffFrameTotal *t = &g_array_index(all, SxsDiffFrameTotal, f);
    if (t->total[0] == 0 && t->total[1] == 0)
      continue;
    t->frame = f;
    t->self_change = sxs__diff_noise(t->self, t->self_count, d->total, d->total_count, d->options.absolute);
    t->total_change = sxs__diff_noise(t->total, t->total_count, d->total, d->total_count, d->options.absolute);
    g_array_append_val(out, *t);
  }
  g_array_unref(all);
  return out;
}

void sxs__diff_tree_free(SxsDiffTree *t) {
  if (!t)
    return;
  g_array_unref(t->nodes);
  g_free(t->children);
  g_free(t);
}

typedef struct {
  const SxsDiff *d;
  const SxsDiffNode *nodes;
} ChildSort;

static int compare_children(gconstpointer a, gconstpointer b, gpointer data) {
  const ChildSort *cs = data;
  const SxsDiffNode *x = &cs->nodes[*(const guint32 *)a], *y = &cs->nodes[*(const guint32 *)b];
  return strcmp(((const SxsDiffFrame *)cs->d->frames->pdata[x->frame])->key,
                ((const SxsDiffFrame *)cs->d->frames->pdata[y->frame])->key);
}

/* A (parent, frame) pair packed in a pointer (64 bits), and its hash. */
static guint pair_hash(gconstpointer p) {
  guint64 k = (guint64)(guintptr)p * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
  return (guint)(k >> 32);
}

SxsDiffTree *sxs__diff_tree_new(const SxsDiff *d) {
  SxsDiffTree *t = g_new0(SxsDiffTree, 1);
  t->nodes = g_array_new(FALSE, TRUE, sizeof(SxsDiffNode));
  SxsDiffNode root = {.frame = G_MAXUINT32, .parent = G_MAXUINT32};
  g_array_append_val(t->nodes, root);
  /* (parent << 32 | frame) -> node index */
  G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(guint64));
  g_autoptr(GHashTable) index = g_hash_table_new(pair_hash, g_direct_equal);
  for (guint i = 0; i < d->stacks->len; i++) {
    const SxsDiffStack *s = &g_array_index(d->stacks, SxsDiffStack, i);
    guint32 node = 0;
    for (int side = 0; side < 2; side++) {
      g_array_index(t->nodes, SxsDiffNode, 0).total[side] += s->weight[side];
      g_array_index(t->nodes, SxsDiffNode, 0).total_count[side] += s->count[side];
    }
    for (guint j = 0; j < s->depth; j++) {
      gpointer key = (gpointer)(guintptr)(((guint64)node << 32) | s->frames[j]);
      gpointer hit = g_hash_table_lookup(index, key);
      guint32 child;
      if (hit) {
        child = GPOINTER_TO_UINT(hit);
      } else {
        SxsDiffNode fresh = {.frame = s->frames[j], .parent = node};
        g_array_append_val(t->nodes, fresh);
        child = t->nodes->len - 1;
        g_hash_table_insert(index, key, GUINT_TO_POINTER(child));
      }
      SxsDiffNode *c = &g_array_index(t->nodes, SxsDiffNode, child);
      for (int side = 0; side < 2; side++) {
        c->total[side] += s->weight[side];
        c->total_count[side] += s->count[side];
        if (j + 1 == s->depth) {
          c->self[side] += s->weight[side];
          c->self_count[side] += s->count[side];
        }
      }
      node = child;
    }
  }
  /* Children grouped per parent: count, place, then sort each group by key. */
  guint n = t->nodes->len;
  SxsDiffNode *nodes = (SxsDiffNode *)t->nodes->data;
  for (guint i = 1; i < n; i++)
    nodes[nodes[i].parent].n_children++;
  guint32 next = 0;
  for (guint i = 0; i < n; i++) {
    nodes[i].first_child = next;
    next += nodes[i].n_children;
    nodes[i].n_children = 0;
  }
  t->children = g_new(guint32, MAX(n, 1));
  for (guint i = 1; i < n; i++) {
    SxsDiffNode *p = &nodes[nodes[i].parent];
    t->children[p->first_child + p->n_children++] = i;
  }
  ChildSort cs = {.d = d, .nodes = nodes};
  for (guint i = 0; i < n; i++)
    if (nodes[i].n_children > 1)
      g_qsort_with_data(t->children + nodes[i].first_child, (gint)nodes[i].n_children, sizeof(guint32),
                        compare_children, &cs);
  return t;
}
