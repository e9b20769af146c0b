/* Unit tests for the portable PDB reader (stitch/sxs_pdb.c): real PDBs the SDK's compiler made
 * (the Lines test app built four ways, and the web template's Release build), where each is
 * looked for, and fuzzing: every truncation, flipped bytes, and sizes and counts set to values
 * that do not fit. Under ASan (tests/run.sh) any read outside the input fails the test. */
#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_metadata.h"
#include "sxs_pdb.h"
#include "sxs_scratch.h"

/* ---- fixtures: the built apps and the source they came from ---- */

static char *apps_path(const char *folder, const char *file) {
  const char *apps = g_getenv("SXS_APPS_DIR");
  g_assert_nonnull(apps);
  char *path = g_build_filename(apps, folder, file, NULL);
  if (!g_file_test(path, G_FILE_TEST_EXISTS))
    g_error("%s is missing: build the test apps (tests/setup/build-apps.sh)", path);
  return path;
}

static char *lines_source(void) {
  const char *src = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(src);
  return g_build_filename(src, "tests", "apps", "Lines", "Lines.cs", NULL);
}

/* The 1-based line of Lines.cs holding `marker`. */
static guint32 marker_line(const char *marker) {
  g_autofree char *path = lines_source();
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr(lines[i], marker))
      return i + 1;
  g_error("no %s in %s", marker, path);
}

static guint8 *read_bytes(const char *path, gsize *ret_len) {
  char *data = NULL;
  g_assert_true(g_file_get_contents(path, &data, ret_len, NULL));
  return (guint8 *)data;
}

static void copy_file(const char *from, const char *to) {
  gsize len;
  g_autofree guint8 *data = read_bytes(from, &len);
  g_assert_true(g_file_set_contents(to, (const char *)data, (gssize)len, NULL));
}

/* The methods whose points hold line `line` of a document named `doc`: how many, and the first
 * one's row and first line. */
static guint methods_with_line(SxsPdb *pdb, const char *doc, guint32 line, guint32 *ret_method, guint32 *ret_first) {
  guint found = 0;
  for (guint32 m = 1; m <= sxs__pdb_method_count(pdb); m++) {
    g_autofree SxsSeqPoint *points = NULL;
    guint n = 0;
    g_autofree char *why = NULL;
    g_assert_cmpint(sxs__pdb_method_points(pdb, m, &points, &n, &why), ==, 0);
    for (guint i = 0; i < n; i++) {
      if (points[i].line == line && g_strcmp0(sxs__pdb_document_name(pdb, points[i].document), doc) == 0) {
        if (found++ == 0) {
          *ret_method = m;
          *ret_first = sxs__pdb_first_line(points, n, NULL);
        }
        break;
      }
    }
  }
  return found;
}

/* What every real build of Lines.cs says: one method holds the hot line, one other the call, the
 * hot one starts just above its loop, and every point of every method lies in Lines.cs. */
static void check_lines_pdb(SxsPdb *pdb) {
  g_autofree char *source = lines_source();
  guint32 hot = marker_line("LINE:hot"), call = marker_line("LINE:call");
  guint32 hot_method = 0, hot_first = 0, call_method = 0, call_first = 0;
  g_assert_cmpuint(methods_with_line(pdb, source, hot, &hot_method, &hot_first), ==, 1);
  g_assert_cmpuint(methods_with_line(pdb, source, call, &call_method, &call_first), ==, 1);
  g_assert_cmpuint(hot_method, !=, call_method);
  /* Hot's first line is its first statement, `long acc = n;`, two lines above the loop body. */
  g_assert_cmpuint(hot_first, ==, hot - 2);
  g_assert_cmpuint(call_first, <, call);
  guint methods_with_points = 0;
  for (guint32 m = 1; m <= sxs__pdb_method_count(pdb); m++) {
    g_autofree SxsSeqPoint *points = NULL;
    guint n = 0;
    g_assert_cmpint(sxs__pdb_method_points(pdb, m, &points, &n, NULL), ==, 0);
    if (n > 0)
      methods_with_points++;
    for (guint i = 0; i < n; i++) {
      g_assert_cmpstr(sxs__pdb_document_name(pdb, points[i].document), ==, source);
      g_assert_cmpuint(points[i].line, >=, 1);
      g_assert_cmpuint(points[i].line, <=, hot + 10);
      if (i > 0)
        g_assert_cmpuint(points[i].il_offset, >, points[i - 1].il_offset);
    }
  }
  /* Main, Outer, Hot; the constructors have no lines of their own. */
  g_assert_cmpuint(methods_with_points, ==, 3);
  g_assert_cmpint(sxs__pdb_method_points(pdb, sxs__pdb_method_count(pdb) + 1, NULL, NULL, NULL), ==, -ENOENT);
  g_assert_cmpint(sxs__pdb_method_points(pdb, 0, NULL, NULL, NULL), ==, -ENOENT);
  g_assert_null(sxs__pdb_document_name(pdb, 0));
  g_assert_null(sxs__pdb_document_name(pdb, 999));
}

