/* Unit tests of the COM objects: DllGetClassObject's factory, CreateInstance from several threads,
 * QueryInterface and reference counts of the callback object, and Initialize against a mock
 * ICorProfilerInfo (pure logic: which interface version is used, which event mask is set, what
 * is declined and whether every reference taken is given back). Real runtimes are covered by the
 * integration tests. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_callback.h"
#include "sxs_output.h"
#include "sxs_scratch.h"

/* ---- a mock ICorProfilerInfo answering up to `max_version` ---- */

typedef struct {
  ICorProfilerInfo15 iface;
  int max_version;
  gint refcount;
  DWORD mask_low, mask_high;
  int set_mask_calls, set_mask2_calls;
  gint uses;                             /* GetFunctionInfo / GetModuleInfo calls */
  gint uses_after_release;               /* the same, after the profiler let its reference go */
  gint function_uses;                    /* GetFunctionInfo calls (naming a function) */
  gint function_uses_on_program_threads; /* of those, calls on a thread that delivered events */
} MockInfo;

/* Set on the threads that play the program's (they deliver the runtime's events). */
static __thread gboolean program_thread;

static ICorProfilerInfo15Vtbl mock_vtbl;

static const GUID *const info_iids[] = {
    NULL,
    NULL,
    NULL,
    &IID_ICorProfilerInfo3,
    &IID_ICorProfilerInfo4,
    &IID_ICorProfilerInfo5,
    &IID_ICorProfilerInfo6,
    &IID_ICorProfilerInfo7,
    &IID_ICorProfilerInfo8,
    &IID_ICorProfilerInfo9,
    &IID_ICorProfilerInfo10,
    &IID_ICorProfilerInfo11,
    &IID_ICorProfilerInfo12,
    &IID_ICorProfilerInfo13,
    &IID_ICorProfilerInfo14,
    &IID_ICorProfilerInfo15,
};

static HRESULT mock_QueryInterface(ICorProfilerInfo15 *This, REFIID riid, void **ppv) {
  MockInfo *m = (MockInfo *)This;
  gboolean ok = sxs_guid_equal(riid, &IID_IUnknown) || sxs_guid_equal(riid, &IID_ICorProfilerInfo) ||
                sxs_guid_equal(riid, &IID_ICorProfilerInfo2);
  for (int v = 3; v <= m->max_version; v++)
    ok = ok || sxs_guid_equal(riid, info_iids[v]);
  if (!ok) {
    *ppv = NULL;
    return E_NOINTERFACE;
  }
  g_atomic_int_inc(&m->refcount);
  *ppv = This;
  return S_OK;
}

static ULONG mock_AddRef(ICorProfilerInfo15 *This) {
  return (ULONG)g_atomic_int_add(&((MockInfo *)This)->refcount, 1) + 1;
}

static ULONG mock_Release(ICorProfilerInfo15 *This) {
  return (ULONG)g_atomic_int_add(&((MockInfo *)This)->refcount, -1) - 1;
}

static HRESULT mock_SetEventMask(ICorProfilerInfo15 *This, DWORD low) {
  MockInfo *m = (MockInfo *)This;
  m->mask_low = low;
  m->set_mask_calls++;
  return S_OK;
}

static HRESULT mock_SetEventMask2(ICorProfilerInfo15 *This, DWORD low, DWORD high) {
  MockInfo *m = (MockInfo *)This;
  g_assert_cmpint(m->max_version, >=, 5); /* never called on a runtime without Info5 */
  m->mask_low = low;
  m->mask_high = high;
  m->set_mask2_calls++;
  return S_OK;
}

static HRESULT mock_GetRuntimeInformation(ICorProfilerInfo15 *This, USHORT *id, COR_PRF_RUNTIME_TYPE *type,
                                          USHORT *major, USHORT *minor, USHORT *build, USHORT *qfe, ULONG cch,
                                          ULONG *pcch, WCHAR text[]) {
  (void)This;
  *id = 0;
  *type = COR_PRF_CORE_CLR;
  *major = 4;
  *minor = 0;
  *build = 22220;
  *qfe = 0;
  static const WCHAR v[] = u"4.0.22220.0";
  g_assert_cmpuint(cch, >=, G_N_ELEMENTS(v));
  memcpy(text, v, sizeof v);
  *pcch = G_N_ELEMENTS(v);
  return S_OK;
}

