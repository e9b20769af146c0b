/* Which request paid: a minimal-API ASP.NET Core app (tests/apps-web/Endpoints) under `ab`, profiled
 * with --endpoints, on .NET 10 (the SDK's runtime) and 8 (self-contained). Its endpoints do known
 * work by construction: GET /light/{id} spins and allocates one unit in three bursts separated by
 * awaits that hop threads, GET /heavy/{id} nine units, GET /lock/{id} holds a lock others wait for.
 * Checked against that: the requests counted per endpoint are exactly those sent; the CPU samples
 * and the bytes allocated of /light and /heavy split 1:9 (within 5 points); the lock waits are
 * /lock's (at least 90 % of the delay); the samples in the spinning code carry a request's label
 * whichever thread ran them; the summary's table, pprof's endpoint label (`go tool pprof -tags`)
 * and `report --label` say the same. The TPL's events that follow a request across awaits are
 * asked for once a request leaves its thread: on with these endpoints, never with endpoints
 * that do not await (GET /sync-light/{id}, /sync-heavy/{id}: one and nine units), whose requests
 * are told apart by their hosting events alone, as exactly. An endpoint is its route template once
 * the routing's metrics have named it: GET /users/{name}/orders/{orderId:int}, whose name segment
 * no path shows as a value, counts the requests of /users/alice/orders/7 and /users/bob/orders/8
 * together under its template, and neither path is left as a label of its own; so does `sxsprof attach
 * --endpoints` to the app started without a profiler. */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "itest.h"

#define LIGHT "GET /light/{id}"
#define HEAVY "GET /heavy/{id}"
#define LOCKED "GET /lock/{id}"
#define N_REQUESTS 300
#define N_LOCK 200
#define ROUTED "GET /users/{name}/orders/{orderId:int}"
#define N_ROUTED 60

static const char *const clean_env[] = {ITEST_NO_PROFILER_ENV, "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1",
                                        NULL};

/* A port nothing listens on now. */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint(fd, >=, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof addr), ==, 0);
  g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
  close(fd);
  return ntohs(addr.sin_port);
}

/* One GET over loopback: TRUE on a 200. */
static gboolean http_ok(int port, const char *path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  struct timeval tv = {.tv_sec = 20};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  g_autofree char *request = g_strdup_printf("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
  gboolean ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
                write(fd, request, strlen(request)) == (ssize_t)strlen(request);
  char buf[256];
  ssize_t n = ok ? read(fd, buf, sizeof buf - 1) : -1;
  close(fd);
  if (n < 12)
    return FALSE;
  buf[n] = '\0';
  return g_str_has_prefix(buf, "HTTP/1.") && strncmp(buf + 8, " 200", 4) == 0;
}

/* `ab -n n -c c URL` run to the end: every request answered 200. */
static ItestProc *ab_spawn(const char *dir, const char *name, int port, const char *path, int n, int c) {
  g_autofree char *url = g_strdup_printf("http://127.0.0.1:%d%s", port, path);
  g_autofree char *n_text = g_strdup_printf("%d", n), *c_text = g_strdup_printf("%d", c);
  g_autofree char *out = g_strdup_printf("%s/%s.out", dir, name), *err = g_strdup_printf("%s/%s.err", dir, name);
  const char *argv[] = {"ab", "-q", "-n", n_text, "-c", c_text, url, NULL};
  return itest_spawn(argv, clean_env, dir, out, err, FALSE);
}

static void ab_finish(ItestProc *p, int n) {
  int code = itest_proc_wait(p, 300);
  g_autofree char *out = itest_read_file(p->out_path);
  if (code != 0)
    g_test_message("ab:\n%s\n%s", out, itest_read_file(p->err_path));
  g_assert_cmpint(code, ==, 0);
  g_autofree char *complete = g_strdup_printf("Complete requests:      %d\n", n);
  g_assert_nonnull(strstr(out, complete));
  g_assert_nonnull(strstr(out, "Failed requests:        0\n"));
  g_assert_null(strstr(out, "Non-2xx"));
}

/* `ab` run to the end, alone. */
static void ab_run(const char *dir, const char *name, int port, const char *path, int n, int c) {
  g_autoptr(ItestProc) p = ab_spawn(dir, name, port, path, n, c);
  ab_finish(p, n);
}

typedef struct {
  GPtrArray *labels; /* names, label - 1 */
  double samples[16], alloc[16], wait_us[16];
  guint requests[16];
  double spin_labelled, spin_all;
  double request_us[16]; /* the requests' durations added up */
} Totals;

static guint label_of(const Totals *t, const char *name) {
  for (guint i = 0; i < t->labels->len; i++)
    if (g_strcmp0(t->labels->pdata[i], name) == 0)
      return i + 1;
  return 0;
}

/* Does a samples.stacks[] entry hold a frame of the app's function `what` (Spin, Locked)? */
static gboolean holds(JsonObject *stack, const char *what) {
  JsonArray *frames = json_object_get_array_member(stack, "frames");
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    const char *name = json_object_get_string_member_with_default(json_array_get_object_element(frames, i), "name", "");
    if (strstr(name, "Endpoints") && strstr(name, what))
      return TRUE;
  }
  return FALSE;
}

