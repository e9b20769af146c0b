/* Hostile inputs for every reader: a few hundred profiles made from two real ones
 * (tests/unit/data/: `sxsprof run --sample --trace --stacks-on` of the Counts app, and of SxsStitch
 * in runsxs with runtimes 10 and 8, trimmed with jq and their paths made neutral), and a hundred
 * configs, all made with one fixed seed so that every run tries the same cases:
 *
 *   truncations, flipped bytes, values of the wrong type, huge, negative and fractional numbers,
 *   deep nesting, deep, cyclic and self-parented call trees, duplicate node and runtime ids,
 *   orphan parents and frames of missing runtimes, stacks past the frame limit, counts that would
 *   overflow their sums; for configs, bytes flipped, lines cut and cases of the error table joined.
 *
 * Each case runs in a fresh process of its own (this program again, with --fuzz-child), as
 * `sxsprof report --format all` would: the profile is loaded, rendered in every format, filtered
 * by runtime and thread, and merged with the original (a config is loaded). The child has a
 * CPU-time limit (setrlimit) and, outside ASan, an address-space limit; it must exit 0 (read and
 * rendered) or 1 (refused with one line that names the file), never by a signal, within
 * WALL_MAX_US, with a peak resident set under PEAK_MAX_KIB, and it must write nothing on its
 * stderr (no GLib warning, no sanitizer report: under ASan a leak or a bad access fails the case). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_config.h"
#include "sxs_config_cases.h"
#include "sxs_formats.h"
#include "sxs_profile_read.h"
#include "sxs_view.h"

#define SEED 23
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* Bounds of one case. ASan makes every allocation larger and slower. */
#define CPU_MAX_SECONDS (SANITIZED ? 60 : 20)
#define WALL_MAX_US ((gint64)(SANITIZED ? 90 : 30) * G_USEC_PER_SEC)
#define PEAK_MAX_KIB ((SANITIZED ? 1536 : 512) * 1024)
#define ADDRESS_SPACE_MAX ((rlim_t)2 << 30)

static const char *const fixtures[] = {"counts.json", "stitch.json", "v2/stitch.json"};

typedef struct {
  char *name; /* "counts.json/flipped/12" */
  char *path; /* the case's file, written when the case is made */
  gboolean config;
} Case;

static void case_free(gpointer p) {
  Case *c = p;
  g_free(c->name);
  g_free(c->path);
  g_free(c);
}

static GPtrArray *cases;
static char *work_dir;
static GBytes *originals[G_N_ELEMENTS(fixtures)];

static void add_case(gboolean config, GString *text, const char *format, ...) G_GNUC_PRINTF(3, 4);
static void add_case(gboolean config, GString *text, const char *format, ...) {
  Case *c = g_new0(Case, 1);
  va_list args;
  va_start(args, format);
  c->name = g_strdup_vprintf(format, args);
  va_end(args);
  c->config = config;
  /* On disk at once: a child forked from a parent that holds every case would copy them all. */
  c->path = g_strdup_printf("%s/%04u.%s", work_dir, cases->len, config ? "ini" : "json");
  g_assert_true(g_file_set_contents(c->path, text->str, (gssize)text->len, NULL));
  g_ptr_array_add(cases, c);
  g_string_free(text, TRUE);
}

static GString *copy_of(GBytes *b) {
  gsize len;
  const char *data = g_bytes_get_data(b, &len);
  return g_string_new_len(data, (gssize)len);
}

/* Where the first `pattern` is in s (which holds it). */
static gsize offset_of(const GString *s, const char *pattern) {
  const char *at = strstr(s->str, pattern);
  g_assert_nonnull(at);
  return (gsize)(at - s->str);
}

/* Where the members' values start in a profile (after each '": '), found in one pass: a scan
 * per case with strstr would be quadratic under ASan, whose strstr measures the whole text. */