/* A use of the Info: counted, and counted as a fault once the profiler gave its reference back.
 * It takes 5 ms, longer than Shutdown's own work before it lets the Info go, so that an unguarded
 * release would land in the middle of one. */
static HRESULT mock_use(MockInfo *m) {
  g_atomic_int_inc(&m->uses);
  g_usleep(5000);
  if (g_atomic_int_get(&m->refcount) <= 1)
    g_atomic_int_inc(&m->uses_after_release);
  return E_FAIL;
}

static HRESULT mock_GetFunctionInfo(ICorProfilerInfo15 *This, FunctionID f, ClassID *c, ModuleID *mod, mdToken *t) {
  (void)f;
  (void)c;
  (void)mod;
  (void)t;
  MockInfo *m = (MockInfo *)This;
  g_atomic_int_inc(&m->function_uses);
  if (program_thread)
    g_atomic_int_inc(&m->function_uses_on_program_threads);
  return mock_use(m);
}

static HRESULT mock_GetModuleInfo(ICorProfilerInfo15 *This, ModuleID module, LPCBYTE *base, ULONG cch, ULONG *pcch,
                                  WCHAR name[], AssemblyID *assembly) {
  (void)module;
  (void)base;
  (void)cch;
  (void)pcch;
  (void)name;
  (void)assembly;
  return mock_use((MockInfo *)This);
}

static HRESULT mock_GetModuleInfo2(ICorProfilerInfo15 *This, ModuleID module, LPCBYTE *base, ULONG cch, ULONG *pcch,
                                   WCHAR name[], AssemblyID *assembly, DWORD *flags) {
  (void)flags;
  return mock_GetModuleInfo(This, module, base, cch, pcch, name, assembly);
}

static void mock_init(MockInfo *m, int max_version) {
  memset(m, 0, sizeof *m);
  mock_vtbl.QueryInterface = mock_QueryInterface;
  mock_vtbl.AddRef = mock_AddRef;
  mock_vtbl.Release = mock_Release;
  mock_vtbl.SetEventMask = mock_SetEventMask;
  mock_vtbl.SetEventMask2 = mock_SetEventMask2;
  mock_vtbl.GetRuntimeInformation = mock_GetRuntimeInformation;
  mock_vtbl.GetFunctionInfo = mock_GetFunctionInfo;
  mock_vtbl.GetModuleInfo = mock_GetModuleInfo;
  mock_vtbl.GetModuleInfo2 = mock_GetModuleInfo2;
  m->iface.lpVtbl = &mock_vtbl;
  m->max_version = max_version;
  m->refcount = 1;
}

/* ---- fixture: a config in a scratch folder ---- */

typedef struct {
  char *dir;
} Fixture;

static void use_config(Fixture *f, const char *body) {
  g_autofree char *path = g_build_filename(f->dir, "sxsprof.conf", NULL);
  g_autofree char *text = g_strdup_printf("[profiler]\n%soutput=%s/prof\n", body, f->dir);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_setenv("SXSPROF_CONFIG", path, TRUE);
  g_unsetenv("SXSPROF_OUTPUT");
  sxs__output_reset_for_tests();
}

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = sxs_scratch_new("sxs-callback");
  use_config(f, "mode=pick-all\n");
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(f->dir);
  g_unsetenv("SXSPROF_CONFIG");
  sxs__output_reset_for_tests();
}

static IClassFactory *get_factory(void) {
  IClassFactory *factory = NULL;
  g_assert_cmphex((unsigned)sxs__callback_get_class_object(&CLSID_SxsProfiler, &IID_IClassFactory, (void **)&factory),
                  ==, S_OK);
  g_assert_nonnull(factory);
  return factory;
}

static ICorProfilerCallback11 *create(IClassFactory *factory, const GUID *iid) {
  ICorProfilerCallback11 *cb = NULL;
  g_assert_cmphex((unsigned)factory->lpVtbl->CreateInstance(factory, NULL, iid, (void **)&cb), ==, S_OK);
  g_assert_nonnull(cb);
  return cb;
}

