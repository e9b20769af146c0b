/* The speedscope writer (manager/views/sxs_write_speedscope.c) on the synthetic fixture: read back with
 * json-glib for exact frames, weights and events, and checked against speedscope's own schema by
 * tests/unit/speedscope_validate.js, whose rejection of broken files is tested too. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sxs_view.h"
#include "sxs_view_fixture.h"

#define PERIOD_NS (G_GUINT64_CONSTANT(1000000000) / FIXTURE_FREQUENCY)

/* The speedscope file of m, parsed; the test fails when the writer declines or the text is not
 * valid UTF-8 JSON. ret_text (optional) receives the text. */
static JsonNode *render(const SxsProfileModel *m, char **ret_text) {
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = SXS_VIEW_N_KINDS};
  g_autofree char *error = NULL;
  gsize len = 0;
  g_autofree char *text = sxs__write_speedscope(v, &o, &len, &error);
  g_assert_null(error);
  g_assert_nonnull(text);
  g_assert_cmpuint(len, ==, strlen(text));
  g_assert_true(g_utf8_validate(text, (gssize)len, NULL));

  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) perr = NULL;
  json_parser_load_from_data(parser, text, (gssize)len, &perr);
  g_assert_no_error(perr);
  if (ret_text != NULL)
    *ret_text = g_steal_pointer(&text);
  return json_node_copy(json_parser_get_root(parser));
}

static JsonArray *doc_frames(JsonNode *doc) {
  return json_object_get_array_member(json_object_get_object_member(json_node_get_object(doc), "shared"), "frames");
}

static JsonObject *doc_profile(JsonNode *doc, guint i) {
  JsonArray *profiles = json_object_get_array_member(json_node_get_object(doc), "profiles");
  g_assert_cmpuint(i, <, json_array_get_length(profiles));
  return json_array_get_object_element(profiles, i);
}

static const char *frame_name(JsonNode *doc, gint64 index) {
  JsonArray *frames = doc_frames(doc);
  g_assert_cmpint(index, >=, 0);
  g_assert_cmpint(index, <, json_array_get_length(frames));
  return json_object_get_string_member(json_array_get_object_element(frames, (guint)index), "name");
}

/* The index of the frame named label, -1 when there is none. */
static gint64 frame_index(JsonNode *doc, const char *label) {
  JsonArray *frames = doc_frames(doc);
  for (guint i = 0; i < json_array_get_length(frames); i++)
    if (g_strcmp0(json_object_get_string_member(json_array_get_object_element(frames, i), "name"), label) == 0)
      return i;
  return -1;
}

static guint64 sum_weights(JsonObject *profile) {
  JsonArray *weights = json_object_get_array_member(profile, "weights");
  guint64 sum = 0;
  for (guint i = 0; i < json_array_get_length(weights); i++)
    sum += (guint64)json_array_get_int_element(weights, i);
  return sum;
}

/* Speedscope's rules for evented profiles: a close ends the innermost open frame, times never go
 * back, nothing stays open, and nothing happens after endValue. */
static void check_nesting(JsonObject *profile) {
  JsonArray *events = json_object_get_array_member(profile, "events");
  g_autoptr(GArray) open = g_array_new(FALSE, FALSE, sizeof(gint64));
  gint64 at = json_object_get_int_member(profile, "startValue");
  for (guint i = 0; i < json_array_get_length(events); i++) {
    JsonObject *e = json_array_get_object_element(events, i);
    gint64 frame = json_object_get_int_member(e, "frame");
    gint64 t = json_object_get_int_member(e, "at");
    g_assert_cmpint(t, >=, at);
    at = t;
    if (g_str_equal(json_object_get_string_member(e, "type"), "O")) {
      g_array_append_val(open, frame);
    } else {
      g_assert_cmpstr(json_object_get_string_member(e, "type"), ==, "C");
      g_assert_cmpuint(open->len, >, 0);
      g_assert_cmpint(g_array_index(open, gint64, open->len - 1), ==, frame);
      g_array_set_size(open, open->len - 1);
    }
  }
  g_assert_cmpuint(open->len, ==, 0);
  g_assert_cmpint(at, <=, json_object_get_int_member(profile, "endValue"));
}