static GArray *value_offsets(GBytes *text) {
  gsize len;
  const char *p = g_bytes_get_data(text, &len);
  GArray *offsets = g_array_new(FALSE, FALSE, sizeof(gsize));
  for (gsize i = 0; i + 3 < len; i++)
    if (p[i] == '"' && p[i + 1] == ':' && p[i + 2] == ' ') {
      gsize at = i + 3;
      g_array_append_val(offsets, at);
    }
  return offsets;
}

/* The length of the JSON scalar (number, string, literal) at s[at], 0 when there is none. */
static gsize scalar_length(const GString *s, gsize at) {
  const char *p = s->str + at;
  if (*p == '"') {
    const char *q = p + 1;
    while (*q && *q != '"')
      q += *q == '\\' && q[1] ? 2 : 1;
    return *q ? (gsize)(q - p + 1) : 0;
  }
  return strcspn(p, ",}] \n");
}

/* A profile whose first runtime's call tree is replaced by the nodes (id, parent) given. */
static GString *with_call_tree(GBytes *original, const guint *nodes, guint n) {
  GString *s = copy_of(original);
  gsize start = offset_of(s, "\"call_tree\": [") + strlen("\"call_tree\": [");
  gsize end = start;
  for (int depth = 1; depth > 0; end++)
    depth += s->str[end] == '[' ? 1 : s->str[end] == ']' ? -1 : 0;
  g_autoptr(GString) tree = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(tree,
                           "%s{\"id\": %u, \"parent\": %u, \"name\": \"Sxs.Tests.Counts.F%u\", \"calls\": %u, "
                           "\"inclusive_ns\": %u, \"exclusive_ns\": %u}",
                           i ? ",\n" : "\n", nodes[2 * i], nodes[2 * i + 1], i % 37, 1 + i % 5, 1000 + i, 10 + i % 7);
  g_string_erase(s, (gssize)start, (gssize)(end - 1 - start));
  g_string_insert(s, (gssize)start, tree->str);
  return s;
}

/* Nodes 1..n, node i's parent given by parent_of(i, n). */
static guint *tree_nodes(guint n, guint (*parent_of)(guint i, guint n, GRand *r), GRand *r) {
  guint *nodes = g_new(guint, 2 * n);
  for (guint i = 1; i <= n; i++) {
    nodes[2 * (i - 1)] = i;
    nodes[2 * (i - 1) + 1] = parent_of(i, n, r);
  }
  return nodes;
}

static guint chain_parent(guint i, guint n, GRand *r) {
  (void)n;
  (void)r;
  return i - 1;
}

static guint ring_parent(guint i, guint n, GRand *r) {
  (void)r;
  return i == 1 ? n : i - 1;
}

static guint self_parent(guint i, guint n, GRand *r) {
  (void)n;
  (void)r;
  return i;
}

static guint random_tree_parent(guint i, guint n, GRand *r) {
  (void)n;
  return (guint)g_rand_int_range(r, 0, (gint32)i);
}

static guint random_graph_parent(guint i, guint n, GRand *r) {
  (void)i;
  return (guint)g_rand_int_range(r, 0, (gint32)n + 1);
}

static void add_tree_case(guint f, const char *what, guint n, guint (*parent_of)(guint, guint, GRand *), GRand *r) {
  g_autofree guint *nodes = tree_nodes(n, parent_of, r);
  add_case(FALSE, with_call_tree(originals[f], nodes, n), "%s/tree/%s/%u", fixtures[f], what, n);
}

/* One event stack of n native frames, in place of the profile's "stacks". */
static GString *with_deep_stack(GBytes *original, guint n) {
  GString *s = copy_of(original);
  gsize at = offset_of(s, "\"stacks\": [");
  g_autoptr(GString) stack = g_string_new("{\"event\": \"exception\", \"thread\": 1, \"count\": 2, \"frames\": [");
  for (guint i = 0; i < n; i++)
    g_string_append_printf(stack, "%s{\"kind\": \"native\", \"name\": \"libdeep.so!f%u\", \"module\": \"libdeep.so\"}",
                           i ? "," : "", i % 97);
  g_string_append(stack, "]},");
  g_string_insert(s, (gssize)(at + strlen("\"stacks\": [")), stack->str);
  return s;
}