static void test_embedded(void) {
  g_autofree char *dll = apps_path("Lines", "Lines.dll");
  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_autoptr(SxsPdb) pdb = sxs__pdb_for_assembly(dll, NULL, &status, &where);
  g_assert_nonnull(pdb);
  g_assert_cmpstr(sxs__pdb_status_name(status), ==, "found");
  g_assert_cmpstr(where, ==, "embedded");
  check_lines_pdb(pdb);

  /* The debug directory itself: a portable CodeView entry naming Lines.pdb, the same id. */
  SxsPeDebug d;
  g_assert_cmpint(sxs__pe_debug_read(dll, &d, NULL), ==, 0);
  g_assert_true(d.has_codeview);
  g_assert_true(d.portable);
  g_assert_nonnull(d.embedded);
  g_autofree char *base = g_path_get_basename(d.pdb_path);
  g_assert_cmpstr(base, ==, "Lines.pdb");
  g_assert_cmpmem(d.id, sizeof d.id, sxs__pdb_id(pdb), 20);
  sxs__pe_debug_clear(&d);
}

static void test_beside(void) {
  g_autofree char *dll = apps_path("LinesPdb", "Lines.dll");
  g_autofree char *expected = apps_path("LinesPdb", "Lines.pdb");
  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_autoptr(SxsPdb) pdb = sxs__pdb_for_assembly(dll, NULL, &status, &where);
  g_assert_nonnull(pdb);
  g_assert_cmpint(status, ==, SXS_PDB_FOUND);
  g_assert_cmpstr(where, ==, expected);
  check_lines_pdb(pdb);
}

static void test_missing(void) {
  g_autofree char *dll = apps_path("LinesNoPdb", "Lines.dll");
  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_assert_null(sxs__pdb_for_assembly(dll, NULL, &status, &where));
  g_assert_cmpstr(sxs__pdb_status_name(status), ==, "missing");
  g_assert_cmpstr(where, ==, "the assembly records no PDB");

  /* Not an assembly at all, and no file. */
  g_autofree char *json = apps_path("LinesNoPdb", "Lines.runtimeconfig.json");
  g_autofree char *where2 = NULL;
  g_assert_null(sxs__pdb_for_assembly(json, NULL, &status, &where2));
  g_assert_cmpint(status, ==, SXS_PDB_MISSING);
  g_autofree char *where3 = NULL;
  g_assert_null(sxs__pdb_for_assembly("/nonexistent/x.dll", NULL, &status, &where3));
  g_assert_cmpint(status, ==, SXS_PDB_MISSING);
}

