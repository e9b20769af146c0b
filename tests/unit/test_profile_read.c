/* Reading a saved profile back (manager/profile/sxs_profile_read.c): the synthetic fixture rendered, read
 * and rendered again gives the same bytes; every kind of bad file gets its one message. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_profile_read.h"
#include "sxs_view_fixture.h"
#include "sxs_scratch.h"

#define LARGE_STACKS 10000
#define LARGE_DEPTH 30
#define LARGE_FUNCTIONS 50000
#define LARGE_SAMPLES 1000000
#define LARGE_READ_MAX_US (1000 * 1000)
#define LARGE_PEAK_MAX_KIB (200 * 1024)
#define LARGE_PATH_ENV "SXS_TEST_PROFILE_READ_LARGE"

/* Timings and peak memory mean something only in an optimized build without sanitizers. */
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MEASURED_BUILD 1
#else
#define MEASURED_BUILD 0
#endif

static char *render(const SxsProfileModel *m, gsize *ret_len) {
  char *text = sxs__profile_render_json(m, ret_len);
  g_assert_nonnull(text);
  return text;
}

/* Reads text, which must be a profile, and checks that rendering it again gives text back. */
static SxsProfileModel *read_back(const char *text, gsize len) {
  g_autoptr(GError) error = NULL;
  SxsProfileModel *m = sxs__profile_read(text, len, &error);
  g_assert_no_error(error);
  g_assert_nonnull(m);
  gsize again_len;
  g_autofree char *again = render(m, &again_len);
  g_assert_cmpuint(again_len, ==, len);
  g_assert_true(memcmp(again, text, len) == 0);
  return m;
}

/* Reads text, which must fail with code, and returns the message. */
static char *read_error(const char *text, gssize len, int code) {
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_read(text, len < 0 ? strlen(text) : (gsize)len, &error);
  g_assert_null(m);
  g_assert_error(error, SXS_PROFILE_READ_ERROR, code);
  g_assert_null(strchr(error->message, '\n'));
  return g_strdup(error->message);
}

static void add_thread(SxsRuntimeModel *r, uint32_t os_tid, const char *name, gboolean destroyed) {
  SxsThreadRecord *t = g_new0(SxsThreadRecord, 1);
  t->runtime_id = r->id;
  t->os_tid = os_tid;
  t->name = g_strdup(name);
  t->destroyed = destroyed;
  g_ptr_array_add(r->threads, t);
}

static void add_count(GHashTable *table, const char *key, guint64 value) {
  g_hash_table_insert(table, g_strdup(key), g_memdup2(&value, sizeof value));
}

/* The fixture with a value other than the default in every member the profile holds, and strings
 * only escapes can write. */
static SxsProfileModel *full_model(void) {
  SxsProfileModel *m = fixture_model();
  SxsProcessInfo *p = m->process;
  g_strfreev(p->argv);
  p->argv = g_new0(char *, 5);
  p->argv[0] = g_strdup("dotnet");
  p->argv[1] = g_strdup("exec");
  p->argv[2] = g_strdup("App \"quoted\"\\path\t\x01/é😀.dll");
  p->argv[3] = g_strdup("");
  p->start_unix_ms = G_GINT64_CONSTANT(1795000000123);
  p->run_id = g_strdup("run-2031-01-01T00:00:00Z-42");
  m->config = g_strdup("/etc/sxsprof/profile.ini");
  m->log = g_strdup("stderr");

  SxsRuntimeModel *r1 = m->runtimes->pdata[0], *r2 = m->runtimes->pdata[1];
  r1->caps =
      (SxsCapabilities){.info_version = 15, .event_mask2 = TRUE, .basic_gc = TRUE, .elt3 = TRUE, .suspend = TRUE};
  r1->shut_down = TRUE;
  r1->counters = (SxsCounters){.jit_compiled = 1234,
                               .modules_loaded = 56,
                               .exceptions = FIXTURE_EXCEPTIONS,
                               .gcs = (gint64)SXS_PROFILE_MAX_COUNT,
                               .threads_created = 7};
  r1->inventory = (SxsInventoryModel){.enabled = TRUE,
                                      .events = 400,
                                      .named = 300,
                                      .dropped = 2,
                                      .naming_threads = {4242, G_MAXUINT32},
                                      .n_naming_threads = 2};
  r1->tracing.path = g_strdup("fast");
  r1->tracing.routing = g_strdup("mapper2");
  r1->tracing.hooks = g_strdup("full");
  r1->tracing.functions_mapped = 100;
  r1->tracing.functions_hooked = 90;
  r1->tracing.tailcalls = 3;
  r1->tracing.unwound = 4;
  r1->tracing.open_frames = 5;
  r1->tracing.depth_overflows = 6;
  r1->tracing.tree_overflows = SXS_PROFILE_MAX_COUNT;
  SxsFunctionRecord *f = r1->functions->pdata[1];
  f->inlined = 3;
  f->precompiled = G_MAXUINT;
  f = g_new0(SxsFunctionRecord, 1);
  f->name = g_strdup("App.Program.Untraced");
  f->module = g_strdup("App.dll");
  f->precompiled = 1;
  g_ptr_array_add(r1->functions, f);
  g_hash_table_insert(r1->features_off, g_strdup("sampling"), g_strdup("asked \"off\"\nin config"));
  g_hash_table_insert(r1->features_off, g_strdup("gc-stacks"), g_strdup("needs Info10"));
  add_thread(r1, 100, "Main", FALSE);
  add_thread(r1, 101, FIXTURE_WORKER_THREAD, TRUE);
  add_thread(r1, G_MAXUINT32, NULL, FALSE);

  /* Declined, then traced without timing: calls only. */
  r2->status = SXS_RUNTIME_DECLINED;
  r2->reason = g_strdup("another runtime was picked");
  g_free(r2->clr_version);
  r2->clr_version = g_strdup("8.0.11.12345");
  r2->version_source = g_strdup("corelib");
  r2->tracing.enabled = TRUE;
  r2->tracing.path = g_strdup("slow");
  r2->tracing.routing = g_strdup("closure");
  r2->tracing.hooks = g_strdup("empty");
  r2->tracing.reason = g_strdup("timing off");
  fixture_function(r2, "Lib.Box<T>.Run<int>", 15, 0, 0);
  fixture_call(r2, 1, 0, "Lib.Box<T>.Run<int>", 15, 0, 0);
  add_thread(r2, 101, "", FALSE);

  SxsRuntimeModel *r3 = fixture_runtime(m, 3, "9.0.0-preview.1");
  r3->status = SXS_RUNTIME_PENDING;
  r3->caps.info_version = -1;

  SxsStackModel *s = sxs__stack_model_new("jit", 101);
  s->count = SXS_PROFILE_MAX_COUNT;
  fixture_frame(s, FALSE, 0, "0x7f0000000abc", "", UINTPTR_MAX);
  fixture_frame(s, TRUE, 3, "[runtime 3 code at 0x1]", "", 1);
  g_ptr_array_add(m->stacks, s);
  s = sxs__stack_model_new("gc", 100);
  s->count = 1;
  g_ptr_array_add(m->stacks, s);

  SxsWalkCounters *w = &m->walks;
  w->made = 11;
  w->failed = 12;
  w->runtime_walks = 13;
  w->unknown_frames = 14;
  w->stacks_dropped = 15;
  w->frames = 16;
  w->native_frames = 17;
  w->stacks_named = 18;
  w->ns_native = 19;
  w->ns_classify = 20;
  w->ns_runtime_walks = 21;
  w->ns_merge = 22;
  w->ns_naming = 23;
  w->ns_naming_first = 24;
  w->events[1] = 25;
  w->events[2] = 26;
  w->empty = 27;
  w->truncated = 28;
  w->stack_nodes = 29;
  w->recorder_bytes = 30;
  add_count(w->failures, "CORPROF_E_STACKSNAPSHOT_UNSAFE", 2);
  add_count(w->failures, "EFAULT", SXS_PROFILE_MAX_COUNT);
  add_count(w->skipped, "runtime 2: declined", 9);

  SxsSamplesModel *sm = &m->samples;
  sm->off_reason = g_strdup("suspend walker needs Info10");
  sm->ticks = 120;
  sm->ticks_missed = 5;
  sm->duration_ns = 1250000000;
  sm->threads = 509;
  sm->threads_per_tick = 32;
  sm->blocked_walks = 77;
  sm->blocked_walk_ns = 7700;
  sm->ticks_signal = 110;
  sm->ticks_suspend = 10;
  sm->capture_ns = 30;
  sm->capture_ns_max = 17;
  sm->capture_ns_p50 = 4;
  sm->capture_ns_p90 = 9;
  sm->capture_ns_p99 = 12;
  sm->suspensions = 21;
  sm->walks_reused = 19;
  sm->walks_redone = 17;
  sm->resolve_ns = 31;
  sm->frames = 32;
  add_count(sm->dropped, "buffer full", 4);
  add_count(sm->dropped, "thread gone", 1);
  /* A thread without a name is reported by its id. */
  s = fixture_sample(m, 102, NULL, 3);
  fixture_frame(s, TRUE, 1, "App.Program.Unnamed", "App.dll", 0x7e000000b000);
  return m;
}