static const char *const numbers[] = {
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "9007199254740991",
    "9007199254740992",
    "-1",
    "-0",
    "0",
    "4294967295",
    "4294967296",
    "2147483648",
    "1e308",
    "1.5",
    "99999999999999999999999999999999",
    "1000001",
    "253402300800000",
};

static const char *const wrong_types[] = {"\"x\"", "12", "true", "null", "[]", "{}", "[1, \"a\"]", "{\"a\": {}}"};

static void add_profile_cases(guint f, GRand *r) {
  GBytes *original = originals[f];
  gsize len = g_bytes_get_size(original);
  const char *name = fixtures[f];
  g_autoptr(GArray) values = value_offsets(original);
  add_case(FALSE, copy_of(original), "%s/original", name);
  for (guint i = 0; i < 25; i++) {
    GString *s = copy_of(original);
    g_string_truncate(s, (gsize)g_rand_int_range(r, 0, (gint32)len));
    add_case(FALSE, s, "%s/truncated/%u", name, i);
  }
  for (guint i = 0; i < 50; i++) {
    GString *s = copy_of(original);
    guint flips = 1 + (guint)g_rand_int_range(r, 0, i < 25 ? 1 : 16);
    for (guint k = 0; k < flips; k++)
      s->str[g_rand_int_range(r, 0, (gint32)len)] ^= (char)g_rand_int_range(r, 1, 256);
    add_case(FALSE, s, "%s/flipped/%u", name, i);
  }
  for (guint i = 0; i < 25; i++) {
    GString *s = copy_of(original);
    gsize value = g_array_index(values, gsize, g_rand_int_range(r, 0, (gint32)values->len));
    gsize n = scalar_length(s, value);
    if (n > 0) {
      g_string_erase(s, (gssize)value, (gssize)n);
      g_string_insert(s, (gssize)value, wrong_types[g_rand_int_range(r, 0, G_N_ELEMENTS(wrong_types))]);
    } else {
      g_string_insert(s, (gssize)value, "\"x\", \"y\": ");
    }
    add_case(FALSE, s, "%s/wrong-type/%u", name, i);
  }
  for (guint i = 0; i < 25; i++) {
    GString *s = copy_of(original);
    gsize value;
    /* A member whose value is a number. */
    do
      value = g_array_index(values, gsize, g_rand_int_range(r, 0, (gint32)values->len));
    while (!g_ascii_isdigit(s->str[value]) && s->str[value] != '-');
    g_string_erase(s, (gssize)value, (gssize)scalar_length(s, value));
    g_string_insert(s, (gssize)value, numbers[g_rand_int_range(r, 0, G_N_ELEMENTS(numbers))]);
    add_case(FALSE, s, "%s/number/%u", name, i);
  }
  /* Nesting: valid JSON in a member nobody reads, up to the reader's limit and past it, and a
   * value that opens ten thousand arrays. */
  static const guint depths[] = {62, 63, 64, 65, 10000};
  for (guint i = 0; i < G_N_ELEMENTS(depths); i++) {
    GString *s = copy_of(original);
    g_autoptr(GString) nest = g_string_new("\"future\": ");
    for (guint d = 0; d < depths[i]; d++)
      g_string_append_c(nest, '[');
    for (guint d = 0; d < depths[i] && depths[i] < 10000; d++)
      g_string_append_c(nest, ']');
    g_string_append(nest, depths[i] < 10000 ? ", " : "");
    g_string_insert(s, 2, nest->str);
    add_case(FALSE, s, "%s/nesting/%u", name, depths[i]);
  }
  /* Call trees. */
  add_tree_case(f, "chain", 1000, chain_parent, r);
  add_tree_case(f, "chain", 4097, chain_parent, r);
  add_tree_case(f, "chain", 200000, chain_parent, r);
  add_tree_case(f, "ring", 1, ring_parent, r);
  add_tree_case(f, "ring", 2, ring_parent, r);
  add_tree_case(f, "ring", 50000, ring_parent, r);
  add_tree_case(f, "self", 100, self_parent, r);
  add_tree_case(f, "random-tree", 20000, random_tree_parent, r);
  for (guint i = 0; i < 3; i++)
    add_tree_case(f, "random-graph", 100 + 1000 * i, random_graph_parent, r);
  {
    guint nodes[] = {1, 0, 2, 1, 3, 1, 2, 3};
    add_case(FALSE, with_call_tree(original, nodes, 4), "%s/tree/duplicate-id", name);
  }
  {
    guint nodes[] = {1, 0, 2, 1, 3, 99};
    add_case(FALSE, with_call_tree(original, nodes, 3), "%s/tree/orphan", name);
  }
  /* Runtimes: one id twice, and frames of a runtime the profile does not have. */
  {
    GString *s = copy_of(original);
    gsize at = offset_of(s, "\"runtimes\": [");
    g_string_insert(s, (gssize)(at + strlen("\"runtimes\": [")), "{\"id\": 1, \"version\": \"1.0\"}, ");
    add_case(FALSE, s, "%s/runtime/duplicate-id", name);
  }
  {
    GString *s = copy_of(original);
    g_string_replace(s, "\"runtime\": 1,", "\"runtime\": 777,", 0);
    g_string_replace(s, "\"runtime\":1,", "\"runtime\":777,", 0);
    add_case(FALSE, s, "%s/runtime/orphan-frames", name);
  }
  /* Version 2: frame indices past the frame table, a table of the wrong shape, stack pointers that
   * do not match the frames. */
  if (strstr(g_bytes_get_data(original, NULL), "\"frame_table\"")) {
    static const char *const edits[][3] = {
        {"index-past", "\"frames\":[0", "\"frames\":[4294967296"},
        {"index-negative", "\"frames\":[0", "\"frames\":[-1"},
        {"index-string", "\"frames\":[0", "\"frames\":[\"0\""},
        {"sp-extra", "\"sp\":[", "\"sp\":[1,"},
        {"sp-missing", "\"sp\":[", "\"sp\":[],\"x\":["},
        {"sp-string", "\"sp\":[", "\"sp\":[\"0x1\","},
        {"table-empty", "\"frame_table\": [", "\"frame_table\": [], \"x\": ["},
        {"table-numbers", "\"frame_table\": [", "\"frame_table\": [1, 2, "},
        {"table-after", "\"frame_table\"", "\"frame_table_later\""},
    };
    for (guint i = 0; i < G_N_ELEMENTS(edits); i++) {
      GString *s = copy_of(original);
      g_string_replace(s, edits[i][1], edits[i][2], i % 2 ? 0 : 1);
      add_case(FALSE, s, "%s/v2/%s", name, edits[i][0]);
    }
  }
  /* Stacks at the frame limit and past it. */
  add_case(FALSE, with_deep_stack(original, SXS_PROFILE_MAX_STACK_FRAMES), "%s/stack/frames-%d", name,
           SXS_PROFILE_MAX_STACK_FRAMES);
  add_case(FALSE, with_deep_stack(original, 50000), "%s/stack/frames-50000", name);
  /* Counts at the limit on every stack, at 1 Hz: the sums and the nanoseconds they stand for pass
   * 2^63 and must saturate. */
  {
    GString *s = copy_of(original);
    g_autoptr(GRegex) count = g_regex_new("\"count\": [0-9]+", 0, 0, NULL);
    g_autofree char *replaced =
        g_regex_replace_literal(count, s->str, (gssize)s->len, 0, "\"count\": 9007199254740991", 0, NULL);
    g_autoptr(GRegex) frequency = g_regex_new("\"frequency\": [0-9]+", 0, 0, NULL);
    g_autofree char *one_hz = g_regex_replace_literal(frequency, replaced, -1, 0, "\"frequency\": 1", 0, NULL);
    g_string_assign(s, one_hz);
    add_case(FALSE, s, "%s/counts/saturating", name);
  }
}

