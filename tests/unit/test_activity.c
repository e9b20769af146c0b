/* Which request each thread works for (manager/record/sxs_activity): endpoints made from methods and
 * paths, a request followed from its start across a thread hop (an async operation created under
 * its activity, its work run on another thread) to its stop, the TPL's work items nested and ended
 * out of order, what a thread publishes for its signal handler, and requests told apart by their
 * threads alone while the TPL's events are not asked for (and when a request shows it left); route
 * templates read from a metric's tags, matched and ranked against endpoints as ASP.NET Core's
 * router ranks them, and the labels they show alike merged in the profile model. */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib.h>

#include "sxs_activity.h"
#include "sxs_timeline_rec.h"

static void test_endpoint(void) {
  static const struct {
    const char *method, *path, *endpoint;
  } cases[] = {
      {"GET", "/orders/42", "GET /orders/{id}"},
      {"GET", "/orders/42/lines/7?x=1", "GET /orders/{id}/lines/{id}"},
      {"POST", "/api/v2/pay", "POST /api/v2/pay"},
      {"GET", "/users/3f2504e0-4f89-11d3-9a0c-0305e82c3301", "GET /users/{id}"},
      {"GET", "/blob/9f86d081884c7d659a2feaa0c55ad015", "GET /blob/{id}"},
      {"GET", "/search/hello", "GET /search/hello"},
      {"DELETE", "/items/-5", "DELETE /items/{id}"},
      {"GET", "/", "GET /"},
      {"GET", "", "GET /"},
      {NULL, "/x", "? /x"},
      {"GET", "/a//b/", "GET /a//b/"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *e = sxs__activity_endpoint(cases[i].method, cases[i].path);
    g_assert_cmpstr(e, ==, cases[i].endpoint);
  }
}

static guint8 activity_a[16] = {0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x59, 0x9d, 0xd1, 0x13};
static guint8 activity_b[16] = {0x13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x59, 0x9d, 0xd1, 0x6c};

typedef struct {
  guint label_inside, label_after;
  guint32 token_inside;
  uint32_t tid;
} HopResult;

/* The continuation of task 5 on another thread: the request's while it runs, nobody's after. */
static gpointer hop_thread(gpointer data) {
  HopResult *r = data;
  r->tid = (uint32_t)syscall(SYS_gettid);
  sxs__activity_work_begin(1, 77, 0); /* a completion notification of a task nobody follows */
  sxs__activity_work_begin(1, 5, 2);
  r->label_inside = sxs__activity_current_label();
  r->token_inside = sxs__activity_tid_token((uint32_t)syscall(SYS_gettid));
  sxs__activity_work_end(1, 2);
  sxs__activity_work_end(1, 0);
  r->label_after = sxs__activity_current_label();
  return NULL;
}

static void test_request_across_threads(void) {
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
  g_assert_false(sxs__activity_any());
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), ==, 0);
  sxs__activity_request_start(1, activity_a, "GET", "/orders/42", 1000);
  g_assert_true(sxs__activity_any());
  guint32 token = sxs__activity_tid_token((uint32_t)syscall(SYS_gettid));
  g_assert_cmpuint(token, !=, 0);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), ==, token);
  /* An operation created under the request's activity, one under none, one under another. */
  sxs__activity_operation_begin(1, 5, activity_a);
  sxs__activity_operation_begin(1, 6, NULL);
  sxs__activity_operation_begin(1, 8, activity_b);
  /* A second request, another endpoint of the same shape. */
  sxs__activity_request_start(1, activity_b, "GET", "/orders/43", 1100);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  HopResult r = {0};
  GThread *t = g_thread_new("hop", hop_thread, &r);
  g_thread_join(t);
  g_assert_cmpuint(r.label_inside, ==, 1);
  g_assert_cmpuint(r.token_inside, ==, token);
  g_assert_cmpuint(r.label_after, ==, 0);
  /* What the other thread published last: nothing, once its work ended. */
  g_assert_cmpuint(sxs__activity_tid_token(r.tid), ==, 0);
  sxs__activity_thread_gone(r.tid);
  /* The request stops: its token means nobody from now; this thread works for the second request
   * (begun on it after the first), until that one stops too. */
  sxs__activity_request_stop(1, activity_a, 5000);
  g_assert_cmpuint(sxs__activity_token_label(token, 0), ==, 0);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), !=, token);
  g_autoptr(GPtrArray) labels = sxs__activity_labels();
  g_assert_cmpuint(labels->len, ==, 1);
  g_assert_cmpstr(labels->pdata[0], ==, "GET /orders/{id}");
  /* The stopped request is on the timeline: a request event of label 1, 4 ms long. */
  SxsProfileModel *m = sxs__profile_model_new();
  g_autoptr(GHashTable) none = g_hash_table_new(g_direct_hash, g_direct_equal);
  sxs__timeline_rec_fill(m, none);
  guint requests = 0;
  for (guint i = 0; i < m->timeline.events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(m->timeline.events, SxsTimelineEvent, i);
    if (e->kind != SXS_TIMELINE_REQUEST)
      continue;
    requests++;
    g_assert_cmpuint(e->label, ==, 1);
    g_assert_cmpuint(e->start_us, ==, 1000);
    g_assert_cmpuint(e->dur_us, ==, 4000);
  }
  g_assert_cmpuint(requests, ==, 1);
  g_assert_cmpuint(m->timeline.labels->len, ==, 1);
  sxs__profile_model_free(m);
  sxs__activity_request_stop(1, activity_b, 6000);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), ==, 0);
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
}