static void test_class_object(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  static const GUID other = {0x0560F28C, 0x910E, 0x4FDA, {0x94, 0xA2, 0x5F, 0xAC, 0xD8, 0x96, 0x6E, 0x49}};
  void *p = (void *)0x1;
  g_assert_cmphex((unsigned)sxs__callback_get_class_object(&other, &IID_IClassFactory, &p), ==,
                  (unsigned)CLASS_E_CLASSNOTAVAILABLE);
  g_assert_null(p);
  g_assert_cmphex((unsigned)sxs__callback_get_class_object(&CLSID_SxsProfiler, &IID_ICorProfilerInfo, &p), ==,
                  (unsigned)E_NOINTERFACE);
  g_assert_cmphex((unsigned)sxs__callback_get_class_object(&CLSID_SxsProfiler, &IID_IClassFactory, NULL), ==,
                  (unsigned)E_POINTER);
  IClassFactory *factory = get_factory();
  IUnknown *outer = (IUnknown *)factory;
  ICorProfilerCallback11 *cb = NULL;
  g_assert_cmphex((unsigned)factory->lpVtbl->CreateInstance(factory, outer, &IID_ICorProfilerCallback2, (void **)&cb),
                  ==, (unsigned)CLASS_E_NOAGGREGATION);
  g_assert_null(cb);
  g_assert_cmphex((unsigned)factory->lpVtbl->LockServer(factory, TRUE), ==, S_OK);
  factory->lpVtbl->Release(factory);
}

/* Every Callback IID and IUnknown give the same object; anything else E_NOINTERFACE. */
static void test_query_interface(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback2);
  const GUID *iids[] = {&IID_IUnknown,
                        &IID_ICorProfilerCallback,
                        &IID_ICorProfilerCallback3,
                        &IID_ICorProfilerCallback7,
                        &IID_ICorProfilerCallback10,
                        &IID_ICorProfilerCallback11};
  for (guint i = 0; i < G_N_ELEMENTS(iids); i++) {
    void *p = NULL;
    g_assert_cmphex((unsigned)cb->lpVtbl->QueryInterface(cb, iids[i], &p), ==, S_OK);
    g_assert_true(p == cb);
    g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 1);
  }
  void *p = (void *)0x1;
  g_assert_cmphex((unsigned)cb->lpVtbl->QueryInterface(cb, &IID_ICorProfilerInfo3, &p), ==, (unsigned)E_NOINTERFACE);
  g_assert_null(p);
  g_assert_cmpuint(cb->lpVtbl->AddRef(cb), ==, 2);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 1);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0); /* freed: ASan checks nothing leaks */
  factory->lpVtbl->Release(factory);
}

static gpointer create_thread(gpointer data) {
  IClassFactory *factory = data;
  ICorProfilerCallback11 *cb = NULL;
  HRESULT hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, (void **)&cb);
  g_assert_cmphex((unsigned)hr, ==, S_OK);
  return cb;
}

/* Two runtimes' startup threads create instances at once: two distinct objects, two ids. */
static void test_concurrent_create(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  IClassFactory *factory = get_factory();
  enum { N = 8 };
  GThread *threads[N];
  ICorProfilerCallback11 *objects[N];
  for (int i = 0; i < N; i++)
    threads[i] = g_thread_new("create", create_thread, factory);
  for (int i = 0; i < N; i++)
    objects[i] = g_thread_join(threads[i]);
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      g_assert_true(objects[i] != objects[j]);
  gsize len = 0;
  g_autofree char *doc = sxs__output_render_profile(&len);
  for (int id = 1; id <= N; id++) {
    g_autofree char *needle = g_strdup_printf("\"id\": %d,", id);
    g_assert_nonnull(strstr(doc, needle));
  }
  for (int i = 0; i < N; i++)
    g_assert_cmpuint(objects[i]->lpVtbl->Release(objects[i]), ==, 0);
  factory->lpVtbl->Release(factory);
}