static void totals_read(JsonNode *doc, Totals *t) {
  memset(t, 0, sizeof *t);
  t->labels = g_ptr_array_new_with_free_func(g_free);
  JsonObject *root = json_node_get_object(doc);
  JsonObject *tl = json_object_get_object_member(root, "timeline");
  g_assert_nonnull(tl);
  g_assert_true(json_object_has_member(tl, "labels"));
  JsonArray *labels = json_object_get_array_member(tl, "labels");
  for (guint i = 0; i < json_array_get_length(labels); i++)
    g_ptr_array_add(t->labels, g_strdup(json_array_get_string_element(labels, i)));
  g_assert_cmpuint(t->labels->len, <, G_N_ELEMENTS(t->samples));
  JsonArray *stacks = json_object_get_array_member(json_object_get_object_member(root, "samples"), "stacks");
  JsonArray *threads = json_object_get_array_member(tl, "threads");
  for (guint i = 0; i < json_array_get_length(threads); i++) {
    JsonObject *th = json_array_get_object_element(threads, i);
    JsonArray *s = json_object_get_array_member(th, "s");
    JsonArray *w = json_object_has_member(th, "w") ? json_object_get_array_member(th, "w") : NULL;
    JsonArray *l = json_object_has_member(th, "l") ? json_object_get_array_member(th, "l") : NULL;
    for (guint j = 0; j < json_array_get_length(s); j++) {
      double weight = w ? (double)json_array_get_int_element(w, j) : 1.0;
      guint label = l ? (guint)json_array_get_int_element(l, j) : 0;
      g_assert_cmpuint(label, <=, t->labels->len);
      t->samples[label] += weight;
      JsonObject *stack = json_array_get_object_element(stacks, (guint)json_array_get_int_element(s, j));
      if (holds(stack, "Spin")) {
        t->spin_all += weight;
        t->spin_labelled += label ? weight : 0;
      }
    }
  }
  JsonArray *events = json_object_get_array_member(tl, "events");
  for (guint i = 0; i < json_array_get_length(events); i++) {
    JsonObject *e = json_array_get_object_element(events, i);
    const char *kind = json_object_get_string_member(e, "kind");
    guint label = (guint)json_object_get_int_member_with_default(e, "label", 0);
    g_assert_cmpuint(label, <=, t->labels->len);
    if (g_str_equal(kind, "request")) {
      t->requests[label]++;
      t->request_us[label] += (double)json_object_get_int_member_with_default(e, "dur_us", 0);
    } else if (g_str_equal(kind, "allocation"))
      t->alloc[label] += (double)json_object_get_int_member_with_default(e, "value", 0);
    else if (g_str_equal(kind, "lock-wait"))
      t->wait_us[label] += (double)json_object_get_int_member_with_default(e, "dur_us", 0);
  }
}

/* The requests of /users/alice/orders/7 and of another path of its route (other_name's), N_ROUTED
 * each, all under their route template, and neither name left in a label. */
static void assert_routed(const Totals *t, const char *other_name) {
  guint routed = label_of(t, ROUTED);
  g_assert_cmpuint(routed, >, 0);
  g_assert_cmpuint(t->requests[routed], ==, 2 * N_ROUTED);
  for (guint i = 0; i < t->labels->len; i++) {
    g_assert_null(strstr(t->labels->pdata[i], "alice"));
    g_assert_null(strstr(t->labels->pdata[i], other_name));
  }
}