static void add_document_cases(void) {
  static const struct {
    const char *name;
    const char *text;
    gssize len;
  } documents[] = {
      {"empty", "", 0},
      {"space", " \n\t\r ", -1},
      {"bom-only", "\xef\xbb\xbf", -1},
      {"nul", "{\"format\": \"sxsprof\"\0, \"version\": 1}", 36},
      {"array", "[{\"format\": \"sxsprof\", \"version\": 1}]", -1},
      {"two-values", "{\"format\": \"sxsprof\", \"version\": 1} {}", -1},
      {"newer", "{\"format\": \"sxsprof\", \"version\": 99999999999999999999}", -1},
      {"minimal", "{\"format\": \"sxsprof\", \"version\": 1}", -1},
      {"utf16", "\xff\xfe{\0\"\0", 6},
  };
  for (guint i = 0; i < G_N_ELEMENTS(documents); i++) {
    gssize len = documents[i].len < 0 ? (gssize)strlen(documents[i].text) : documents[i].len;
    add_case(FALSE, g_string_new_len(documents[i].text, len), "document/%s", documents[i].name);
  }
}

/* Configs: the error table's texts with bytes flipped, cut, and two of them joined. */
static void add_config_cases(GRand *r) {
  for (guint i = 0; i < 100; i++) {
    const BadCase *c = &bad_cases[g_rand_int_range(r, 0, G_N_ELEMENTS(bad_cases))];
    GString *s = g_string_new_len(c->text, c->len ? c->len : (gssize)strlen(c->text));
    g_string_replace(s, "@DIR@", work_dir, 0);
    switch (i % 4) {
    case 0:
      for (guint k = 0; k < 3 && s->len; k++)
        s->str[g_rand_int_range(r, 0, (gint32)s->len)] ^= (char)g_rand_int_range(r, 1, 256);
      break;
    case 1: g_string_truncate(s, s->len ? (gsize)g_rand_int_range(r, 0, (gint32)s->len) : 0); break;
    case 2: {
      const BadCase *d = &bad_cases[g_rand_int_range(r, 0, G_N_ELEMENTS(bad_cases))];
      g_string_append_len(s, d->text, d->len ? d->len : (gssize)strlen(d->text));
      break;
    }
    default: g_string_append(s, "\n[tracing]\ninclude=\\x\\\nexclude=\\\n"); break;
    }
    add_case(TRUE, s, "config/%u-%s", i, c->name);
  }
}