/* A PDB of other code beside the dll is not used; the right one in a folder given is. */
static void test_mismatch_and_folder(void) {
  g_autofree char *dir = sxs_scratch_new("sxs-pdb");
  g_autofree char *dll_src = apps_path("LinesPdb", "Lines.dll");
  g_autofree char *other_pdb = apps_path("LinesOther", "Lines.pdb");
  g_autofree char *good_pdb = apps_path("LinesPdb", "Lines.pdb");
  g_autofree char *good_dir = g_path_get_dirname(good_pdb);
  g_autofree char *dll = g_build_filename(dir, "Lines.dll", NULL);
  g_autofree char *beside = g_build_filename(dir, "Lines.pdb", NULL);
  copy_file(dll_src, dll);

  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_assert_null(sxs__pdb_for_assembly(dll, NULL, &status, &where));
  g_assert_cmpint(status, ==, SXS_PDB_MISSING);

  const char *folders[] = {good_dir, NULL};
  g_autofree char *where_folder = NULL;
  g_autoptr(SxsPdb) from_folder = sxs__pdb_for_assembly(dll, folders, &status, &where_folder);
  g_assert_nonnull(from_folder);
  g_assert_cmpint(status, ==, SXS_PDB_FOUND);
  g_assert_cmpstr(where_folder, ==, good_pdb);
  check_lines_pdb(from_folder);

  copy_file(other_pdb, beside);
  g_autofree char *where_mismatch = NULL;
  g_assert_null(sxs__pdb_for_assembly(dll, NULL, &status, &where_mismatch));
  g_assert_cmpstr(sxs__pdb_status_name(status), ==, "mismatch");
  g_assert_cmpstr(where_mismatch, ==, beside);
  /* The mismatched one beside is passed over for the matching one in the folder. */
  g_autofree char *where_both = NULL;
  g_autoptr(SxsPdb) past = sxs__pdb_for_assembly(dll, folders, &status, &where_both);
  g_assert_nonnull(past);
  g_assert_cmpstr(where_both, ==, good_pdb);

  /* A Windows PDB beside it: named as such, never opened as a portable one. */
  static const char msf[] = "Microsoft C/C++ MSF 7.00\r\n\x1a"
                            "DS\0\0\0";
  g_assert_true(g_file_set_contents(beside, msf, sizeof msf, NULL));
  g_autofree char *where_windows = NULL;
  g_assert_null(sxs__pdb_for_assembly(dll, NULL, &status, &where_windows));
  g_assert_cmpstr(sxs__pdb_status_name(status), ==, "windows");
  g_autofree char *why = NULL;
  g_assert_null(sxs__pdb_open(beside, &why));
  g_assert_cmpstr(why, ==, "a Windows PDB, not a portable one");

  /* A damaged one. */
  g_assert_true(g_file_set_contents(beside, "BSJB", 4, NULL));
  g_autofree char *where_damaged = NULL;
  g_assert_null(sxs__pdb_for_assembly(dll, NULL, &status, &where_damaged));
  g_assert_cmpstr(sxs__pdb_status_name(status), ==, "damaged");
  g_assert_true(g_str_has_prefix(where_damaged, beside));
  sxs_scratch_remove(g_steal_pointer(&dir));
}

/* The web template built in Release by the SDK (`dotnet build`), its PDB beside web.dll. */
/* A file of the web template's Release build (its one target framework's folder). */
static char *web_release_file(const char *file) {
  const char *apps = g_getenv("SXS_APPS_DIR");
  g_autofree char *build = g_path_get_dirname(apps);
  g_autofree char *release = g_build_filename(build, "real", "web", "bin", "Release", NULL);
  GDir *d = g_dir_open(release, 0, NULL);
  if (!d)
    g_error("%s is missing: build the fixtures (tests/setup/build-apps.sh)", release);
  const char *tfm = g_dir_read_name(d);
  g_assert_nonnull(tfm);
  char *path = g_build_filename(release, tfm, file, NULL);
  g_dir_close(d);
  return path;
}

static void test_sdk_build(void) {
  g_autofree char *dll = web_release_file("web.dll");
  g_autofree char *pdb_path = web_release_file("web.pdb");
  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_autoptr(SxsPdb) pdb = sxs__pdb_for_assembly(dll, NULL, &status, &where);
  g_assert_nonnull(pdb);
  g_assert_cmpstr(where, ==, pdb_path);
  /* Program.cs's first line, `var builder = WebApplication.CreateBuilder(args);`, is the first
   * statement of the top-level Main. (The PDB names the file where the project was built.) */
  gboolean line1 = FALSE;
  for (guint32 m = 1; m <= sxs__pdb_method_count(pdb); m++) {
    g_autofree SxsSeqPoint *points = NULL;
    guint n = 0;
    g_assert_cmpint(sxs__pdb_method_points(pdb, m, &points, &n, NULL), ==, 0);
    for (guint i = 0; i < n; i++)
      if (points[i].line == 1 && g_str_has_suffix(sxs__pdb_document_name(pdb, points[i].document), "/web/Program.cs"))
        line1 = TRUE;
  }
  g_assert_true(line1);
}