/* The Endpoints app of .NET `runtime` ("10.0": under dotnet; "8.0": self-contained) started under
 * `sxsprof run -q OPTIONS... -o DIR/p` (options NULL: without a profiler), on a free port
 * (*ret_port), once it answers /ping. NULL (the test failed) when the app is not built. */
static ItestProc *start_server(const char *runtime, const char *const *options, const char *dir, int *ret_port) {
  gboolean net8 = g_str_equal(runtime, "8.0");
  g_autofree char *published = g_build_filename(itest_env("SXS_APPS_DIR"), "published", net8 ? "web8" : "web10", NULL);
  g_autofree char *app = g_build_filename(published, net8 ? "Endpoints" : "Endpoints.dll", NULL);
  if (!g_file_test(app, G_FILE_TEST_IS_REGULAR)) {
    g_test_fail_printf("%s is missing: run tests/setup.sh", app);
    return NULL;
  }
  int port = free_port();
  g_autofree char *url = g_strdup_printf("http://127.0.0.1:%d", port);
  g_autofree char *prefix = g_build_filename(dir, "p", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  if (options) {
    g_ptr_array_add(argv, (gpointer)itest_env("SXS_SXSPROF"));
    g_ptr_array_add(argv, "run");
    g_ptr_array_add(argv, "-q");
    for (const char *const *o = options; *o; o++)
      g_ptr_array_add(argv, (gpointer)*o);
    g_ptr_array_add(argv, "-o");
    g_ptr_array_add(argv, prefix);
    g_ptr_array_add(argv, "--");
  }
  if (!net8)
    g_ptr_array_add(argv, (gpointer)itest_env("SXS_DOTNET"));
  g_ptr_array_add(argv, app);
  g_ptr_array_add(argv, "--urls");
  g_ptr_array_add(argv, url);
  g_ptr_array_add(argv, NULL);
  g_autofree char *out = g_build_filename(dir, "app.out", NULL), *err = g_build_filename(dir, "app.err", NULL);
  ItestProc *server = itest_spawn((const char *const *)argv->pdata, clean_env, published, out, err, FALSE);
  gboolean up = FALSE;
  for (int i = 0; i < 600 && !up; i++) {
    up = http_ok(port, "/ping");
    if (!up)
      g_usleep(100000);
  }
  if (!up)
    g_test_message("app:\n%s\n%s", itest_read_file(out), itest_read_file(err));
  g_assert_true(up);
  *ret_port = port;
  return server;
}

/* SIGTERM to the app, as a supervisor sends it: it ends cleanly and the profile is written. */
static void stop_server(ItestProc *server) {
  g_assert_cmpint(kill(server->pid, SIGTERM), ==, 0);
  int code = itest_proc_wait(server, 120);
  if (code != 0)
    g_test_message("app:\n%s\n%s", itest_read_file(server->out_path), itest_read_file(server->err_path));
  g_assert_cmpint(code, ==, 0);
}

/* Why the runtime of the profile did not follow requests across awaits; NULL when it did. */
static const char *awaits_off(JsonNode *doc) {
  JsonObject *off = json_object_get_object_member(itest_profile_runtime(doc, 1), "features_off");
  return off ? json_object_get_string_member_with_default(off, "endpoints-awaits", NULL) : NULL;
}

static void scenario(const char *runtime) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *prefix = g_build_filename(dir, "p", NULL);
  g_autofree char *profile = g_strconcat(prefix, ".json", NULL);
  static const char *const options[] = {"--sample=999", "--endpoints", "--alloc", "--lock", NULL};
  int port = 0;
  g_autoptr(ItestProc) server = start_server(runtime, options, dir, &port);
  if (!server)
    return;
  /* Warm-up on an endpoint of its own (the same code, JIT-compiled and tiered before the count). */
  ab_run(dir, "warm", port, "/warm/1", 200, 2);
  /* Two paths of one route template (learnt from the routing's metrics within a second or so:
   * long before the profile is written). */
  ab_run(dir, "alice", port, "/users/alice/orders/7", N_ROUTED, 2);
  ab_run(dir, "bob", port, "/users/bob/orders/8", N_ROUTED, 2);
  /* Light and heavy at once, on the same pool threads; then the contended lock. */
  g_autoptr(ItestProc) light = ab_spawn(dir, "light", port, "/light/7", N_REQUESTS, 2);
  g_autoptr(ItestProc) heavy = ab_spawn(dir, "heavy", port, "/heavy/7", N_REQUESTS, 2);
  ab_finish(light, N_REQUESTS);
  ab_finish(heavy, N_REQUESTS);
  ab_run(dir, "lock", port, "/lock/3", N_LOCK, 4);
  stop_server(server);

  g_autoptr(JsonNode) doc = itest_load_json(profile);
  /* Its requests left their threads at their first await: the TPL's events were asked for. */
  g_assert_null(awaits_off(doc));
  Totals t;
  totals_read(doc, &t);
  guint l = label_of(&t, LIGHT), h = label_of(&t, HEAVY), k = label_of(&t, LOCKED);
  g_assert_cmpuint(l, >, 0);
  g_assert_cmpuint(h, >, 0);
  g_assert_cmpuint(k, >, 0);
  /* Every request sent, once, under its endpoint. */
  g_assert_cmpuint(t.requests[l], ==, N_REQUESTS);
  g_assert_cmpuint(t.requests[h], ==, N_REQUESTS);
  g_assert_cmpuint(t.requests[k], ==, N_LOCK);
  assert_routed(&t, "bob");
  /* The warm-up's first requests leave their threads while only the hosting events are asked for:
   * the few in flight when the TPL's are turned on end where nobody knows them, uncounted. */
  guint warm = t.requests[label_of(&t, "GET /warm/{id}")];
  g_test_message("warm-up: %u of 200 requests counted", warm);
  g_assert_cmpuint(warm, <=, 200);
  g_assert_cmpuint(warm, >=, 190);
  double cpu_share = 100.0 * t.samples[h] / (t.samples[h] + t.samples[l]);
  double alloc_share = 100.0 * t.alloc[h] / (t.alloc[h] + t.alloc[l]);
  double wait_all = 0;
  for (guint i = 0; i <= t.labels->len; i++)
    wait_all += t.wait_us[i];
  double wait_share = wait_all > 0 ? 100.0 * t.wait_us[k] / wait_all : 0;
  double spin_share = t.spin_all > 0 ? 100.0 * t.spin_labelled / t.spin_all : 0;
  g_test_message(".NET %s: samples light %.0f heavy %.0f (heavy %.1f %%, 90 by construction), no request %.0f; "
                 "bytes light %.0f heavy %.0f (heavy %.1f %%); lock wait %.0f us of %.0f (%.1f %% /lock); spinning "
                 "samples with a request's label %.0f of %.0f (%.1f %%)",
                 runtime, t.samples[l], t.samples[h], cpu_share, t.samples[0], t.alloc[l], t.alloc[h], alloc_share,
                 t.wait_us[k], wait_all, wait_share, t.spin_labelled, t.spin_all, spin_share);
  g_assert_cmpfloat(t.samples[h] + t.samples[l], >, 1000);
  g_assert_cmpfloat(fabs(cpu_share - 90.0), <=, 5.0);
  g_assert_cmpfloat(t.alloc[l], >, 0);
  g_assert_cmpfloat(fabs(alloc_share - 90.0), <=, 5.0);
  g_assert_cmpfloat(wait_all, >, 0);
  g_assert_cmpfloat(wait_share, >=, 90.0);
  g_assert_cmpfloat(spin_share, >=, 95.0);

  /* The summary's table: the requests of each endpoint. */
  const char *rargv[] = {itest_env("SXS_SXSPROF"), "report", profile, NULL};
  g_autoptr(ItestRun) report = itest_run(rargv, clean_env, dir, 120);
  itest_assert_exit(report, 0);
  g_auto(GStrv) lines = g_strsplit(report->out, "\n", -1);
  guint rows = 0;
  for (char **line = lines; *line; line++) {
    guint64 requests = 0;
    if (g_str_has_suffix(*line, "  " LIGHT) || g_str_has_suffix(*line, "  " HEAVY)) {
      requests = g_ascii_strtoull(*line, NULL, 10);
      g_assert_cmpuint(requests, ==, N_REQUESTS);
      rows++;
    }
  }
  g_assert_cmpuint(rows, ==, 2);
  g_assert_nonnull(strstr(report->out, "by endpoint:"));

  /* report --label: every sample of the cut is heavy's. */
  g_autofree char *cut = g_build_filename(dir, "heavy", NULL);
  const char *cargv[] = {
      itest_env("SXS_SXSPROF"), "report", profile, "--label", "endpoint=" HEAVY, "-o", cut, "--format", "json", NULL};
  g_autoptr(ItestRun) cutrun = itest_run(cargv, clean_env, dir, 120);
  itest_assert_exit(cutrun, 0);
  g_autofree char *cut_json = g_strconcat(cut, ".json", NULL);
  g_autoptr(JsonNode) cut_doc = itest_load_json(cut_json);
  Totals c;
  totals_read(cut_doc, &c);
  guint ch = label_of(&c, HEAVY);
  double cut_all = 0;
  for (guint i = 0; i <= c.labels->len; i++)
    cut_all += c.samples[i];
  g_assert_cmpfloat(c.samples[ch], ==, t.samples[h]);
  g_assert_cmpfloat(cut_all, ==, t.samples[h]);
  g_assert_cmpuint(c.requests[ch], ==, N_REQUESTS);

  /* pprof's endpoint label, as go tool pprof -tags reads it. */
  g_autofree char *pb = g_strconcat(prefix, ".pb.gz", NULL);
  g_autofree char *go = g_find_program_in_path("go");
  if (!go) {
    g_test_fail_printf("go is not installed: run tests/setup.sh");
    return;
  }
  g_autofree char *gocache = g_build_filename(dir, "gocache", NULL);
  g_autofree char *gocache_env = g_strconcat("GOCACHE=", gocache, NULL);
  const char *penv[] = {gocache_env, "GOFLAGS=-mod=mod", NULL};
  const char *pargv[] = {go, "tool", "pprof", "-tags", pb, NULL};
  g_autoptr(ItestRun) pp = itest_run(pargv, penv, dir, 120);
  itest_assert_exit(pp, 0);
  g_assert_nonnull(strstr(pp->out, " endpoint: Total "));
  /* "    2.7s (89.95%): GET /heavy/{id}": the share among the labelled samples. */
  const char *row = strstr(pp->out, "): " HEAVY "\n");
  g_assert_nonnull(row);
  const char *open = row;
  while (open > pp->out && *open != '(')
    open--;
  double pprof_share = g_ascii_strtod(open + 1, NULL);
  double labelled = 0;
  for (guint i = 1; i <= t.labels->len; i++)
    labelled += t.samples[i];
  g_assert_cmpfloat(fabs(pprof_share - 100.0 * t.samples[h] / labelled), <, 0.5);
  g_ptr_array_unref(t.labels);
  g_ptr_array_unref(c.labels);
  itest_rmtree(dir);
}