static void test_roundtrip_fixture(void) {
  g_autoptr(SxsProfileModel) original = fixture_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autoptr(SxsProfileModel) m = read_back(text, len);
  g_assert_cmpstr(m->mode, ==, "pick-all");
  g_assert_cmpuint(m->samples.stacks->len, ==, original->samples.stacks->len);
  const SxsStackModel *s = m->samples.stacks->pdata[4];
  g_assert_cmpstr(s->thread_name, ==, FIXTURE_WORKER_THREAD);
  g_assert_cmpstr(g_array_index(s->frames, SxsStackFrameModel, 0).name, ==, fixture_long_name());
}

/* Every profile version this sxsprof wrote still reads: the saved profiles of tests/unit/data/ in
 * version 1 and their twins in version 2 (tests/unit/data/v2/) give one model, which renders to
 * the same version-2 text; version 2 is the smaller by the frames it names once. */
static void test_versions(void) {
  const char *source = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(source);
  static const char *const names[] = {"counts.json", "sampled.json", "stitch.json"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *v1_path = g_build_filename(source, "tests", "unit", "data", names[i], NULL);
    g_autofree char *v2_path = g_build_filename(source, "tests", "unit", "data", "v2", names[i], NULL);
    g_autofree char *v1 = NULL, *v2 = NULL;
    gsize v1_len, v2_len;
    g_assert_true(g_file_get_contents(v1_path, &v1, &v1_len, NULL));
    g_assert_true(g_file_get_contents(v2_path, &v2, &v2_len, NULL));
    g_assert_nonnull(strstr(v1, "\"version\": 1,"));
    g_assert_nonnull(strstr(v2, "\"version\": 2,"));
    g_autoptr(GError) error = NULL;
    g_autoptr(SxsProfileModel) m1 = sxs__profile_read(v1, v1_len, &error);
    g_assert_no_error(error);
    g_autoptr(SxsProfileModel) m2 = read_back(v2, v2_len);
    g_assert_cmpuint(m1->samples.stacks->len + m1->stacks->len, >, 0);
    g_autofree char *from_v1 = render(m1, NULL);
    g_autofree char *from_v2 = render(m2, NULL);
    g_assert_cmpstr(from_v1, ==, from_v2);
    g_assert_cmpstr(from_v2, ==, v2);
    g_test_message("%s: version 1 %zu bytes, version 2 %zu bytes (%.1fx)", names[i], v1_len, v2_len,
                   (double)v1_len / (double)v2_len);
    g_assert_cmpuint(v2_len * 3, <, v1_len);
  }
  /* Version 1's addresses are still checked. */
  g_autofree char *bad_ip = read_error("{\"format\": \"sxsprof\", \"version\": 1, \"stacks\": [{\"event\": \"jit\", "
                                       "\"frames\": [{\"kind\": \"native\", \"name\": \"x\", \"ip\": \"7e\"}]}]}",
                                       -1, SXS_PROFILE_READ_ERROR_INVALID);
  g_assert_true(g_str_has_prefix(bad_ip, "the profile: stacks[0].frames[0].ip: expected an address"));
}

