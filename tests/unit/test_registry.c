/* Unit tests of the manager's registry: runtime ids, policy stages, per-runtime tables, thread
 * keys (runtime, ThreadID), and the rendered profile document. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "sxs_manager.h"
#include "sxs_output.h"
#include "sxs_scratch.h"

typedef struct {
  char *dir;
} Fixture;

/* Points SXSPROF_CONFIG at a fresh config with `body` (NULL: no config) and resets the manager. */
static void use_config(Fixture *f, const char *body) {
  if (body) {
    g_autofree char *path = g_build_filename(f->dir, "sxsprof.conf", NULL);
    g_autofree char *text = g_strdup_printf("[profiler]\n%soutput=%s/prof\n", body, f->dir);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    g_setenv("SXSPROF_CONFIG", path, TRUE);
  } else {
    g_unsetenv("SXSPROF_CONFIG");
  }
  g_unsetenv("SXSPROF_OUTPUT");
  sxs__output_reset_for_tests();
}

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = sxs_scratch_new("sxs-registry");
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(f->dir);
  g_unsetenv("SXSPROF_CONFIG");
  sxs__output_reset_for_tests();
}

static JsonNode *render(void) {
  gsize len = 0;
  g_autofree char *text = sxs__output_render_profile(&len);
  g_assert_cmpuint(len, ==, strlen(text));
  g_autoptr(JsonParser) p = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_data(p, text, len, &error));
  g_assert_no_error(error);
  return json_node_copy(json_parser_get_root(p));
}

static JsonObject *runtime_at(JsonNode *doc, guint index) {
  JsonArray *a = json_object_get_array_member(json_node_get_object(doc), "runtimes");
  g_assert_cmpuint(index, <, json_array_get_length(a));
  return json_array_get_object_element(a, index);
}

static void test_ids_in_order(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-all\n");
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  SxsRuntime *b = sxs__manager_admit("/b/libcoreclr.so", "2.0.0");
  SxsRuntime *c = sxs__manager_admit(NULL, NULL);
  g_assert_cmpint(a->id, ==, 1);
  g_assert_cmpint(b->id, ==, 2);
  g_assert_cmpint(c->id, ==, 3);
  g_assert_cmpint(a->status, ==, SXS_RUNTIME_PENDING);
  SxsCapabilities c15 = {.info_version = 15, .event_mask2 = TRUE, .basic_gc = TRUE, .elt3 = TRUE, .suspend = TRUE};
  SxsCapabilities c8 = {.info_version = 8, .event_mask2 = TRUE, .elt3 = TRUE};
  SxsCapabilities c13 = {.info_version = 13, .event_mask2 = TRUE, .basic_gc = TRUE, .elt3 = TRUE, .suspend = TRUE};
  g_assert_true(sxs__manager_initialize(a, "/a/libcoreclr.so", "10.0.12", "10.0.12", &c15));
  g_assert_true(sxs__manager_initialize(b, "/b/libcoreclr.so", "2.0.0", "4.0.22220.0", &c8));
  g_assert_true(sxs__manager_initialize(c, "/c/libcoreclr.so", "8.0.33", "8.0.33", &c13));

  g_autoptr(JsonNode) doc = render();
  JsonObject *o = json_node_get_object(doc);
  g_assert_cmpstr(json_object_get_string_member(o, "format"), ==, "sxsprof");
  g_assert_cmpint(json_object_get_int_member(o, "version"), ==, SXS_PROFILE_VERSION);
  g_assert_cmpstr(json_object_get_string_member(o, "mode"), ==, "pick-all");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "runtimes")), ==, 3);
  g_assert_cmpint(json_object_get_int_member(runtime_at(doc, 0), "id"), ==, 1);
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 1), "clr_version"), ==, "4.0.22220.0");
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 2), "path"), ==, "/c/libcoreclr.so");
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 2), "version"), ==, "8.0.33");
  g_assert_cmpint(json_object_get_int_member(runtime_at(doc, 1), "info_version"), ==, 8);
  JsonObject *caps = json_object_get_object_member(runtime_at(doc, 1), "capabilities");
  g_assert_false(json_object_get_boolean_member(caps, "basic_gc"));
  g_assert_true(json_object_get_boolean_member(caps, "event_mask2"));
  caps = json_object_get_object_member(runtime_at(doc, 0), "capabilities");
  g_assert_true(json_object_get_boolean_member(caps, "basic_gc"));
}