/* ---- The child ---- */

static void fail_on_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)level;
  (void)data;
  g_printerr("unexpected message of domain %s: %s\n", domain ? domain : "(none)", message);
  abort();
}

/* Renders every format of m (all_formats) or the summary and the flame graph, and a filtered
 * summary, as sxsprof report does. */
static void render(const SxsProfileModel *m, gboolean all_formats) {
  g_autoptr(SxsView) view = sxs__view_new(m, NULL);
  for (int f = 0; f < SXS_N_FORMATS; f++) {
    if (!all_formats && f != SXS_FORMAT_SUMMARY && f != SXS_FORMAT_SVG)
      continue;
    gsize len = 0;
    g_autofree char *why = NULL;
    g_autofree char *data = sxs__formats_render(view, (SxsFormat)f, NULL, &len, &why);
    if (!data && !why)
      abort();
  }
  for (int k = 0; all_formats && k < SXS_VIEW_N_KINDS; k++) {
    SxsRenderOptions o = {.top = 5, .kind = (SxsViewKind)k};
    g_autofree char *why = NULL;
    gsize len;
    g_free(sxs__formats_render(view, SXS_FORMAT_SVG, &o, &len, &why));
  }
  SxsViewFilter filter = {.runtime_id = 1, .thread = "1"};
  g_autoptr(SxsView) filtered = sxs__view_new(m, &filter);
  gsize len;
  g_autofree char *why = NULL;
  g_free(sxs__formats_render(filtered, SXS_FORMAT_SUMMARY, NULL, &len, &why));
}