static void test_point_at(void) {
  const SxsSeqPoint points[] = {{0, 10, 1}, {5, 12, 1}, {9, 15, 2}};
  g_assert_true(sxs__pdb_point_at(points, 3, 0) == &points[0]);
  g_assert_true(sxs__pdb_point_at(points, 3, 4) == &points[0]);
  g_assert_true(sxs__pdb_point_at(points, 3, 5) == &points[1]);
  g_assert_true(sxs__pdb_point_at(points, 3, 100) == &points[2]);
  g_assert_true(sxs__pdb_point_at(points, 3, PROLOG) == &points[0]);
  g_assert_true(sxs__pdb_point_at(points, 3, EPILOG) == &points[2]);
  g_assert_null(sxs__pdb_point_at(points, 3, NO_MAPPING));
  g_assert_null(sxs__pdb_point_at(points + 1, 2, 2)); /* before every point */
  g_assert_null(sxs__pdb_point_at(points, 0, 3));
  guint32 doc = 0;
  g_assert_cmpuint(sxs__pdb_first_line(points, 3, &doc), ==, 10);
  g_assert_cmpuint(doc, ==, 1);
  const SxsSeqPoint loop[] = {{0, 20, 1}, {4, 18, 1}, {8, 30, 2}};
  g_assert_cmpuint(sxs__pdb_first_line(loop, 3, NULL), ==, 18);
}

static void test_il_offset(void) {
  /* Unsorted, with a gap (20..24), a zero-length entry and the prolog. */
  const COR_DEBUG_IL_TO_NATIVE_MAP map[] = {
      {7, 12, 20}, {(ULONG32)PROLOG, 0, 4}, {0, 4, 12}, {9, 24, 40}, {11, 24, 24},
  };
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 0), ==, PROLOG);
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 3), ==, PROLOG);
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 4), ==, 0);
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 19), ==, 7);
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 22), ==, 7); /* in the gap: the last entry before */
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 24), ==, 9); /* the entry that holds it, not the empty one */
  g_assert_cmpint(sxs__pdb_il_offset(map, 5, 100), ==, 11);
  const COR_DEBUG_IL_TO_NATIVE_MAP late[] = {{3, 8, 16}};
  g_assert_cmpint(sxs__pdb_il_offset(late, 1, 2), ==, NO_MAPPING);
  g_assert_cmpint(sxs__pdb_il_offset(NULL, 0, 2), ==, NO_MAPPING);
}

/* ---- fuzzing ---- */

/* Reads everything a PDB offers, as the profiler would. */
static void exercise_pdb(SxsPdb *pdb) {
  guint count = sxs__pdb_method_count(pdb);
  for (guint32 m = 0; m <= count + 1 && m < 4096; m++) {
    SxsSeqPoint *points = NULL;
    guint n = 0;
    char *why = NULL;
    int r = sxs__pdb_method_points(pdb, m, &points, &n, &why);
    if (r == 0) {
      for (guint i = 0; i < n; i++) {
        sxs__pdb_document_name(pdb, points[i].document);
        g_assert_true(sxs__pdb_point_at(points, n, (gint32)points[i].il_offset) != NULL);
      }
      sxs__pdb_first_line(points, n, NULL);
      g_free(points);
    } else {
      g_assert_true(r == -ENOENT || (r == -EBADMSG && why && *why));
    }
    g_free(why);
  }
  for (guint32 doc = 0; doc < 64; doc++)
    sxs__pdb_document_name(pdb, doc);
}

static guint opened, refused;

static void try_pdb(const guint8 *bytes, gsize len) {
  char *why = NULL;
  SxsPdb *pdb = sxs__pdb_new(g_memdup2(bytes, len ? len : 1), len, &why);
  if (pdb) {
    opened++;
    exercise_pdb(pdb);
    sxs__pdb_free(pdb);
  } else {
    refused++;
    g_assert_nonnull(why);
    g_assert_cmpuint(strlen(why), >, 0);
  }
  g_free(why);
}

static void try_pe(const guint8 *bytes, gsize len) {
  SxsPeDebug d;
  char *why = NULL;
  if (sxs__pe_debug_parse(bytes, len, &d, &why) == 0) {
    if (d.embedded) {
      SxsPdb *pdb = sxs__pdb_new(g_steal_pointer(&d.embedded), d.embedded_len, NULL);
      if (pdb) {
        exercise_pdb(pdb);
        sxs__pdb_free(pdb);
      }
    }
    sxs__pe_debug_clear(&d);
  } else {
    g_assert_nonnull(why);
  }
  g_free(why);
}

