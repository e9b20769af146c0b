/* sxs_components: where the time went by component. A sample counts in the component of its leaf
 * frame (the code that was running): the application's managed code, the framework's (System.*,
 * Microsoft.*), the JIT, the GC, the rest of the runtime, libc and the system libraries, other
 * native libraries, the kernel, the profiler itself. Native code that no symbol names is also
 * counted by library, so that a runtime without symbols shows as one row, not as hundreds of
 * addresses. */
#pragma once

#include <glib.h>

#include "sxs_view.h"

typedef enum {
  SXS_COMPONENT_APP,       /* managed code of the application's own assemblies */
  SXS_COMPONENT_FRAMEWORK, /* managed code of System.*, Microsoft.*, mscorlib, netstandard */
  SXS_COMPONENT_JIT,       /* libclrjit.so */
  SXS_COMPONENT_GC,        /* the garbage collector: libclrgc*.so, gc_heap functions, GC threads */
  SXS_COMPONENT_RUNTIME,   /* the rest of the runtime: libcoreclr.so, the host, libSystem.*.so */
  SXS_COMPONENT_LIBC,      /* libc, libm, the dynamic loader, libstdc++, libgcc */
  SXS_COMPONENT_NATIVE,    /* other native libraries, and code no module owns */
  SXS_COMPONENT_KERNEL,    /* the kernel and the vDSO */
  SXS_COMPONENT_PROFILER,  /* the profiler itself (libsxsprof.so) */
  SXS_N_COMPONENTS
} SxsComponent;

/* "application", "framework", "JIT", "GC", "runtime", "libc and system", "other native",
 * "kernel", "profiler". */
const char *sxs__components_name(SxsComponent c);
/* What the component holds, for people ("managed code of System.*, Microsoft.*"). */
const char *sxs__components_about(SxsComponent c);

/* The component of a frame, on a thread of that name (NULL when unknown). */
SxsComponent sxs__components_of_frame(const SxsViewFrame *f, const char *thread_name);

/* Is this a native frame no symbol names ("libcoreclr.so+0x5fb3cb", "0x7f...")? */
gboolean sxs__components_unnamed(const SxsViewFrame *f);

/* The weights of one kind's stacks by their leaf's component, and of the leaves no symbol names by
 * library. */
typedef struct {
  guint64 weight[SXS_N_COMPONENTS];
  guint64 total;       /* the sum of weight[] */
  GHashTable *unnamed; /* library -> guint64* weight of unnamed leaves; owned */
} SxsComponentTotals;

void sxs__components_totals(const SxsView *v, SxsViewKind k, SxsComponentTotals *ret);
void sxs__components_clear(SxsComponentTotals *t);