/* Checks one evented profile's events against "O label at, C label at, ..." exactly. */
static void check_events(JsonNode *doc, JsonObject *profile, const char *const *expected, guint n_expected) {
  JsonArray *events = json_object_get_array_member(profile, "events");
  g_assert_cmpuint(json_array_get_length(events), ==, n_expected);
  for (guint i = 0; i < n_expected; i++) {
    JsonObject *e = json_array_get_object_element(events, i);
    g_autofree char *got =
        g_strdup_printf("%s %s @%" G_GINT64_FORMAT, json_object_get_string_member(e, "type"),
                        frame_name(doc, json_object_get_int_member(e, "frame")), json_object_get_int_member(e, "at"));
    g_assert_cmpstr(got, ==, expected[i]);
  }
}

static char *validator_script(void) {
  const char *src = g_getenv("SXS_SOURCE_DIR");
  if (src != NULL)
    return g_build_filename(src, "tests", "unit", "speedscope_validate.js", NULL);
  g_autofree char *dir = g_path_get_dirname(__FILE__);
  return g_build_filename(dir, "speedscope_validate.js", NULL);
}

/* Runs the validator on text and returns its exit status (0 valid, 1 invalid). When node, ajv or the
 * speedscope schema is missing it marks the test failed (not skipped: a set-up machine has them)
 * and returns -1, and the caller returns. */