static void test_roundtrip_full(void) {
  g_autoptr(SxsProfileModel) original = full_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autoptr(SxsProfileModel) m = read_back(text, len);

  /* What the JSON holds only implicitly. */
  g_assert_cmpstr(m->process->argv[2], ==, original->process->argv[2]);
  g_assert_cmpstr(m->process->argv[3], ==, "");
  g_assert_null(m->process->argv[4]);
  g_assert_cmpstr(m->process->run_id, ==, original->process->run_id);
  const SxsRuntimeModel *r1 = m->runtimes->pdata[0], *r2 = m->runtimes->pdata[1], *r3 = m->runtimes->pdata[2];
  g_assert_cmpint(r1->status, ==, SXS_RUNTIME_PROFILING);
  g_assert_cmpint(r2->status, ==, SXS_RUNTIME_DECLINED);
  g_assert_cmpint(r3->status, ==, SXS_RUNTIME_PENDING);
  g_assert_cmpint(r3->caps.info_version, ==, -1);
  g_assert_true(r1->inventory.enabled);
  g_assert_cmpuint(r1->inventory.events, ==, 400);
  g_assert_cmpuint(r1->inventory.named, ==, 300);
  g_assert_cmpuint(r1->inventory.dropped, ==, 2);
  g_assert_cmpuint(r1->inventory.n_naming_threads, ==, 2);
  g_assert_cmpuint(r1->inventory.naming_threads[0], ==, 4242);
  g_assert_cmpuint(r1->inventory.naming_threads[1], ==, G_MAXUINT32);
  g_assert_false(r2->inventory.enabled);
  const SxsThreadRecord *t = r2->threads->pdata[0];
  g_assert_cmpint(t->runtime_id, ==, 2);
  g_assert_cmpuint(t->os_tid, ==, 101);
  const SxsFunctionRecord *traced = r1->functions->pdata[0], *untraced = r1->functions->pdata[3];
  g_assert_true(traced->traced);
  g_assert_cmpuint(traced->inclusive_ns, ==, 1000);
  g_assert_false(untraced->traced);
  g_assert_cmpstr(g_hash_table_lookup(r1->features_off, "sampling"), ==, "asked \"off\"\nin config");
  g_assert_cmpuint(*(guint64 *)g_hash_table_lookup(m->walks.failures, "EFAULT"), ==, SXS_PROFILE_MAX_COUNT);
  const SxsStackModel *jit = m->stacks->pdata[2];
  g_assert_cmpstr(jit->event, ==, "jit");
  /* Version 2 keeps each frame's stack pointer, not its instruction pointer. */
  g_assert_cmpuint(g_array_index(jit->frames, SxsStackFrameModel, 0).ip, ==, 0);
  g_assert_cmphex(g_array_index(jit->frames, SxsStackFrameModel, 0).sp, ==, 0x7ffd0000);
  g_assert_cmphex(g_array_index(jit->frames, SxsStackFrameModel, 1).sp, ==, 0x7ffd0040);
  const SxsStackFrameModel *managed = &g_array_index(jit->frames, SxsStackFrameModel, 1);
  g_assert_true(managed->managed);
  g_assert_cmpint(managed->runtime_id, ==, 3);
  const SxsStackModel *unnamed = m->samples.stacks->pdata[5];
  g_assert_null(unnamed->thread_name);
  g_assert_cmpuint(unnamed->thread, ==, 102);
  g_assert_cmpstr(unnamed->event, ==, "sample");
  /* The sampler's rate: what it achieved is derived from its ticks and the time they cover. */
  g_assert_cmpuint(m->samples.ticks_missed, ==, 5);
  g_assert_cmpuint(m->samples.duration_ns, ==, 1250000000);
  g_assert_cmpuint(m->samples.threads, ==, 509);
  g_assert_cmpuint(m->samples.threads_per_tick, ==, 32);
  g_assert_cmpuint(m->samples.blocked_walks, ==, 77);
  g_assert_cmpuint(m->samples.blocked_walk_ns, ==, 7700);
  g_assert_cmpfloat(sxs__samples_achieved_hz(&m->samples), ==, 96.0);
  g_assert_nonnull(strstr(text, "\"achieved_hz\": 96.0"));
}

/* A profile of a process that could not tell who it was, and nothing else. */
static void test_roundtrip_empty(void) {
  g_autoptr(SxsProfileModel) original = sxs__profile_model_new();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autoptr(SxsProfileModel) m = read_back(text, len);
  g_assert_null(m->process);
  g_assert_null(m->mode);
  g_assert_cmpuint(m->runtimes->len, ==, 0);
}

/* Escapes any writer may use decode right, wherever they are. */
static void test_escapes(void) {
  static const char text[] =
      "{\"format\": \"sxs\\u0070rof\", \"version\": 1, \"process\": null,\n"
      " \"m\\u006fde\": \"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\n\\t\",\n"
      " \"runtimes\": [{\"id\": 1, \"version\": \"caf\\u00E9\", \"status\": \"\\u0070rofiling\"}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_read(text, strlen(text), &error);
  g_assert_no_error(error);
  g_assert_cmpstr(m->mode, ==, "é😀\"\\/\n\t");
  g_assert_cmpstr(m->mode, ==, "\xc3\xa9\xf0\x9f\x98\x80\"\\/\n\t");
  const SxsRuntimeModel *r = m->runtimes->pdata[0];
  g_assert_cmpstr(r->version, ==, "café");
  g_assert_cmpint(r->status, ==, SXS_RUNTIME_PROFILING);
  /* A profile from before the inventory was an option: it had one. */
  g_assert_true(r->inventory.enabled);
}