/* Work items the TPL began and ended out of order: an End ends the innermost item of its kind and
 * every one begun inside it; an End with no Begin changes nothing. */
static void test_work_nesting(void) {
  sxs__activity_reset_for_tests();
  sxs__activity_request_start(1, activity_a, "PUT", "/x/1", 10);
  sxs__activity_operation_begin(1, 9, activity_a);
  sxs__activity_request_stop(1, activity_b, 11); /* not a request in flight: nothing */
  /* The request's start set the thread's base; work items run inside it. */
  sxs__activity_work_begin(1, 9, 2);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  sxs__activity_work_begin(1, 40, 0); /* an untracked task's notification: nobody's */
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  sxs__activity_work_begin(1, 9, 1);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  sxs__activity_work_end(1, 0); /* ends items 0 and 1 */
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  sxs__activity_work_end(1, 2);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1); /* the base, still */
  sxs__activity_work_end(1, 2);                           /* no such item: nothing */
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  /* An operation that ended is nobody's afterwards. */
  sxs__activity_operation_end(1, 9);
  sxs__activity_work_begin(1, 9, 2);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  sxs__activity_work_end(1, 2);
  sxs__activity_request_stop(1, activity_a, 20);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
}

typedef struct {
  gboolean began_one; /* begin (and end) a request of its own first */
  gboolean left;
  guint label_before;
} StopResult;

/* The RequestStop of a request that began on another thread, raised on this one. */
static gpointer stop_elsewhere(gpointer data) {
  StopResult *r = data;
  if (r->began_one) {
    sxs__activity_request_start(1, NULL, "GET", "/c", 850);
    sxs__activity_request_stop(1, NULL, 860);
  }
  r->label_before = sxs__activity_current_label();
  r->left = sxs__activity_request_stop(1, NULL, 900);
  return NULL;
}

static gpointer stop_activity_elsewhere(gpointer data) {
  StopResult *r = data;
  r->left = sxs__activity_request_stop(1, activity_a, 950);
  return NULL;
}

/* No activity IDs (the TPL's events not asked for): a request is its thread's from its start to
 * its stop there. One begun where another has not stopped, or a stop on a thread that began
 * requests but none now, shows that requests leave their threads; such a stop is not counted (it
 * is nobody's known request). A thread that never began a request ends one begun before the
 * session (an attach): no sign. */
