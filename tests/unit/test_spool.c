/* The spool's reader (manager/profile/sxs_spool.c): a profile rebuilt from batches, a torn last
 * batch left out whole, later records replacing earlier ones, names escaped. */
#include <string.h>

#include <glib.h>

#include "sxs_profile_read.h"
#include "sxs_spool.h"

/* The small part of a profile (what an S record holds): one runtime, sampling on. */
static char *skeleton(guint64 gcs) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 4242;
  m->process->argv = g_new0(char *, 1);
  m->process->run_id = g_strdup("7-1");
  SxsRuntimeModel *r = sxs__runtime_model_new();
  r->id = 1;
  r->status = SXS_RUNTIME_PROFILING;
  r->version = g_strdup("10.0.12");
  r->counters.gcs = (gint64)gcs;
  g_ptr_array_add(m->runtimes, r);
  m->samples.enabled = TRUE;
  m->samples.frequency = 99;
  gsize len = 0;
  char *text = sxs__profile_render_json(m, &len);
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "S\t%" G_GSIZE_FORMAT "\n%s\n", len, text);
  g_free(text);
  return g_string_free(s, FALSE);
}

static void append_name(GString *s, const char *name) {
  g_auto(SxsText) t = {0};
  sxs__spool_append_string(&t, name);
  g_string_append_len(s, t.data, (gssize)t.len);
}

/* Two whole batches, then one cut short. */
static GString *three_batches(void) {
  GString *s = g_string_new(SXS_SPOOL_MAGIC);
  g_autofree char *s1 = skeleton(1), *s2 = skeleton(2), *s3 = skeleton(3);
  g_string_append(s, "B\t1\n");
  g_string_append(s, s1);
  g_string_append(s, "F\t1\t7f00\t1\t0\t0\t");
  append_name(s, "App.Work");
  g_string_append(s, "\tapp.dll\n");
  g_string_append(s, "N\t1\tm\t1\t");
  append_name(s, "App.Work");
  g_string_append(s, "\tapp.dll\t");
  append_name(s, "/src/App\tWork.cs");
  g_string_append(s, "\t42\n");
  g_string_append(s, "N\t2\tn\t0\t");
  append_name(s, "libc.so.6!read\twith a tab");
  g_string_append(s, "\tlibc.so.6\n"); /* as spools before lines: no file, no line */
  g_string_append(s, "K\t1\tsample\t4242\tmain\t1:1000:2000,2:3000:4000\n");
  g_string_append(s, "W\t1\t5\n");
  g_string_append(s, "E\t1\n");
  g_string_append(s, "B\t2\n");
  g_string_append(s, s2);
  g_string_append(s, "F\t1\t7f00\t2\t3\t0\tApp.Work\tapp.dll\n"); /* replaces the first */
  g_string_append(s, "W\t1\t7\n");
  g_string_append(s, "X\t15\n");
  g_string_append(s, "E\t2\n");
  g_string_append(s, "B\t3\n");
  g_string_append(s, s3);
  g_string_append(s, "W\t1\t100\n"); /* no E: the writer died here */
  return s;
}

static void test_rebuild(void) {
  g_autoptr(GString) s = three_batches();
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsSpoolRead) r = sxs__spool_read("x.spool", s->str, s->len, &error);
  g_assert_no_error(error);
  g_assert_nonnull(r);
  g_assert_cmpuint(r->batches, ==, 2);
  g_assert_true(r->torn);
  g_assert_cmpint(r->signal, ==, 15);
  SxsProfileModel *m = r->model;
  g_assert_cmpint(m->process->pid, ==, 4242);
  g_assert_cmpstr(m->process->run_id, ==, "7-1");
  g_assert_cmpuint(m->runtimes->len, ==, 1);
  SxsRuntimeModel *rt = m->runtimes->pdata[0];
  /* The second batch's document and function record, not the torn third's. */
  g_assert_cmpint(rt->counters.gcs, ==, 2);
  g_assert_cmpuint(rt->functions->len, ==, 1);
  SxsFunctionRecord *f = rt->functions->pdata[0];
  g_assert_cmpstr(f->name, ==, "App.Work");
  g_assert_cmpuint(f->function_id, ==, 0x7f00);
  g_assert_cmpuint(f->jit_compiled, ==, 2);
  g_assert_cmpuint(f->inlined, ==, 3);
  /* One stack, counted 5 + 7, its frames named, the tab kept. */
  g_assert_cmpuint(m->samples.stacks->len, ==, 1);
  SxsStackModel *st = m->samples.stacks->pdata[0];
  g_assert_cmpuint(st->count, ==, 12);
  g_assert_cmpuint(st->thread, ==, 4242);
  g_assert_cmpstr(st->thread_name, ==, "main");
  g_assert_cmpuint(st->frames->len, ==, 2);
  SxsStackFrameModel *leaf = &g_array_index(st->frames, SxsStackFrameModel, 0);
  SxsStackFrameModel *below = &g_array_index(st->frames, SxsStackFrameModel, 1);
  g_assert_true(leaf->managed);
  g_assert_cmpint(leaf->runtime_id, ==, 1);
  g_assert_cmpstr(leaf->name, ==, "App.Work");
  g_assert_cmpuint(leaf->ip, ==, 0x1000);
  g_assert_cmpuint(leaf->sp, ==, 0x2000);
  g_assert_cmpstr(leaf->file, ==, "/src/App\tWork.cs");
  g_assert_cmpuint(leaf->line, ==, 42);
  g_assert_null(below->file);
  g_assert_cmpuint(below->line, ==, 0);
  g_assert_false(below->managed);
  g_assert_cmpstr(below->name, ==, "libc.so.6!read\twith a tab");
  g_assert_cmpstr(below->module, ==, "libc.so.6");
  /* What the rebuilt model renders reads back the same. */
  gsize len = 0;
  g_autofree char *json = sxs__profile_render_json(m, &len);
  g_autoptr(SxsProfileModel) again = sxs__profile_read(json, len, &error);
  g_assert_no_error(error);
  SxsStackModel *back = again->samples.stacks->pdata[0];
  g_assert_cmpuint(back->count, ==, 12);
  SxsStackFrameModel *leaf_back = &g_array_index(back->frames, SxsStackFrameModel, 0);
  g_assert_cmpstr(leaf_back->file, ==, "/src/App\tWork.cs");
  g_assert_cmpuint(leaf_back->line, ==, 42);
}

