/* Unit tests of the runtime-selection policy: pick-first, pick-one (by version prefix, by folder,
 * by libcoreclr.so path, two copies of one version) and pick-all, with the reasons users see. */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_config.h"
#include "sxs_policy.h"
#include "sxs_scratch.h"

#define SHARED "/usr/share/dotnet/shared/Microsoft.NETCore.App"
#define EXTRA "/root/.local/share/sxsprof/dotnet/shared/Microsoft.NETCore.App"

static const SxsRuntimeIdentity rt_10 = {1, "10.0.12", SHARED "/10.0.12/libcoreclr.so", SXS_MATCH_UNKNOWN};
static const SxsRuntimeIdentity rt_8 = {2, "8.0.33", EXTRA "/8.0.33/libcoreclr.so", SXS_MATCH_UNKNOWN};
static const SxsRuntimeIdentity rt_2 = {3, "2.0.0", EXTRA "/2.0.0/libcoreclr.so", SXS_MATCH_UNKNOWN};

/* ---- A caller that keeps the lists, as the manager does ---- */

#define MAX_RUNTIMES 8

typedef struct {
  const SxsRuntimeIdentity *admitted[MAX_RUNTIMES];
  size_t n_admitted;
  const SxsRuntimeIdentity *profiled[MAX_RUNTIMES];
  size_t n_profiled;
  char *reasons[MAX_RUNTIMES]; /* per runtime in arrival order, NULL when profiled */
  GString *outcome;            /* "P" profiled, "c" declined at create, "i" declined at initialize */
} PolicyRun;

static void policy_run_clear(PolicyRun *run) {
  for (size_t i = 0; i < MAX_RUNTIMES; i++)
    g_free(run->reasons[i]);
  g_string_free(run->outcome, TRUE);
}

/* Offers each runtime in turn to both decision points, the way the callback and the manager do:
 * CreateInstance first, then Initialize for those that went on. */
static void policy_run(PolicyRun *run, const SxsConfig *cfg, const SxsRuntimeIdentity *const *runtimes, size_t n) {
  memset(run, 0, sizeof *run);
  run->outcome = g_string_new(NULL);
  g_assert_cmpuint(n, <=, MAX_RUNTIMES);
  for (size_t i = 0; i < n; i++) {
    /* At CreateInstance the identity may not be known yet. */
    SxsRuntimeIdentity early = {runtimes[i]->id, NULL, NULL, SXS_MATCH_UNKNOWN};
    char *reason = NULL;
    if (sxs__policy_at_create(cfg, &early, run->admitted, run->n_admitted, &reason) == SXS_DECISION_DECLINE) {
      g_assert_nonnull(reason);
      run->reasons[i] = reason;
      g_string_append_c(run->outcome, 'c');
      continue;
    }
    g_assert_null(reason);
    run->admitted[run->n_admitted++] = runtimes[i];
    if (sxs__policy_at_initialize(cfg, runtimes[i], run->profiled, run->n_profiled, &reason) == SXS_DECISION_DECLINE) {
      g_assert_nonnull(reason);
      run->reasons[i] = reason;
      g_string_append_c(run->outcome, 'i');
      continue;
    }
    g_assert_null(reason);
    run->profiled[run->n_profiled++] = runtimes[i];
    g_string_append_c(run->outcome, 'P');
  }
}

static SxsConfig *config_with(SxsMode mode, SxsSelectorKind kind, const char *selector) {
  SxsConfig *cfg = sxs__config_new_default();
  cfg->mode = mode;
  cfg->selector_kind = kind;
  cfg->selector = g_strdup(selector);
  return cfg;
}

/* ---- pick-first ---- */

static void test_pick_first_one(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  const SxsRuntimeIdentity *runtimes[] = {&rt_10};
  PolicyRun run;
  policy_run(&run, cfg, runtimes, 1);
  g_assert_cmpstr(run.outcome->str, ==, "P");
  policy_run_clear(&run);
}

static void test_pick_first_second_declined(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  const SxsRuntimeIdentity *runtimes[] = {&rt_10, &rt_2};
  PolicyRun run;
  policy_run(&run, cfg, runtimes, 2);
  g_assert_cmpstr(run.outcome->str, ==, "Pc");
  g_assert_cmpstr(run.reasons[1], ==,
                  "pick-first: runtime 1 (10.0.12 at " SHARED "/10.0.12/libcoreclr.so) is already profiled");
  policy_run_clear(&run);
}

