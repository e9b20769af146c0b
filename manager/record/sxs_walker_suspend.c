/* sxs_walker_suspend: the suspend walker (walker=suspend). Each thread due is captured where it
 * runs (the sampler's signal, or a timer's capture in cpu mode); a capture that fits a walk its
 * thread kept takes that walk; for the others every runtime is suspended, each of those threads
 * walked by each runtime's DoStackSnapshot, every runtime resumed; then, with nothing suspended,
 * the frames are classified, stitched by stack pointer and counted. */
#include "sxs_sampler_internal.h"

#include <errno.h>
#include <string.h>

#include "sxs_hresult.h"
#include "sxs_manager.h"
#include "sxs_snapshot.h"

/*
 * Walk reuse. A suspension is what the suspend walker costs (the runtime signals each thread,
 * flushes every CPU's write buffers twice, and every thread waits), and a CPU-bound thread is
 * mostly found where it was found before: the same return addresses at the same stack pointers,
 * only the leaf's instruction moved on inside the same function. The runtimes' walk of such a
 * stack is the walk they made last time (the frames above the leaf are the same calls, and the
 * leaf is the same function), so it is kept and merged with the new capture. The walk is made
 * anew when anything differs: a frame, a stack pointer, the leaf's function or owner, the
 * number of frames; when a module was unloaded since (code may have moved into its place); when
 * the walk was incomplete; and at least every SAMPLER_REUSE_NS, so no stack is trusted longer.
 */
struct WalkReuse {
  SxsNativeFrame *native; /* the capture the walk went with; native[0].ip is not compared */
  guint n_native;
  int leaf_runtime;       /* the leaf's owner as classified, 0 for native code */
  uint64_t leaf_function; /* and its function */
  SxsStackFrame *walked;  /* every runtime's frames, walk after walk */
  guint n_walks;
  struct {
    int runtime_id;
    guint first, n;
  } walks[SXS_STITCH_MAX_RUNTIMES];
  guint64 at_ns;
  unsigned long long unloads;
};

void sxs__walker_suspend_reuse_free(WalkReuse *r) {
  if (r == NULL)
    return;
  g_free(r->native);
  g_free(r->walked);
  g_free(r);
}

/* The walk of sample s's thread that s stands where it was made: the same frames at the same
 * stack pointers, the leaf's instruction aside, within SAMPLER_REUSE_NS and with no module
 * unloaded since; with check_leaf, also with the leaf in the same function (s classified).
 * NULL when there is none. Context: the sampler thread. */
static WalkReuse *walk_reuse_find(const SuspendedSample *s, const SxsWalkResources *res, guint64 now,
                                  gboolean check_leaf) {
  const SxsStackFrame *leaf = &s->classified[0];
  for (guint i = 0; i < G_N_ELEMENTS(s->thread->reuse); i++) {
    WalkReuse *r = s->thread->reuse[i];
    if (r == NULL || now - r->at_ns > (guint64)SAMPLER_REUSE_NS || r->unloads != sxs__modmap_unloads(res->map) ||
        (guint)s->n_native != r->n_native || s->native[0].sp != r->native[0].sp ||
        memcmp(s->native + 1, r->native + 1, (r->n_native - 1) * sizeof r->native[0]) != 0)
      continue;
    if (check_leaf &&
        (leaf->kind == SXS_FRAME_MANAGED
             ? leaf->function_id == 0 || leaf->runtime_id != r->leaf_runtime || leaf->function_id != r->leaf_function
             : r->leaf_runtime != 0))
      continue;
    return r;
  }
  return NULL;
}

static gboolean walk_reuse_matches(const SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  return walk_reuse_find(s, res, now, FALSE) != NULL;
}

/* Sample s's native frames, classified by owner. Context: the sampler thread, nothing suspended
 * (the owners' lookups take the runtimes' locks). */