/* A stack's frames as spools write them now: the first frame's stack pointer, then each one's
 * distance from the one before ("-" where it falls); the ip is not written. */
static void test_stack_pointer_distances(void) {
  g_autoptr(GString) s = g_string_new(SXS_SPOOL_MAGIC);
  g_autofree char *s1 = skeleton(1);
  g_string_append(s, "B\t1\n");
  g_string_append(s, s1);
  g_string_append(s, "N\t1\tm\t1\tApp.Leaf\tapp.dll\t-\t0\n");
  g_string_append(s, "N\t2\tn\t0\tlibc.so.6!qsort\tlibc.so.6\t-\t0\n");
  g_string_append(s, "K\t1\tsample\t4242\tmain\t1:7ffd1000,2:40,1:-8\t0\t-\n");
  g_string_append(s, "W\t1\t3\t0\n");
  g_string_append(s, "E\t1\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsSpoolRead) r = sxs__spool_read("x.spool", s->str, s->len, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(r->model->samples.stacks->len, ==, 1);
  SxsStackModel *st = r->model->samples.stacks->pdata[0];
  g_assert_cmpuint(st->count, ==, 3);
  g_assert_cmpuint(st->frames->len, ==, 3);
  const char *names[] = {"App.Leaf", "libc.so.6!qsort", "App.Leaf"};
  const uintptr_t sps[] = {0x7ffd1000, 0x7ffd1040, 0x7ffd1038};
  for (guint i = 0; i < 3; i++) {
    SxsStackFrameModel *f = &g_array_index(st->frames, SxsStackFrameModel, i);
    g_assert_cmpstr(f->name, ==, names[i]);
    g_assert_cmpuint(f->sp, ==, sps[i]);
    g_assert_cmpuint(f->ip, ==, 0);
  }
}

static void test_not_a_spool(void) {
  g_autoptr(GError) error = NULL;
  const char *text = "{\"format\": \"sxsprof\"}";
  g_assert_null(sxs__spool_read("p.json", text, strlen(text), &error));
  g_assert_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_NOT_PROFILE);
  g_assert_cmpstr(error->message, ==, "p.json is not an sxsprof spool");
}

/* A process killed inside its first batch leaves nothing to rebuild: said, not guessed. */
static void test_no_complete_batch(void) {
  g_autoptr(GString) s = g_string_new(SXS_SPOOL_MAGIC);
  g_autofree char *s1 = skeleton(1);
  g_string_append(s, "B\t1\n");
  g_string_append(s, s1);
  g_autoptr(GError) error = NULL;
  g_assert_null(sxs__spool_read("x.spool", s->str, s->len, &error));
  g_assert_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_TRUNCATED);
  g_assert_cmpstr(error->message, ==, "x.spool holds no complete batch (its process ended before it wrote one)");
}

static void test_paths(void) {
  g_autofree char *spool = sxs__spool_path("/tmp/p.123.json");
  g_assert_cmpstr(spool, ==, "/tmp/p.123.spool");
  g_autofree char *profile = sxs__spool_profile_path("/tmp/out/App-9.spool");
  g_assert_cmpstr(profile, ==, "/tmp/out/App-9.json");
  g_auto(SxsText) s = {0};
  sxs__spool_append_string(&s, NULL);
  sxs__spool_append_string(&s, "-");
  sxs__spool_append_string(&s, "a\\b\nc");
  g_assert_cmpstr(s.data, ==, "-\\-a\\\\b\\nc");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spool/read/rebuild", test_rebuild);
  g_test_add_func("/spool/read/stack-pointer-distances", test_stack_pointer_distances);
  g_test_add_func("/spool/read/not-a-spool", test_not_a_spool);
  g_test_add_func("/spool/read/no-complete-batch", test_no_complete_batch);
  g_test_add_func("/spool/paths", test_paths);
  return g_test_run();
}
