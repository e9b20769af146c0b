/* sxs_activity: which request each thread works for (see sxs_activity.h).
 *
 *   RequestStart(activity) ──> a request slot (endpoint label, start; a token: slot and generation)
 *   TraceOperationBegin(task, activity) ──> task -> token
 *   TraceSynchronousWorkBegin(task) on T ──> T's work stack gets task's token; End pops it
 *   T's innermost token ──> published in the thread table, read by T's signal handler
 *
 * A token stays valid until its slot is reused (SLOTS requests later); a request's stop time is
 * kept in its slot, so a sample taken after its request ended (a thread whose work was cut short
 * without its End event) is nobody's. The thread table is open addressing by thread id, each
 * entry written by its own thread (the id claimed with a compare-and-swap), read by its handler
 * without a lock. */
#include "sxs_activity.h"

#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sxs_timeline_rec.h"

#define SLOT_BITS 12
#define SLOTS (1u << SLOT_BITS)
#define GEN_MAX ((1u << (32 - SLOT_BITS)) - 1)
#define TOKEN(slot, gen) ((guint32)(slot) | (guint32)(gen) << SLOT_BITS)
#define TOKEN_SLOT(token) ((token) & (SLOTS - 1))
#define TOKEN_GEN(token) ((token) >> SLOT_BITS)
#define TIDS 8192u
#define TID_GONE (-1)
#define WORK_DEPTH 32
#define TASK_SLOTS (1u << 16)
#define ROUTES_MAX 1024

typedef struct {
  guint32 gen;      /* atomic: the generation of the request in it (0: never used) */
  guint32 label;    /* atomic */
  guint64 stop_ns;  /* atomic: when it ended (CLOCK_MONOTONIC), G_MAXUINT64 while it runs */
  guint64 start_us; /* the timeline's clock */
  guint32 thread;   /* where it began */
  gboolean live;
  guint8 key[20]; /* runtime id and activity ID */
} Request;

typedef struct {
  gint32 tid; /* 0: free, TID_GONE: was a thread's */
  guint32 token;
} TidEntry;

static struct {
  GMutex lock;
  GHashTable *labels;   /* name -> label (owned keys) */
  GPtrArray *names;     /* label - 1 -> name (the keys above) */
  GPtrArray *routes;    /* the route templates seen ("/orders/{id:int}"), ROUTES_MAX at most */
  GPtrArray *shown;     /* label - 1 -> its name as shown (NULL: not resolved since routes changed) */
  guint names_gen;      /* atomic: changes when a label's name as shown may change */
  GHashTable *requests; /* key (20 bytes, owned) -> slot + 1 */
  guint next_slot;
  guint32 next_gen;
  guint64 requests_seen;
} act;

static Request slots[SLOTS];
static TidEntry tids[TIDS];
/* The async operations begun under a request: direct-mapped by task id, each word its token (high
 * half) and its key (low half: the task id mixed with the runtime's id), written and read with
 * atomics, no lock. Task ids are handed out in sequence, so the operations in flight (hundreds)
 * fall in distinct slots; one that meets a newer one in its slot (65,536 tasks later) is no longer
 * followed. */
static guint64 tasks[TASK_SLOTS];

typedef struct {
  gint32 tid;
  TidEntry *entry; /* NULL: not published (the table was full) */
  guint32 base;    /* the token outside any work item */
  int depth;       /* items begun, possibly more than WORK_DEPTH (the extra ones are not kept) */
  guint32 tokens[WORK_DEPTH];
  gint8 works[WORK_DEPTH];
  guint8 activity[20];    /* the request activity this thread met last (runtime id and ID) ... */
  guint32 activity_token; /* ... and its token: most operations begin on the thread of their request */
  guint8 own[20];         /* the last request begun here without an activity ID (its key) */
  guint64 own_seq;        /* how many such requests began here */
} ThreadState;

static __thread ThreadState self;

static guint key_hash(gconstpointer k) {
  const guint8 *b = k;
  guint h = 2166136261u;
  for (int i = 0; i < 20; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
  return memcmp(a, b, 20) == 0;
}

static void make_key(guint8 *key, int runtime_id, const guint8 *activity) {
  gint32 r = runtime_id;
  memcpy(key, &r, 4);
  memcpy(key + 4, activity, 16);
}

static gboolean activity_zero(const guint8 *activity) {
  static const guint8 zero[16];
  return !activity || memcmp(activity, zero, 16) == 0;
}

static void ensure_locked(void) {
  if (act.labels)
    return;
  act.labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  act.names = g_ptr_array_new();
  act.requests = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
  act.routes = g_ptr_array_new_with_free_func(g_free);
  act.shown = g_ptr_array_new_with_free_func(g_free);
}

static guint64 now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (guint64)ts.tv_sec * 1000000000u + (guint64)ts.tv_nsec;
}