static int run_validator(const char *text, char **ret_stderr) {
  g_autofree char *node = g_find_program_in_path("node");
  if (node == NULL) {
    g_test_fail_printf("node is not installed: run tests/setup.sh");
    return -1;
  }
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("sxs-speedscope-XXXXXX.json", &path, &error);
  g_assert_no_error(error);
  close(fd);
  g_assert_true(g_file_set_contents(path, text, -1, &error));
  g_autofree char *script = validator_script();
  const char *argv[] = {node, script, path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error(error);
  g_unlink(path);
  g_assert_true(WIFEXITED(status));
  int code = WEXITSTATUS(status);
  if (code == 2) {
    g_test_fail_printf("the speedscope validator cannot run (run tests/setup.sh): %s", err);
    return -1;
  }
  if (ret_stderr != NULL)
    *ret_stderr = g_steal_pointer(&err);
  return code;
}

static void test_frames(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autoptr(JsonNode) doc = render(m, NULL);
  JsonObject *root = json_node_get_object(doc);
  g_assert_cmpstr(json_object_get_string_member(root, "$schema"), ==,
                  "https://www.speedscope.app/file-format-schema.json");
  g_assert_cmpstr(json_object_get_string_member(root, "exporter"), ==, "sxsprof");
  g_assert_cmpstr(json_object_get_string_member(root, "name"), ==, "App (pid 4242)");

  /* One speedscope frame per view frame, in the same order: stacks use the same indices. */
  JsonArray *frames = doc_frames(doc);
  g_assert_cmpuint(json_array_get_length(frames), ==, v->frames->len);
  for (guint i = 0; i < v->frames->len; i++) {
    const SxsViewFrame *f = v->frames->pdata[i];
    JsonObject *o = json_array_get_object_element(frames, i);
    g_assert_cmpstr(json_object_get_string_member(o, "name"), ==, f->label);
    g_assert_cmpstr(json_object_get_string_member_with_default(o, "file", ""), ==, f->module);
  }

  g_autofree char *long_label = fixture_long_label();
  const char *tricky[] = {FIXTURE_HOT_LABEL,        FIXTURE_LIBC_LABEL,    FIXTURE_BRIDGE_LABEL,
                          FIXTURE_GENERIC_LABEL,    FIXTURE_CLOSURE_LABEL, FIXTURE_UNICODE_LABEL,
                          FIXTURE_MAINDOLLAR_LABEL, FIXTURE_QUOTES_LABEL,  long_label};
  for (guint i = 0; i < G_N_ELEMENTS(tricky); i++)
    g_assert_cmpint(frame_index(doc, tricky[i]), >=, 0);
  g_assert_cmpuint(strlen(frame_name(doc, frame_index(doc, long_label))), ==,
                   strlen("[rt1 10.0.1] ") + FIXTURE_LONG_NAME_LEN);
  JsonObject *libc = json_array_get_object_element(frames, (guint)frame_index(doc, FIXTURE_LIBC_LABEL));
  g_assert_cmpstr(json_object_get_string_member(libc, "file"), ==, "libc.so.6");
  JsonObject *generic = json_array_get_object_element(frames, (guint)frame_index(doc, FIXTURE_GENERIC_LABEL));
  g_assert_cmpstr(json_object_get_string_member(generic, "file"), ==, "Lib.dll");
}

static void test_sampled(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(JsonNode) doc = render(m, NULL);
  /* Thread 100, thread 101, rt1's calls, exception stacks: in the view's group order. */
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(json_node_get_object(doc), "profiles")), ==, 4);
  JsonObject *main = doc_profile(doc, 0), *worker = doc_profile(doc, 1);
  g_assert_cmpstr(json_object_get_string_member(main, "type"), ==, "sampled");
  g_assert_cmpstr(json_object_get_string_member(main, "unit"), ==, "nanoseconds");
  g_assert_cmpstr(json_object_get_string_member(main, "name"), ==, "cpu samples, thread Main (100)");
  g_assert_cmpstr(json_object_get_string_member(worker, "name"), ==,
                  "cpu samples, thread " FIXTURE_WORKER_THREAD " (101)");
  g_assert_cmpuint(sum_weights(main), ==, 80 * PERIOD_NS);
  g_assert_cmpuint(sum_weights(worker), ==, 20 * PERIOD_NS);
  g_assert_cmpuint(sum_weights(main) + sum_weights(worker), ==, FIXTURE_SAMPLES_TOTAL * PERIOD_NS);
  g_assert_cmpint(json_object_get_int_member(main, "startValue"), ==, 0);
  g_assert_cmpuint(json_object_get_int_member(main, "endValue"), ==, 80 * PERIOD_NS);

  /* The hottest stack, root first as speedscope wants it. */
  JsonArray *samples = json_object_get_array_member(main, "samples");
  g_assert_cmpuint(json_array_get_length(samples), ==, 2);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(main, "weights")), ==, 2);
  JsonArray *hot = json_array_get_array_element(samples, 0);
  g_assert_cmpuint(json_array_get_length(hot), ==, 3);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(hot, 0)), ==, FIXTURE_LIBC_LABEL);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(hot, 1)), ==, FIXTURE_MAIN_LABEL);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(hot, 2)), ==, FIXTURE_HOT_LABEL);
  g_assert_cmpint(json_array_get_int_element(json_object_get_array_member(main, "weights"), 0), ==,
                  FIXTURE_HOT_SAMPLES * PERIOD_NS);

  /* The bridge between runtimes: rt1 calls native code that calls rt2. */
  JsonArray *wsamples = json_object_get_array_member(worker, "samples");
  JsonArray *bridged = json_array_get_array_element(wsamples, 0);
  g_assert_cmpuint(json_array_get_length(bridged), ==, 4);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(bridged, 1)), ==, FIXTURE_MAINDOLLAR_LABEL);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(bridged, 2)), ==, FIXTURE_BRIDGE_LABEL);
  g_assert_cmpstr(frame_name(doc, json_array_get_int_element(bridged, 3)), ==, FIXTURE_GENERIC_LABEL);

  JsonObject *exceptions = doc_profile(doc, 3);
  g_assert_cmpstr(json_object_get_string_member(exceptions, "type"), ==, "sampled");
  g_assert_cmpstr(json_object_get_string_member(exceptions, "unit"), ==, "none");
  g_assert_cmpuint(sum_weights(exceptions), ==, FIXTURE_EXCEPTIONS);

  /* Speedscope opens the heaviest thread. */
  g_assert_cmpint(json_object_get_int_member(json_node_get_object(doc), "activeProfileIndex"), ==, 0);
}