static void test_without_activity_ids(void) {
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
  static const guint8 zero[16];
  g_assert_false(sxs__activity_request_start(1, NULL, "GET", "/a/1", 100));
  g_assert_cmpuint(sxs__activity_current_label(), ==, 1);
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), !=, 0);
  g_assert_false(sxs__activity_request_stop(1, zero, 200));
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  g_assert_cmpuint(sxs__activity_tid_token((uint32_t)syscall(SYS_gettid)), ==, 0);
  /* A request that leaves this thread, then another begun here before it stopped. */
  g_assert_false(sxs__activity_request_start(1, zero, "GET", "/a/2", 300));
  g_assert_true(sxs__activity_request_start(1, NULL, "POST", "/b", 400));
  g_assert_cmpuint(sxs__activity_current_label(), ==, 2);
  /* /a/2's stop on a thread that never began one: nothing ended, no sign. */
  StopResult r = {0};
  GThread *t = g_thread_new("stop", stop_elsewhere, &r);
  g_thread_join(t);
  g_assert_false(r.left);
  g_assert_cmpuint(r.label_before, ==, 0);
  /* On a thread that began (and ended) one of its own: nothing ended, a sign. */
  StopResult r1 = {.began_one = TRUE};
  t = g_thread_new("stop", stop_elsewhere, &r1);
  g_thread_join(t);
  g_assert_true(r1.left);
  g_assert_cmpuint(r1.label_before, ==, 0);
  g_assert_cmpuint(sxs__activity_current_label(), ==, 2);
  g_assert_false(sxs__activity_request_stop(1, NULL, 1000));
  g_assert_cmpuint(sxs__activity_current_label(), ==, 0);
  g_assert_true(sxs__activity_request_stop(1, NULL, 1100));
  /* With activity IDs, a stop on another thread than its start's says so too. */
  g_assert_false(sxs__activity_request_start(1, activity_a, "GET", "/a/3", 1200));
  StopResult r2 = {0};
  t = g_thread_new("stop", stop_activity_elsewhere, &r2);
  g_thread_join(t);
  g_assert_true(r2.left);
  /* The requests on the timeline: /a/1, /c, /b, /a/3, each once; /a/2 not (its stop was not known). */
  SxsProfileModel *m = sxs__profile_model_new();
  g_autoptr(GHashTable) none = g_hash_table_new(g_direct_hash, g_direct_equal);
  sxs__timeline_rec_fill(m, none);
  guint64 starts = 0;
  guint n = 0;
  for (guint i = 0; i < m->timeline.events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(m->timeline.events, SxsTimelineEvent, i);
    if (e->kind != SXS_TIMELINE_REQUEST)
      continue;
    n++;
    starts += e->start_us;
    g_assert_cmpuint(e->label, >=, 1);
  }
  g_assert_cmpuint(n, ==, 4);
  g_assert_cmpuint(starts, ==, 100 + 850 + 400 + 1200);
  sxs__profile_model_free(m);
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
}