static gint32 my_tid(void) {
  if (!self.tid)
    self.tid = (gint32)syscall(SYS_gettid);
  return self.tid;
}

/* The table's entry of tid: found, or claimed when `claim`; NULL when absent (or the table full). */
static TidEntry *tid_entry(gint32 tid, gboolean claim) {
  guint start = ((guint)tid * 2654435761u) % TIDS;
  for (guint i = 0; i < TIDS; i++) {
    TidEntry *e = &tids[(start + i) % TIDS];
    gint32 cur = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);
    if (cur == tid)
      return e;
    if (cur == 0 && !claim)
      return NULL;
    if ((cur == 0 || cur == TID_GONE) && claim) {
      __atomic_store_n(&e->token, 0, __ATOMIC_RELAXED);
      if (__atomic_compare_exchange_n(&e->tid, &cur, tid, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return e;
      if (cur == tid)
        return e;
    }
  }
  return NULL;
}

static guint32 current_token(void) {
  int d = MIN(self.depth, WORK_DEPTH);
  return d > 0 ? self.tokens[d - 1] : self.base;
}

/* Publishes the calling thread's current token for its signal handler. */
static void publish(void) {
  if (!self.entry) {
    if (current_token() == 0)
      return;
    self.entry = tid_entry(my_tid(), TRUE);
    if (!self.entry)
      return;
  }
  __atomic_store_n(&self.entry->token, current_token(), __ATOMIC_RELEASE);
}

static guint label_locked(const char *name) {
  gpointer v = g_hash_table_lookup(act.labels, name);
  if (v)
    return GPOINTER_TO_UINT(v);
  if (act.names->len >= SXS_ACTIVITY_MAX_LABELS - 1) {
    v = g_hash_table_lookup(act.labels, "(other)");
    if (v)
      return GPOINTER_TO_UINT(v);
    name = "(other)";
  }
  char *copy = g_strdup(name);
  g_ptr_array_add(act.names, copy);
  g_ptr_array_add(act.shown, NULL);
  guint label = act.names->len;
  g_hash_table_insert(act.labels, copy, GUINT_TO_POINTER(label));
  return label;
}

/* Is a path segment a value rather than a name: a number, a GUID, or a token of 16 or more
 * characters mixing digits and letters? */
static gboolean segment_is_value(const char *s, gsize n) {
  if (n == 0)
    return FALSE;
  gsize digits = 0, hex = 0, alnum = 0, dashes = 0;
  for (gsize i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    digits += g_ascii_isdigit(c) != 0;
    hex += g_ascii_isxdigit(c) != 0;
    alnum += g_ascii_isalnum(c) != 0;
    dashes += c == '-' || c == '_' || c == '.' || c == '=' || c == '%';
  }
  if (digits == n || (n > 1 && (s[0] == '-' || s[0] == '+') && digits == n - 1))
    return TRUE;
  if (n == 36 && dashes == 4 && hex == 32)
    return TRUE;
  return n >= 16 && digits > 0 && alnum + dashes == n;
}

char *sxs__activity_endpoint(const char *method, const char *path) {
  GString *s = g_string_new(method && *method ? method : "?");
  g_string_append_c(s, ' ');
  if (!path || !*path) {
    g_string_append_c(s, '/');
    return g_string_free(s, FALSE);
  }
  const char *end = path + strcspn(path, "?#");
  const char *p = path;
  while (p < end) {
    const char *slash = memchr(p, '/', (gsize)(end - p));
    const char *seg_end = slash ? slash : end;
    if (segment_is_value(p, (gsize)(seg_end - p)))
      g_string_append(s, "{id}");
    else
      g_string_append_len(s, p, seg_end - p);
    if (!slash)
      break;
    g_string_append_c(s, '/');
    p = slash + 1;
  }
  return g_string_free(s, FALSE);
}

/* Is the request of key (runtime id and activity) still running? Called with act.lock held. */
static gboolean request_live_locked(const guint8 *key) {
  return act.requests && g_hash_table_contains(act.requests, key);
}

gboolean sxs__activity_request_start(int runtime_id, const guint8 *activity, const char *method, const char *path,
                                     guint64 now_us) {
  g_autofree char *endpoint = sxs__activity_endpoint(method, path);
  guint8 key[20];
  gboolean left = FALSE;
  if (activity_zero(activity)) {
    /* No activity ID (the TPL's are not asked for): the request is this thread's until it stops
     * here. One begun here before that has not stopped here went on elsewhere. */
    guint8 own[16] = {0xff, 0xff, 's', 'x'};
    gint32 tid = my_tid();
    guint64 seq = ++self.own_seq;
    memcpy(own + 4, &tid, sizeof tid);
    memcpy(own + 8, &seq, sizeof seq);
    make_key(key, runtime_id, own);
  } else {
    make_key(key, runtime_id, activity);
  }
  guint32 token;
  g_mutex_lock(&act.lock);
  ensure_locked();
  if (activity_zero(activity)) {
    left = self.own_seq > 1 && request_live_locked(self.own);
    memcpy(self.own, key, sizeof key);
  }
  guint label = label_locked(endpoint);
  gpointer old = g_hash_table_lookup(act.requests, key);
  guint slot;
  if (old) {
    slot = GPOINTER_TO_UINT(old) - 1;
  } else {
    /* The next slot not in use (a request that never stopped is given up after SLOTS others). */
    slot = act.next_slot;
    for (guint i = 0; i < SLOTS && slots[(act.next_slot + i) % SLOTS].live; i++)
      slot = (act.next_slot + i + 1) % SLOTS;
    act.next_slot = (slot + 1) % SLOTS;
    Request *r = &slots[slot];
    if (r->live)
      g_hash_table_remove(act.requests, r->key);
    if (++act.next_gen > GEN_MAX)
      act.next_gen = 1;
    __atomic_store_n(&r->gen, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&r->stop_ns, G_MAXUINT64, __ATOMIC_RELEASE);
    __atomic_store_n(&r->label, label, __ATOMIC_RELEASE);
    r->start_us = now_us;
    r->thread = (guint32)my_tid();
    r->live = TRUE;
    memcpy(r->key, key, sizeof key);
    __atomic_store_n(&r->gen, act.next_gen, __ATOMIC_RELEASE);
    g_hash_table_insert(act.requests, g_memdup2(key, sizeof key), GUINT_TO_POINTER(slot + 1));
    __atomic_add_fetch(&act.requests_seen, 1, __ATOMIC_RELAXED);
  }
  token = TOKEN(slot, slots[slot].gen);
  g_mutex_unlock(&act.lock);
  memcpy(self.activity, key, sizeof key);
  self.activity_token = token;
  int d = MIN(self.depth, WORK_DEPTH);
  if (d > 0)
    self.tokens[d - 1] = token;
  else
    self.base = token;
  publish();
  return left;
}

gboolean sxs__activity_request_stop(int runtime_id, const guint8 *activity, guint64 now_us) {
  if (!act.labels)
    return FALSE;
  guint8 key[20];
  if (!activity_zero(activity))
    make_key(key, runtime_id, activity);
  guint32 token = 0, thread = 0;
  guint label = 0;
  guint64 start_us = 0;
  g_mutex_lock(&act.lock);
  /* By its activity; else the request begun on this thread without one. */
  gpointer v = activity_zero(activity) ? NULL : g_hash_table_lookup(act.requests, key);
  if (!v && self.own_seq && (v = g_hash_table_lookup(act.requests, self.own)) != NULL)
    memcpy(key, self.own, sizeof key);
  if (v) {
    guint slot = GPOINTER_TO_UINT(v) - 1;
    Request *r = &slots[slot];
    token = TOKEN(slot, r->gen);
    label = r->label;
    start_us = r->start_us;
    thread = r->thread;
    r->live = FALSE;
    __atomic_store_n(&r->stop_ns, now_ns(), __ATOMIC_RELEASE);
    g_hash_table_remove(act.requests, key);
  }
  g_mutex_unlock(&act.lock);
  /* Not known: a request begun on another thread without an activity ID (it left its thread, and
   * is not counted), or one begun before the session did (an attach), which a thread that never
   * began a request here may be ending: not taken as a sign. */
  if (!token)
    return self.own_seq > 0;
  gboolean changed = FALSE;
  for (int i = 0; i < MIN(self.depth, WORK_DEPTH); i++)
    if (self.tokens[i] == token) {
      self.tokens[i] = 0;
      changed = TRUE;
    }
  if (self.base == token) {
    self.base = 0;
    changed = TRUE;
  }
  if (changed)
    publish();
  sxs__timeline_rec_event_label(SXS_TIMELINE_REQUEST, runtime_id, thread, start_us,
                                now_us > start_us ? now_us - start_us : 0, 0, 0, NULL, 0, label);
  return thread != (guint32)my_tid();
}

/* A task's key in the table (never 0) and its slot. */
static guint32 task_key(int runtime_id, gint32 task_id) {
  guint32 k = (guint32)task_id ^ (guint32)runtime_id * 0x9E3779B9u;
  return k ? k : 1;
}

static guint64 *task_slot(int runtime_id, gint32 task_id) {
  return &tasks[((guint32)task_id + (guint32)runtime_id * 40503u) % TASK_SLOTS];
}

void sxs__activity_operation_begin(int runtime_id, gint32 task_id, const guint8 *activity) {
  if (activity_zero(activity) || !__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED))
    return;
  guint8 key[20];
  make_key(key, runtime_id, activity);
  guint32 token = 0;
  if (self.activity_token && memcmp(key, self.activity, sizeof key) == 0) {
    token = self.activity_token;
  } else {
    g_mutex_lock(&act.lock);
    gpointer v = act.requests ? g_hash_table_lookup(act.requests, key) : NULL;
    if (v) {
      guint slot = GPOINTER_TO_UINT(v) - 1;
      token = TOKEN(slot, slots[slot].gen);
    }
    g_mutex_unlock(&act.lock);
    if (!token)
      return;
    memcpy(self.activity, key, sizeof key);
    self.activity_token = token;
  }
  __atomic_store_n(task_slot(runtime_id, task_id), (guint64)token << 32 | task_key(runtime_id, task_id),
                   __ATOMIC_RELEASE);
}