/* The case's work; returns the child's exit status. */
static int child_main(gboolean config, const char *path, const char *original_path) {
  g_log_set_handler(NULL, G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, fail_on_message, NULL);
  g_log_set_handler("GLib", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, fail_on_message, NULL);
  g_log_set_handler(G_LOG_DOMAIN, G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, fail_on_message, NULL);
  g_autoptr(GError) error = NULL;
  if (config) {
    g_autoptr(SxsConfig) cfg = sxs__config_load(path, &error);
    if (!cfg) {
      printf("%s\n", error->message);
      return 1;
    }
    return 0;
  }
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, 0, &error);
  if (!m) {
    printf("%s\n", error->message);
    return 1;
  }
  render(m, TRUE);
  /* Merged with the profile it was made from, as `sxsprof report a.json b.json` does. */
  g_autoptr(SxsProfileModel) merged = sxs__profile_load(original_path, 0, &error);
  if (!merged)
    abort();
  sxs__profile_model_merge(merged, m);
  render(merged, FALSE);
  return 0;
}

/* ---- The parent ---- */

static void test_case(gconstpointer data) {
  const Case *c = data;
  const char *path = c->path;
  g_autofree char *out = g_build_filename(work_dir, "case.out", NULL);
  g_autofree char *err = g_build_filename(work_dir, "case.err", NULL);
  const char *fixture = fixtures[0];
  for (guint f = 0; f < G_N_ELEMENTS(fixtures); f++)
    if (g_str_has_prefix(c->name, fixtures[f]) && c->name[strlen(fixtures[f])] == '/')
      fixture = fixtures[f];
  g_autofree char *source = g_getenv("SXS_SOURCE_DIR") ? g_strdup(g_getenv("SXS_SOURCE_DIR")) : NULL;
  g_assert_nonnull(source);
  g_autofree char *original = g_build_filename(source, "tests", "unit", "data", fixture, NULL);

  g_autofree char *peak_path = g_build_filename(work_dir, "case.peak", NULL);
  g_unlink(peak_path);
  fflush(stdout);
  fflush(stderr);
  gint64 start = g_get_monotonic_time();
  pid_t pid = fork();
  g_assert_cmpint(pid, >=, 0);
  if (pid == 0) {
    /* A fresh process: nothing of this one's heap (under ASan, its quarantine too) to copy, scan
     * for leaks or count in the peak. */
    struct rlimit cpu = {CPU_MAX_SECONDS, CPU_MAX_SECONDS};
    setrlimit(RLIMIT_CPU, &cpu);
    if (!SANITIZED) {
      struct rlimit as = {ADDRESS_SPACE_MAX, ADDRESS_SPACE_MAX};
      setrlimit(RLIMIT_AS, &as);
    }
    if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
      _exit(99);
    const char *argv[] = {
        "/proc/self/exe", "--fuzz-child", c->config ? "config" : "profile", path, original, peak_path, NULL};
    execv(argv[0], (char **)argv);
    _exit(98);
  }
  int status = 0;
  struct rusage usage;
  pid_t done;
  gint64 elapsed;
  for (gulong pause = 100;; pause = MIN(pause * 2, 20000)) {
    done = wait4(pid, &status, WNOHANG, &usage);
    elapsed = g_get_monotonic_time() - start;
    if (done != 0 || elapsed > WALL_MAX_US)
      break;
    g_usleep(pause);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    wait4(pid, &status, 0, &usage);
  }
  g_autofree char *message = NULL, *errors = NULL, *peak_text = NULL;
  g_file_get_contents(out, &message, NULL, NULL);
  g_file_get_contents(err, &errors, NULL, NULL);
  g_file_get_contents(peak_path, &peak_text, NULL, NULL);
  guint64 peak = peak_text ? g_ascii_strtoull(peak_text, NULL, 10) : 0;
  g_test_message("%s: %s, %.1f ms, peak %" G_GUINT64_FORMAT " KiB: %s%s", c->name,
                 WIFEXITED(status)     ? (WEXITSTATUS(status) ? "refused" : "read")
                 : WIFSIGNALED(status) ? "killed"
                                       : "?",
                 elapsed / 1e3, peak, message ? g_strchomp(message) : "", errors ? errors : "");
  g_assert_cmpint(done, ==, pid);
  g_assert_false(WIFSIGNALED(status));
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), <=, 1);
  g_assert_cmpstr(errors, ==, "");
  g_assert_cmpint(elapsed, <, WALL_MAX_US);
  g_assert_cmpuint(peak, >, 0);
  g_assert_cmpuint(peak, <, PEAK_MAX_KIB);
  if (WEXITSTATUS(status) == 1) {
    /* One line, naming the file. */
    g_assert_nonnull(message);
    g_assert_null(strchr(message, '\n'));
    g_assert_nonnull(strstr(message, path));
  } else {
    g_assert_cmpstr(message, ==, "");
  }
}