static void classify(SuspendedSample *s, const SxsWalkResources *res, const SxsStitchRuntime *runtimes,
                     guint n_targets) {
  SxsStitchReport report = {0};
  s->n_classified =
      sxs__stitch_classify(runtimes, n_targets, res, s->native, (guint)s->n_native, TRUE, s->classified, NULL, &report);
}

/* For sample s, classified: whether a kept walk of its thread fits it, leaf function included;
 * if so, s's walks are set from that walk. Context: the sampler thread. */
static gboolean walk_reuse_take(SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  const WalkReuse *r = walk_reuse_find(s, res, now, TRUE);
  if (r == NULL)
    return FALSE;
  /* The frames are copied into the sample: in cpu mode a batch holds several captures of one
   * thread, and a fresh walk of an earlier one is kept (walk_reuse_keep) before this sample is
   * merged, which can free r to make room; its memory then holds another walk, of this thread
   * (Cold.Walk captured, Hot.Spin's walk stitched on) or of another. */
  s->n_walks = r->n_walks;
  guint used = 0;
  for (guint w = 0; w < r->n_walks; w++) {
    guint n = MIN(r->walks[w].n, (guint)SXS_STITCH_MAX_RUNTIME_FRAMES - used);
    memcpy(s->walked + used, r->walked + r->walks[w].first, n * sizeof s->walked[0]);
    s->walks[w] =
        (SxsRuntimeWalk){.runtime_id = r->walks[w].runtime_id, .frames = s->walked + used, .n = n, .complete = TRUE};
    used += n;
  }
  return TRUE;
}

/* Distance between two stack pointers. */
static uintptr_t sp_distance(uintptr_t a, uintptr_t b) {
  return a > b ? a - b : b - a;
}

/*
 * Where walk holds the call of the capture's managed frame mine[k] (of s->classified), or walk->n.
 * The innermost (k = 0): the frame of its function nearest below its caller (the walk is ordered
 * by sp; the thread may have pushed or popped in it since). A caller (k > 0) was not running when
 * captured: the walk's frame of its function below its caller nearest to it, whose own caller in
 * the walk is above it, and no other captured call of that function nearer (in a recursion of
 * small frames a call's frame as the runtime reports it, a few words off, is nearer to its own
 * capture than to the next call's).
 */
static guint align_at(const SuspendedSample *s, const guint *mine, guint n_mine, guint k, const SxsRuntimeWalk *walk) {
  const SxsStackFrame *f = &s->classified[mine[k]];
  uintptr_t caller_sp = k + 1 < n_mine ? s->classified[mine[k + 1]].sp : UINTPTR_MAX;
  guint at = walk->n;
  for (guint i = 0; i < walk->n && walk->frames[i].sp < caller_sp; i++)
    if (walk->frames[i].function_id == f->function_id &&
        (k == 0 || at == walk->n || sp_distance(walk->frames[i].sp, f->sp) < sp_distance(walk->frames[at].sp, f->sp)))
      at = i;
  if (k == 0 || at == walk->n)
    return at;
  if (at + 1 < walk->n && walk->frames[at + 1].sp <= f->sp)
    return walk->n;
  uintptr_t d = sp_distance(walk->frames[at].sp, f->sp);
  for (guint j = 0; j < n_mine; j++)
    if (j != k && s->classified[mine[j]].function_id == f->function_id &&
        sp_distance(walk->frames[at].sp, s->classified[mine[j]].sp) < d)
      return walk->n;
  return at;
}