/* Members a later sxsprof (still version 2) may add are skipped at every level. */
static void test_unknown_members(void) {
  g_autoptr(SxsProfileModel) original = full_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autoptr(GString) extended = g_string_new(text);
  static const struct {
    const char *after;
    const char *insert;
  } extras[] = {
      {"\"version\": 2,", " \"future\": {\"a\": [1, {\"b\": null}], \"c\": \"}]\"},"},
      {"\"pid\": 4242,", " \"host\": [\"x\", [], {}],"},
      {"\"info_version\": 15,", " \"new_caps\": {\"x\": true},"},
      {"\"jit_compiled\":1,", " \"tier\": 2.5e-1,"},
      {"{\"kind\":\"managed\",", " \"il_offset\": -1,"},
      {"\"made\": 11,", " \"retried\": false,"},
      {"\"taken\": 100,", " \"lost\": [[[]]],"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(extras); i++) {
    const char *at = strstr(extended->str, extras[i].after);
    g_assert_nonnull(at);
    g_string_insert(extended, at - extended->str + (gssize)strlen(extras[i].after), extras[i].insert);
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_read(extended->str, extended->len, &error);
  g_assert_no_error(error);
  gsize again_len;
  g_autofree char *again = render(m, &again_len);
  g_assert_cmpstr(again, ==, text);
}

static void test_error_empty(void) {
  g_autofree char *empty = read_error("", 0, SXS_PROFILE_READ_ERROR_EMPTY);
  g_assert_cmpstr(empty, ==, "the profile is empty");
  g_autofree char *space = read_error(" \n\t\r\n", -1, SXS_PROFILE_READ_ERROR_EMPTY);
  g_assert_cmpstr(space, ==, "the profile is empty");
}

static void test_error_not_json(void) {
  g_autofree char *text = read_error("sxsprof profile\n", -1, SXS_PROFILE_READ_ERROR_NOT_JSON);
  g_assert_cmpstr(text, ==, "the profile is not JSON: expected a value, found 's' at line 1, column 1");
  g_autofree char *comma = read_error("{\n  \"format\": \"sxsprof\",\n  \"version\": 1\n  \"pid\": 1\n}", -1,
                                      SXS_PROFILE_READ_ERROR_NOT_JSON);
  g_assert_cmpstr(comma, ==, "the profile is not JSON: expected ',' or '}' at line 4, column 3");
  g_autofree char *trailing =
      read_error("{\"format\": \"sxsprof\", \"version\": 1}\n}", -1, SXS_PROFILE_READ_ERROR_NOT_JSON);
  g_assert_cmpstr(trailing, ==,
                  "the profile is not JSON: unexpected text after the top-level value at line 2, column 1");
  g_autofree char *utf8 =
      read_error("{\"format\": \"sxsprof\", \"version\": 1, \"mode\": \"\xc3\"}", -1, SXS_PROFILE_READ_ERROR_NOT_JSON);
  g_assert_cmpstr(utf8, ==, "the profile is not JSON: invalid UTF-8 in a string (byte 0xc3) at line 1, column 46");
}

static void test_error_truncated(void) {
  g_autofree char *cut = read_error("{\n  \"format\": \"sxsprof\",\n  \"version\": 1,\n  \"runtimes\": [\n", -1,
                                    SXS_PROFILE_READ_ERROR_TRUNCATED);
  g_assert_cmpstr(cut, ==, "the profile is truncated: unexpected end of file at line 5, column 1");
}

static void test_error_not_profile(void) {
  static const char *const texts[] = {
      "[1, 2]",
      "\"sxsprof\"",
      "42",
      "null",
      "{}",
      "{\"a\": 1}",
      "{\"format\": \"speedscope\", \"version\": 1}",
      "{\"format\": 3, \"version\": 1}",
      "{\"format\": null}",
      "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\", \"shared\": {\"frames\": 5}}",
      "{\"format\": \"sxsprof\"}",
      "{\"format\": \"sxsprof\", \"version\": 0}",
      "{\"version\": 2}",
  };
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_test_message("%s", texts[i]);
    g_autofree char *message = read_error(texts[i], -1, SXS_PROFILE_READ_ERROR_NOT_PROFILE);
    g_assert_true(g_str_has_prefix(message, "the profile is not an sxsprof profile ("));
  }
  g_autofree char *array = read_error("[1, 2]", -1, SXS_PROFILE_READ_ERROR_NOT_PROFILE);
  g_assert_cmpstr(array, ==, "the profile is not an sxsprof profile (its top level is an array, not an object)");
  g_autofree char *other = read_error("{\"format\": \"speedscope\"}", -1, SXS_PROFILE_READ_ERROR_NOT_PROFILE);
  g_assert_cmpstr(other, ==, "the profile is not an sxsprof profile (its \"format\" is not \"sxsprof\")");
  g_autofree char *missing = read_error("{\"a\": 1}", -1, SXS_PROFILE_READ_ERROR_NOT_PROFILE);
  g_assert_cmpstr(missing, ==, "the profile is not an sxsprof profile (it has no \"format\": \"sxsprof\")");
}

/* A newer version is reported as such, also when its layout makes no sense to this reader. */
static void test_error_version(void) {
  static const char *const texts[] = {
      "{\"format\": \"sxsprof\", \"version\": 3}",
      "{\"format\": \"sxsprof\", \"version\": 3, \"runtimes\": {\"by_id\": {}}, \"samples\": 5}",
      "{\"version\": 3, \"format\": \"sxsprof\", \"runtimes\": {\"by_id\": {}}}",
      "{\"version\": 3, \"runtimes\": {\"by_id\": {}}, \"format\": \"sxsprof\"}",
      "{\"format\": \"sxsprof\", \"version\": 3, \"stacks\": [",
      "{\"format\": \"sxsprof\", \"version\": 3, %%% not json",
  };
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_test_message("%s", texts[i]);
    g_autofree char *message = read_error(texts[i], -1, SXS_PROFILE_READ_ERROR_VERSION);
    g_assert_cmpstr(
        message, ==,
        "the profile was written by a newer sxsprof (profile version 3; this sxsprof reads versions 1 to 2)");
  }
}