void sxs__activity_operation_end(int runtime_id, gint32 task_id) {
  if (!__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED))
    return;
  guint64 *at = task_slot(runtime_id, task_id);
  guint64 cur = __atomic_load_n(at, __ATOMIC_ACQUIRE);
  if (cur && (guint32)cur == task_key(runtime_id, task_id))
    __atomic_compare_exchange_n(at, &cur, 0, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

void sxs__activity_work_begin(int runtime_id, gint32 task_id, int work) {
  guint32 token = 0;
  if (__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED)) {
    guint64 cur = __atomic_load_n(task_slot(runtime_id, task_id), __ATOMIC_ACQUIRE);
    if (cur && (guint32)cur == task_key(runtime_id, task_id))
      token = (guint32)(cur >> 32);
  }
  if (self.depth < WORK_DEPTH) {
    self.tokens[self.depth] = token;
    self.works[self.depth] = (gint8)work;
  }
  self.depth++;
  if (token || self.entry)
    publish();
}

void sxs__activity_work_end(int runtime_id, int work) {
  (void)runtime_id;
  if (self.depth == 0)
    return;
  /* The innermost item of that kind ends, and any begun inside it whose End never came. */
  int d = self.depth;
  if (d <= WORK_DEPTH) {
    int i = d - 1;
    while (i >= 0 && self.works[i] != work)
      i--;
    if (i < 0)
      return;
    self.depth = i;
  } else {
    self.depth--;
  }
  if (self.entry)
    publish();
}