/* Wall mode: a thread blocked inside a request (waiting for the lock, or asleep holding it) is
 * sampled at every tick without being woken, and is the request's all that time: /lock's wall
 * samples stand for at least the N_LOCK x 5 ms the lock was held asleep, and for no more thread time
 * than its requests lasted (a request runs on one thread at a time). */
static void test_endpoints_wall(void) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *profile = g_build_filename(dir, "p.json", NULL);
  static const char *const options[] = {"--wall", "--sample=199", "--endpoints", "--format", "json", NULL};
  int port = 0;
  g_autoptr(ItestProc) server = start_server("10.0", options, dir, &port);
  if (!server)
    return;
  ab_run(dir, "warm", port, "/warm/1", 50, 2);
  g_autoptr(ItestProc) light = ab_spawn(dir, "light", port, "/light/7", 100, 2);
  g_autoptr(ItestProc) locked = ab_spawn(dir, "lock", port, "/lock/3", N_LOCK, 4);
  ab_finish(light, 100);
  ab_finish(locked, N_LOCK);
  stop_server(server);
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  Totals t;
  totals_read(doc, &t);
  guint k = label_of(&t, LOCKED);
  g_assert_cmpuint(k, >, 0);
  g_assert_cmpuint(t.requests[k], ==, N_LOCK);
  g_assert_cmpuint(t.requests[label_of(&t, LIGHT)], ==, 100);
  double spin_share = t.spin_all > 0 ? 100.0 * t.spin_labelled / t.spin_all : 0;
  double held = N_LOCK * 0.005 * 199, lasted = t.request_us[k] / 1e6 * 199;
  g_test_message("wall: %s samples %.0f (at least %.0f for the lock held, at most %.0f for the requests' time); "
                 "spinning samples labelled %.0f of %.0f (%.1f %%)",
                 LOCKED, t.samples[k], held, lasted, t.spin_labelled, t.spin_all, spin_share);
  g_assert_cmpfloat(t.samples[k], >=, 0.8 * held);
  g_assert_cmpfloat(t.samples[k], <=, 1.1 * lasted + 10);
  g_assert_cmpfloat(spin_share, >=, 95.0);
  g_ptr_array_unref(t.labels);
  itest_rmtree(dir);
}

