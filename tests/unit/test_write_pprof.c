/* The pprof writer on the synthetic fixture: decoded back with protobuf-c here, with the
 * pprof-format npm package (tests/unit/pprof_decode.js) and with `go tool pprof`, so that the file
 * is checked by two readers that share no code with the writer. Names that break naive writers
 * must come back byte for byte, stacks leaf first, values summing to the fixture's totals.
 *
 * node and go come from tests/setup.sh; when they are missing the tests fail (not skip): a set-up
 * machine has them. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "sxs_view.h"
#include "sxs_view_fixture.h"
#include "sxs_scratch.h"

#define NS_PER_SAMPLE (G_GUINT64_CONSTANT(1000000000) / FIXTURE_FREQUENCY)
#define RT1_PATH "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.1/libcoreclr.so"
#define RT2_PATH "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.11/libcoreclr.so"

typedef struct {
  SxsProfileModel *model;
  SxsView *view;
  char *dir; /* a fresh temporary folder, removed with what it holds */
} PprofFixture;

static void fixture_setup(PprofFixture *fx, gconstpointer data) {
  (void)data;
  fx->model = fixture_model();
  fx->view = sxs__view_new(fx->model, NULL);
  fx->dir = sxs_scratch_new("sxs-pprof");
}

static void fixture_teardown(PprofFixture *fx, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(fx->dir);
  sxs__view_free(fx->view);
  sxs__profile_model_free(fx->model);
}

/* Renders kind of v; fails the test when the writer refuses. */
static GBytes *render(const SxsView *v, SxsViewKind kind) {
  SxsRenderOptions o = {.kind = kind};
  gsize len = 0;
  g_autofree char *error = NULL;
  char *data = sxs__write_pprof(v, &o, &len, &error);
  g_assert_null(error);
  g_assert_nonnull(data);
  /* A gzip member: pprof readers sniff these two bytes. */
  g_assert_cmpuint(len, >, 2);
  g_assert_cmpuint((guint8)data[0], ==, 0x1f);
  g_assert_cmpuint((guint8)data[1], ==, 0x8b);
  return g_bytes_new_take(data, len);
}

static char *render_to_file(PprofFixture *fx, SxsViewKind kind, const char *name) {
  g_autoptr(GBytes) bytes = render(fx->view, kind);
  char *path = g_build_filename(fx->dir, name, NULL);
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  const char *data = g_bytes_get_data(bytes, &len);
  g_file_set_contents(path, data, (gssize)len, &error);
  g_assert_no_error(error);
  return path;
}

/* Gunzips and unpacks a profile with zlib and protobuf-c, independently of the writer's code. */
static Perftools__Profiles__Profile *decode(GBytes *gz) {
  gsize len = 0;
  const guint8 *data = g_bytes_get_data(gz, &len);
  z_stream zs = {0};
  g_assert_cmpint(inflateInit2(&zs, 15 + 16), ==, Z_OK);
  g_autoptr(GByteArray) raw = g_byte_array_new();
  guint8 chunk[16384];
  zs.next_in = (Bytef *)data;
  zs.avail_in = len;
  int rc;
  do {
    zs.next_out = chunk;
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    g_assert_true(rc == Z_OK || rc == Z_STREAM_END);
    g_byte_array_append(raw, chunk, sizeof chunk - zs.avail_out);
  } while (rc != Z_STREAM_END);
  g_assert_cmpuint(zs.avail_in, ==, 0); /* one member, nothing after it */
  inflateEnd(&zs);
  Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, raw->len, raw->data);
  g_assert_nonnull(p);
  return p;
}

/* Frees what decode() returned, with protobuf-c's default allocator. */
static void profile_free(Perftools__Profiles__Profile *p) {
  perftools__profiles__profile__free_unpacked(p, NULL);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Perftools__Profiles__Profile, profile_free)

/* ---- Lookups in a decoded profile, each asserting the ids it follows exist ---- */

static const char *str(const Perftools__Profiles__Profile *p, int64_t i) {
  g_assert_cmpint(i, >=, 0);
  g_assert_cmpuint((guint64)i, <, p->n_string_table);
  return p->string_table[i];
}

static const Perftools__Profiles__Function *function_by_id(const Perftools__Profiles__Profile *p, uint64_t id) {
  for (size_t i = 0; i < p->n_function; i++)
    if (p->function[i]->id == id)
      return p->function[i];
  g_assert_not_reached();
}

static const Perftools__Profiles__Location *location_by_id(const Perftools__Profiles__Profile *p, uint64_t id) {
  for (size_t i = 0; i < p->n_location; i++)
    if (p->location[i]->id == id)
      return p->location[i];
  g_assert_not_reached();
}

static const Perftools__Profiles__Mapping *mapping_by_id(const Perftools__Profiles__Profile *p, uint64_t id) {
  for (size_t i = 0; i < p->n_mapping; i++)
    if (p->mapping[i]->id == id)
      return p->mapping[i];
  g_assert_not_reached();
}

/* The name of the function at a sample's depth d (0: the leaf). */
static const char *sample_frame(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s, size_t d) {
  g_assert_cmpuint(d, <, s->n_location_id);
  const Perftools__Profiles__Location *loc = location_by_id(p, s->location_id[d]);
  g_assert_cmpuint(loc->n_line, ==, 1);
  return str(p, function_by_id(p, loc->line[0]->function_id)->name);
}