static void test_pick_first(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-first\n");
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  SxsRuntime *b = sxs__manager_admit("/b/libcoreclr.so", "2.0.0");
  g_assert_cmpint(a->status, ==, SXS_RUNTIME_PENDING);
  g_assert_cmpint(b->status, ==, SXS_RUNTIME_DECLINED);
  g_assert_nonnull(strstr(b->reason, "pick-first"));
  g_assert_true(sxs__manager_initialize(a, "/a/libcoreclr.so", "10.0.12", "10.0.12", NULL));
  g_autoptr(JsonNode) doc = render();
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 0), "status"), ==, "profiling");
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 1), "status"), ==, "declined");
  g_assert_cmpstr(json_object_get_string_member(runtime_at(doc, 1), "reason"), ==, b->reason);
  g_assert_true(json_node_is_null(json_object_get_member(runtime_at(doc, 0), "reason")));
}

/* Two copies of one version: pick-one by path profiles exactly the named copy. */
static void test_pick_one_copies(Fixture *f, gconstpointer data) {
  (void)data;
  /* The selector must name a real folder with a libcoreclr.so in it. */
  g_autofree char *copy1 = g_build_filename(f->dir, "copy1", NULL);
  g_autofree char *copy2 = g_build_filename(f->dir, "copy2", NULL);
  g_mkdir(copy1, 0755);
  g_mkdir(copy2, 0755);
  g_autofree char *lib1 = g_build_filename(copy1, "libcoreclr.so", NULL);
  g_autofree char *lib2 = g_build_filename(copy2, "libcoreclr.so", NULL);
  g_assert_true(g_file_set_contents(lib1, "x", 1, NULL));
  g_assert_true(g_file_set_contents(lib2, "x", 1, NULL));
  g_autofree char *body = g_strdup_printf("mode=pick-one\nruntime=%s\n", copy2);
  use_config(f, body);
  SxsRuntime *a = sxs__manager_admit(lib1, "10.0.12");
  SxsRuntime *b = sxs__manager_admit(lib2, "10.0.12");
  g_assert_false(sxs__manager_initialize(a, lib1, "10.0.12", "10.0.12", NULL));
  g_assert_true(sxs__manager_initialize(b, lib2, "10.0.12", "10.0.12", NULL));
  g_assert_cmpint(a->status, ==, SXS_RUNTIME_DECLINED);
  g_assert_cmpint(b->status, ==, SXS_RUNTIME_PROFILING);
  g_assert_nonnull(strstr(a->reason, "does not match"));
  g_assert_nonnull(strstr(a->reason, lib1));
}

/* A bad config declines every runtime, with the config's message as the reason. */
static void test_config_error_declines(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-several\n");
  g_assert_true(sxs__manager_config_failed());
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  g_assert_cmpint(a->status, ==, SXS_RUNTIME_DECLINED);
  g_assert_true(g_str_has_prefix(a->reason, "config error: "));
  g_assert_nonnull(strstr(a->reason, "pick-several"));
  g_assert_cmpint(sxs__output_write(), ==, -EINVAL);
}

/* GLib messages of the library's domain (this file is compiled with it too) go to the profiler's
 * log, never to the program's stderr. */
static void test_glib_messages_to_log(Fixture *f, gconstpointer data) {
  (void)data;
  if (g_test_subprocess()) {
    /* A fixture of its own: the log goes where the parent looks. */
    g_autofree char *line = g_strdup_printf("log=%s\n", g_getenv("SXS_TEST_GLIB_LOG"));
    use_config(f, line);
    /* g_test_init made warnings fatal; in a profiled program they are not. */
    g_log_set_always_fatal(G_LOG_FATAL_MASK);
    g_warning("a warning of the library's domain %d", 42);
    g_message("a message");
    return;
  }
  g_autofree char *log = g_build_filename(f->dir, "p.log", NULL);
  g_setenv("SXS_TEST_GLIB_LOG", log, TRUE);
  g_test_trap_subprocess(NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv("SXS_TEST_GLIB_LOG");
  g_test_trap_assert_passed();
  g_test_trap_assert_stderr("");
  g_test_trap_assert_stdout("");
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "]: sxsprof warning: a warning of the library's domain 42\n"));
  g_assert_nonnull(strstr(text, "]: sxsprof message: a message\n"));
}