static void test_evented(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(JsonNode) doc = render(m, NULL);
  JsonObject *calls = doc_profile(doc, 2);
  g_assert_cmpstr(json_object_get_string_member(calls, "type"), ==, "evented");
  g_assert_cmpstr(json_object_get_string_member(calls, "unit"), ==, "nanoseconds");
  g_assert_cmpstr(json_object_get_string_member(calls, "name"), ==, "calls, [rt1 10.0.1]");
  g_assert_cmpint(json_object_get_int_member(calls, "startValue"), ==, 0);
  g_assert_cmpint(json_object_get_int_member(calls, "endValue"), ==, FIXTURE_CALLS_TOTAL_NS);
  /* Main's 1000 ns: Cold then Hot (label order), then its own 100. */
  const char *expected[] = {
      "O " FIXTURE_MAIN_LABEL " @0",  "O " FIXTURE_COLD_LABEL " @0",  "C " FIXTURE_COLD_LABEL " @100",
      "O " FIXTURE_HOT_LABEL " @100", "C " FIXTURE_HOT_LABEL " @900", "C " FIXTURE_MAIN_LABEL " @1000",
  };
  check_events(doc, calls, expected, G_N_ELEMENTS(expected));
  check_nesting(calls);
}

/* Untimed traces and an unknown sampling period: weights are plain counts, unit "none". */
static void test_units(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  m->samples.frequency = 0;
  ((SxsRuntimeModel *)m->runtimes->pdata[0])->tracing.timing = FALSE;
  g_autoptr(JsonNode) doc = render(m, NULL);
  JsonObject *main = doc_profile(doc, 0), *worker = doc_profile(doc, 1), *calls = doc_profile(doc, 2);
  g_assert_cmpstr(json_object_get_string_member(main, "unit"), ==, "none");
  g_assert_cmpuint(sum_weights(main) + sum_weights(worker), ==, FIXTURE_SAMPLES_TOTAL);
  g_assert_cmpint(json_object_get_int_member(main, "endValue"), ==, 80);
  g_assert_cmpstr(json_object_get_string_member(calls, "unit"), ==, "none");
  /* Main 1 call, Cold 5, Hot 10. */
  const char *expected[] = {
      "O " FIXTURE_MAIN_LABEL " @0", "O " FIXTURE_COLD_LABEL " @0", "C " FIXTURE_COLD_LABEL " @5",
      "O " FIXTURE_HOT_LABEL " @5",  "C " FIXTURE_HOT_LABEL " @15", "C " FIXTURE_MAIN_LABEL " @16",
  };
  check_events(doc, calls, expected, G_N_ELEMENTS(expected));
  g_assert_cmpint(json_object_get_int_member(calls, "endValue"), ==, 16);
}

/* The profile speedscope opens: the heaviest group of the primary kind. */
static void test_active(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsStackModel *s = fixture_sample(m, 101, FIXTURE_WORKER_THREAD, 500);
  fixture_frame(s, TRUE, 1, "App.Program.Busy", "App.dll", 0x7e000000b000);
  g_autoptr(JsonNode) doc = render(m, NULL);
  g_assert_cmpint(json_object_get_int_member(json_node_get_object(doc), "activeProfileIndex"), ==, 1);

  /* Without samples the call tree is primary, although the exception stacks come after it. */
  g_autoptr(SxsProfileModel) calls_only = fixture_model();
  g_ptr_array_set_size(calls_only->samples.stacks, 0);
  calls_only->samples.enabled = FALSE;
  g_autoptr(JsonNode) doc2 = render(calls_only, NULL);
  JsonObject *root = json_node_get_object(doc2);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(root, "profiles")), ==, 2);
  g_assert_cmpint(json_object_get_int_member(root, "activeProfileIndex"), ==, 0);
  g_assert_cmpstr(json_object_get_string_member(doc_profile(doc2, 0), "type"), ==, "evented");
}

