/* sxs_components: a frame's component from its module, its name and its thread. */
#include "sxs_components.h"

#include <string.h>

static const struct {
  const char *name;
  const char *about;
} components[SXS_N_COMPONENTS] = {
    [SXS_COMPONENT_APP] = {"application", "managed code of the application's assemblies"},
    [SXS_COMPONENT_FRAMEWORK] = {"framework", "managed code of System.*, Microsoft.*"},
    [SXS_COMPONENT_JIT] = {"JIT", "libclrjit.so: compiling methods"},
    [SXS_COMPONENT_GC] = {"GC", "the garbage collector"},
    [SXS_COMPONENT_RUNTIME] = {"runtime", "the rest of libcoreclr.so, the host, the framework's native libraries"},
    [SXS_COMPONENT_LIBC] = {"libc and system", "libc, libm, the loader, libstdc++, libgcc"},
    [SXS_COMPONENT_NATIVE] = {"other native", "other native libraries, and code no module owns"},
    [SXS_COMPONENT_KERNEL] = {"kernel", "the kernel and the vDSO"},
    [SXS_COMPONENT_PROFILER] = {"profiler", "libsxsprof.so: this profiler"},
};

const char *sxs__components_name(SxsComponent c) {
  return (unsigned)c < SXS_N_COMPONENTS ? components[c].name : "?";
}

const char *sxs__components_about(SxsComponent c) {
  return (unsigned)c < SXS_N_COMPONENTS ? components[c].about : "?";
}

static gboolean has_prefix_any(const char *s, const char *const *prefixes) {
  for (const char *const *p = prefixes; *p; p++)
    if (g_str_has_prefix(s, *p))
      return TRUE;
  return FALSE;
}

/* A module's base name, whatever folder the profile recorded. */
static const char *base_name(const char *module) {
  const char *slash = module ? strrchr(module, '/') : NULL;
  return slash ? slash + 1 : module ? module : "";
}

gboolean sxs__components_unnamed(const SxsViewFrame *f) {
  if (f->managed)
    return FALSE;
  const char *module = base_name(f->module);
  return g_str_has_prefix(f->name, "0x") ||
         (*module && g_str_has_prefix(f->name, module) && g_str_has_prefix(f->name + strlen(module), "+0x"));
}

SxsComponent sxs__components_of_frame(const SxsViewFrame *f, const char *thread_name) {
  static const char *const framework_modules[] = {"System.", "Microsoft.", "mscorlib", "netstandard", NULL};
  static const char *const framework_names[] = {"System.", "Microsoft.", "Internal.", "Interop.", NULL};
  static const char *const gc_names[] = {"WKS::", "SVR::", "GCHeap", "gc_heap", "GCToEEInterface", NULL};
  static const char *const gc_threads[] = {".NET BGC", ".NET Server GC", ".NET SVR GC", ".NET GC", NULL};
  static const char *const runtime_modules[] = {"libcoreclr",
                                                "libhostfxr",
                                                "libhostpolicy",
                                                "libSystem.",
                                                "libmscordaccore",
                                                "libclrgc",
                                                "libcoreclrtraceptprovider",
                                                "dotnet",
                                                NULL};
  static const char *const libc_modules[] = {"libc.so", "libc-", "libm.so",   "libm-",    "ld-linux",  "libpthread",
                                             "libdl",   "librt", "libstdc++", "libgcc_s", "libresolv", NULL};
  if (f->managed) {
    const char *module = base_name(f->module);
    if (has_prefix_any(module, framework_modules) || (!*module && has_prefix_any(f->name, framework_names)))
      return SXS_COMPONENT_FRAMEWORK;
    return SXS_COMPONENT_APP;
  }
  const char *module = base_name(f->module);
  if (g_str_has_prefix(module, "libsxsprof"))
    return SXS_COMPONENT_PROFILER;
  if (g_str_has_prefix(module, "libclrjit"))
    return SXS_COMPONENT_JIT;
  if (g_str_has_prefix(module, "[kernel") || g_str_has_prefix(module, "[vdso") || g_str_has_prefix(f->name, "[kernel"))
    return SXS_COMPONENT_KERNEL;
  if (g_str_has_prefix(module, "libclrgc") || strstr(f->name, "gc_heap") || has_prefix_any(f->name, gc_names))
    return SXS_COMPONENT_GC;
  /* the runtime's stubs (sxs__prologue_stub_name): code of the runtime's own, in no module */
  static const char *const runtime_stubs[] = {"[call counting stub]", "[precode]", NULL};
  if (has_prefix_any(module, runtime_modules) || (!*module && has_prefix_any(f->name, runtime_stubs)))
    return thread_name && has_prefix_any(thread_name, gc_threads) ? SXS_COMPONENT_GC : SXS_COMPONENT_RUNTIME;
  if (has_prefix_any(module, libc_modules))
    return SXS_COMPONENT_LIBC;
  return SXS_COMPONENT_NATIVE;
}

void sxs__components_totals(const SxsView *v, SxsViewKind k, SxsComponentTotals *ret) {
  memset(ret, 0, sizeof *ret);
  ret->unnamed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  SxsViewIter it;
  sxs__view_iter_init(&it, v, k);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    if (s->depth == 0 || s->weight == 0)
      continue;
    const SxsViewFrame *leaf = v->frames->pdata[s->frames[s->depth - 1]];
    SxsComponent c = sxs__components_of_frame(leaf, it.group->thread_name);
    ret->weight[c] += s->weight;
    ret->total += s->weight;
    if (sxs__components_unnamed(leaf)) {
      const char *lib = *base_name(leaf->module) ? base_name(leaf->module) : "(no module)";
      guint64 *w = g_hash_table_lookup(ret->unnamed, lib);
      if (!w) {
        w = g_new0(guint64, 1);
        g_hash_table_insert(ret->unnamed, g_strdup(lib), w);
      }
      *w += s->weight;
    }
  }
}

void sxs__components_clear(SxsComponentTotals *t) {
  g_clear_pointer(&t->unnamed, g_hash_table_unref);
}