static const Perftools__Profiles__Function *function_by_name(const Perftools__Profiles__Profile *p, const char *name) {
  for (size_t i = 0; i < p->n_function; i++)
    if (g_str_equal(str(p, p->function[i]->name), name))
      return p->function[i];
  return NULL;
}

/* The mapping of the location whose function is named name. */
static const char *mapping_file_of(const Perftools__Profiles__Profile *p, const char *name) {
  const Perftools__Profiles__Function *fn = function_by_name(p, name);
  g_assert_nonnull(fn);
  for (size_t i = 0; i < p->n_location; i++)
    if (p->location[i]->line[0]->function_id == fn->id)
      return p->location[i]->mapping_id != 0 ? str(p, mapping_by_id(p, p->location[i]->mapping_id)->filename) : NULL;
  g_assert_not_reached();
}

static const Perftools__Profiles__Sample *sample_with_leaf(const Perftools__Profiles__Profile *p, const char *leaf) {
  for (size_t i = 0; i < p->n_sample; i++)
    if (p->sample[i]->n_location_id > 0 && g_str_equal(sample_frame(p, p->sample[i], 0), leaf))
      return p->sample[i];
  return NULL;
}

/* A sample's label key as a string ("" when it has none) or as a number (-1 when none). */
static const char *label_str(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s,
                             const char *key) {
  for (size_t i = 0; i < s->n_label; i++)
    if (g_str_equal(str(p, s->label[i]->key), key))
      return str(p, s->label[i]->str);
  return "";
}

static int64_t label_num(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s, const char *key) {
  for (size_t i = 0; i < s->n_label; i++)
    if (g_str_equal(str(p, s->label[i]->key), key))
      return s->label[i]->num;
  return -1;
}

static int64_t value_total(const Perftools__Profiles__Profile *p, size_t index) {
  int64_t sum = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    g_assert_cmpuint(p->sample[i]->n_value, ==, p->n_sample_type);
    sum += p->sample[i]->value[index];
  }
  return sum;
}

static void assert_value_type(const Perftools__Profiles__Profile *p, const Perftools__Profiles__ValueType *t,
                              const char *type, const char *unit) {
  g_assert_nonnull(t);
  g_assert_cmpstr(str(p, t->type), ==, type);
  g_assert_cmpstr(str(p, t->unit), ==, unit);
}

/* ---- Decoded with protobuf-c ---- */

static void test_samples(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(GBytes) gz = render(fx->view, SXS_VIEW_N_KINDS); /* the primary kind: samples */
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);

  g_assert_cmpuint(p->n_string_table, >, 1);
  g_assert_cmpstr(p->string_table[0], ==, "");
  /* Every string once. */
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; i < p->n_string_table; i++)
    g_assert_true(g_hash_table_add(seen, p->string_table[i]));

  g_assert_cmpuint(p->n_sample_type, ==, 2);
  assert_value_type(p, p->sample_type[0], "samples", "count");
  assert_value_type(p, p->sample_type[1], "cpu", "nanoseconds");
  g_assert_cmpstr(str(p, p->default_sample_type), ==, "cpu");
  assert_value_type(p, p->period_type, "cpu", "nanoseconds");
  g_assert_cmpint(p->period, ==, NS_PER_SAMPLE);
  g_assert_cmpint(p->time_nanos, ==, G_GINT64_CONSTANT(1795000000000) * 1000000);
  g_assert_cmpint(p->duration_nanos, ==, 0); /* the fixture's sampler counted no ticks */

  /* One sample per distinct stack of each thread, weights summing to the fixture's. */
  g_assert_cmpuint(p->n_sample, ==, 5);
  g_assert_cmpint(value_total(p, 0), ==, FIXTURE_SAMPLES_TOTAL);
  g_assert_cmpint(value_total(p, 1), ==, FIXTURE_SAMPLES_TOTAL * NS_PER_SAMPLE);

  /* Leaf first: Hot <- Main <- libc. */
  const Perftools__Profiles__Sample *hot = sample_with_leaf(p, FIXTURE_HOT_LABEL);
  g_assert_nonnull(hot);
  g_assert_cmpuint(hot->n_location_id, ==, 3);
  g_assert_cmpstr(sample_frame(p, hot, 1), ==, FIXTURE_MAIN_LABEL);
  g_assert_cmpstr(sample_frame(p, hot, 2), ==, FIXTURE_LIBC_LABEL);
  g_assert_cmpint(hot->value[0], ==, FIXTURE_HOT_SAMPLES);
  g_assert_cmpint(hot->value[1], ==, FIXTURE_HOT_SAMPLES * NS_PER_SAMPLE);
  g_assert_cmpstr(label_str(p, hot, "thread"), ==, "Main");
  g_assert_cmpint(label_num(p, hot, "thread_id"), ==, 100);
  /* A native frame between managed frames of two runtimes. */
  const Perftools__Profiles__Sample *generic = sample_with_leaf(p, FIXTURE_GENERIC_LABEL);
  g_assert_nonnull(generic);
  g_assert_cmpuint(generic->n_location_id, ==, 4);
  g_assert_cmpstr(sample_frame(p, generic, 1), ==, FIXTURE_BRIDGE_LABEL);
  g_assert_cmpstr(sample_frame(p, generic, 2), ==, FIXTURE_MAINDOLLAR_LABEL);
  g_assert_cmpstr(sample_frame(p, generic, 3), ==, FIXTURE_LIBC_LABEL);
  g_assert_cmpint(generic->value[0], ==, 15);
  g_assert_cmpint(label_num(p, generic, "thread_id"), ==, 101);

  /* The executable first (pprof's "File:"), then one mapping per runtime (its path) and per
   * native module; each location in its own. */
  g_assert_cmpuint(p->n_mapping, ==, 5);
  g_assert_cmpstr(str(p, p->mapping[0]->filename), ==, "/usr/share/dotnet/dotnet");
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_HOT_LABEL), ==, RT1_PATH);
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_QUOTES_LABEL), ==, RT1_PATH);
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_GENERIC_LABEL), ==, RT2_PATH);
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_LIBC_LABEL), ==, "libc.so.6");
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_BRIDGE_LABEL), ==, "libsxsbridge.so");
  for (size_t i = 0; i < p->n_mapping; i++) {
    g_assert_cmpuint(p->mapping[i]->id, ==, i + 1);
    g_assert_true(p->mapping[i]->has_functions);
  }

  /* One function and one location per frame the samples use, no more. */
  g_assert_cmpuint(p->n_function, ==, 11);
  g_assert_cmpuint(p->n_location, ==, 11);
  g_assert_null(function_by_name(p, "[rt1 10.0.1] App.Program.Throw"));
  const Perftools__Profiles__Function *fn = function_by_name(p, FIXTURE_LIBC_LABEL);
  g_assert_cmpstr(str(p, fn->system_name), ==, "__libc_start_main");
  g_assert_cmpstr(str(p, fn->filename), ==, "libc.so.6");

  g_assert_cmpuint(p->n_comment, ==, 2);
  g_assert_cmpstr(str(p, p->comment[0]), ==, "sxsprof");
  g_assert_cmpstr(str(p, p->comment[1]), ==, "dotnet App.dll");
}

