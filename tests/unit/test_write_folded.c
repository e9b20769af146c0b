/* The folded-stacks writer (manager/views/sxs_write_folded.c): its output read back the way flamegraph.pl
 * reads it (weight after the last space, frames split at ';') gives the view's stacks, merged
 * across threads, with the labels that would break the format made safe. */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sxs_view.h"
#include "sxs_view_fixture.h"

/* The folded text of m for kind (SXS_VIEW_N_KINDS: the primary one); the test fails when the
 * writer declines. */
static char *render(const SxsProfileModel *m, SxsViewKind kind) {
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = kind};
  g_autofree char *error = NULL;
  gsize len = 0;
  char *text = sxs__write_folded(v, &o, &len, &error);
  g_assert_null(error);
  g_assert_nonnull(text);
  g_assert_cmpuint(len, ==, strlen(text));
  return text;
}

/* Reads folded text back: stack -> weight (guint64*). Checks that every line ends in '\n', has a
 * decimal weight after its last space, and that lines are unique and sorted bytewise. */
static GHashTable *parse(const char *text) {
  GHashTable *stacks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_assert_true(g_str_has_suffix(text, "\n"));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint n = g_strv_length(lines);
  g_assert_cmpstr(lines[n - 1], ==, "");
  const char *previous = NULL;
  for (guint i = 0; i + 1 < n; i++) {
    char *space = strrchr(lines[i], ' ');
    g_assert_nonnull(space);
    *space = '\0';
    const char *weight = space + 1;
    g_assert_cmpuint(strlen(weight), >, 0);
    g_assert_cmpuint(strspn(weight, "0123456789"), ==, strlen(weight));
    if (previous != NULL)
      g_assert_cmpint(strcmp(previous, lines[i]), <, 0); /* sorted, hence unique */
    previous = lines[i];
    guint64 *w = g_new(guint64, 1);
    *w = g_ascii_strtoull(weight, NULL, 10);
    g_assert_cmpuint(*w, >, 0);
    g_assert_true(g_hash_table_insert(stacks, g_strdup(lines[i]), w));
  }
  return stacks;
}

/* The stacks of kind in v merged across groups, keyed the way the format must show them: labels
 * joined by ';', each with ';' made ':' and control characters made spaces. */
static GHashTable *expected_stacks(const SxsView *v, SxsViewKind kind, guint64 *ret_total) {
  GHashTable *stacks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  guint64 total = 0;
  for (guint i = 0; i < v->groups->len; i++) {
    const SxsViewGroup *g = v->groups->pdata[i];
    if (g->kind != kind)
      continue;
    for (guint j = 0; j < g->stacks->len; j++) {
      const SxsViewStack *s = &g_array_index(g->stacks, SxsViewStack, j);
      if (s->weight == 0)
        continue;
      g_autoptr(GString) key = g_string_new(NULL);
      for (guint d = 0; d < s->depth; d++) {
        g_autofree char *label = g_strdup(((const SxsViewFrame *)v->frames->pdata[s->frames[d]])->label);
        g_strdelimit(label, ";", ':');
        g_strdelimit(label, "\n\r\t", ' ');
        g_string_append_printf(key, "%s%s", d > 0 ? ";" : "", label);
      }
      guint64 *w = g_hash_table_lookup(stacks, key->str);
      if (w == NULL) {
        w = g_new0(guint64, 1);
        g_hash_table_insert(stacks, g_strdup(key->str), w);
      }
      *w += s->weight;
      total += s->weight;
    }
  }
  *ret_total = total;
  return stacks;
}

static void check_roundtrip(const SxsProfileModel *m, SxsViewKind kind, guint64 expected_total) {
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autofree char *text = render(m, kind);
  g_autoptr(GHashTable) got = parse(text);
  guint64 total = 0;
  g_autoptr(GHashTable) want = expected_stacks(v, kind == SXS_VIEW_N_KINDS ? sxs__view_primary_kind(v) : kind, &total);
  g_assert_cmpuint(total, ==, expected_total);
  g_assert_cmpuint(g_hash_table_size(got), ==, g_hash_table_size(want));
  guint64 got_total = 0;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, want);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const guint64 *w = g_hash_table_lookup(got, key);
    if (w == NULL)
      g_test_message("stack missing from the folded output: %s", (const char *)key);
    g_assert_nonnull(w);
    g_assert_cmpuint(*w, ==, *(const guint64 *)value);
    got_total += *w;
  }
  g_assert_cmpuint(got_total, ==, expected_total);
}