/*
 * Checks sample s's fresh walks (trimmed to the capture) against its native capture. Between the
 * capture and the suspension the thread runs on: it may have returned from the function it was
 * captured in and called another at the same depth (Cold.Walk captured, Hot.Spin walked), or
 * called the same function again at another depth (a recursion, a native qsort calling back, a
 * loop around a stackalloc), which trimming by stack pointer cannot tell. The walk is aligned on
 * the capture's innermost managed frame that it still holds: that frame's function, in the walk
 * of the runtime that owns it, below the capture's next frame of that runtime (its caller as the
 * native walk found it: a callee's stack pointer is below its caller's), and above the capture's
 * frames inside it. Frames the walk has before it are where the thread went since, and are
 * dropped; the capture's frames inside it are kept as captured, the walk's from it outwards (the
 * callers it has not returned from, which the runtime knows better than a frame-pointer walk:
 * an OSR method's frame, a frameless caller). A thread captured in Leaf < Go < Run and walked
 * in Go (it returned from Leaf) reads Leaf < Go < Run, the capture's Leaf on the walk's Go < Run;
 * Cold.Walk captured and Hot.Spin walked reads Cold.Walk < HotCold, the capture's Cold.Walk on
 * the walk's HotCold. A walk that holds none of the capture's functions is of another stack, and
 * is dropped whole (the capture's own classification names those frames). Matched by function
 * alone, a later call of the same function higher on the stack was taken for it, and the
 * capture's leaf and callers were stitched under the walk's (Leaf < Compare < qsort < Leaf <
 * Compare < qsort < Sort). Stack pointers are compared by order, not equality: the runtime
 * reports a frame's sp where it is now, which for the frame it parked in, or after a frame the
 * native walk read by its frame pointer, can differ from the native walk's by a few words; a walk
 * aligned on a caller takes the capture's stack pointer for that frame, so that the capture's
 * frames inside it stay below it and its own copy of the frame goes as covered. Returns the
 * position among the capture's managed frames of the one the walks were aligned on (0: the
 * innermost), or -1 when a walk was dropped. Context: the sampler thread.
 */
int sxs__walker_suspend_align(SuspendedSample *s, gboolean *ret_trimmed) {
  *ret_trimmed = FALSE;
  /* The named managed frames of the capture, innermost first, of the runtime that owns the innermost. */
  int runtime_id = 0;
  guint mine[SAMPLER_MAX_FRAMES], n_mine = 0;
  for (guint i = 0; i < s->n_classified; i++) {
    const SxsStackFrame *f = &s->classified[i];
    if (f->kind == SXS_FRAME_MANAGED && f->function_id != 0 && (runtime_id == 0 || f->runtime_id == runtime_id)) {
      runtime_id = f->runtime_id;
      mine[n_mine++] = i;
    }
  }
  if (n_mine == 0)
    return 0;
  int aligned = 0;
  for (guint w = 0; w < s->n_walks; w++) {
    SxsRuntimeWalk *walk = &s->walks[w];
    if (walk->runtime_id != runtime_id)
      continue;
    guint k = 0, at = walk->n;
    for (; k < n_mine && at == walk->n; k++)
      at = align_at(s, mine, n_mine, k, walk);
    if (at == walk->n) {
      walk->n = 0;
      walk->complete = FALSE;
      aligned = -1;
      continue;
    }
    k--;
    if (at > 0) {
      walk->frames += at;
      walk->n -= at;
      *ret_trimmed = TRUE;
    }
    if (k > 0) /* the walk's frames are the sample's own (walked) */
      s->walked[walk->frames - s->walked].sp = s->classified[mine[k]].sp;
    if (aligned >= 0)
      aligned = MAX(aligned, (int)k);
  }
  return aligned;
}

/*
 * After alignment a walk of the runtime that owns the capture's innermost managed frame begins at
 * that frame (align_walks), and a walk taken again begins where it began for the capture it went
 * with. The runtime gives that frame's stack pointer as the thread had it when it was walked, the
 * capture as it had it when it was captured: a few words apart when the thread ran on within the
 * function (it pushed, popped or called a helper before it parked). The capture's frame below the
 * walk's range would be kept as a second frame of the same call (`Run < Run`); it is the walk's
 * first frame, so it takes that frame's stack pointer, and the merge drops it as covered. Context:
 * the sampler thread.
 */