/* Every prefix, and every byte changed five ways. */
static void fuzz_bytes(const guint8 *orig, gsize len, void (*try)(const guint8 *, gsize)) {
  for (gsize cut = 0; cut < len; cut++)
    try(orig, cut);
  g_autofree guint8 *copy = g_memdup2(orig, len);
  static const guint8 xors[] = {0x01, 0x80, 0xff};
  for (gsize i = 0; i < len; i++) {
    for (guint k = 0; k < G_N_ELEMENTS(xors); k++) {
      copy[i] = orig[i] ^ xors[k];
      try(copy, len);
    }
    copy[i] = 0x00;
    try(copy, len);
    copy[i] = 0x7f;
    try(copy, len);
    copy[i] = orig[i];
  }
}

static void put32(guint8 *p, guint32 v) {
  p[0] = (guint8)v;
  p[1] = (guint8)(v >> 8);
  p[2] = (guint8)(v >> 16);
  p[3] = (guint8)(v >> 24);
}

static guint32 get32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/* Sets the 32-bit field at off to each value that does not fit, and parses each. */
static void fuzz_u32(guint8 *copy, gsize len, gsize off) {
  static const guint32 values[] = {0, 1, 0xffff, 0x10000, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000, 0xffffffff};
  guint32 orig = get32(copy + off);
  for (guint k = 0; k < G_N_ELEMENTS(values); k++) {
    put32(copy + off, values[k]);
    try_pdb(copy, len);
  }
  put32(copy + off, orig + 1);
  try_pdb(copy, len);
  put32(copy + off, orig - 1);
  try_pdb(copy, len);
  put32(copy + off, orig);
}

static void test_fuzz_pdb(void) {
  g_autofree char *path = apps_path("LinesPdb", "Lines.pdb");
  gsize len;
  g_autofree guint8 *orig = read_bytes(path, &len);
  opened = refused = 0;
  try_pdb(orig, len);
  g_assert_cmpuint(opened, ==, 1);
  fuzz_bytes(orig, len, try_pdb);
  /* Most mutants of a real file still open (a flipped byte in a hash or a name), and many do not. */
  g_assert_cmpuint(opened, >, len);
  g_assert_cmpuint(refused, >, len);

  /* Wrong sizes and counts: every stream header's offset and size, every row count of #~ and
   * #Pdb, set to values that do not fit. */
  g_autofree guint8 *copy = g_memdup2(orig, len);
  guint32 ver_len = get32(orig + 12);
  guint n_streams = orig[16 + ver_len + 2] | orig[16 + ver_len + 3] << 8;
  gsize pos = 16 + ver_len + 4;
  for (guint s = 0; s < n_streams; s++) {
    guint32 off = get32(orig + pos), size = get32(orig + pos + 4);
    const char *name = (const char *)orig + pos + 8;
    fuzz_u32(copy, len, pos);
    fuzz_u32(copy, len, pos + 4);
    if (strcmp(name, "#~") == 0) {
      guint64 valid = (guint64)get32(orig + off + 8) | (guint64)get32(orig + off + 12) << 32;
      for (guint t = 0; t < (guint)g_bit_nth_msf(valid, -1) + 1; t++)
        if (valid & (G_GUINT64_CONSTANT(1) << t))
          fuzz_u32(copy, len, off + 24 + 4 * (gsize)__builtin_popcountll(valid & ((G_GUINT64_CONSTANT(1) << t) - 1)));
      fuzz_u32(copy, len, off + 8);  /* valid, low half */
      fuzz_u32(copy, len, off + 12); /* valid, high half: unknown tables */
    } else if (strcmp(name, "#Pdb") == 0) {
      for (gsize f = off + 24; f + 4 <= (gsize)off + size; f += 4)
        fuzz_u32(copy, len, f);
    }
    pos += 8 + ((strlen(name) + 4) & ~(gsize)3);
  }
  g_assert_cmpmem(copy, len, orig, len);
}