guint sxs__activity_token_label(guint32 token, guint64 at_ns) {
  if (!token)
    return 0;
  Request *r = &slots[TOKEN_SLOT(token)];
  guint32 gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);
  guint label = __atomic_load_n(&r->label, __ATOMIC_ACQUIRE);
  guint64 stop = __atomic_load_n(&r->stop_ns, __ATOMIC_ACQUIRE);
  if (gen != TOKEN_GEN(token) || __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE) != gen)
    return 0;
  return (at_ns ? at_ns : now_ns()) > stop ? 0 : label;
}

guint32 sxs__activity_tid_token(uint32_t tid) {
  if (!__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED))
    return 0;
  TidEntry *e = tid_entry((gint32)tid, FALSE);
  return e ? __atomic_load_n(&e->token, __ATOMIC_ACQUIRE) : 0;
}

guint sxs__activity_current_label(void) {
  return sxs__activity_token_label(current_token(), 0);
}

guint sxs__activity_thread_label(uint32_t thread) {
  if (!thread || !__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED) || (gint32)thread != my_tid())
    return 0;
  return sxs__activity_current_label();
}

void sxs__activity_thread_gone(uint32_t tid) {
  if (!__atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED))
    return;
  TidEntry *e = tid_entry((gint32)tid, FALSE);
  if (e) {
    __atomic_store_n(&e->token, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&e->tid, TID_GONE, __ATOMIC_RELEASE);
  }
}