void sxs__walker_suspend_fuse_first(SuspendedSample *s) {
  SxsStackFrame *first = NULL;
  for (guint i = 0; i < s->n_classified && first == NULL; i++)
    if (s->classified[i].kind == SXS_FRAME_MANAGED && s->classified[i].function_id != 0)
      first = &s->classified[i];
  if (first == NULL)
    return;
  for (guint w = 0; w < s->n_walks; w++) {
    const SxsRuntimeWalk *walk = &s->walks[w];
    if (walk->runtime_id == first->runtime_id && walk->n > 0 && walk->frames[0].function_id == first->function_id &&
        first->sp < walk->frames[0].sp)
      first->sp = walk->frames[0].sp;
  }
}

/* Keeps sample s's fresh walks (trimmed to the capture) for its thread's next samples, when
 * every one of them is complete (a thread keeps SAMPLER_REUSE_WALKS stacks, so one that
 * alternates between a few places, as a loop calling two functions does, reuses a walk for
 * each). Context: the sampler thread. */
static void walk_reuse_keep(const SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  SampledThread *t = s->thread;
  guint total = 0;
  for (guint w = 0; w < s->n_walks; w++) {
    if (!s->walks[w].complete)
      return;
    total += s->walks[w].n;
  }
  if (s->n_walks == 0 || s->n_native <= 0)
    return;
  /* No kept walk fits this stack (or it would have been reused): the new one takes a free place,
   * else the oldest's (an expired walk of the same stack is always older). */
  guint slot_at = 0;
  for (guint i = 0; i < SAMPLER_REUSE_WALKS && t->reuse[slot_at] != NULL; i++)
    if (t->reuse[i] == NULL || t->reuse[i]->at_ns < t->reuse[slot_at]->at_ns)
      slot_at = i;
  sxs__walker_suspend_reuse_free(t->reuse[slot_at]);
  t->reuse[slot_at] = NULL;
  WalkReuse *r = g_new0(WalkReuse, 1);
  r->native = g_memdup2(s->native, (gsize)s->n_native * sizeof s->native[0]);
  r->n_native = (guint)s->n_native;
  const SxsStackFrame *leaf = &s->classified[0];
  r->leaf_runtime = leaf->kind == SXS_FRAME_MANAGED ? leaf->runtime_id : 0;
  r->leaf_function = leaf->kind == SXS_FRAME_MANAGED ? leaf->function_id : 0;
  r->walked = g_new(SxsStackFrame, MAX(total, 1));
  guint at = 0;
  for (guint w = 0; w < s->n_walks; w++) {
    memcpy(r->walked + at, s->walks[w].frames, s->walks[w].n * sizeof r->walked[0]);
    r->walks[w].runtime_id = s->walks[w].runtime_id;
    r->walks[w].first = at;
    r->walks[w].n = s->walks[w].n;
    at += s->walks[w].n;
  }
  r->n_walks = s->n_walks;
  r->at_ns = now;
  r->unloads = sxs__modmap_unloads(res->map);
  t->reuse[slot_at] = r;
}

static void walk_suspended(SuspendedSample *samples, guint n_due, const SxsStitchTarget *targets, guint n_targets,
                           uint64_t **ids, uint32_t **tids);

/* The suspend walker's per-tick samples (SAMPLER_SUSPEND_MAX_THREADS), allocated once. */
SuspendedSample *sxs__walker_suspend_samples(void) {
  static SuspendedSample *samples;
  if (!samples)
    samples = g_new0(SuspendedSample, SAMPLER_SUSPEND_MAX_THREADS);
  return samples;
}

/* A suspend-walker tick (wall mode): each thread due captures its native frames by the signal,
 * where it runs; a capture that fits a walk its thread kept takes that walk; for the others every
 * runtime is suspended (in id order), each of those threads walked by each runtime's
 * DoStackSnapshot, every runtime resumed (in reverse order); then, with nothing suspended, the
 * frames are classified, stitched by stack pointer (a runtime's frames below the captured leaf,
 * where the thread parked for the suspension, left out) and counted (suspend_finish). */