static void test_fuzz_pe(void) {
  g_autofree char *path = apps_path("Lines", "Lines.dll");
  gsize len;
  g_autofree guint8 *orig = read_bytes(path, &len);
  SxsPeDebug d;
  g_assert_cmpint(sxs__pe_debug_parse(orig, len, &d, NULL), ==, 0);
  g_assert_nonnull(d.embedded);
  g_autofree guint8 *embedded = g_memdup2(d.embedded, d.embedded_len);
  gsize embedded_len = d.embedded_len;
  sxs__pe_debug_clear(&d);
  fuzz_bytes(orig, len, try_pe);
  /* The embedded PDB itself, inflated. */
  opened = refused = 0;
  fuzz_bytes(embedded, embedded_len, try_pdb);
  g_assert_cmpuint(opened, >, 0);
  g_assert_cmpuint(refused, >, 0);

  /* An embedded entry whose stated size is beyond what its bytes can inflate to is refused
   * before anything is allocated for it. */
  g_autofree guint8 *copy = g_memdup2(orig, len);
  guint8 *mpdb = memmem(copy, len, "MPDB", 4);
  g_assert_nonnull(mpdb);
  static const guint32 sizes[] = {0, 1, 0x7fffffff, 0xffffffff, 0x10000000};
  for (guint k = 0; k < G_N_ELEMENTS(sizes); k++) {
    put32(mpdb + 4, sizes[k]);
    char *why = NULL;
    SxsPeDebug bad;
    g_assert_cmpint(sxs__pe_debug_parse(copy, len, &bad, &why), ==, -EBADMSG);
    g_assert_nonnull(why);
    g_free(why);
  }
}

/* Every MethodDef name of an assembly, read from its own metadata. */
static GHashTable *method_names(const char *dll) {
  g_autofree char *why = NULL;
  g_autoptr(SxsMetadata) md = sxs__metadata_open_assembly(dll, &why);
  g_assert_null(why);
  g_assert_nonnull(md);
  GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint32 rid = 1;; rid++) {
    char *name = sxs__metadata_method_name(md, 0x06000000u | rid);
    if (!name)
      break;
    g_hash_table_add(names, name);
  }
  /* Not a MethodDef token, or none of its rows. */
  g_assert_null(sxs__metadata_method_name(md, 0x02000001u));
  g_assert_null(sxs__metadata_method_name(md, 0x06000000u));
  return names;
}

/* An assembly's method names as the runtime's metadata interface spells them: the namespace, the
 * type, enclosing types joined by '.', and top-level statements' Program without a namespace. */
static void test_assembly_names(void) {
  g_autofree char *lines = apps_path("Lines", "Lines.dll");
  g_autoptr(GHashTable) names = method_names(lines);
  g_assert_true(g_hash_table_contains(names, "Sxs.Lines.Program.Main"));
  g_assert_true(g_hash_table_contains(names, "Sxs.Lines.Program.Outer"));
  g_assert_true(g_hash_table_contains(names, "Sxs.Lines.Program.Hot"));

  g_autofree char *web = web_release_file("web.dll");
  g_autoptr(GHashTable) web_names = method_names(web);
  g_assert_true(g_hash_table_contains(web_names, "Program.<Main>$"));
  /* The lambdas of Program, in the compiler's nested Program+<>c. */
  guint nested = 0;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, web_names);
  while (g_hash_table_iter_next(&it, &key, NULL))
    nested += g_str_has_prefix(key, "Program.<>c.");
  g_assert_cmpuint(nested, >, 0);

  /* A portable PDB is no assembly, and the reverse. */
  g_autofree char *why = NULL;
  g_autofree char *pdb_path = apps_path("LinesPdb", "Lines.pdb");
  g_assert_null(sxs__metadata_open_assembly(pdb_path, &why));
  g_assert_cmpstr(why, ==, "not a PE file (no MZ header)");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/pdb/embedded", test_embedded);
  g_test_add_func("/stitch/pdb/assembly-names", test_assembly_names);
  g_test_add_func("/stitch/pdb/beside", test_beside);
  g_test_add_func("/stitch/pdb/missing", test_missing);
  g_test_add_func("/stitch/pdb/mismatch-and-folder", test_mismatch_and_folder);
  g_test_add_func("/stitch/pdb/sdk-build", test_sdk_build);
  g_test_add_func("/stitch/pdb/point-at", test_point_at);
  g_test_add_func("/stitch/pdb/il-offset", test_il_offset);
  g_test_add_func("/stitch/pdb/fuzz/pdb", test_fuzz_pdb);
  g_test_add_func("/stitch/pdb/fuzz/pe", test_fuzz_pe);
  return g_test_run();
}