/* Wall-clock sampling says so; the sampler's ticks give the duration. */
static void test_wall(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_free(fx->model->samples.mode);
  fx->model->samples.mode = g_strdup("wall");
  fx->model->samples.ticks = 250;
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample_type, ==, 2);
  assert_value_type(p, p->sample_type[1], "wall", "nanoseconds");
  assert_value_type(p, p->period_type, "wall", "nanoseconds");
  g_assert_cmpstr(str(p, p->default_sample_type), ==, "wall");
  g_assert_cmpint(p->duration_nanos, ==, 250 * NS_PER_SAMPLE);
  g_assert_cmpuint(p->n_comment, ==, 3);
  g_assert_cmpstr(str(p, p->comment[2]), ==, "wall sampling: 100 Hz"); /* how long the ticks took: not said */

  /* With the time the ticks covered (missed ticks included), that is the duration; a comment says
   * how the rate was kept. */
  SxsSamplesModel *sm = &fx->model->samples;
  sm->ticks_missed = 12;
  sm->duration_ns = 2620000000;
  sm->threads_per_tick = 32;
  sm->taken = 7500;
  guint64 *dropped = g_new(guint64, 1);
  *dropped = 3;
  g_hash_table_insert(sm->dropped, g_strdup("no answer in time"), dropped);
  g_autoptr(SxsView) v2 = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz2 = render(v2, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p2 = decode(gz2);
  g_assert_cmpint(p2->duration_nanos, ==, 2620000000);
  g_assert_cmpuint(p2->n_comment, ==, 3);
  g_assert_cmpstr(str(p2, p2->comment[2]), ==,
                  "wall sampling: 100 Hz asked, 95.4 achieved, 12 ticks missed, up to 32 threads a tick (30.0 on "
                  "average), 3 samples dropped");
}

/* Samples of a hardware event: their own type (cycles/count, as perf names it), each sample worth
 * the event's period; the comment says the rate and the engine. */
static void test_hardware_event(PprofFixture *fx, gconstpointer data) {
  (void)data;
  SxsSamplesModel *sm = &fx->model->samples;
  sm->event = g_strdup("cycles");
  sm->event_unit = g_strdup("count");
  sm->event_period = 10101010;
  sm->engine = g_strdup("perf");
  sm->engine_reason = g_strdup("perf_event_open allowed");
  sm->ticks = 250;
  sm->taken = 250;
  sm->duration_ns = 2500000000;
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_assert_cmpstr(v->sample_event, ==, "cycles");
  g_assert_cmpuint(v->period_ns, ==, 0);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample_type, ==, 2);
  assert_value_type(p, p->sample_type[0], "samples", "count");
  assert_value_type(p, p->sample_type[1], "cycles", "count");
  assert_value_type(p, p->period_type, "cycles", "count");
  g_assert_cmpint(p->period, ==, 10101010);
  g_assert_cmpuint(p->n_sample, >, 0);
  for (size_t i = 0; i < p->n_sample; i++)
    g_assert_cmpint(p->sample[i]->value[1], ==, p->sample[i]->value[0] * 10101010);
  g_assert_cmpuint(p->n_comment, ==, 3);
  g_assert_cmpstr(str(p, p->comment[2]), ==,
                  "cycles sampling: 100 Hz asked, 100.0 achieved, 0 ticks missed, 1.0 samples a tick on average, 0 "
                  "samples dropped; perf engine (perf_event_open allowed)");
}