void sxs__walker_suspend_tick(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                              const SxsStitchRuntime *runtimes, guint n_targets) {
  SuspendedSample *samples = sxs__walker_suspend_samples();
  SampledThread *due_threads[SAMPLER_SUSPEND_MAX_THREADS];
  guint64 weights[SAMPLER_SUSPEND_MAX_THREADS];
  int got[SAMPLER_SUSPEND_MAX_THREADS];
  guint n_due = sxs__sampler_wall_select(period_ns, res, targets, runtimes, n_targets, NULL, due_threads, weights,
                                         SAMPLER_SUSPEND_MAX_THREADS);
  if (n_due == 0)
    return;

  /* The native frames first, each thread where it runs: once a runtime is asked to suspend, its
   * threads run on to where it parks them (a GC poll, a return), and a sample taken there would
   * count the parking place, not the work. */
  gboolean abandoned = FALSE;
  sxs__sampler_capture_batch(due_threads, n_due, res, got, &abandoned);
  if (abandoned) {
    sampler.abandoned = TRUE;
    return;
  }
  guint n_captured = 0;
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    s->thread = due_threads[i];
    s->weight = weights[i];
    s->n_walks = 0;
    s->learn_only = FALSE;
    s->n_native = got[i];
    if (s->n_native > 0) {
      memcpy(s->native, hot.slots[SAMPLER_SYNC_SLOT(i)].out.frames, (size_t)s->n_native * sizeof s->native[0]);
      n_captured++;
    } else {
      sxs__sampler_sched_refund(&s->thread->sched, s->weight, period_ns);
      sxs__sampler_check_unanswered(s->thread);
    }
  }
  if (n_captured == 0)
    return;
  sxs__walker_suspend_finish(samples, n_due, res, targets, runtimes, n_targets);
}

/* The rest of a suspend-walker tick once the due threads' native frames are captured (samples
 * with n_native <= 0 are skipped): walk reuse, the suspension for the others, the merge. */
void sxs__walker_suspend_finish(SuspendedSample *samples, guint n_due, const SxsWalkResources *res,
                                const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets) {
  static uint64_t *ids[SXS_STITCH_MAX_RUNTIMES];
  static uint32_t *tids[SXS_STITCH_MAX_RUNTIMES];
  if (!ids[0]) {
    for (guint k = 0; k < SXS_STITCH_MAX_RUNTIMES; k++) {
      ids[k] = g_new(uint64_t, SAMPLER_MAX_MANAGED_THREADS);
      tids[k] = g_new(uint32_t, SAMPLER_MAX_MANAGED_THREADS);
    }
  }
  /* A thread found where it was found before takes its last walk again (walk reuse, above): its
   * frames are compared at once, and only such a thread's are classified before the suspension
   * (classifying the others would only delay their walk). */
  guint n_to_walk = 0;
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    s->reused = FALSE;
    s->n_classified = 0;
    if (s->n_native <= 0)
      continue;
    if (walk_reuse_matches(s, res, now)) {
      classify(s, res, runtimes, n_targets);
      s->reused = walk_reuse_take(s, res, now);
    }
    if (!s->reused)
      n_to_walk++;
  }
  if (n_to_walk > 0)
    walk_suspended(samples, n_due, targets, n_targets, ids, tids);

  static SxsStackFrame stitched[SXS_STITCH_MAX_STITCHED];
  guint64 reused = 0;
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    if (s->n_native <= 0)
      continue;
    guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    /* A walk taken again begins where it began for its capture; a fresh one aligned on a caller does
     * not begin with the capture's innermost frame. */
    gboolean fuse = s->reused;
    if (s->reused) {
      reused++;
    } else {
      if (s->n_classified == 0)
        classify(s, res, runtimes, n_targets);
      /* Frames of the runtime's walk below the thread's leaf as captured are where it was parked
       * since (the wait for the suspension): not part of the sample. */
      uintptr_t leaf_sp = s->native[0].sp;
      for (guint w = 0; w < s->n_walks; w++) {
        SxsRuntimeWalk *walk = &s->walks[w];
        guint skip = 0;
        while (skip < walk->n && walk->frames[skip].sp < leaf_sp)
          skip++;
        walk->frames += skip;
        walk->n -= skip;
      }
      gboolean trimmed = FALSE;
      int aligned = sxs__walker_suspend_align(s, &trimmed);
      if (aligned == 0 && !trimmed)
        walk_reuse_keep(s, res, t0);
      fuse = aligned == 0;
    }
    if (fuse)
      sxs__walker_suspend_fuse_first(s);
    guint kept =
        sxs__merge_stacks(s->classified, s->n_classified, s->walks, s->n_walks, stitched, G_N_ELEMENTS(stitched));
    if (s->learn_only)
      continue;
    sxs__sampler_add_sample_of(s->thread, res, stitched, kept, s->weight, targets, n_targets);
    sxs__sampler_count_taken(s->weight, kept, sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0);
  }
  g_mutex_lock(&sampler.lock);
  sampler.walks_reused += reused;
  if (n_to_walk > 0)
    sampler.suspensions++;
  g_mutex_unlock(&sampler.lock);
}