/* A 2.0-like runtime (Info8): classic SetEventMask with MONITOR_GC; Info kept until Shutdown. */
static void test_initialize_info8(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback2);
  MockInfo m;
  mock_init(&m, 8);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==, S_OK);
  g_assert_cmpint(m.set_mask_calls, ==, 1);
  g_assert_cmpint(m.set_mask2_calls, ==, 0);
  g_assert_cmphex(m.mask_low & COR_PRF_MONITOR_GC, ==, COR_PRF_MONITOR_GC);
  g_assert_cmphex(m.mask_low & COR_PRF_MONITOR_EXCEPTIONS, ==, COR_PRF_MONITOR_EXCEPTIONS);
  /* Nothing per function unless asked: no JIT events, no cache searches. */
  g_assert_cmphex(m.mask_low & (COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES), ==, 0);
  g_assert_cmphex(m.mask_low & COR_PRF_MONITOR_ENTERLEAVE, ==, 0);
  g_assert_cmpint(m.refcount, ==, 2); /* the profiler holds one reference */
  /* Callbacks count into this runtime. */
  cb->lpVtbl->ExceptionThrown(cb, 0x1234);
  cb->lpVtbl->ExceptionThrown(cb, 0x1238);
  BOOL gens[3] = {TRUE, FALSE, FALSE};
  cb->lpVtbl->GarbageCollectionStarted(cb, 3, gens, COR_PRF_GC_INDUCED);
  g_assert_cmphex((unsigned)cb->lpVtbl->Shutdown(cb), ==, S_OK);
  g_assert_cmpint(m.refcount, ==, 1); /* given back at Shutdown */
  g_autofree char *prof = g_build_filename(f->dir, "prof.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(prof, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "\"exceptions\": 2,"));
  g_assert_nonnull(strstr(text, "\"gcs\": 1,"));
  g_assert_nonnull(strstr(text, "\"clr_version\": \"4.0.22220.0\""));
  g_assert_nonnull(strstr(text, "\"info_version\": 8,"));
  g_assert_nonnull(strstr(text, "\"shutdown_seen\": true"));
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  g_assert_cmpint(m.refcount, ==, 1);
  factory->lpVtbl->Release(factory);
}

/* A modern runtime (Info15): SetEventMask2 with BASIC_GC instead of MONITOR_GC. */
static void test_initialize_info15(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback2);
  MockInfo m;
  mock_init(&m, 15);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==, S_OK);
  g_assert_cmpint(m.set_mask2_calls, ==, 1);
  g_assert_cmpint(m.set_mask_calls, ==, 0);
  g_assert_cmphex(m.mask_low & COR_PRF_MONITOR_GC, ==, 0);
  g_assert_cmphex(m.mask_high, ==, COR_PRF_HIGH_BASIC_GC);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  g_assert_cmpint(m.refcount, ==, 1); /* released with the object when no Shutdown came */
  factory->lpVtbl->Release(factory);
}

/* A runtime with no Info3 is declined; so is one that pick-one does not select. */
static void test_initialize_declines(Fixture *f, gconstpointer data) {
  (void)data;
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback2);
  MockInfo old;
  mock_init(&old, 2);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&old.iface), ==,
                  (unsigned)CORPROF_E_PROFILER_CANCEL_ACTIVATION);
  g_assert_cmpint(old.refcount, ==, 1);
  g_assert_cmpint(old.set_mask_calls + old.set_mask2_calls, ==, 0);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);

  use_config(f, "mode=pick-one\nruntime=9.0\n");
  cb = create(factory, &IID_ICorProfilerCallback2);
  MockInfo m;
  mock_init(&m, 15);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==,
                  (unsigned)CORPROF_E_PROFILER_CANCEL_ACTIVATION);
  g_assert_cmpint(m.refcount, ==, 1);
  g_assert_cmpint(m.set_mask_calls + m.set_mask2_calls, ==, 0);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  gsize len = 0;
  g_autofree char *doc = sxs__output_render_profile(&len);
  g_assert_nonnull(strstr(doc, "\"status\": \"declined\""));
  g_assert_nonnull(strstr(doc, "does not match"));

  /* pick-first: the second CreateInstance is declined before any object exists. */
  use_config(f, "mode=pick-first\n");
  ICorProfilerCallback11 *first = create(factory, &IID_ICorProfilerCallback2);
  void *second = (void *)0x1;
  g_assert_cmphex((unsigned)factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &second), ==,
                  (unsigned)CORPROF_E_PROFILER_CANCEL_ACTIVATION);
  g_assert_null(second);
  g_assert_cmpuint(first->lpVtbl->Release(first), ==, 0);
  factory->lpVtbl->Release(factory);
}

/* The events of three functions as the program's threads deliver them: 0x100 JIT-compiled twice
 * (tier 0, tier 1), 0x108 once, 0x110 inlined, 0x118 taken precompiled, 0x120 searched for in
 * vain. */