/* Replaces the first occurrence of from in text (which must hold it) by to. */
static char *replace_first(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  g_assert_nonnull(at);
  return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* A member of the wrong type or with a value the model cannot hold: its path in the message. */
static void test_error_members(void) {
  g_autoptr(SxsProfileModel) original = full_model();
  g_autofree char *text = render(original, NULL);
  static const struct {
    const char *from, *to;
    const char *message; /* up to " at line" */
  } cases[] = {
      {"\"name\":\"App.Program.Hot\"", "\"name\":42",
       "the profile: runtimes[0].functions[1].name: expected a string, found a number"},
      {"\"inlined\":3", "\"inlined\":4294967296",
       "the profile: runtimes[0].functions[1].inlined: integer out of range (expected 0 to 4294967295)"},
      {"\"inlined\":3", "\"inlined\":-3",
       "the profile: runtimes[0].functions[1].inlined: integer out of range (expected 0 to 4294967295)"},
      {"\"status\": \"declined\"", "\"status\": \"sleeping\"",
       "the profile: runtimes[1].status: expected \"profiling\", \"declined\" or \"pending\""},
      {"\"elt3\": true", "\"elt3\": 1",
       "the profile: runtimes[0].capabilities.elt3: expected a boolean, found a number"},
      {"\"command_line\": [", "\"command_line\": [null, ",
       "the profile: process.command_line[0]: expected a string, found null"},
      {"\"kind\":\"managed\"", "\"kind\":\"jitted\"",
       "the profile: frame_table[0].kind: expected \"managed\" or \"native\""},
      {"\"sp\":[", "\"sp\":[\"0x7ffd0000\",", "the profile: stacks[0].sp[0]: expected an integer, found a string"},
      {"\"sp\":[", "\"sp\":[18446744073709551616,",
       "the profile: stacks[0].sp[0]: integer out of range (expected -9223372036854775808 to 9223372036854775807)"},
      {"\"frames\":[", "\"frames\":[99,", "the profile: stacks[0].frames[0]: integer out of range (expected 0 to 15)"},
      {"\"EFAULT\": 9007199254740991", "\"EFAULT\": 18446744073709551616",
       "the profile: stack_walks.failures.EFAULT: integer out of range (expected 0 to 9007199254740991)"},
      {"\"runtimes\": [", "\"runtimes\": [[], ", "the profile: runtimes[0]: expected an object, found an array"},
      {"\"samples\": {", "\"samples\": [], \"x\": {", "the profile: samples: expected an object, found an array"},
      {"\"version\": 2", "\"version\": \"2\"", "the profile: version: expected an integer, found a string"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *bad = replace_first(text, cases[i].from, cases[i].to);
    g_autofree char *message = read_error(bad, -1, SXS_PROFILE_READ_ERROR_INVALID);
    g_test_message("%s", message);
    g_autofree char *expected = g_strconcat(cases[i].message, " at line ", NULL);
    g_assert_true(g_str_has_prefix(message, expected));
  }
  /* The position is the value's. */
  g_autofree char *bad = replace_first(text, "\"executable\": \"/usr/share/dotnet/dotnet\"", "\"executable\": true");
  g_autofree char *message = read_error(bad, -1, SXS_PROFILE_READ_ERROR_INVALID);
  g_assert_cmpstr(message, ==,
                  "the profile: process.executable: expected a string, found a boolean at line 8, column 19");
}

/* Any cut of a valid profile fails with a message and leaks nothing (ASan checks both in CI). */
static void test_truncated_cuts(void) {
  g_autoptr(SxsProfileModel) original = full_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  guint cuts = 0;
  for (gsize cut = 0; cut < len; cut += cut < 3000 || cut > len - 3000 ? 1 : 7) {
    /* A copy of exactly cut bytes, so that ASan sees any read past the end. */
    g_autofree char *copy = g_memdup2(text, cut);
    g_autoptr(GError) error = NULL;
    g_autoptr(SxsProfileModel) m = sxs__profile_read(copy, cut, &error);
    g_assert_null(m);
    g_assert_nonnull(error);
    int code = cut == 0 ? SXS_PROFILE_READ_ERROR_EMPTY : SXS_PROFILE_READ_ERROR_TRUNCATED;
    g_assert_error(error, SXS_PROFILE_READ_ERROR, code);
    g_assert_true(cut == 0 ||
                  g_str_has_prefix(error->message, "the profile is truncated: unexpected end of file at line "));
    cuts++;
  }
  g_test_message("%u cut points of a %" G_GSIZE_FORMAT "-byte profile", cuts, len);
}

typedef struct {
  char *dir;
} TmpDir;

static void tmpdir_setup(TmpDir *t, gconstpointer data) {
  (void)data;
  t->dir = sxs_scratch_new("sxs-profile-read");
}

static void tmpdir_teardown(TmpDir *t, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(t->dir);
}

static void test_load(TmpDir *t, gconstpointer data) {
  (void)data;
  g_autoptr(SxsProfileModel) original = full_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autofree char *path = g_build_filename(t->dir, "app.json", NULL);
  g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, 0, &error);
  g_assert_no_error(error);
  g_autofree char *again = render(m, NULL);
  g_assert_cmpstr(again, ==, text);

  /* Messages name the file. */
  g_autofree char *empty = g_build_filename(t->dir, "empty.json", NULL);
  g_assert_true(g_file_set_contents(empty, "", 0, NULL));
  g_autoptr(GError) empty_error = NULL;
  g_assert_null(sxs__profile_load(empty, 0, &empty_error));
  g_assert_error(empty_error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_EMPTY);
  g_autofree char *empty_message = g_strdup_printf("%s is empty", empty);
  g_assert_cmpstr(empty_error->message, ==, empty_message);

  g_autofree char *cut = g_build_filename(t->dir, "cut.json", NULL);
  g_assert_true(g_file_set_contents(cut, text, (gssize)len / 2, NULL));
  g_autoptr(GError) cut_error = NULL;
  g_assert_null(sxs__profile_load(cut, 0, &cut_error));
  g_assert_error(cut_error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_TRUNCATED);
  g_autofree char *cut_prefix = g_strdup_printf("%s is truncated: ", cut);
  g_assert_true(g_str_has_prefix(cut_error->message, cut_prefix));

  g_autofree char *missing = g_build_filename(t->dir, "missing.json", NULL);
  g_autoptr(GError) missing_error = NULL;
  g_assert_null(sxs__profile_load(missing, 0, &missing_error));
  g_assert_error(missing_error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_FILE);
  g_autofree char *missing_message = g_strdup_printf("cannot open %s: %s", missing, g_strerror(ENOENT));
  g_assert_cmpstr(missing_error->message, ==, missing_message);

  g_autoptr(GError) folder_error = NULL;
  g_assert_null(sxs__profile_load(t->dir, 0, &folder_error));
  g_assert_error(folder_error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_FILE);
  g_autofree char *folder_message = g_strdup_printf("%s is a folder, not a profile", t->dir);
  g_assert_cmpstr(folder_error->message, ==, folder_message);
}

/* Loads path, which must fail with code, and returns the message. */
static char *load_error(const char *path, guint64 max_size, int code) {
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, max_size, &error);
  g_assert_null(m);
  g_assert_error(error, SXS_PROFILE_READ_ERROR, code);
  return g_strdup(error->message);
}