/* The suspension of a suspend-walker tick: every runtime suspended (in id order), each sample
 * not reusing a walk walked by each runtime's DoStackSnapshot, every runtime resumed (in reverse
 * order). ids and tids: room for each runtime's thread list. Context: the sampler thread. */
static void walk_suspended(SuspendedSample *samples, guint n_due, const SxsStitchTarget *targets, guint n_targets,
                           uint64_t **ids, uint32_t **tids) {
  gboolean suspended[SXS_STITCH_MAX_RUNTIMES] = {FALSE};
  guint n_threads[SXS_STITCH_MAX_RUNTIMES] = {0};
  for (guint k = 0; k < n_targets; k++) {
    int r = targets[k].ops->suspend(targets[k].stitch.user);
    if (r == 0) {
      suspended[k] = TRUE;
      n_threads[k] = targets[k].ops->threads(targets[k].stitch.user, ids[k], tids[k], SAMPLER_MAX_MANAGED_THREADS);
    } else {
      sxs__sampler_count_dropped(r == -EIO ? "runtime could not be suspended" : "runtime not suspended");
    }
  }
  for (guint i = 0; i < n_due && !sampler.stop; i++) {
    SuspendedSample *s = &samples[i];
    if (s->reused)
      continue;
    guint used = 0;
    for (guint k = 0; k < n_targets && s->n_native > 0; k++) {
      if (!suspended[k])
        continue;
      for (guint j = 0; j < n_threads[k]; j++) {
        if (tids[k][j] != (uint32_t)s->thread->tid)
          continue;
        guint got = 0;
        HRESULT hr = 0;
        /* ThreadDestroyed of this thread waits while these are set (sxs__sampler_thread_destroyed). */
        __atomic_store_n(&sampler.walking_runtime, targets[k].stitch.runtime_id, __ATOMIC_SEQ_CST);
        __atomic_store_n(&sampler.walking_thread, ids[k][j], __ATOMIC_SEQ_CST);
        int r = 0;
        if (sxs__sampler_thread_is_destroyed(targets[k].stitch.runtime_id, ids[k][j]))
          r = -ESRCH;
        else
          r = targets[k].ops->walk_thread(targets[k].stitch.user, ids[k][j], s->walked + used,
                                          SXS_STITCH_MAX_RUNTIME_FRAMES - used, &got, &hr);
        __atomic_store_n(&sampler.walking_thread, 0, __ATOMIC_SEQ_CST);
        if (r != 0) {
          char what[96], hr_text[16];
          g_snprintf(what, sizeof what, "runtime walk incomplete: %s", sxs__hresult_text(hr, hr_text, sizeof hr_text));
          sxs__sampler_count_dropped(what);
        }
        s->walks[s->n_walks++] = (SxsRuntimeWalk){
            .runtime_id = targets[k].stitch.runtime_id, .frames = s->walked + used, .n = got, .complete = r == 0};
        used += got;
        break;
      }
    }
  }
  for (guint k = n_targets; k-- > 0;)
    if (suspended[k])
      targets[k].ops->resume(targets[k].stitch.user);
}