static void deliver_function_events(ICorProfilerCallback11 *cb) {
  cb->lpVtbl->JITCompilationStarted(cb, 0x100, TRUE);
  cb->lpVtbl->JITCompilationFinished(cb, 0x100, S_OK, TRUE);
  cb->lpVtbl->JITCompilationFinished(cb, 0x108, S_OK, TRUE);
  cb->lpVtbl->JITInlining(cb, 0x108, 0x110, NULL);
  cb->lpVtbl->JITCompilationFinished(cb, 0x100, S_OK, TRUE);
  BOOL use = FALSE;
  cb->lpVtbl->JITCachedFunctionSearchStarted(cb, 0x118, &use);
  g_assert_true(use); /* precompiled code is always taken */
  cb->lpVtbl->JITCachedFunctionSearchFinished(cb, 0x118, COR_PRF_CACHED_FUNCTION_FOUND);
  cb->lpVtbl->JITCachedFunctionSearchFinished(cb, 0x120, COR_PRF_CACHED_FUNCTION_NOT_FOUND);
}

/* The runtime object of the profile written at Shutdown. */
static JsonObject *profile_runtime(JsonParser *parser, const char *dir) {
  g_autofree char *prof = g_build_filename(dir, "prof.json", NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_file(parser, prof, &error));
  JsonArray *rts = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "runtimes");
  g_assert_cmpuint(json_array_get_length(rts), ==, 1);
  return json_array_get_object_element(rts, 0);
}

/* Without [profiler] inventory=: no JIT or cache-search bit in the mask, and the events (which
 * [stacks] on=jit would turn on) are not even queued: no function is named or listed. */
static void test_inventory_off(Fixture *f, gconstpointer data) {
  (void)data;
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback11);
  MockInfo m;
  mock_init(&m, 15);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==, S_OK);
  g_assert_cmphex(m.mask_low & (COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES), ==, 0);
  deliver_function_events(cb);
  g_assert_cmphex((unsigned)cb->lpVtbl->Shutdown(cb), ==, S_OK);
  g_assert_cmpint(m.function_uses, ==, 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  JsonObject *rt = profile_runtime(parser, f->dir);
  g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(rt, "counters"), "jit_compiled"), ==, 0);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(rt, "functions")), ==, 0);
  JsonObject *inv = json_object_get_object_member(rt, "inventory");
  g_assert_false(json_object_get_boolean_member(inv, "enabled"));
  g_assert_cmpint(json_object_get_int_member(inv, "events"), ==, 0);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  factory->lpVtbl->Release(factory);
}

/* With inventory=true: both bits; the program's threads only queue, and every function is named
 * on the inventory's own thread (the mock sees no GetFunctionInfo on a thread that delivered
 * events) before Shutdown lets the Info go; counts are exact. */
static void test_inventory_on(Fixture *f, gconstpointer data) {
  (void)data;
  use_config(f, "inventory=true\n");
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback11);
  MockInfo m;
  mock_init(&m, 15);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==, S_OK);
  g_assert_cmphex(m.mask_low & (COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES), ==,
                  COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES);
  program_thread = TRUE;
  deliver_function_events(cb);
  g_assert_cmphex((unsigned)cb->lpVtbl->Shutdown(cb), ==, S_OK);
  program_thread = FALSE;
  /* One name read per function (the mock answers none of them: the names are "?"). */
  g_assert_cmpint(m.function_uses, ==, 4);
  g_assert_cmpint(m.function_uses_on_program_threads, ==, 0);
  g_assert_cmpint(m.uses_after_release, ==, 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  JsonObject *rt = profile_runtime(parser, f->dir);
  g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(rt, "counters"), "jit_compiled"), ==, 3);
  JsonArray *fns = json_object_get_array_member(rt, "functions");
  g_assert_cmpuint(json_array_get_length(fns), ==, 4);
  gint64 jit = 0, inlined = 0, precompiled = 0, twice = 0;
  for (guint i = 0; i < json_array_get_length(fns); i++) {
    JsonObject *fn = json_array_get_object_element(fns, i);
    g_assert_cmpstr(json_object_get_string_member(fn, "name"), ==, "?");
    jit += json_object_get_int_member(fn, "jit_compiled");
    inlined += json_object_get_int_member(fn, "inlined");
    precompiled += json_object_get_int_member(fn, "precompiled");
    twice += json_object_get_int_member(fn, "jit_compiled") == 2;
  }
  g_assert_cmpint(jit, ==, 3);
  g_assert_cmpint(twice, ==, 1);
  g_assert_cmpint(inlined, ==, 1);
  g_assert_cmpint(precompiled, ==, 1);
  JsonObject *inv = json_object_get_object_member(rt, "inventory");
  g_assert_true(json_object_get_boolean_member(inv, "enabled"));
  g_assert_cmpint(json_object_get_int_member(inv, "events"), ==, 5);
  g_assert_cmpint(json_object_get_int_member(inv, "named"), ==, 0);
  g_assert_cmpint(json_object_get_int_member(inv, "dropped"), ==, 0);
  JsonArray *namers = json_object_get_array_member(inv, "naming_threads");
  g_assert_cmpuint(json_array_get_length(namers), ==, 1);
  g_assert_cmpint(json_array_get_int_element(namers, 0), !=, (gint64)syscall(SYS_gettid));
  g_assert_cmpint(json_array_get_int_element(namers, 0), !=, (gint64)getpid());
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  factory->lpVtbl->Release(factory);
}