static void test_pick_first_three(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  const SxsRuntimeIdentity *runtimes[] = {&rt_2, &rt_8, &rt_10};
  PolicyRun run;
  policy_run(&run, cfg, runtimes, 3);
  g_assert_cmpstr(run.outcome->str, ==, "Pcc");
  const char *expected = "pick-first: runtime 3 (2.0.0 at " EXTRA "/2.0.0/libcoreclr.so) is already profiled";
  g_assert_cmpstr(run.reasons[1], ==, expected);
  g_assert_cmpstr(run.reasons[2], ==, expected);
  g_assert_cmpuint(run.n_profiled, ==, 1);
  g_assert_true(run.profiled[0] == &rt_2);
  policy_run_clear(&run);
}

static void test_pick_first_unknown_identity(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  SxsRuntimeIdentity first = {1, NULL, NULL, SXS_MATCH_UNKNOWN}, second = {2, NULL, NULL, SXS_MATCH_UNKNOWN};
  const SxsRuntimeIdentity *admitted[] = {&first};
  g_autofree char *reason = NULL;
  g_assert_cmpint(sxs__policy_at_create(cfg, &second, admitted, 1, &reason), ==, SXS_DECISION_DECLINE);
  g_assert_cmpstr(reason, ==, "pick-first: runtime 1 (version and path unknown) is already profiled");
  /* The caller may not hold a reason. */
  g_assert_cmpint(sxs__policy_at_create(cfg, &second, admitted, 1, NULL), ==, SXS_DECISION_DECLINE);
}

/* The candidate itself in the admitted list (a repeated call) is not "another" runtime. */
static void test_pick_first_self(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  const SxsRuntimeIdentity *admitted[] = {&rt_10};
  char *reason = (char *)"untouched";
  g_assert_cmpint(sxs__policy_at_create(cfg, &rt_10, admitted, 1, &reason), ==, SXS_DECISION_PROFILE);
  g_assert_cmpstr(reason, ==, "untouched");
}

static void test_pick_first_initialize(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_FIRST, SXS_SELECTOR_NONE, NULL);
  const SxsRuntimeIdentity *profiled[] = {&rt_10, &rt_8};
  char *reason = (char *)"untouched";
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &rt_2, profiled, 2, &reason), ==, SXS_DECISION_PROFILE);
  g_assert_cmpstr(reason, ==, "untouched");
}

/* ---- pick-one by version ---- */

typedef struct {
  const char *selector;
  const char *outcome; /* for the order 2.0.0, 8.0.33, 10.0.12 */
} VersionPick;

static void test_pick_one_version_mixed(void) {
  static const VersionPick picks[] = {
      {"10.0", "iiP"}, {"10", "iiP"},    {"10.0.12", "iiP"}, {"8.0", "iPi"}, {"8", "iPi"},
      {"2.0", "Pii"},  {"2.0.0", "Pii"}, {"2", "Pii"},       {"1", "iii"},   {"10.0.13", "iii"},
  };
  const SxsRuntimeIdentity *runtimes[] = {&rt_2, &rt_8, &rt_10};
  for (size_t i = 0; i < G_N_ELEMENTS(picks); i++) {
    g_test_message("runtime=%s", picks[i].selector);
    g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, picks[i].selector);
    PolicyRun run;
    policy_run(&run, cfg, runtimes, 3);
    g_assert_cmpstr(run.outcome->str, ==, picks[i].outcome);
    policy_run_clear(&run);
  }
}

static void test_pick_one_version_reasons(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");
  const SxsRuntimeIdentity *runtimes[] = {&rt_10, &rt_2, &rt_8};
  PolicyRun run;
  policy_run(&run, cfg, runtimes, 3);
  g_assert_cmpstr(run.outcome->str, ==, "Pii");
  g_assert_null(run.reasons[0]);
  g_assert_cmpstr(run.reasons[1], ==, "pick-one: runtime=10.0 does not match 2.0.0 at " EXTRA "/2.0.0/libcoreclr.so");
  g_assert_cmpstr(run.reasons[2], ==, "pick-one: runtime=10.0 does not match 8.0.33 at " EXTRA "/8.0.33/libcoreclr.so");
  policy_run_clear(&run);
}

/* A match the caller worked out beforehand (outside its lock) is what decides, for the candidate
 * and for the runtimes profiled before it. */