/* Requests that never await: each runs on the thread it began on, from its RequestStart to its
 * RequestStop, and the hosting events alone tell them apart; the TPL's are never asked for. Route
 * templates turned off ([labels] routes=false): an endpoint is its path, values written {id}. */
static void test_endpoints_sync(void) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *profile = g_build_filename(dir, "p.json", NULL);
  /* With the route templates off: endpoints named by their paths. */
  g_autofree char *config = g_build_filename(dir, "routes-off.ini", NULL);
  g_assert_true(g_file_set_contents(config, "[profiler]\n[labels]\nroutes = false\n", -1, NULL));
  const char *const options[] = {"--sample=999", "--endpoints", "--alloc", "--format",
                                 "json",         "--config",    config,    NULL};
  int port = 0;
  g_autoptr(ItestProc) server = start_server("10.0", options, dir, &port);
  if (!server)
    return;
  ab_run(dir, "warm", port, "/sync-warm/1", 200, 2);
  ab_run(dir, "alice", port, "/users/alice/orders/7", N_ROUTED, 2);
  g_autoptr(ItestProc) light = ab_spawn(dir, "light", port, "/sync-light/7", N_REQUESTS, 2);
  g_autoptr(ItestProc) heavy = ab_spawn(dir, "heavy", port, "/sync-heavy/7", N_REQUESTS, 2);
  ab_finish(light, N_REQUESTS);
  ab_finish(heavy, N_REQUESTS);
  stop_server(server);
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  const char *why = awaits_off(doc);
  g_assert_nonnull(why);
  g_assert_nonnull(strstr(why, "no request has left the thread it began on"));
  Totals t;
  totals_read(doc, &t);
  guint l = label_of(&t, "GET /sync-light/{id}"), h = label_of(&t, "GET /sync-heavy/{id}");
  g_assert_cmpuint(l, >, 0);
  g_assert_cmpuint(h, >, 0);
  g_assert_cmpuint(t.requests[l], ==, N_REQUESTS);
  g_assert_cmpuint(t.requests[h], ==, N_REQUESTS);
  g_assert_cmpuint(t.requests[label_of(&t, "GET /sync-warm/{id}")], ==, 200);
  g_assert_cmpuint(label_of(&t, ROUTED), ==, 0);
  guint path = label_of(&t, "GET /users/alice/orders/{id}");
  g_assert_cmpuint(path, >, 0);
  g_assert_cmpuint(t.requests[path], ==, N_ROUTED);
  double cpu_share = 100.0 * t.samples[h] / (t.samples[h] + t.samples[l]);
  double alloc_share = 100.0 * t.alloc[h] / (t.alloc[h] + t.alloc[l]);
  double spin_share = t.spin_all > 0 ? 100.0 * t.spin_labelled / t.spin_all : 0;
  g_test_message("without awaits (%s): samples sync-light %.0f sync-heavy %.0f (heavy %.1f %%, 90 by "
                 "construction); bytes heavy %.1f %%; spinning samples with a request's label %.0f of %.0f (%.1f %%)",
                 why, t.samples[l], t.samples[h], cpu_share, alloc_share, t.spin_labelled, t.spin_all, spin_share);
  g_assert_cmpfloat(fabs(cpu_share - 90.0), <=, 5.0);
  g_assert_cmpfloat(fabs(alloc_share - 90.0), <=, 5.0);
  g_assert_cmpfloat(spin_share, >=, 95.0);
  g_ptr_array_unref(t.labels);
  itest_rmtree(dir);
}