typedef struct {
  ICorProfilerCallback11 *cb;
  gint *stop;
  int calls;
} EventPump;

/* JIT, inlining, precompiled-code and module events, as background JIT threads deliver them. */
static gpointer pump_events(gpointer data) {
  EventPump *p = data;
  ICorProfilerCallback11 *cb = p->cb;
  program_thread = TRUE;
  for (FunctionID id = 0x1000; !g_atomic_int_get(p->stop); id += 8) {
    cb->lpVtbl->JITCompilationFinished(cb, id, S_OK, TRUE);
    cb->lpVtbl->JITInlining(cb, id, id + 4, NULL);
    cb->lpVtbl->JITCachedFunctionSearchFinished(cb, id + 2, COR_PRF_CACHED_FUNCTION_FOUND);
    cb->lpVtbl->ModuleLoadFinished(cb, id, S_OK);
    p->calls++;
  }
  return NULL;
}

/* Shutdown while four threads keep delivering events that read the Info (module loads; with the
 * inventory, the names its thread reads for their JIT events): no read may happen once the
 * reference is given back, and the reference is given back. */
static void test_shutdown_race(Fixture *f, gconstpointer data) {
  if (data)
    use_config(f, data);
  IClassFactory *factory = get_factory();
  ICorProfilerCallback11 *cb = create(factory, &IID_ICorProfilerCallback11);
  MockInfo m;
  mock_init(&m, 15);
  g_assert_cmphex((unsigned)cb->lpVtbl->Initialize(cb, (IUnknown *)&m.iface), ==, S_OK);
  gint stop = 0;
  EventPump pumps[4];
  GThread *threads[4];
  for (int i = 0; i < 4; i++) {
    pumps[i] = (EventPump){.cb = cb, .stop = &stop};
    threads[i] = g_thread_new("jit", pump_events, &pumps[i]);
  }
  while (g_atomic_int_get(&m.uses) < 20)
    g_usleep(100);
  g_assert_cmphex((unsigned)cb->lpVtbl->Shutdown(cb), ==, S_OK);
  g_assert_cmpint(g_atomic_int_get(&m.refcount), ==, 1);
  int uses_at_shutdown = g_atomic_int_get(&m.uses);
  g_usleep(20 * 1000); /* events keep arriving after Shutdown */
  g_atomic_int_set(&stop, 1);
  int calls = 0;
  for (int i = 0; i < 4; i++) {
    g_thread_join(threads[i]);
    calls += pumps[i].calls;
  }
  g_assert_cmpint(g_atomic_int_get(&m.uses_after_release), ==, 0);
  g_assert_cmpint(g_atomic_int_get(&m.uses), ==, uses_at_shutdown); /* none at all after it */
  g_assert_cmpint(calls, >, 4);
  g_assert_cmpint(g_atomic_int_get(&m.function_uses_on_program_threads), ==, 0);
  if (data)
    g_assert_cmpint(g_atomic_int_get(&m.function_uses), >, 0);
  g_assert_cmpuint(cb->lpVtbl->Release(cb), ==, 0);
  factory->lpVtbl->Release(factory);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD("/callback/shutdown-race", test_shutdown_race);
  g_test_add("/callback/shutdown-race/inventory", Fixture, "inventory=true\n", fixture_setup, test_shutdown_race,
             fixture_teardown);
  ADD("/callback/inventory/off", test_inventory_off);
  ADD("/callback/inventory/on", test_inventory_on);
  ADD("/callback/factory/class-object", test_class_object);
  ADD("/callback/object/query-interface", test_query_interface);
  ADD("/callback/factory/concurrent-create", test_concurrent_create);
  ADD("/callback/initialize/info8", test_initialize_info8);
  ADD("/callback/initialize/info15", test_initialize_info15);
  ADD("/callback/initialize/declines", test_initialize_declines);
#undef ADD
  return g_test_run();
}