static void test_pick_one_precomputed_match(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");
  SxsRuntimeIdentity said_no = rt_10, said_yes = rt_2;
  said_no.selector_match = SXS_MATCH_NO;
  said_yes.selector_match = SXS_MATCH_YES;
  g_autofree char *reason = NULL;
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &said_no, NULL, 0, &reason), ==, SXS_DECISION_DECLINE);
  g_assert_cmpstr(reason, ==, "pick-one: runtime=10.0 does not match 10.0.12 at " SHARED "/10.0.12/libcoreclr.so");
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &said_yes, NULL, 0, NULL), ==, SXS_DECISION_PROFILE);
  /* An earlier runtime that matched: the candidate, which also matches, is declined. */
  const SxsRuntimeIdentity *profiled[] = {&said_yes};
  g_autofree char *second = NULL;
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &rt_10, profiled, 1, &second), ==, SXS_DECISION_DECLINE);
  g_assert_cmpstr(second, ==,
                  "pick-one: runtime 3 (2.0.0 at " EXTRA "/2.0.0/libcoreclr.so) already matched runtime=10.0");
}

/* "1" is a component, not a string prefix: it does not pick 10.0.12. */
static void test_pick_one_version_component(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "1");
  g_autofree char *reason = NULL;
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &rt_10, NULL, 0, &reason), ==, SXS_DECISION_DECLINE);
  g_assert_cmpstr(reason, ==, "pick-one: runtime=1 does not match 10.0.12 at " SHARED "/10.0.12/libcoreclr.so");
}

static void test_pick_one_version_unknown(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");
  SxsRuntimeIdentity unknown = {4, NULL, "/opt/x/libcoreclr.so", SXS_MATCH_UNKNOWN};
  g_autofree char *reason = NULL;
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &unknown, NULL, 0, &reason), ==, SXS_DECISION_DECLINE);
  g_assert_cmpstr(reason, ==, "pick-one: runtime=10.0 does not match version unknown at /opt/x/libcoreclr.so");
}

/* Two copies of 10.0.12 both match runtime=10.0: the first one profiled wins. */
static void test_pick_one_version_two_copies(void) {
  SxsRuntimeIdentity copy_a = {1, "10.0.12", "/opt/a/10.0.12/libcoreclr.so", SXS_MATCH_UNKNOWN};
  SxsRuntimeIdentity copy_b = {2, "10.0.12", "/opt/b/10.0.12/libcoreclr.so", SXS_MATCH_UNKNOWN};
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");

  const SxsRuntimeIdentity *a_first[] = {&rt_2, &copy_a, &copy_b, SXS_MATCH_UNKNOWN};
  PolicyRun run;
  policy_run(&run, cfg, a_first, 3);
  g_assert_cmpstr(run.outcome->str, ==, "iPi");
  g_assert_true(run.profiled[0] == &copy_a);
  g_assert_cmpstr(run.reasons[2], ==,
                  "pick-one: runtime 1 (10.0.12 at /opt/a/10.0.12/libcoreclr.so) already matched runtime=10.0");
  policy_run_clear(&run);

  const SxsRuntimeIdentity *b_first[] = {&copy_b, &copy_a};
  policy_run(&run, cfg, b_first, 2);
  g_assert_cmpstr(run.outcome->str, ==, "Pi");
  g_assert_cmpstr(run.reasons[1], ==,
                  "pick-one: runtime 2 (10.0.12 at /opt/b/10.0.12/libcoreclr.so) already matched runtime=10.0");
  policy_run_clear(&run);
}

/* pick-one decides at Initialize: CreateInstance lets every runtime through. */
static void test_pick_one_create(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");
  const SxsRuntimeIdentity *admitted[] = {&rt_10, &rt_8};
  char *reason = (char *)"untouched";
  g_assert_cmpint(sxs__policy_at_create(cfg, &rt_2, admitted, 2, &reason), ==, SXS_DECISION_PROFILE);
  g_assert_cmpstr(reason, ==, "untouched");
}

/* A profiled runtime that does not match the selector does not block a matching one. */
static void test_pick_one_unrelated_profiled(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ONE, SXS_SELECTOR_VERSION, "10.0");
  const SxsRuntimeIdentity *profiled[] = {&rt_2, &rt_10};
  char *reason = (char *)"untouched";
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &rt_10, profiled, 2, &reason), ==, SXS_DECISION_PROFILE);
  g_assert_cmpstr(reason, ==, "untouched");
}

/* ---- pick-one by path: two real copies of 10.0.12, only the named one is profiled ---- */