/* Only regular files are read: a pipe, a FIFO without a writer (which must not block the open), a
 * device that never ends, a symbolic link loop each get one message at once, without a read. */
static void test_load_special(TmpDir *t, gconstpointer data) {
  (void)data;
  int fds[2];
  g_assert_cmpint(pipe(fds), ==, 0);
  g_autofree char *pipe_path = g_strdup_printf("/proc/self/fd/%d", fds[0]);
  g_autofree char *pipe_message = load_error(pipe_path, 0, SXS_PROFILE_READ_ERROR_FILE);
  close(fds[0]);
  close(fds[1]);
  g_autofree char *pipe_expected = g_strdup_printf("%s is a FIFO, not a profile; expected a regular file", pipe_path);
  g_assert_cmpstr(pipe_message, ==, pipe_expected);

  g_autofree char *fifo = g_build_filename(t->dir, "fifo.json", NULL);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  gint64 start = g_get_monotonic_time();
  g_autofree char *fifo_message = load_error(fifo, 0, SXS_PROFILE_READ_ERROR_FILE);
  g_assert_cmpint(g_get_monotonic_time() - start, <, 5 * G_USEC_PER_SEC);
  g_autofree char *fifo_expected = g_strdup_printf("%s is a FIFO, not a profile; expected a regular file", fifo);
  g_assert_cmpstr(fifo_message, ==, fifo_expected);

  g_autofree char *zero = load_error("/dev/zero", 0, SXS_PROFILE_READ_ERROR_FILE);
  g_assert_cmpstr(zero, ==, "/dev/zero is a character device, not a profile; expected a regular file");
  g_autofree char *link = g_build_filename(t->dir, "zero.json", NULL);
  g_assert_cmpint(symlink("/dev/zero", link), ==, 0);
  g_autofree char *link_message = load_error(link, 0, SXS_PROFILE_READ_ERROR_FILE);
  g_autofree char *link_expected =
      g_strdup_printf("%s is a character device, not a profile; expected a regular file", link);
  g_assert_cmpstr(link_message, ==, link_expected);

  g_autofree char *loop_a = g_build_filename(t->dir, "a.json", NULL);
  g_autofree char *loop_b = g_build_filename(t->dir, "b.json", NULL);
  g_assert_cmpint(symlink(loop_b, loop_a), ==, 0);
  g_assert_cmpint(symlink(loop_a, loop_b), ==, 0);
  g_autofree char *loop_message = load_error(loop_a, 0, SXS_PROFILE_READ_ERROR_FILE);
  g_autofree char *loop_expected = g_strdup_printf("cannot open %s: %s", loop_a, g_strerror(ELOOP));
  g_assert_cmpstr(loop_message, ==, loop_expected);

  /* A /proc file says it is empty: it is read to its end, and is not JSON. */
  g_autofree char *proc = load_error("/proc/self/status", 0, SXS_PROFILE_READ_ERROR_NOT_JSON);
  g_assert_true(g_str_has_prefix(proc, "/proc/self/status is not JSON: "));
}

/* A file larger than the limit is refused before it is read; one just under it is read. */
static void test_load_max_size(TmpDir *t, gconstpointer data) {
  (void)data;
  g_autoptr(SxsProfileModel) original = fixture_model();
  gsize len;
  g_autofree char *text = render(original, &len);
  g_autofree char *path = g_build_filename(t->dir, "app.json", NULL);
  g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  g_autofree char *message = load_error(path, len - 1, SXS_PROFILE_READ_ERROR_TOO_LARGE);
  g_autofree char *expected = g_strdup_printf(
      "%s is %" G_GSIZE_FORMAT " bytes; expected a profile of at most %" G_GSIZE_FORMAT " bytes", path, len, len - 1);
  g_assert_cmpstr(message, ==, expected);
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, len, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(m->samples.stacks->len, ==, original->samples.stacks->len);
  /* A /proc file is cut at the limit while it is read. */
  g_autofree char *proc = load_error("/proc/self/maps", 16, SXS_PROFILE_READ_ERROR_TOO_LARGE);
  g_assert_cmpstr(proc, ==, "/proc/self/maps is more than 16 bytes; expected a profile of at most 16 bytes");
}

/* A profile whose one runtime has the call tree nodes (id, parent) and the given frames in one
 * event stack. */