static void test_endpoints_10(void) {
  scenario("10.0");
}

static void test_endpoints_8(void) {
  scenario("8.0");
}

/* `sxsprof attach --endpoints` to the Endpoints app started without a profiler: the requests sent
 * while attached are counted under their endpoints, the route template learnt after the attach
 * (the routing's metric asked for then) as from the start. */
static void test_endpoints_attach(void) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *prefix = g_build_filename(dir, "p", NULL);
  g_autofree char *profile = g_strconcat(prefix, ".json", NULL);
  int port = 0;
  g_autoptr(ItestProc) server = start_server("10.0", NULL, dir, &port);
  if (!server)
    return;
  /* Before the attach: nobody's. */
  ab_run(dir, "before", port, "/users/zed/orders/1", 20, 2);
  g_autofree char *pid = g_strdup_printf("%d", (int)server->pid);
  const char *aargv[] = {
      itest_env("SXS_SXSPROF"), "attach", pid, "--sample", "--endpoints", "--duration", "8", "-o", prefix, NULL};
  g_autofree char *aout = g_build_filename(dir, "attach.out", NULL), *aerr = g_build_filename(dir, "attach.err", NULL);
  g_autoptr(ItestProc) attach = itest_spawn(aargv, clean_env, dir, aout, aerr, FALSE);
  /* The profiler is set up (its endpoints session on) once its log says it caught up. */
  g_autofree char *log = g_strconcat(prefix, ".log", NULL);
  g_assert_true(itest_wait_for_text(log, ": attached; caught up", 30));
  ab_run(dir, "alice", port, "/users/alice/orders/7", N_ROUTED, 2);
  ab_run(dir, "bob", port, "/users/bob/orders/8", N_ROUTED, 2);
  int code = itest_proc_wait(attach, 120);
  if (code != 0)
    g_test_message("attach:\n%s\n%s", itest_read_file(aout), itest_read_file(aerr));
  g_assert_cmpint(code, ==, 0);
  stop_server(server);
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  Totals t;
  totals_read(doc, &t);
  assert_routed(&t, "zed");
  g_ptr_array_unref(t.labels);
  itest_rmtree(dir);
}