typedef struct {
  char *dir;
  char *folder_a, *folder_b, *lib_a, *lib_b;
  SxsRuntimeIdentity copy_a, copy_b;
} CopiesFixture;

static void make_copy(const char *folder) {
  g_assert_cmpint(g_mkdir_with_parents(folder, 0755), ==, 0);
  g_autofree char *lib = g_build_filename(folder, "libcoreclr.so", NULL);
  g_assert_true(g_file_set_contents(lib,
                                    "\x7f"
                                    "ELF",
                                    -1, NULL));
}

static void copies_setup(CopiesFixture *f, gconstpointer data) {
  (void)data;
  f->dir = sxs_scratch_new("sxsprof-policy"); /* canonical, as selectors and runtime paths are */
  f->folder_a = g_build_filename(f->dir, "a", "shared", "Microsoft.NETCore.App", "10.0.12", NULL);
  f->folder_b = g_build_filename(f->dir, "b", "shared", "Microsoft.NETCore.App", "10.0.12", NULL);
  make_copy(f->folder_a);
  make_copy(f->folder_b);
  f->lib_a = g_build_filename(f->folder_a, "libcoreclr.so", NULL);
  f->lib_b = g_build_filename(f->folder_b, "libcoreclr.so", NULL);
  f->copy_a = (SxsRuntimeIdentity){1, "10.0.12", f->lib_a, SXS_MATCH_UNKNOWN};
  f->copy_b = (SxsRuntimeIdentity){2, "10.0.12", f->lib_b, SXS_MATCH_UNKNOWN};
}

static void copies_teardown(CopiesFixture *f, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(f->dir);
  g_free(f->folder_a);
  g_free(f->folder_b);
  g_free(f->lib_a);
  g_free(f->lib_b);
}

static SxsConfig *load_pick_one(const CopiesFixture *f, const char *runtime) {
  g_autofree char *path = g_build_filename(f->dir, "sxsprof.ini", NULL);
  g_autofree char *text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s\n", runtime);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_autoptr(GError) error = NULL;
  SxsConfig *cfg = sxs__config_load(path, &error);
  g_assert_no_error(error);
  g_unlink(path);
  return cfg;
}

static void assert_only_b(const CopiesFixture *f, const SxsConfig *cfg) {
  g_autofree char *expected_a =
      g_strdup_printf("pick-one: runtime=%s does not match 10.0.12 at %s", cfg->selector, f->lib_a);
  const SxsRuntimeIdentity *a_first[] = {&f->copy_a, &f->copy_b};
  PolicyRun run;
  policy_run(&run, cfg, a_first, 2);
  g_assert_cmpstr(run.outcome->str, ==, "iP");
  g_assert_cmpstr(run.reasons[0], ==, expected_a);
  g_assert_true(run.profiled[0] == &f->copy_b);
  policy_run_clear(&run);

  const SxsRuntimeIdentity *b_first[] = {&f->copy_b, &f->copy_a};
  policy_run(&run, cfg, b_first, 2);
  g_assert_cmpstr(run.outcome->str, ==, "Pi");
  g_assert_cmpstr(run.reasons[1], ==, expected_a);
  policy_run_clear(&run);
}

static void test_pick_one_folder(CopiesFixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_pick_one(f, f->folder_b);
  g_assert_cmpint(cfg->selector_kind, ==, SXS_SELECTOR_PATH);
  g_assert_cmpstr(cfg->selector, ==, f->folder_b);
  assert_only_b(f, cfg);
}

static void test_pick_one_coreclr_file(CopiesFixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_pick_one(f, f->lib_b);
  g_assert_cmpstr(cfg->selector, ==, f->lib_b);
  assert_only_b(f, cfg);
}

/* A runtime seen through a symbolic link to its folder is still the named copy. */
static void test_pick_one_folder_symlink(CopiesFixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *link = g_build_filename(f->dir, "current", NULL);
  g_assert_cmpint(symlink(f->folder_b, link), ==, 0);
  g_autoptr(SxsConfig) cfg = load_pick_one(f, f->folder_b);
  g_autofree char *lib_via_link = g_build_filename(link, "libcoreclr.so", NULL);
  SxsRuntimeIdentity via_link = {3, "10.0.12", lib_via_link, SXS_MATCH_UNKNOWN};
  g_assert_cmpint(sxs__policy_at_initialize(cfg, &via_link, NULL, 0, NULL), ==, SXS_DECISION_PROFILE);
  g_unlink(link);
}