static char *tree_profile(const guint *nodes, guint n, guint frames) {
  GString *s = g_string_new("{\"format\": \"sxsprof\", \"version\": 1, \"runtimes\": [{\"id\": 1, \"call_tree\": [\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "%s{\"id\": %u, \"parent\": %u, \"name\": \"F%u\", \"calls\": 1}\n", i ? "," : "",
                           nodes[2 * i], nodes[2 * i + 1], i);
  g_string_append(s, "]}], \"stacks\": [{\"event\": \"jit\", \"count\": 1, \"frames\": [");
  for (guint i = 0; i < frames; i++)
    g_string_append_printf(s, "%s{\"kind\": \"native\", \"name\": \"f\"}", i ? "," : "");
  g_string_append(s, "]}]}");
  return g_string_free(s, FALSE);
}

/* A chain of n nodes, each the parent of the next. */
static char *chain_profile(guint n) {
  g_autofree guint *nodes = g_new(guint, 2 * n);
  for (guint i = 0; i < n; i++) {
    nodes[2 * i] = i + 1;
    nodes[2 * i + 1] = i;
  }
  return tree_profile(nodes, n, 1);
}

/* Call trees that are no trees, and trees and stacks past the limits, are refused at the node that
 * breaks the rule, in linear time whatever their depth. */
static void test_error_trees(void) {
  static const guint dup[] = {1, 0, 2, 1, 2, 1};
  static const guint dangling[] = {1, 0, 2, 1, 3, 7};
  static const guint self[] = {1, 0, 2, 2};
  static const guint cycle[] = {1, 0, 2, 3, 3, 4, 4, 2};
  static const guint zero[] = {0, 0};
  static const struct {
    const guint *nodes;
    guint n;
    const char *message;
  } cases[] = {
      {dup, 3,
       "the profile: runtimes[0].call_tree: node [2] has the id 2 of node [1]; expected a distinct id for each node at "
       "line 4, column 2"},
      {dangling, 3,
       "the profile: runtimes[0].call_tree: node [2] (id 3) has parent 7, which is no node's id; expected 0 (a root) "
       "or the id of a node of this tree at line 4, column 2"},
      {self, 2,
       "the profile: runtimes[0].call_tree: node [1] (id 2) is its own ancestor: its parents form a cycle; expected "
       "every chain of parents to end at a root (parent 0) at line 3, column 2"},
      {cycle, 4,
       "the profile: runtimes[0].call_tree: node [1] (id 2) is its own ancestor: its parents form a cycle; expected "
       "every chain of parents to end at a root (parent 0) at line 3, column 2"},
      {zero, 1,
       "the profile: runtimes[0].call_tree[0].id: integer out of range (expected 1 to 4294967295) at line 2, column 8"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = tree_profile(cases[i].nodes, cases[i].n, 0);
    g_autofree char *message = read_error(text, -1, SXS_PROFILE_READ_ERROR_INVALID);
    g_assert_cmpstr(message, ==, cases[i].message);
  }

  /* A chain as deep as the tracer's shadow stack is a tree; one call deeper is not, and neither
   * is a chain fifty times deeper, which is refused as fast. */
  g_autofree char *deepest = chain_profile(SXS_PROFILE_MAX_CALL_DEPTH);
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_read(deepest, strlen(deepest), &error);
  g_assert_no_error(error);
  g_assert_cmpuint(((SxsRuntimeModel *)m->runtimes->pdata[0])->call_tree->len, ==, SXS_PROFILE_MAX_CALL_DEPTH);
  for (guint n = SXS_PROFILE_MAX_CALL_DEPTH + 1; n <= 50 * SXS_PROFILE_MAX_CALL_DEPTH;
       n += 49 * SXS_PROFILE_MAX_CALL_DEPTH - 1) {
    g_autofree char *deeper = chain_profile(n);
    gint64 start = g_get_monotonic_time();
    g_autofree char *message = read_error(deeper, -1, SXS_PROFILE_READ_ERROR_INVALID);
    g_test_message("%u nodes refused in %.1f ms", n, (g_get_monotonic_time() - start) / 1e3);
    g_autofree char *expected =
        g_strdup_printf("the profile: runtimes[0].call_tree: node [%d] (id %d) is %d calls deep; expected call paths "
                        "of at most %d calls at line %d, column 2",
                        SXS_PROFILE_MAX_CALL_DEPTH, SXS_PROFILE_MAX_CALL_DEPTH + 1, SXS_PROFILE_MAX_CALL_DEPTH + 1,
                        SXS_PROFILE_MAX_CALL_DEPTH, SXS_PROFILE_MAX_CALL_DEPTH + 2);
    g_assert_cmpstr(message, ==, expected);
  }

  static const guint one[] = {1, 0};
  g_autofree char *frames_ok = tree_profile(one, 1, SXS_PROFILE_MAX_STACK_FRAMES);
  g_autoptr(GError) frames_error = NULL;
  g_autoptr(SxsProfileModel) fm = sxs__profile_read(frames_ok, strlen(frames_ok), &frames_error);
  g_assert_no_error(frames_error);
  g_assert_cmpuint(((SxsStackModel *)fm->stacks->pdata[0])->frames->len, ==, SXS_PROFILE_MAX_STACK_FRAMES);
  g_autofree char *frames_over = tree_profile(one, 1, SXS_PROFILE_MAX_STACK_FRAMES + 1);
  g_autofree char *frames_message = read_error(frames_over, -1, SXS_PROFILE_READ_ERROR_INVALID);
  g_autofree char *frames_expected = g_strdup_printf(
      "the profile: stacks[0].frames[%d]: more than %d frames in one stack; expected at most %d at line ",
      SXS_PROFILE_MAX_STACK_FRAMES, SXS_PROFILE_MAX_STACK_FRAMES, SXS_PROFILE_MAX_STACK_FRAMES);
  g_assert_true(g_str_has_prefix(frames_message, frames_expected));
}

/* Counts, times, ids and moments out of the range the views add up without wrapping. */
static void test_error_ranges(void) {
  g_autoptr(SxsProfileModel) original = full_model();
  g_autofree char *text = render(original, NULL);
  static const struct {
    const char *from, *to;
    const char *message; /* up to " at line" */
  } cases[] = {
      {"\"count\":9007199254740991", "\"count\":9007199254740992",
       "the profile: stacks[2].count: integer out of range (expected 0 to 9007199254740991)"},
      {"\"count\":9007199254740991", "\"count\":-1",
       "the profile: stacks[2].count: integer out of range (expected 0 to 9007199254740991)"},
      {"\"exclusive_ns\":800", "\"exclusive_ns\":9223372036854775808",
       "the profile: runtimes[0].functions[1].exclusive_ns: integer out of range (expected 0 to 9223372036854775807)"},
      {"\"modules_loaded\": 56", "\"modules_loaded\": -56",
       "the profile: runtimes[0].counters.modules_loaded: integer out of range (expected 0 to 9007199254740991)"},
      {"\"start_unix_ms\": 1795000000123", "\"start_unix_ms\": -1",
       "the profile: process.start_unix_ms: integer out of range (expected 0 to 253402300799999)"},
      {"\"id\": 2,\n      \"version\"", "\"id\": 1000001,\n      \"version\"",
       "the profile: runtimes[1].id: integer out of range (expected 1 to 1000000)"},
      {"\"runtime\":3,", "\"runtime\":99999999999,",
       "the profile: frame_table[4].runtime: integer out of range (expected 0 to 1000000)"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *bad = replace_first(text, cases[i].from, cases[i].to);
    g_autofree char *message = read_error(bad, -1, SXS_PROFILE_READ_ERROR_INVALID);
    g_test_message("%s", message);
    g_autofree char *expected = g_strconcat(cases[i].message, " at line ", NULL);
    g_assert_true(g_str_has_prefix(message, expected));
  }
  /* Two runtimes with one id: the second is refused where it starts. */
  g_autofree char *dup = replace_first(text, "\"id\": 2,\n      \"version\"", "\"id\": 1,\n      \"version\"");
  g_autofree char *message = read_error(dup, -1, SXS_PROFILE_READ_ERROR_INVALID);
  g_assert_true(g_str_has_prefix(message, "the profile: runtimes[1]: runtime id 1 is also runtimes[0]'s; expected a "
                                          "distinct id for each runtime at line "));
}

static SxsProfileModel *large_model(void) {
  return fixture_large_model(LARGE_STACKS, LARGE_DEPTH, LARGE_FUNCTIONS, LARGE_SAMPLES);
}

/* The large fixture round-trips, and reading it takes well under a second. */
static void test_large(void) {
  g_autofree char *text = NULL;
  gsize len;
  {
    g_autoptr(SxsProfileModel) original = large_model();
    text = render(original, &len);
  }
  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_read(text, len, &error);
  gint64 elapsed = g_get_monotonic_time() - start;
  g_assert_no_error(error);
  g_test_message("read a %.1f MB profile (%u stacks of %u frames) in %.1f ms", len / 1e6, LARGE_STACKS, LARGE_DEPTH,
                 elapsed / 1e3);
  gsize again_len;
  g_autofree char *again = render(m, &again_len);
  g_assert_cmpuint(again_len, ==, len);
  g_assert_true(memcmp(again, text, len) == 0);
  if (MEASURED_BUILD)
    g_assert_cmpint(elapsed, <, LARGE_READ_MAX_US);
}

static void large_memory_child(void);

/* Peak memory of loading the large fixture from a file, in a fresh process: the mapped text plus
 * the model, no tree. The child writes what it measured next to the profile. */
static void test_large_memory(TmpDir *t, gconstpointer data) {
  (void)data;
  if (g_test_subprocess()) {
    large_memory_child();
    return;
  }
  g_autofree char *path = g_build_filename(t->dir, "large.json", NULL);
  gsize len;
  {
    g_autoptr(SxsProfileModel) original = large_model();
    g_autofree char *text = render(original, &len);
    g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  }
  g_setenv(LARGE_PATH_ENV, path, TRUE);
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv(LARGE_PATH_ENV);
  g_test_trap_assert_passed();
  g_autofree char *report_path = g_strconcat(path, ".peak", NULL);
  g_autofree char *report = NULL;
  g_assert_true(g_file_get_contents(report_path, &report, NULL, NULL));
  g_test_message("%s (file %.1f MB)", report, len / 1e6);
}

/* A "VmHWM:"-style line of /proc/self/status, in KiB. */
static guint64 proc_status_kib(const char *name) {
  g_autofree char *status = NULL;
  g_assert_true(g_file_get_contents("/proc/self/status", &status, NULL, NULL));
  const char *line = strstr(status, name);
  g_assert_nonnull(line);
  return g_ascii_strtoull(line + strlen(name), NULL, 10);
}

static void large_memory_child(void) {
  const char *path = g_getenv(LARGE_PATH_ENV);
  g_assert_nonnull(path);
  /* VmHWM, the peak resident set of this process image (ru_maxrss would carry the parent's over
   * the exec). */
  guint64 before = proc_status_kib("VmHWM:");
  gint64 start = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, 0, &error);
  gint64 elapsed = g_get_monotonic_time() - start;
  guint64 peak = proc_status_kib("VmHWM:"), after = proc_status_kib("VmRSS:");
  g_assert_no_error(error);
  g_assert_cmpuint(m->samples.stacks->len, ==, LARGE_STACKS);
  g_autofree char *report_path = g_strconcat(path, ".peak", NULL);
  g_autofree char *report =
      g_strdup_printf("loaded in %.1f ms; peak resident %.1f MiB (%.1f MiB before loading, %.1f MiB with the model "
                      "alone after unmapping)",
                      elapsed / 1e3, peak / 1024.0, before / 1024.0, after / 1024.0);
  g_assert_true(g_file_set_contents(report_path, report, -1, NULL));
  if (MEASURED_BUILD)
    g_assert_cmpuint(peak, <, LARGE_PEAK_MAX_KIB);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/profile/read/roundtrip/fixture", test_roundtrip_fixture);
  g_test_add_func("/profile/read/versions", test_versions);
  g_test_add_func("/profile/read/roundtrip/full", test_roundtrip_full);
  g_test_add_func("/profile/read/roundtrip/empty", test_roundtrip_empty);
  g_test_add_func("/profile/read/escapes", test_escapes);
  g_test_add_func("/profile/read/unknown-members", test_unknown_members);
  g_test_add_func("/profile/read/error/empty", test_error_empty);
  g_test_add_func("/profile/read/error/not-json", test_error_not_json);
  g_test_add_func("/profile/read/error/truncated", test_error_truncated);
  g_test_add_func("/profile/read/error/not-profile", test_error_not_profile);
  g_test_add_func("/profile/read/error/version", test_error_version);
  g_test_add_func("/profile/read/error/members", test_error_members);
  g_test_add_func("/profile/read/truncated-cuts", test_truncated_cuts);
  g_test_add("/profile/read/load", TmpDir, NULL, tmpdir_setup, test_load, tmpdir_teardown);
  g_test_add("/profile/read/load/special", TmpDir, NULL, tmpdir_setup, test_load_special, tmpdir_teardown);
  g_test_add("/profile/read/load/max-size", TmpDir, NULL, tmpdir_setup, test_load_max_size, tmpdir_teardown);
  g_test_add_func("/profile/read/error/trees", test_error_trees);
  g_test_add_func("/profile/read/error/ranges", test_error_ranges);
  g_test_add_func("/profile/read/large/roundtrip", test_large);
  g_test_add("/profile/read/large/memory", TmpDir, NULL, tmpdir_setup, test_large_memory, tmpdir_teardown);

  return g_test_run();
}