gboolean sxs__activity_any(void) {
  return __atomic_load_n(&act.requests_seen, __ATOMIC_RELAXED) != 0;
}

/* Is a template segment one parameter alone ({id}, {id:int}, {*rest}), not literal text around it? */
static gboolean segment_one_parameter(const char *t, gsize tn) {
  return tn >= 2 && t[0] == '{' && t[tn - 1] == '}' && !memchr(t + 1, '{', tn - 2);
}

/* One segment of a route template against one segment of an endpoint's path (a value written {id}
 * there): its rank when it matches (3 a literal, 2 a parameter with a constraint, 1 one without),
 * 0 when not. A segment of several parts (`{name}.{ext}`) is taken as one parameter. */
static int segment_rank(const char *t, gsize tn, const char *p, gsize pn) {
  gboolean value = pn == 4 && memcmp(p, "{id}", 4) == 0;
  if (!memchr(t, '{', tn)) {
    if (value)
      return segment_is_value(t, tn) ? 3 : 0;
    return tn == pn && g_ascii_strncasecmp(t, p, tn) == 0 ? 3 : 0;
  }
  if (!segment_one_parameter(t, tn))
    return 1;
  const char *colon = memchr(t, ':', tn);
  if (!colon)
    return 1;
  /* A constraint on numbers or GUIDs takes values only; alpha takes letters only. */
  static const char *const numeric[] = {"int", "long", "decimal", "double", "float", "guid", "range", "min", "max"};
  gsize cn = strcspn(colon + 1, ":(?=}");
  for (guint i = 0; i < G_N_ELEMENTS(numeric); i++)
    if (cn == strlen(numeric[i]) && strncmp(colon + 1, numeric[i], cn) == 0)
      return value ? 2 : 0;
  if (cn == 5 && strncmp(colon + 1, "alpha", 5) == 0) {
    for (gsize i = 0; i < pn; i++)
      if (!g_ascii_isalpha(p[i]))
        return 0;
  }
  return 2;
}

/* A template segment's kind: a catch-all ({*rest}, {**rest}), one that may be left out ({id?},
 * {page=1}), or one that must be there. */
typedef enum { SEG_REQUIRED, SEG_OPTIONAL, SEG_CATCH_ALL } SegKind;

static SegKind segment_kind(const char *t, gsize tn) {
  if (!segment_one_parameter(t, tn))
    return SEG_REQUIRED;
  if (t[1] == '*')
    return SEG_CATCH_ALL;
  return t[tn - 2] == '?' || memchr(t, '=', tn) ? SEG_OPTIONAL : SEG_REQUIRED;
}

/* The next segment of a path or template from *pos (skipping slashes), FALSE at the end. */
static gboolean next_segment(const char *s, gsize *pos, const char **ret, gsize *ret_n) {
  while (s[*pos] == '/')
    (*pos)++;
  if (!s[*pos])
    return FALSE;
  gsize n = strcspn(s + *pos, "/");
  *ret = s + *pos;
  *ret_n = n;
  *pos += n;
  return TRUE;
}

/* A rank of ROUTE_DEPTH digits of 3 bits, one a segment: its digits past depth are 0. */
#define ROUTE_DEPTH 20
static guint64 route_rank_end(guint64 rank, guint depth) {
  return depth < ROUTE_DEPTH ? rank << (3 * (ROUTE_DEPTH - depth)) : rank;
}

guint64 sxs__activity_route_rank(const char *tmpl, const char *path) {
  if (tmpl[0] == '~')
    tmpl++;
  gsize tp = 0, pp = 0;
  guint64 rank = 1;
  const char *t = NULL, *p = NULL;
  gsize tn = 0, pn = 0;
  for (guint depth = 0;; depth++) {
    gboolean more_t = next_segment(tmpl, &tp, &t, &tn);
    gboolean more_p = next_segment(path, &pp, &p, &pn);
    if (!more_t)
      return more_p ? 0 : route_rank_end(rank, depth);
    SegKind kind = segment_kind(t, tn);
    if (kind == SEG_CATCH_ALL)
      return depth < ROUTE_DEPTH ? route_rank_end(rank << 3 | 1, depth + 1) : rank;
    if (!more_p) {
      /* Left out: this one and every one after it must be optional. */
      for (;;) {
        if (kind == SEG_REQUIRED)
          return 0;
        if (!next_segment(tmpl, &tp, &t, &tn))
          break;
        kind = segment_kind(t, tn);
      }
      return route_rank_end(rank, depth);
    }
    int r = segment_rank(t, tn, p, pn);
    if (!r)
      return 0;
    /* Leftmost segments weigh most, as the router's precedence has it. */
    if (depth < ROUTE_DEPTH)
      rank = rank << 3 | (guint64)(r + 1);
  }
}