/* A metric's tags ("k=v,k=v"): a value may hold commas (a route's constraint). */
static void test_metric_tag(void) {
  static const struct {
    const char *tags, *key, *value;
  } cases[] = {
      {"aspnetcore.routing.is_fallback=False,aspnetcore.routing.match_status=success,http.route=/light/{id}",
       "http.route", "/light/{id}"},
      {"http.route=/a/{id:range(1,10)},http.request.method=GET", "http.route", "/a/{id:range(1,10)}"},
      {"http.request.method=GET,http.route=/a/{id:range(1,10)}", "http.route", "/a/{id:range(1,10)}"},
      {"http.route=,x=1", "http.route", NULL},
      {"aspnetcore.routing.match_status=failure", "http.route", NULL},
      {"xhttp.route=/no", "http.route", NULL},
      {"", "http.route", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *v = sxs__activity_metric_tag(cases[i].tags, cases[i].key);
    g_assert_cmpstr(v, ==, cases[i].value);
  }
}

/* Templates against endpoints (values written {id}): which match, and which of several wins. */
static void test_route_match(void) {
  static const struct {
    const char *tmpl, *path;
    gboolean match;
  } cases[] = {
      {"/users/{name}/orders/{orderId:int}", "/users/alice/orders/{id}", TRUE},
      {"/users/{name}/orders/{orderId:int}", "/users/alice/orders/x", FALSE},
      {"/users/{name}/orders/{orderId:int}", "/users/alice/orders", FALSE},
      {"users/{name}", "/Users/bob", TRUE},
      {"/users/me", "/users/{id}", FALSE},
      {"/years/2024", "/years/{id}", TRUE},
      {"/files/{*path}", "/files/a/b/c.txt", TRUE},
      {"/files/{**path}", "/files", TRUE},
      {"{controller=Home}/{action=Index}/{id?}", "/", TRUE},
      {"{controller=Home}/{action=Index}/{id?}", "/Home/Privacy/{id}", TRUE},
      {"{controller=Home}/{action=Index}/{id?}", "/a/b/c/d", FALSE},
      {"/p/{name:alpha}", "/p/abc", TRUE},
      {"/p/{name:alpha}", "/p/ab1", FALSE},
      {"/img/{name}.{ext}", "/img/cat.png", TRUE},
      {"/", "/", TRUE},
      {"/", "/x", FALSE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    g_assert_cmpint(sxs__activity_route_rank(cases[i].tmpl, cases[i].path) != 0, ==, cases[i].match);
  g_autoptr(GPtrArray) routes = g_ptr_array_new();
  g_ptr_array_add(routes, "/users/{*rest}");
  g_ptr_array_add(routes, "/users/{name}");
  g_ptr_array_add(routes, "/users/{id:int}");
  g_ptr_array_add(routes, "/users/me");
  g_ptr_array_add(routes, "~/orders/{id}");
  static const struct {
    const char *label, *shown;
  } best[] = {
      {"GET /users/me", "GET /users/me"},             /* a literal first */
      {"GET /users/{id}", "GET /users/{id:int}"},     /* then a constrained parameter */
      {"GET /users/alice", "GET /users/{name}"},      /* then any parameter */
      {"GET /users/a/b", "GET /users/{*rest}"},       /* a catch-all last */
      {"DELETE /orders/{id}", "DELETE /orders/{id}"}, /* `~/` is the app's root */
      {"GET /other", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(best); i++) {
    g_autofree char *shown = sxs__activity_route_label(best[i].label, routes);
    g_assert_cmpstr(shown, ==, best[i].shown);
  }
}

/* Labels shown as a route template learnt after them: the names change (and say so), and the
 * requests of two paths of one template count under one label in the profile model. */
static void test_route_labels(void) {
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
  static const guint8 zero[16];
  sxs__activity_request_start(1, NULL, "GET", "/users/alice/orders/7", 100);
  sxs__activity_request_stop(1, zero, 200);
  sxs__activity_request_start(1, NULL, "GET", "/users/bob/orders/8", 300);
  sxs__activity_request_stop(1, zero, 400);
  sxs__activity_request_start(1, NULL, "GET", "/ping", 500);
  sxs__activity_request_stop(1, zero, 600);
  g_autoptr(GPtrArray) before = sxs__activity_labels();
  g_assert_cmpuint(before->len, ==, 3);
  g_assert_cmpstr(before->pdata[0], ==, "GET /users/alice/orders/{id}");
  guint gen = sxs__activity_labels_gen();
  sxs__activity_route_seen("/users/{name}/orders/{orderId:int}");
  g_assert_cmpuint(sxs__activity_labels_gen(), !=, gen);
  gen = sxs__activity_labels_gen();
  sxs__activity_route_seen("/users/{name}/orders/{orderId:int}");
  g_assert_cmpuint(sxs__activity_labels_gen(), ==, gen);
  g_autoptr(GPtrArray) after = sxs__activity_labels();
  g_assert_cmpuint(after->len, ==, 3);
  g_assert_cmpstr(after->pdata[0], ==, "GET /users/{name}/orders/{orderId:int}");
  g_assert_cmpstr(after->pdata[1], ==, "GET /users/{name}/orders/{orderId:int}");
  g_assert_cmpstr(after->pdata[2], ==, "GET /ping");
  SxsProfileModel *m = sxs__profile_model_new();
  g_autoptr(GHashTable) none = g_hash_table_new(g_direct_hash, g_direct_equal);
  sxs__timeline_rec_fill(m, none);
  g_assert_cmpuint(m->timeline.labels->len, ==, 2);
  g_assert_cmpstr(m->timeline.labels->pdata[0], ==, "GET /users/{name}/orders/{orderId:int}");
  g_assert_cmpstr(m->timeline.labels->pdata[1], ==, "GET /ping");
  guint per_label[3] = {0};
  for (guint i = 0; i < m->timeline.events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(m->timeline.events, SxsTimelineEvent, i);
    if (e->kind == SXS_TIMELINE_REQUEST && e->label < G_N_ELEMENTS(per_label))
      per_label[e->label]++;
  }
  g_assert_cmpuint(per_label[0], ==, 0);
  g_assert_cmpuint(per_label[1], ==, 2);
  g_assert_cmpuint(per_label[2], ==, 1);
  sxs__profile_model_free(m);
  sxs__activity_reset_for_tests();
  sxs__timeline_rec_reset_for_tests();
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/activity/endpoint", test_endpoint);
  g_test_add_func("/activity/request-across-threads", test_request_across_threads);
  g_test_add_func("/activity/work-nesting", test_work_nesting);
  g_test_add_func("/activity/without-activity-ids", test_without_activity_ids);
  g_test_add_func("/activity/metric-tag", test_metric_tag);
  g_test_add_func("/activity/route-match", test_route_match);
  g_test_add_func("/activity/route-labels", test_route_labels);
  return g_test_run();
}