static void test_roundtrip(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  check_roundtrip(m, SXS_VIEW_N_KINDS, FIXTURE_SAMPLES_TOTAL);
  check_roundtrip(m, SXS_VIEW_SAMPLES, FIXTURE_SAMPLES_TOTAL);
  check_roundtrip(m, SXS_VIEW_CALLS, FIXTURE_CALLS_TOTAL_NS);
  check_roundtrip(m, SXS_VIEW_EVENTS, FIXTURE_EXCEPTIONS);
}

/* Every frame of every line, as a reader splits them. */
static GHashTable *frames_of(GHashTable *stacks) {
  GHashTable *frames = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, stacks);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    g_auto(GStrv) parts = g_strsplit(key, ";", -1);
    for (guint i = 0; parts[i] != NULL; i++)
      g_hash_table_add(frames, g_strdup(parts[i]));
  }
  return frames;
}

static void test_names(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autofree char *text = render(m, SXS_VIEW_SAMPLES);
  g_autoptr(GHashTable) stacks = parse(text);
  g_autoptr(GHashTable) frames = frames_of(stacks);
  g_autofree char *long_label = fixture_long_label();
  const char *present[] = {FIXTURE_HOT_LABEL,        FIXTURE_COLD_LABEL,
                           FIXTURE_MAIN_LABEL,       FIXTURE_LIBC_LABEL,
                           FIXTURE_BRIDGE_LABEL,     FIXTURE_GENERIC_LABEL,
                           FIXTURE_CLOSURE_LABEL,    FIXTURE_UNICODE_LABEL,
                           FIXTURE_MAINDOLLAR_LABEL, long_label};
  for (guint i = 0; i < G_N_ELEMENTS(present); i++)
    if (!g_hash_table_contains(frames, present[i])) {
      g_test_message("frame missing from the folded output: %s", present[i]);
      g_assert_true(g_hash_table_contains(frames, present[i]));
    }
  /* The label with a ';' is one frame, its ';' shown as ':'. */
  g_assert_true(g_hash_table_contains(frames, "[rt1 10.0.1] App.Say\"hi\"&'x':y"));
  g_assert_false(g_hash_table_contains(frames, "y"));
  g_assert_false(g_hash_table_contains(frames, FIXTURE_QUOTES_LABEL));
  /* The 2,000-character name whole, on its own line with its one sample. */
  g_autofree char *long_stack = g_strconcat(FIXTURE_LIBC_LABEL ";", long_label, NULL);
  const guint64 *w = g_hash_table_lookup(stacks, long_stack);
  g_assert_nonnull(w);
  g_assert_cmpuint(*w, ==, 1);
  g_assert_cmpuint(strlen(long_label), ==, strlen("[rt1 10.0.1] ") + FIXTURE_LONG_NAME_LEN);
  /* The hottest stack, root first. */
  w = g_hash_table_lookup(stacks, FIXTURE_LIBC_LABEL ";" FIXTURE_MAIN_LABEL ";" FIXTURE_HOT_LABEL);
  g_assert_nonnull(w);
  g_assert_cmpuint(*w, ==, FIXTURE_HOT_SAMPLES);
}