/* The same FunctionID and ThreadID values in two runtimes stay apart. */
static void test_ids_stay_per_runtime(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-all\n");
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  SxsRuntime *b = sxs__manager_admit("/b/libcoreclr.so", "2.0.0");
  sxs__manager_initialize(a, NULL, NULL, "10.0.12", NULL);
  sxs__manager_initialize(b, NULL, NULL, "4.0.22220.0", NULL);
  const uint64_t same_id = 0x7f0000001000;
  sxs__manager_record_module(a, 0x10, "A.dll");
  sxs__manager_record_module(b, 0x10, "B.dll");
  g_autofree char *ma = sxs__manager_module_name(a, 0x10);
  g_autofree char *mb = sxs__manager_module_name(b, 0x10);
  g_assert_cmpstr(ma, ==, "A.dll");
  g_assert_cmpstr(mb, ==, "B.dll");
  sxs__manager_record_function(a, same_id, SXS_CODE_JIT, "Ns.A.Run", "A.dll");
  sxs__manager_record_function(a, same_id, SXS_CODE_JIT, NULL, NULL); /* tier-1 recompilation of the same function */
  sxs__manager_record_function(b, same_id, SXS_CODE_JIT, "Ns.B.Run", "B.dll");
  g_assert_true(sxs__manager_function_known(a, same_id));
  g_assert_false(sxs__manager_function_known(a, same_id + 8));
  sxs__manager_thread_created(a, same_id);
  sxs__manager_thread_os_id(a, same_id, 111);
  sxs__manager_thread_named(a, same_id, "worker-a");
  sxs__manager_thread_created(b, same_id);
  sxs__manager_thread_os_id(b, same_id, 222);
  sxs__manager_thread_destroyed(b, same_id);

  g_autoptr(JsonNode) doc = render();
  JsonObject *ra = runtime_at(doc, 0), *rb = runtime_at(doc, 1);
  JsonArray *fa = json_object_get_array_member(ra, "functions");
  JsonArray *fb = json_object_get_array_member(rb, "functions");
  g_assert_cmpuint(json_array_get_length(fa), ==, 1);
  g_assert_cmpuint(json_array_get_length(fb), ==, 1);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(fa, 0), "name"), ==, "Ns.A.Run");
  g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(fa, 0), "jit_compiled"), ==, 2);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(fb, 0), "module"), ==, "B.dll");
  JsonObject *ca = json_object_get_object_member(ra, "counters");
  g_assert_cmpint(json_object_get_int_member(ca, "jit_compiled"), ==, 2);
  g_assert_cmpint(json_object_get_int_member(ca, "modules_loaded"), ==, 1);
  g_assert_cmpint(json_object_get_int_member(ca, "threads_created"), ==, 1);
  JsonArray *ta = json_object_get_array_member(ra, "threads");
  JsonArray *tb = json_object_get_array_member(rb, "threads");
  g_assert_cmpuint(json_array_get_length(ta), ==, 1);
  g_assert_cmpuint(json_array_get_length(tb), ==, 1);
  g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(ta, 0), "os_tid"), ==, 111);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(ta, 0), "name"), ==, "worker-a");
  g_assert_false(json_object_get_boolean_member(json_array_get_object_element(ta, 0), "destroyed"));
  g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(tb, 0), "os_tid"), ==, 222);
  g_assert_true(json_object_get_boolean_member(json_array_get_object_element(tb, 0), "destroyed"));
}

/* Functions come out sorted by name; odd characters survive as valid JSON. */
static void test_functions_sorted_and_escaped(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, NULL);
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  sxs__manager_initialize(a, NULL, NULL, "10.0.12", NULL);
  sxs__manager_record_function(a, 3, SXS_CODE_JIT, "Z.Last", "a.dll");
  sxs__manager_record_function(a, 1, SXS_CODE_JIT, "A.\"Quoted\"\\Name\n", "a.dll");
  sxs__manager_record_function(a, 2, SXS_CODE_JIT, "M.List`1.<Main>b__0_0", "a.dll");
  g_autoptr(JsonNode) doc = render();
  JsonArray *fa = json_object_get_array_member(runtime_at(doc, 0), "functions");
  g_assert_cmpuint(json_array_get_length(fa), ==, 3);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(fa, 0), "name"), ==,
                  "A.\"Quoted\"\\Name\n");
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(fa, 1), "name"), ==,
                  "M.List`1.<Main>b__0_0");
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(fa, 2), "name"), ==, "Z.Last");
  g_assert_cmpstr(json_object_get_string_member(json_node_get_object(doc), "mode"), ==, "pick-all");
}