/* ---- pick-all ---- */

static void test_pick_all(void) {
  g_autoptr(SxsConfig) cfg = config_with(SXS_MODE_PICK_ALL, SXS_SELECTOR_NONE, NULL);
  SxsRuntimeIdentity copy = {4, "10.0.12", "/opt/copy/10.0.12/libcoreclr.so", SXS_MATCH_UNKNOWN};
  const SxsRuntimeIdentity *runtimes[] = {&rt_2, &rt_8, &rt_10, &copy};
  PolicyRun run;
  policy_run(&run, cfg, runtimes, 4);
  g_assert_cmpstr(run.outcome->str, ==, "PPPP");
  for (size_t i = 0; i < 4; i++)
    g_assert_null(run.reasons[i]);
  policy_run_clear(&run);
}

static void test_pick_all_default_config(void) {
  const SxsRuntimeIdentity *runtimes[] = {&rt_10, &rt_2};
  PolicyRun run;
  policy_run(&run, NULL, runtimes, 2);
  g_assert_cmpstr(run.outcome->str, ==, "PP");
  policy_run_clear(&run);

  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  policy_run(&run, defaults, runtimes, 2);
  g_assert_cmpstr(run.outcome->str, ==, "PP");
  policy_run_clear(&run);
}

static void test_describe(void) {
  SxsRuntimeIdentity both = {1, "10.0.12", "/x/libcoreclr.so", SXS_MATCH_UNKNOWN},
                     path_only = {2, NULL, "/x/libcoreclr.so", SXS_MATCH_UNKNOWN},
                     version_only = {3, "8.0.33", NULL, SXS_MATCH_UNKNOWN},
                     neither = {4, NULL, NULL, SXS_MATCH_UNKNOWN};
  const struct {
    const SxsRuntimeIdentity *identity;
    const char *expected;
  } cases[] = {
      {&both, "10.0.12 at /x/libcoreclr.so"},  {&path_only, "version unknown at /x/libcoreclr.so"},
      {&version_only, "8.0.33, path unknown"}, {&neither, "version and path unknown"},
      {NULL, "version and path unknown"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *described = sxs__policy_describe(cases[i].identity);
    g_assert_cmpstr(described, ==, cases[i].expected);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/manager/policy/pick-first/one-runtime", test_pick_first_one);
  g_test_add_func("/manager/policy/pick-first/second-declined", test_pick_first_second_declined);
  g_test_add_func("/manager/policy/pick-first/three-runtimes", test_pick_first_three);
  g_test_add_func("/manager/policy/pick-first/unknown-identity", test_pick_first_unknown_identity);
  g_test_add_func("/manager/policy/pick-first/self-in-list", test_pick_first_self);
  g_test_add_func("/manager/policy/pick-first/initialize-profiles", test_pick_first_initialize);

  g_test_add_func("/manager/policy/pick-one/create-profiles", test_pick_one_create);
  g_test_add_func("/manager/policy/pick-one/version-mixed", test_pick_one_version_mixed);
  g_test_add_func("/manager/policy/pick-one/version-reasons", test_pick_one_version_reasons);
  g_test_add_func("/manager/policy/pick-one/version-component", test_pick_one_version_component);
  g_test_add_func("/manager/policy/pick-one/version-unknown", test_pick_one_version_unknown);
  g_test_add_func("/manager/policy/pick-one/version-two-copies", test_pick_one_version_two_copies);
  g_test_add_func("/manager/policy/pick-one/unrelated-profiled", test_pick_one_unrelated_profiled);
  g_test_add("/manager/policy/pick-one/folder-two-copies", CopiesFixture, NULL, copies_setup, test_pick_one_folder,
             copies_teardown);
  g_test_add("/manager/policy/pick-one/coreclr-two-copies", CopiesFixture, NULL, copies_setup,
             test_pick_one_coreclr_file, copies_teardown);
  g_test_add("/manager/policy/pick-one/folder-symlink", CopiesFixture, NULL, copies_setup, test_pick_one_folder_symlink,
             copies_teardown);

  g_test_add_func("/manager/policy/pick-all/admits-all", test_pick_all);
  g_test_add_func("/manager/policy/pick-all/default-config", test_pick_all_default_config);
  g_test_add_func("/manager/policy/describe", test_describe);
  g_test_add_func("/manager/policy/pick-one/precomputed-match", test_pick_one_precomputed_match);

  return g_test_run();
}