/* Cpu mode with the engine and each thread's rate: two comments say them. */
static void test_thread_rates(PprofFixture *fx, gconstpointer data) {
  (void)data;
  SxsSamplesModel *sm = &fx->model->samples;
  sm->engine = g_strdup("timer");
  sm->engine_reason = g_strdup("engine=timer asked for");
  sm->ticks = 250;
  sm->taken = 250;
  sm->ticks_missed = 750;
  sm->duration_ns = 10000000000;
  SxsThreadRateModel *r = g_new0(SxsThreadRateModel, 1);
  r->os_tid = 7;
  r->name = g_strdup("spin-0");
  r->captures = 250;
  r->expiries = 1000;
  r->cpu_ns = 10000000000;
  g_ptr_array_add(sm->thread_rates, r);
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_comment, ==, 4);
  g_assert_cmpstr(str(p, p->comment[2]), ==,
                  "cpu sampling: 100 Hz asked, 25.0 achieved, 750 ticks missed, 1.0 samples a tick on average, 0 "
                  "samples dropped; timer engine (engine=timer asked for)");
  g_assert_cmpstr(str(p, p->comment[3]), ==, "per thread: spin-0 25.0 Hz (10.00 s CPU, 750 lost)");
}

/* Cpu mode of a run whose threads used more CPU time than the wall time passed: Duration is the
 * wall time sampling ran, and a comment says the CPU time sampled; a profile that does not know
 * its wall time keeps the CPU time as before. */
static void test_cpu_duration(PprofFixture *fx, gconstpointer data) {
  (void)data;
  SxsSamplesModel *sm = &fx->model->samples;
  g_free(sm->mode);
  sm->mode = g_strdup("cpu");
  g_free(sm->event);
  sm->event = g_strdup("cpu-time");
  g_free(sm->event_unit);
  sm->event_unit = g_strdup("nanoseconds");
  sm->ticks = 846;
  sm->taken = 846;
  sm->duration_ns = 8460000000;
  sm->wall_ns = 7670000000;
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpint(p->duration_nanos, ==, 7670000000);
  gboolean said = FALSE;
  for (size_t i = 0; i < p->n_comment; i++)
    said |= g_strcmp0(str(p, p->comment[i]), "cpu time sampled: 8.46 s, over 7.67 s of wall time") == 0;
  g_assert_true(said);
  sm->wall_ns = 0;
  g_autoptr(SxsView) v2 = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz2 = render(v2, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p2 = decode(gz2);
  g_assert_cmpint(p2->duration_nanos, ==, 8460000000);
}

static void test_calls(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(GBytes) gz = render(fx->view, SXS_VIEW_CALLS);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample_type, ==, 2);
  assert_value_type(p, p->sample_type[0], "calls", "count");
  assert_value_type(p, p->sample_type[1], "time", "nanoseconds");
  g_assert_cmpstr(str(p, p->default_sample_type), ==, "time");
  g_assert_null(p->period_type);
  g_assert_cmpuint(p->n_sample, ==, 3);
  g_assert_cmpint(value_total(p, 0), ==, 16);
  g_assert_cmpint(value_total(p, 1), ==, FIXTURE_CALLS_TOTAL_NS);
  const Perftools__Profiles__Sample *hot = sample_with_leaf(p, FIXTURE_HOT_LABEL);
  g_assert_nonnull(hot);
  g_assert_cmpuint(hot->n_location_id, ==, 2);
  g_assert_cmpstr(sample_frame(p, hot, 1), ==, FIXTURE_MAIN_LABEL);
  g_assert_cmpint(hot->value[0], ==, 10);
  g_assert_cmpint(hot->value[1], ==, 800);
  g_assert_cmpstr(label_str(p, hot, "runtime"), ==, "rt1 10.0.1");
  g_assert_cmpint(label_num(p, hot, "thread_id"), ==, -1);
  g_assert_cmpuint(p->n_mapping, ==, 2); /* the executable and runtime 1 */
  g_assert_cmpstr(mapping_file_of(p, FIXTURE_MAIN_LABEL), ==, RT1_PATH);
}

static void test_calls_untimed(PprofFixture *fx, gconstpointer data) {
  (void)data;
  SxsRuntimeModel *r1 = fx->model->runtimes->pdata[0];
  r1->tracing.timing = FALSE;
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_CALLS);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample_type, ==, 1);
  assert_value_type(p, p->sample_type[0], "calls", "count");
  g_assert_cmpstr(str(p, p->default_sample_type), ==, "calls");
  g_assert_cmpint(value_total(p, 0), ==, 16);
}

static void test_events(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(GBytes) gz = render(fx->view, SXS_VIEW_EVENTS);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample_type, ==, 1);
  assert_value_type(p, p->sample_type[0], "events", "count");
  g_assert_cmpuint(p->n_sample, ==, 2);
  g_assert_cmpint(value_total(p, 0), ==, FIXTURE_EXCEPTIONS);
  const Perftools__Profiles__Sample *thrown = sample_with_leaf(p, "[rt1 10.0.1] App.Program.Throw");
  g_assert_nonnull(thrown);
  g_assert_cmpint(thrown->value[0], ==, 7);
  g_assert_cmpstr(sample_frame(p, thrown, 1), ==, FIXTURE_MAIN_LABEL);
  g_assert_cmpstr(label_str(p, thrown, "event"), ==, "exception");
}