/* .NET Core 3.1 and 2.0 have no EventPipe session for a profiler: the feature is off in each, with
 * the reason, and the rest runs (the program's output as without it). */
static void test_endpoints_old(void) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *prefix = g_build_filename(dir, "p", NULL);
  g_autofree char *profile = g_strconcat(prefix, ".json", NULL);
  g_autofree char *cfg_text =
      g_strdup_printf("[profiler]\nmode=pick-all\noutput=%s\n[labels]\nendpoints=true\n", prefix);
  g_autofree char *cfg = itest_write_file(dir, "sxsprof.conf", cfg_text);
  g_autofree char *app = itest_app("Profiles");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--st", "3.1", app, "exceptions 1 2", "2.0.0", app,
                        "exceptions 2 1",        NULL};
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autoptr(ItestRun) run = itest_run(argv, (const char *const *)env, dir, 300);
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "exceptions a=1 b=2\n"));
  g_assert_nonnull(strstr(run->out, "exceptions a=2 b=1\n"));
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);
  for (gint64 id = 1; id <= 2; id++) {
    JsonObject *rt = itest_profile_runtime(doc, id);
    JsonObject *off = json_object_get_object_member(rt, "features_off");
    g_assert_nonnull(off);
    const char *why = json_object_get_string_member_with_default(off, "endpoints", NULL);
    g_assert_nonnull(why);
    g_assert_nonnull(strstr(why, ".NET 5 and later"));
    g_test_message("runtime %s: endpoints off: %s", json_object_get_string_member(rt, "version"), why);
  }
  itest_rmtree(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/endpoints/10.0", test_endpoints_10);
  g_test_add_func("/endpoints/8.0", test_endpoints_8);
  g_test_add_func("/endpoints/wall", test_endpoints_wall);
  g_test_add_func("/endpoints/without-awaits", test_endpoints_sync);
  g_test_add_func("/endpoints/attach", test_endpoints_attach);
  g_test_add_func("/endpoints/3.1-and-2.0", test_endpoints_old);
  return g_test_run();
}