char *sxs__activity_route_label(const char *name, const GPtrArray *routes) {
  const char *space = strchr(name, ' ');
  if (!space)
    return NULL;
  const char *path = space + 1;
  const char *best = NULL;
  guint64 best_rank = 0;
  for (guint i = 0; routes && i < routes->len; i++) {
    guint64 r = sxs__activity_route_rank(routes->pdata[i], path);
    if (r > best_rank) {
      best_rank = r;
      best = routes->pdata[i];
    }
  }
  if (!best)
    return NULL;
  if (best[0] == '~')
    best++;
  return g_strdup_printf("%.*s %s%s", (int)(space - name), name, best[0] == '/' ? "" : "/", best);
}

void sxs__activity_route_seen(const char *route) {
  if (!route || !*route)
    return;
  g_mutex_lock(&act.lock);
  ensure_locked();
  gboolean known = FALSE;
  for (guint i = 0; i < act.routes->len && !known; i++)
    known = g_str_equal(act.routes->pdata[i], route);
  if (!known && act.routes->len < ROUTES_MAX) {
    g_ptr_array_add(act.routes, g_strdup(route));
    for (guint i = 0; i < act.shown->len; i++)
      g_clear_pointer(&act.shown->pdata[i], g_free);
    __atomic_add_fetch(&act.names_gen, 1, __ATOMIC_RELEASE);
  }
  g_mutex_unlock(&act.lock);
}

/* Does a tag begin at s: a key of letters, digits, '.', '_' or '-', then '='? */
static gboolean tag_starts(const char *s) {
  gsize n = 0;
  while (g_ascii_isalnum(s[n]) || s[n] == '.' || s[n] == '_' || s[n] == '-')
    n++;
  return n > 0 && s[n] == '=';
}

char *sxs__activity_metric_tag(const char *tags, const char *key) {
  gsize kn = strlen(key);
  for (const char *s = tags; s && *s;) {
    const char *end = s;
    while (*end && !(*end == ',' && tag_starts(end + 1)))
      end++;
    if (strncmp(s, key, kn) == 0 && s[kn] == '=')
      return end > s + kn + 1 ? g_strndup(s + kn + 1, (gsize)(end - s - kn - 1)) : NULL;
    s = *end ? end + 1 : end;
  }
  return NULL;
}

guint sxs__activity_labels_gen(void) {
  return __atomic_load_n(&act.names_gen, __ATOMIC_ACQUIRE);
}

GPtrArray *sxs__activity_labels(void) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_mutex_lock(&act.lock);
  for (guint i = 0; act.names && i < act.names->len; i++) {
    if (!act.shown->pdata[i] && act.routes->len)
      act.shown->pdata[i] = sxs__activity_route_label(act.names->pdata[i], act.routes);
    g_ptr_array_add(out, g_strdup(act.shown->pdata[i] ? act.shown->pdata[i] : act.names->pdata[i]));
  }
  g_mutex_unlock(&act.lock);
  return out;
}

void sxs__activity_reset_for_tests(void) {
  g_mutex_lock(&act.lock);
  if (act.labels) {
    g_hash_table_destroy(act.requests);
    g_ptr_array_free(act.names, TRUE);
    g_ptr_array_free(act.routes, TRUE);
    g_ptr_array_free(act.shown, TRUE);
    g_hash_table_destroy(act.labels);
  }
  act.labels = NULL;
  act.names = NULL;
  act.routes = NULL;
  act.shown = NULL;
  act.names_gen = 0;
  act.requests = NULL;
  act.next_slot = 0;
  act.next_gen = 0;
  act.requests_seen = 0;
  memset(slots, 0, sizeof slots);
  memset(tids, 0, sizeof tids);
  memset(tasks, 0, sizeof tasks);
  memset(&self, 0, sizeof self);
  g_mutex_unlock(&act.lock);
}