/* A call chain far deeper than any recursion limit: events stay nested, the file stays valid. */
static void test_deep(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsRuntimeModel *r1 = m->runtimes->pdata[0];
  const guint depth = 2000;
  for (guint i = 0; i < depth; i++) {
    g_autofree char *name = g_strdup_printf("App.Deep.Level%u", i);
    fixture_call(r1, 100 + i, i == 0 ? 1 : 100 + i - 1, name, 1, 0, 3);
  }
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) doc = render(m, &text);
  JsonObject *calls = doc_profile(doc, 2);
  check_nesting(calls);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(calls, "events")), ==, 2 * (3 + depth));
  g_assert_cmpint(json_object_get_int_member(calls, "endValue"), ==, FIXTURE_CALLS_TOTAL_NS + 3 * depth);
  int code = run_validator(text, NULL);
  if (code < 0)
    return;
  g_assert_cmpint(code, ==, 0);
}

static void test_schema(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) doc = render(m, &text);
  g_autofree char *err = NULL;
  int code = run_validator(text, &err);
  if (code < 0)
    return;
  if (code != 0)
    g_printerr("%s", err);
  g_assert_cmpint(code, ==, 0);
}

/* The validator is only evidence if it rejects broken files: one the schema forbids (a profile
 * without "unit") and one only speedscope's importer would reject (a frame index past the end). */
static void test_validator_rejects(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autofree char *good = NULL;
  g_autoptr(JsonNode) doc = render(m, &good);
  g_autoptr(GError) error = NULL;

  /* json_node_copy() shares objects: each broken copy is parsed afresh. */
  g_autoptr(JsonNode) no_unit = json_from_string(good, &error);
  g_assert_no_error(error);
  JsonArray *profiles = json_object_get_array_member(json_node_get_object(no_unit), "profiles");
  json_object_remove_member(json_array_get_object_element(profiles, 0), "unit");
  g_autofree char *text = json_to_string(no_unit, FALSE);
  g_autofree char *err = NULL;
  int code = run_validator(text, &err);
  if (code < 0)
    return;
  g_assert_cmpint(code, ==, 1);
  g_assert_nonnull(strstr(err, "required property 'unit'"));

  g_autoptr(JsonNode) bad_frame = json_from_string(good, &error);
  g_assert_no_error(error);
  profiles = json_object_get_array_member(json_node_get_object(bad_frame), "profiles");
  JsonArray *first = json_array_get_array_element(
      json_object_get_array_member(json_array_get_object_element(profiles, 0), "samples"), 0);
  json_array_add_int_element(first, 100000);
  g_autofree char *text2 = json_to_string(bad_frame, FALSE);
  g_autofree char *err2 = NULL;
  g_assert_cmpint(run_validator(text2, &err2), ==, 1);
  g_assert_nonnull(strstr(err2, "out of range"));

  /* And the untouched text still passes: the failures above are the edits'. */
  g_assert_cmpint(run_validator(good, NULL), ==, 0);
}

static void test_empty(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = SXS_VIEW_N_KINDS};
  gsize len = 12345;
  g_autofree char *error = NULL;
  g_autofree char *text = sxs__write_speedscope(v, &o, &len, &error);
  g_assert_null(text);
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error, "speedscope"));
  g_assert_cmpuint(len, ==, 12345);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/speedscope/frames", test_frames);
  g_test_add_func("/views/speedscope/sampled", test_sampled);
  g_test_add_func("/views/speedscope/evented", test_evented);
  g_test_add_func("/views/speedscope/units", test_units);
  g_test_add_func("/views/speedscope/active", test_active);
  g_test_add_func("/views/speedscope/deep", test_deep);
  g_test_add_func("/views/speedscope/schema", test_schema);
  g_test_add_func("/views/speedscope/validator-rejects", test_validator_rejects);
  g_test_add_func("/views/speedscope/empty", test_empty);
  return g_test_run();
}