/* The peak resident set of this process, in KiB (VmHWM), written to path. */
static void write_peak(const char *path) {
  g_autofree char *status = NULL;
  if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
    return;
  const char *line = strstr(status, "VmHWM:");
  if (line) {
    g_autofree char *kib = g_strdup_printf("%" G_GUINT64_FORMAT, g_ascii_strtoull(line + 6, NULL, 10));
    g_file_set_contents(path, kib, -1, NULL);
  }
}

int main(int argc, char **argv) {
  /* --fuzz-child config|profile PATH ORIGINAL PEAK_PATH: one case, in a process of its own. */
  if (argc == 6 && g_str_equal(argv[1], "--fuzz-child")) {
    int code = child_main(g_str_equal(argv[2], "config"), argv[3], argv[4]);
    fflush(stdout);
    write_peak(argv[5]);
    return code; /* through exit: LeakSanitizer checks then */
  }
  g_test_init(&argc, &argv, NULL);
  const char *source = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(source);
  g_autoptr(GError) error = NULL;
  work_dir = g_dir_make_tmp("sxs-fuzz-XXXXXX", &error);
  g_assert_no_error(error);
  for (guint f = 0; f < G_N_ELEMENTS(fixtures); f++) {
    g_autofree char *path = g_build_filename(source, "tests", "unit", "data", fixtures[f], NULL);
    char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(path, &text, &len, NULL));
    originals[f] = g_bytes_new_take(text, len);
  }

  cases = g_ptr_array_new_with_free_func(case_free);
  g_autoptr(GRand) r = g_rand_new_with_seed(SEED);
  for (guint f = 0; f < G_N_ELEMENTS(fixtures); f++)
    add_profile_cases(f, r);
  add_document_cases();
  add_config_cases(r);
  for (guint i = 0; i < cases->len; i++) {
    const Case *c = cases->pdata[i];
    g_autofree char *path = g_strdup_printf("/fuzz/%s", c->name);
    g_test_add_data_func(path, c, test_case);
  }
  int status = g_test_run();

  g_autoptr(GDir) dir = g_dir_open(work_dir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name(dir));) {
    g_autofree char *path = g_build_filename(work_dir, name, NULL);
    g_unlink(path);
  }
  g_rmdir(work_dir);
  g_free(work_dir);
  g_ptr_array_unref(cases);
  for (guint f = 0; f < G_N_ELEMENTS(fixtures); f++)
    g_bytes_unref(originals[f]);
  return status;
}