/* The same frames sampled on two threads are one line. */
static void test_merge(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsStackModel *s = fixture_sample(m, 102, "Other", 5);
  fixture_frame(s, TRUE, 1, FIXTURE_HOT_NAME, "App.dll", 0x7e0000001008);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7e0000002008);
  fixture_libc(s);
  g_autofree char *text = render(m, SXS_VIEW_N_KINDS);
  g_assert_nonnull(strstr(text, FIXTURE_LIBC_LABEL ";" FIXTURE_MAIN_LABEL ";" FIXTURE_HOT_LABEL " 75\n"));
  g_autoptr(GHashTable) stacks = parse(text);
  g_assert_cmpuint(g_hash_table_size(stacks), ==, 5);
  check_roundtrip(m, SXS_VIEW_SAMPLES, FIXTURE_SAMPLES_TOTAL + 5);
}

/* Separators and line breaks inside names: ';' -> ':', newline, CR and tab -> ' '. Two names that
 * differ only there fold into one line. */
static void test_substitutes(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  fixture_runtime(m, 1, "10.0.1");
  SxsStackModel *s = fixture_sample(m, 7, NULL, 2);
  fixture_frame(s, TRUE, 1, "A;b\nc\rd\te", "App.dll", 0x1000);
  fixture_frame(s, TRUE, 1, "Root with spaces", "App.dll", 0x2000);
  s = fixture_sample(m, 7, NULL, 3);
  fixture_frame(s, TRUE, 1, "A:b c d e", "App.dll", 0x1100);
  fixture_frame(s, TRUE, 1, "Root with spaces", "App.dll", 0x2000);
  g_autofree char *text = render(m, SXS_VIEW_N_KINDS);
  g_assert_cmpstr(text, ==, "[rt1 10.0.1] Root with spaces;[rt1 10.0.1] A:b c d e 5\n");
}

static void test_kinds(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autofree char *calls = render(m, SXS_VIEW_CALLS);
  g_assert_cmpstr(calls, ==,
                  FIXTURE_MAIN_LABEL " 100\n" FIXTURE_MAIN_LABEL ";" FIXTURE_COLD_LABEL " 100\n" FIXTURE_MAIN_LABEL
                                     ";" FIXTURE_HOT_LABEL " 800\n");
  g_autofree char *events = render(m, SXS_VIEW_EVENTS);
  g_assert_cmpstr(events, ==,
                  FIXTURE_MAIN_LABEL ";[rt1 10.0.1] App.Program.Rethrow 3\n" FIXTURE_MAIN_LABEL
                                     ";[rt1 10.0.1] App.Program.Throw 7\n");
  /* No options: the primary kind, samples. */
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autofree char *error = NULL;
  g_autofree char *samples = sxs__write_folded(v, NULL, NULL, &error);
  g_assert_null(error);
  g_autofree char *primary = render(m, SXS_VIEW_SAMPLES);
  g_assert_cmpstr(samples, ==, primary);
}

static void test_empty(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = SXS_VIEW_N_KINDS};
  gsize len = 12345;
  g_autofree char *error = NULL;
  g_autofree char *text = sxs__write_folded(v, &o, &len, &error);
  g_assert_null(text);
  g_assert_nonnull(error);
  g_assert_cmpuint(len, ==, 12345);

  /* Samples only: asking for calls is an error that says which kind is missing. */
  g_autoptr(SxsProfileModel) sampled = sxs__profile_model_new();
  fixture_runtime(sampled, 1, "10.0.1");
  SxsStackModel *s = fixture_sample(sampled, 7, NULL, 2);
  fixture_frame(s, TRUE, 1, "App.Main", "App.dll", 0x1000);
  g_autoptr(SxsView) sv = sxs__view_new(sampled, NULL);
  o.kind = SXS_VIEW_CALLS;
  g_autofree char *error2 = NULL;
  g_autofree char *text2 = sxs__write_folded(sv, &o, &len, &error2);
  g_assert_null(text2);
  g_assert_nonnull(error2);
  g_assert_nonnull(strstr(error2, "calls"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/folded/roundtrip", test_roundtrip);
  g_test_add_func("/views/folded/names", test_names);
  g_test_add_func("/views/folded/merge", test_merge);
  g_test_add_func("/views/folded/substitutes", test_substitutes);
  g_test_add_func("/views/folded/kinds", test_kinds);
  g_test_add_func("/views/folded/empty", test_empty);
  return g_test_run();
}