/* Nothing to show: NULL, a message, and the length left alone. */
static void test_empty(PprofFixture *fx, gconstpointer data) {
  (void)fx, (void)data;
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->argv = g_new0(char *, 1);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize len = 12345;
  g_autofree char *error = NULL;
  g_assert_null(sxs__write_pprof(v, NULL, &len, &error));
  g_assert_nonnull(error);
  g_assert_cmpuint(len, ==, 12345);

  /* A kind the view has no stacks of. */
  SxsViewFilter rt2 = {.runtime_id = 2};
  g_autoptr(SxsView) only_rt2 = sxs__view_new(fx->model, &rt2);
  SxsRenderOptions calls = {.kind = SXS_VIEW_CALLS};
  g_autofree char *error2 = NULL;
  g_assert_null(sxs__write_pprof(only_rt2, &calls, &len, &error2));
  g_assert_nonnull(strstr(error2, "calls"));
  g_assert_cmpuint(len, ==, 12345);
}

/* Quotes, <>, &, ';', unicode and 2,000 characters come back byte for byte, in function names,
 * system names and labels. */
static void test_names(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(GBytes) gz = render(fx->view, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_autofree char *long_label = fixture_long_label();
  const char *labels[] = {FIXTURE_GENERIC_LABEL, FIXTURE_MAINDOLLAR_LABEL, FIXTURE_CLOSURE_LABEL,
                          FIXTURE_UNICODE_LABEL, FIXTURE_QUOTES_LABEL,     long_label};
  const char *names[] = {"Lib.Box<T>.Run<int>", "App.<Main>$",         "App.<>c__DisplayClass1_0.<Work>b__0",
                         "Ünïcødé.Ström.Tên",   "App.Say\"hi\"&'x';y", fixture_long_name()};
  for (guint i = 0; i < G_N_ELEMENTS(labels); i++) {
    const Perftools__Profiles__Function *fn = function_by_name(p, labels[i]);
    g_assert_nonnull(fn);
    g_assert_cmpstr(str(p, fn->system_name), ==, names[i]);
  }
  g_assert_cmpuint(strlen(str(p, function_by_name(p, long_label)->system_name)), ==, FIXTURE_LONG_NAME_LEN);
  const Perftools__Profiles__Sample *closure = sample_with_leaf(p, FIXTURE_CLOSURE_LABEL);
  g_assert_nonnull(closure);
  g_assert_cmpstr(sample_frame(p, closure, 1), ==, FIXTURE_UNICODE_LABEL);
  g_assert_cmpstr(sample_frame(p, closure, 2), ==, FIXTURE_QUOTES_LABEL);
  g_assert_cmpstr(label_str(p, closure, "thread"), ==, FIXTURE_WORKER_THREAD);
}

/* ---- Read back by other readers ---- */

/* The source tree: ctest says where; else three levels above this file. */
static char *source_dir(void) {
  const char *dir = g_getenv("SXS_SOURCE_DIR");
  if (dir != NULL)
    return g_strdup(dir);
  g_autofree char *unit = g_path_get_dirname(__FILE__);
  g_autofree char *tests = g_path_get_dirname(unit);
  return g_path_get_dirname(tests);
}

/* The full path of a tool tests/setup.sh installs; NULL, with the test failed, when it is missing. */
static char *require_tool(const char *name) {
  char *path = g_find_program_in_path(name);
  if (path == NULL)
    g_test_fail_printf("%s is not installed: the pprof tests read the file back with it (run tests/setup.sh)", name);
  return path;
}

/* Runs argv with env, returns its standard output; fails the test, showing stderr, when it fails. */
static char *run_tool(char **argv, char **env) {
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_spawn_sync(NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error(error);
  if (!g_spawn_check_wait_status(status, NULL))
    g_error("%s failed (status %d):\n%s", argv[0], status, err);
  return g_steal_pointer(&out);
}

static gint64 json_int_at(JsonArray *a, guint i) {
  g_assert_cmpuint(i, <, json_array_get_length(a));
  return json_array_get_int_element(a, i);
}

/* One function's entry of pprof_decode.js's summary; fails when it is not there. */
static JsonObject *decoded_function(JsonObject *summary, const char *name) {
  JsonObject *functions = json_object_get_object_member(summary, "functions");
  g_assert_nonnull(functions);
  if (!json_object_has_member(functions, name))
    g_error("pprof-format did not find function %.80s", name);
  return json_object_get_object_member(functions, name);
}

static void assert_decoded(JsonObject *summary, const char *name, gint64 flat, gint64 cum) {
  JsonObject *fn = decoded_function(summary, name);
  g_assert_cmpint(json_int_at(json_object_get_array_member(fn, "flat"), 0), ==, flat);
  g_assert_cmpint(json_int_at(json_object_get_array_member(fn, "cum"), 0), ==, cum);
  g_assert_cmpint(json_int_at(json_object_get_array_member(fn, "flat"), 1), ==, flat * (gint64)NS_PER_SAMPLE);
}

static gboolean json_array_has_string(JsonArray *a, const char *s) {
  for (guint i = 0; a != NULL && i < json_array_get_length(a); i++)
    if (g_str_equal(json_array_get_string_element(a, i), s))
      return TRUE;
  return FALSE;
}

static void test_node(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *node = require_tool("node");
  if (node == NULL)
    return;
  g_autofree char *file = render_to_file(fx, SXS_VIEW_SAMPLES, "samples.pb.gz");
  g_autofree char *src = source_dir();
  g_autofree char *script = g_build_filename(src, "tests", "unit", "pprof_decode.js", NULL);
  char *argv[] = {node, script, file, NULL};
  g_autofree char *out = run_tool(argv, NULL);

  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_data(parser, out, -1, &error);
  g_assert_no_error(error);
  JsonObject *summary = json_node_get_object(json_parser_get_root(parser));
  g_assert_cmpstr(json_object_get_string_member(summary, "string0"), ==, "");
  JsonArray *types = json_object_get_array_member(summary, "sample_types");
  g_assert_cmpuint(json_array_get_length(types), ==, 2);
  g_assert_cmpstr(json_array_get_string_element(types, 0), ==, "samples/count");
  g_assert_cmpstr(json_array_get_string_element(types, 1), ==, "cpu/nanoseconds");
  g_assert_cmpstr(json_object_get_string_member(summary, "default_sample_type"), ==, "cpu");
  g_assert_cmpstr(json_object_get_string_member(summary, "period_type"), ==, "cpu/nanoseconds");
  g_assert_cmpint(json_object_get_int_member(summary, "period"), ==, NS_PER_SAMPLE);
  g_assert_cmpint(json_object_get_int_member(summary, "samples"), ==, 5);
  JsonArray *totals = json_object_get_array_member(summary, "totals");
  g_assert_cmpint(json_int_at(totals, 0), ==, FIXTURE_SAMPLES_TOTAL);
  g_assert_cmpint(json_int_at(totals, 1), ==, FIXTURE_SAMPLES_TOTAL * NS_PER_SAMPLE);

  /* The hottest function is the fixture's; flat is where samples were taken (the leaf). */
  assert_decoded(summary, FIXTURE_HOT_LABEL, FIXTURE_HOT_SAMPLES, FIXTURE_HOT_SAMPLES);
  assert_decoded(summary, FIXTURE_COLD_LABEL, 10, 10);
  assert_decoded(summary, FIXTURE_GENERIC_LABEL, 15, 15);
  assert_decoded(summary, FIXTURE_MAIN_LABEL, 0, 80);
  assert_decoded(summary, FIXTURE_LIBC_LABEL, 0, FIXTURE_SAMPLES_TOTAL);
  assert_decoded(summary, FIXTURE_BRIDGE_LABEL, 0, 15);
  assert_decoded(summary, FIXTURE_CLOSURE_LABEL, 4, 4);
  assert_decoded(summary, FIXTURE_QUOTES_LABEL, 0, 4);
  assert_decoded(summary, FIXTURE_UNICODE_LABEL, 0, 4);
  g_autofree char *long_label = fixture_long_label();
  assert_decoded(summary, long_label, 1, 1);
  g_assert_cmpstr(json_object_get_string_member(decoded_function(summary, FIXTURE_QUOTES_LABEL), "system_name"), ==,
                  "App.Say\"hi\"&'x';y");
  g_assert_cmpstr(json_object_get_string_member(decoded_function(summary, FIXTURE_GENERIC_LABEL), "filename"), ==,
                  "Lib.dll");

  JsonArray *mappings = json_object_get_array_member(summary, "mappings");
  g_assert_cmpuint(json_array_get_length(mappings), ==, 5);
  g_assert_true(json_array_has_string(mappings, "/usr/share/dotnet/dotnet"));
  g_assert_true(json_array_has_string(mappings, RT1_PATH));
  g_assert_true(json_array_has_string(mappings, RT2_PATH));
  JsonObject *labels = json_object_get_object_member(summary, "labels");
  g_assert_true(json_array_has_string(json_object_get_array_member(labels, "thread"), FIXTURE_WORKER_THREAD));
  g_assert_true(json_array_has_string(json_object_get_array_member(summary, "comments"), "sxsprof"));
}

/* One row of `pprof -top`: flat, cum and the function's name (the rest of the line). */
typedef struct {
  char *flat, *cum;
} TopRow;

static void top_row_free(gpointer p) {
  TopRow *r = p;
  g_free(r->flat);
  g_free(r->cum);
  g_free(r);
}

/* Parses `pprof -top`'s table ("flat flat% sum% cum cum% name") into name -> TopRow, and its
 * "Type:" line. */
static GHashTable *parse_top(const char *out, char **ret_type) {
  GHashTable *rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, top_row_free);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  gboolean table = FALSE;
  for (char **l = lines; *l != NULL; l++) {
    if (g_str_has_prefix(*l, "Type: "))
      *ret_type = g_strdup(*l + 6);
    if (!table) {
      table = strstr(*l, "flat%") != NULL && strstr(*l, "cum%") != NULL;
      continue;
    }
    /* Five columns of values, then the name, which may hold spaces. */
    const char *p = *l;
    char *field[5];
    int n = 0;
    for (; n < 5; n++) {
      while (*p == ' ')
        p++;
      const char *end = strchr(p, ' ');
      if (*p == '\0' || end == NULL)
        break;
      field[n] = g_strndup(p, end - p);
      p = end;
    }
    while (*p == ' ')
      p++;
    if (n == 5 && *p != '\0') {
      TopRow *r = g_new0(TopRow, 1);
      r->flat = field[0];
      r->cum = field[3];
      g_free(field[1]), g_free(field[2]), g_free(field[4]);
      g_hash_table_insert(rows, g_strdup(p), r);
    } else {
      for (int i = 0; i < n; i++)
        g_free(field[i]);
    }
  }
  return rows;
}

static void assert_top(GHashTable *rows, const char *name, const char *flat, const char *cum) {
  const TopRow *r = g_hash_table_lookup(rows, name);
  if (r == NULL)
    g_error("go tool pprof -top has no row for %.80s", name);
  g_assert_cmpstr(r->flat, ==, flat);
  g_assert_cmpstr(r->cum, ==, cum);
}

static void test_go(PprofFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *go = require_tool("go");
  if (go == NULL)
    return;
  g_autofree char *file = render_to_file(fx, SXS_VIEW_SAMPLES, "samples.pb.gz");
  /* go wants a writable home and build cache; pprof never looks for binaries (has_functions). */
  g_auto(GStrv) env = g_get_environ();
  g_autofree char *cache = g_build_filename(fx->dir, "gocache", NULL);
  env = g_environ_setenv(env, "HOME", fx->dir, TRUE);
  env = g_environ_setenv(env, "GOCACHE", cache, TRUE);
  env = g_environ_setenv(env, "PPROF_TMPDIR", fx->dir, TRUE);

  /* The counts, exactly. */
  char *by_count[] = {go, "tool", "pprof", "-top", "-nodecount=100", "-sample_index=samples", file, NULL};
  g_autofree char *out = run_tool(by_count, env);
  g_autofree char *type = NULL;
  g_autoptr(GHashTable) rows = parse_top(out, &type);
  g_assert_cmpstr(type, ==, "samples");
  g_assert_cmpuint(g_hash_table_size(rows), ==, 11);
  assert_top(rows, FIXTURE_HOT_LABEL, "70", "70");
  assert_top(rows, FIXTURE_GENERIC_LABEL, "15", "15");
  assert_top(rows, FIXTURE_COLD_LABEL, "10", "10");
  assert_top(rows, FIXTURE_CLOSURE_LABEL, "4", "4");
  assert_top(rows, FIXTURE_MAIN_LABEL, "0", "80");
  assert_top(rows, FIXTURE_LIBC_LABEL, "0", "100");
  assert_top(rows, FIXTURE_BRIDGE_LABEL, "0", "15");
  assert_top(rows, FIXTURE_MAINDOLLAR_LABEL, "0", "15");
  assert_top(rows, FIXTURE_QUOTES_LABEL, "0", "4");
  assert_top(rows, FIXTURE_UNICODE_LABEL, "0", "4");
  g_autofree char *long_label = fixture_long_label();
  assert_top(rows, long_label, "1", "1");

  /* The default sample type is CPU time: 70 samples at 100 Hz are 700ms. */
  char *by_time[] = {go, "tool", "pprof", "-top", "-nodecount=100", file, NULL};
  g_autofree char *out_time = run_tool(by_time, env);
  g_autofree char *type_time = NULL;
  g_autoptr(GHashTable) rows_time = parse_top(out_time, &type_time);
  g_assert_cmpstr(type_time, ==, "cpu");
  assert_top(rows_time, FIXTURE_HOT_LABEL, "700ms", "700ms");
  assert_top(rows_time, FIXTURE_LIBC_LABEL, "0", "1000ms");
  g_assert_nonnull(strstr(out_time, "Showing nodes accounting for 1000ms, 100% of 1000ms total"));
}

/* Frames with lines: one function per function (its source file, where it begins), one location per
 * line, so that pprof adds lines up into functions and -lines shows them apart. */
static void test_lines(PprofFixture *fx, gconstpointer data) {
  (void)data;
  fixture_add_lines(fx->model);
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  const Perftools__Profiles__Function *hot = function_by_name(p, FIXTURE_HOT_LABEL);
  g_assert_nonnull(hot);
  g_assert_cmpstr(str(p, hot->filename), ==, FIXTURE_LINES_FILE);
  g_assert_cmpint(hot->start_line, ==, 40);
  g_assert_cmpstr(str(p, hot->system_name), ==, FIXTURE_HOT_NAME);
  /* Main has lines but no record of where it begins: its file, no start line. */
  const Perftools__Profiles__Function *main_fn = function_by_name(p, FIXTURE_MAIN_LABEL);
  g_assert_cmpstr(str(p, main_fn->filename), ==, FIXTURE_LINES_FILE);
  g_assert_cmpint(main_fn->start_line, ==, 0);
  /* Cold has none: its module. */
  g_assert_cmpstr(str(p, function_by_name(p, FIXTURE_COLD_LABEL)->filename), ==, "App.dll");
  /* Locations: Hot at 42 (50 samples) and at 43 (20), Main at 12 for both, Main without a line
   * for Cold's samples. */
  guint hot_locations = 0;
  gint64 at42 = 0, at43 = 0;
  for (size_t i = 0; i < p->n_sample; i++) {
    const Perftools__Profiles__Sample *sm = p->sample[i];
    const Perftools__Profiles__Location *leaf = location_by_id(p, sm->location_id[0]);
    g_assert_cmpuint(leaf->n_line, ==, 1);
    if (leaf->line[0]->function_id != hot->id)
      continue;
    hot_locations++;
    const Perftools__Profiles__Location *caller = location_by_id(p, sm->location_id[1]);
    g_assert_cmpuint(caller->line[0]->function_id, ==, main_fn->id);
    g_assert_cmpint(caller->line[0]->line, ==, 12);
    if (leaf->line[0]->line == 42)
      at42 += sm->value[0];
    else if (leaf->line[0]->line == 43)
      at43 += sm->value[0];
    else
      g_assert_not_reached();
  }
  g_assert_cmpuint(hot_locations, ==, 2);
  g_assert_cmpint(at42, ==, 50);
  g_assert_cmpint(at43, ==, 20);
  guint functions_named_hot = 0;
  for (size_t i = 0; i < p->n_function; i++)
    functions_named_hot += g_str_equal(str(p, p->function[i]->name), FIXTURE_HOT_LABEL);
  g_assert_cmpuint(functions_named_hot, ==, 1);

  /* go tool pprof: 70 samples for Hot by function, 50 and 20 by line. */
  g_autofree char *go = require_tool("go");
  if (go == NULL)
    return;
  g_autofree char *file = g_build_filename(fx->dir, "lines.pb.gz", NULL);
  gsize len = 0;
  const char *bytes = g_bytes_get_data(gz, &len);
  g_assert_true(g_file_set_contents(file, bytes, (gssize)len, NULL));
  g_auto(GStrv) env = g_get_environ();
  g_autofree char *cache = g_build_filename(fx->dir, "gocache", NULL);
  env = g_environ_setenv(env, "HOME", fx->dir, TRUE);
  env = g_environ_setenv(env, "GOCACHE", cache, TRUE);
  env = g_environ_setenv(env, "PPROF_TMPDIR", fx->dir, TRUE);
  char *by_function[] = {go, "tool", "pprof", "-top", "-sample_index=samples", file, NULL};
  g_autofree char *out = run_tool(by_function, env);
  g_autofree char *type = NULL;
  g_autoptr(GHashTable) rows = parse_top(out, &type);
  assert_top(rows, FIXTURE_HOT_LABEL, "70", "70");
  char *by_line[] = {go, "tool", "pprof", "-top", "-lines", "-sample_index=samples", file, NULL};
  g_autofree char *out_lines = run_tool(by_line, env);
  g_autofree char *type_lines = NULL;
  g_autoptr(GHashTable) line_rows = parse_top(out_lines, &type_lines);
  assert_top(line_rows, FIXTURE_HOT_LABEL " " FIXTURE_LINES_FILE ":42", "50", "50");
  assert_top(line_rows, FIXTURE_HOT_LABEL " " FIXTURE_LINES_FILE ":43", "20", "20");
  assert_top(line_rows, FIXTURE_MAIN_LABEL " " FIXTURE_LINES_FILE ":12", "0", "70");
}

/* 10,000 distinct stacks of 30 frames: the writer must not be what makes a profile slow to save. */
static void test_large(PprofFixture *fx, gconstpointer data) {
  (void)fx, (void)data;
  const guint64 n_samples = 1000000;
  g_autoptr(SxsProfileModel) m = fixture_large_model(10000, 30, 5000, n_samples);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  guint n_stacks = 0;
  for (guint i = 0; i < v->groups->len; i++)
    n_stacks += ((SxsViewGroup *)v->groups->pdata[i])->stacks->len;
  g_assert_cmpuint(n_stacks, ==, 10000);

  g_test_timer_start();
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_SAMPLES);
  double seconds = g_test_timer_elapsed();
  g_test_message("encoded %u stacks in %.3f s, %zu bytes", n_stacks, seconds, g_bytes_get_size(gz));
  g_assert_cmpfloat(seconds, <, 2.0);

  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  g_assert_cmpuint(p->n_sample, ==, n_stacks);
  g_assert_cmpint(value_total(p, 0), ==, n_samples);
  g_assert_cmpuint(p->n_function, ==, v->frames->len);
  for (size_t i = 0; i < p->n_sample; i++)
    g_assert_cmpuint(p->sample[i]->n_location_id, ==, 30);
}