/*
 * Suspend walker, cpu mode: sample s holds a timer capture of its thread. A capture that matches a
 * walk its thread kept is merged with it (suspend_finish). Any other is counted at once as its own
 * frames name it, as the signal walker's would: with the handler's capture they are of (from, its
 * copy of the stack walked again where the walk guessed, an OSR frame's Tier-0 record learnt), so
 * the timer's slot is released only after this. When learn (once a thread a batch), it is marked
 * learn_only with no frames: sxs__walker_suspend_learn captures its thread again by the sampler's
 * signal, where it is now, to be walked under a suspension, as in wall mode, and learn a walk for
 * its next samples to reuse (a timer capture is too old to be stitched with a walk made now).
 * Counting that later capture instead would favour the places a thread stays in over those it
 * passes through. Context: the sampler thread.
 */
void sxs__walker_suspend_prepare_timer_sample(SuspendedSample *s, const Capture *from, const SxsWalkResources *res,
                                              guint64 now, gboolean learn, const SxsStitchTarget *targets,
                                              const SxsStitchRuntime *runtimes, guint n_targets) {
  s->learn_only = FALSE;
  if (walk_reuse_matches(s, res, now))
    return;
  sampler.sample_at_ns = from->at_ns;
  sampler.sample_token = from->token;
  sxs__sampler_record_capture(s->thread, res, s->native, (guint)s->n_native, from, s->weight, targets, runtimes,
                              n_targets);
  sampler.sample_at_ns = 0;
  sampler.sample_token = 0;
  s->n_native = 0;
  s->learn_only = learn;
}

/*
 * Suspend walker, cpu mode: the threads of samples[0 .. n) marked learn_only are captured again
 * by the sampler's signal, all at once (the signal waits for each thread to get a CPU, up to 20 ms
 * on a busy machine: one capture after another, a batch of 32 took 300-650 ms, and with 23 busy
 * threads half of them were never collected while the program ran). Returns FALSE when a capture
 * was abandoned at stop (the tick ends). Context: the sampler thread.
 */
gboolean sxs__walker_suspend_learn(SuspendedSample *samples, guint n, const SxsWalkResources *res) {
  SampledThread *threads[SAMPLER_SUSPEND_MAX_THREADS];
  guint at[SAMPLER_SUSPEND_MAX_THREADS];
  int got[SAMPLER_SUSPEND_MAX_THREADS];
  guint m = 0;
  for (guint i = 0; i < n && m < SAMPLER_SUSPEND_MAX_THREADS; i++)
    if (samples[i].learn_only) {
      threads[m] = samples[i].thread;
      at[m++] = i;
    }
  if (m == 0 || sampler.stop)
    return TRUE;
  gboolean abandoned = FALSE;
  sxs__sampler_capture_batch(threads, m, res, got, &abandoned);
  if (abandoned) {
    sampler.abandoned = TRUE;
    return FALSE;
  }
  for (guint k = 0; k < m; k++) {
    SuspendedSample *s = &samples[at[k]];
    s->n_native = got[k];
    if (got[k] > 0)
      memcpy(s->native, hot.slots[SAMPLER_SYNC_SLOT(k)].out.frames, (size_t)got[k] * sizeof s->native[0]);
  }
  return TRUE;
}