/* The writer puts a complete document at <output>.json. */
static void test_write_profile(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-all\n");
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  sxs__manager_initialize(a, NULL, NULL, "10.0.12", NULL);
  sxs__counter_add(&a->counters.exceptions);
  sxs__counter_add(&a->counters.exceptions);
  sxs__counter_add(&a->counters.gcs);
  g_assert_cmpint(sxs__output_write(), ==, 0);
  g_autofree char *path = g_build_filename(f->dir, "prof.json", NULL);
  g_autoptr(JsonParser) p = json_parser_new();
  g_assert_true(json_parser_load_from_file(p, path, NULL));
  JsonObject *rt = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(json_parser_get_root(p)), "runtimes"), 0);
  JsonObject *c = json_object_get_object_member(rt, "counters");
  g_assert_cmpint(json_object_get_int_member(c, "exceptions"), ==, 2);
  g_assert_cmpint(json_object_get_int_member(c, "gcs"), ==, 1);
  g_assert_cmpint(json_object_get_int_member(c, "threads_created"), ==, 0);

  /* The same document again leaves the file alone; a changed one replaces it (new inode). */
  GStatBuf before, after;
  g_assert_cmpint(g_stat(path, &before), ==, 0);
  g_assert_cmpint(sxs__output_write(), ==, 0);
  g_assert_cmpint(g_stat(path, &after), ==, 0);
  g_assert_cmpuint(before.st_ino, ==, after.st_ino);
  sxs__counter_add(&a->counters.gcs);
  g_assert_cmpint(sxs__output_write(), ==, 0);
  g_assert_cmpint(g_stat(path, &after), ==, 0);
  g_assert_cmpuint(before.st_ino, !=, after.st_ino);
  /* A file removed behind the profiler's back is written again. */
  g_assert_cmpint(g_unlink(path), ==, 0);
  g_assert_cmpint(sxs__output_write(), ==, 0);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
}

typedef struct {
  SxsRuntime *rt;
  int base;
} Worker;

static gpointer jit_worker(gpointer p) {
  Worker *w = p;
  for (int i = 0; i < 2000; i++) {
    g_autofree char *name = g_strdup_printf("Ns.T%d.M", w->base + i);
    sxs__manager_record_function(w->rt, (uint64_t)(w->base + i), SXS_CODE_JIT, name, "x.dll");
    sxs__counter_add(&w->rt->counters.exceptions);
  }
  return NULL;
}

/* Concurrent callbacks from several threads of two runtimes: nothing lost, nothing crossed. */
static void test_concurrent_recording(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "mode=pick-all\n");
  SxsRuntime *a = sxs__manager_admit("/a/libcoreclr.so", "10.0.12");
  SxsRuntime *b = sxs__manager_admit("/b/libcoreclr.so", "2.0.0");
  Worker w[4] = {{a, 0}, {a, 2000}, {b, 0}, {b, 1000}};
  GThread *t[4];
  for (int i = 0; i < 4; i++)
    t[i] = g_thread_new("jit", jit_worker, &w[i]);
  for (int i = 0; i < 4; i++)
    g_thread_join(t[i]);
  g_assert_cmpint(sxs__counter_get(&a->counters.jit_compiled), ==, 4000);
  g_assert_cmpint(sxs__counter_get(&b->counters.jit_compiled), ==, 4000);
  g_assert_cmpint(sxs__counter_get(&a->counters.exceptions), ==, 4000);
  g_assert_cmpuint(g_hash_table_size(a->functions), ==, 4000);
  g_assert_cmpuint(g_hash_table_size(b->functions), ==, 3000); /* ids 1000..1999 compiled twice */
  g_autoptr(JsonNode) doc = render();
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(runtime_at(doc, 1), "functions")), ==, 3000);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD("/manager/registry/ids-in-order", test_ids_in_order);
  ADD("/manager/registry/pick-first", test_pick_first);
  ADD("/manager/registry/pick-one-copies", test_pick_one_copies);
  ADD("/manager/registry/config-error-declines", test_config_error_declines);
  ADD("/manager/registry/ids-stay-per-runtime", test_ids_stay_per_runtime);
  ADD("/manager/registry/functions-sorted-escaped", test_functions_sorted_and_escaped);
  ADD("/manager/registry/write-profile", test_write_profile);
  ADD("/manager/registry/concurrent-recording", test_concurrent_recording);
  ADD("/manager/registry/glib-messages-to-log", test_glib_messages_to_log);
#undef ADD
  return g_test_run();
}