/* An async method's state machine: the function is named as the method a person wrote, its
 * system_name is the runtime's name for it. */
static void test_async_name(PprofFixture *fx, gconstpointer data) {
  (void)data;
  SxsStackModel *s = fixture_sample(fx->model, 9, "Pool", 5);
  fixture_frame(s, TRUE, 1, "App.Reader.<ReadBufferAsync>d__72.MoveNext", "App.dll", 0x7f0000005000);
  fixture_libc(s);
  g_autoptr(SxsView) v = sxs__view_new(fx->model, NULL);
  g_autoptr(GBytes) gz = render(v, SXS_VIEW_N_KINDS);
  g_autoptr(Perftools__Profiles__Profile) p = decode(gz);
  const Perftools__Profiles__Function *fn = function_by_name(p, "[rt1 10.0.1] App.Reader.ReadBufferAsync [async]");
  g_assert_cmpstr(str(p, fn->system_name), ==, "App.Reader.<ReadBufferAsync>d__72.MoveNext");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, PprofFixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD("/views/pprof/lines", test_lines);
  ADD("/views/pprof/samples", test_samples);
  ADD("/views/pprof/wall", test_wall);
  ADD("/views/pprof/hardware-event", test_hardware_event);
  ADD("/views/pprof/thread-rates", test_thread_rates);
  ADD("/views/pprof/cpu-duration", test_cpu_duration);
  ADD("/views/pprof/calls", test_calls);
  ADD("/views/pprof/calls-untimed", test_calls_untimed);
  ADD("/views/pprof/events", test_events);
  ADD("/views/pprof/empty", test_empty);
  ADD("/views/pprof/names", test_names);
  ADD("/views/pprof/async-name", test_async_name);
  ADD("/views/pprof/node", test_node);
  ADD("/views/pprof/go", test_go);
  ADD("/views/pprof/large", test_large);
#undef ADD
  return g_test_run();
}
