/* sxs_sampler_cpu: mode=cpu. The engine is chosen at start (sxs__sampler_cpu_choose_engine);
 * each thread found is armed through it (a perf_events counter or a CPU-time timer: expiries every
 * period of the CPU time it uses, each captured by the handler on the thread itself) and disarmed
 * when it goes; the sampler sleeps until the handlers call for a batch, then collects and counts
 * what they captured (sxs__sampler_cpu_tick). */
#include "sxs_sampler_internal.h"

#include <errno.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sxs_engine_perf.h"
#include "sxs_manager.h"

/* What thread t's present engine counted since it was armed (last: it is about to be removed). A
 * hardware event counts events, not time; the timer engine's clock is read only at the end (a
 * system call per thread): meanwhile the periods sampled since it was armed stand for it. */
static guint64 counted_since_armed(SampledThread *t, gboolean last) {
  guint64 counted = t->engine->counted(t, last);
  return counted > 0 ? counted : (t->expiries - t->expiries_at_move) * hot.event_period;
}

/* Timer mode: publishes thread t's rate so far (its captures, the periods they stand for, the CPU
 * time it used while sampled) to sampler.rates; last: it is disarmed now, so its counter or CPU
 * clock is read once more. Context: the sampler thread. */
static void thread_rate_note(SampledThread *t, gboolean last) {
  if (!t->tslot)
    return;
  guint64 now = counted_since_armed(t, last);
  guint64 cpu_ns = t->counted_before + now;
  guint64 timer_ns = t->timer_before + (t->engine->kind == SXS_ENGINE_TIMER && t->moved ? now : 0);
  g_mutex_lock(&sampler.lock);
  SxsThreadRateModel *r = g_hash_table_lookup(sampler.rates, GINT_TO_POINTER(t->tid));
  if (!r) {
    r = g_new0(SxsThreadRateModel, 1);
    r->os_tid = (uint32_t)t->tid;
    g_hash_table_insert(sampler.rates, GINT_TO_POINTER(t->tid), r);
  }
  if (g_strcmp0(r->name, t->name) != 0) {
    g_free(r->name);
    r->name = g_strdup(t->name);
  }
  r->captures = t->captures;
  r->expiries = t->expiries;
  if (sampler.event == SXS_EVENT_CPU_TIME)
    r->cpu_ns = cpu_ns;
  else
    r->events = cpu_ns;
  r->timer_ns = timer_ns;
  g_mutex_unlock(&sampler.lock);
}

/* Timer mode: gives the thread a slot and a CPU-time timer firing every period of its CPU time
 * (timer engine), or a perf_events counter overflowing every period (perf engine). */
void sxs__sampler_cpu_arm(SampledThread *t) {
  if (!hot.pool)
    hot.pool = g_new0(ThreadSlot, SAMPLER_POOL_SLOTS);
  ThreadSlot *ts = NULL;
  for (guint i = 0; i < SAMPLER_POOL_SLOTS && !ts; i++)
    if (__atomic_load_n(&hot.pool[i].magic, __ATOMIC_ACQUIRE) == 0)
      ts = &hot.pool[i];
  if (!ts) {
    sxs__sampler_count_dropped("too many threads for timers");
    return;
  }
  ts->tid = t->tid;
  for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
    ts->cap[i].state = SLOT_IDLE;
  ts->missed = 0;
  ts->count = ts->boundary = ts->target = 0;
  ts->fd = -1;
  __atomic_store_n(&ts->magic, THREAD_SLOT_MAGIC, __ATOMIC_RELEASE);
  /* A counter is a file descriptor: the program's own must never run short because of them, so
   * past sampler.perf_fd_budget counters (a quarter of the soft limit) a thread gets a timer, as
   * it does when its counter cannot be opened. A hardware event has no timer to fall back on. */
  gboolean cpu_time = sampler.event == SXS_EVENT_CPU_TIME;
  const SxsSamplerEngine *engine = sampler.engine_ops;
  if (engine->kind == SXS_ENGINE_PERF && (sampler.perf_fds < sampler.perf_fd_budget || !cpu_time)) {
    int r = sampler.perf_fds < sampler.perf_fd_budget ? engine->add_thread(t, ts, sampler.event, hot.event_period)
                                                      : -EMFILE;
    if (r == 0) {
      t->engine = engine;
      t->tslot = ts;
      sampler.perf_fds++;
      return;
    }
    if (r == -ESRCH || !cpu_time) {
      __atomic_store_n(&ts->magic, 0, __ATOMIC_RELEASE);
      sxs__sampler_count_dropped(r == -ESRCH ? "thread gone" : "no counter for the thread");
      return;
    }
  }
  if (engine->kind == SXS_ENGINE_PERF && !sampler.timer_fallback_logged) {
    /* Once: the first thread that gets a timer, and why (the budget, or the counter refused). */
    sampler.timer_fallback_logged = TRUE;
    sxs__manager_log("sampling: thread %d gets a CPU-time timer, not a perf_events counter (%u counters open, at "
                     "most %u: a quarter of the file descriptors the process may open)",
                     (int)t->tid, sampler.perf_fds, sampler.perf_fd_budget);
  }
  if (sxs__engine_timer_ops.add_thread(t, ts, sampler.event, hot.event_period) != 0) {
    __atomic_store_n(&ts->magic, 0, __ATOMIC_RELEASE);
    sxs__sampler_count_dropped("timer not created");
    return;
  }
  t->engine = &sxs__engine_timer_ops;
  t->tslot = ts;
}

/* Thread t's slot goes back to the pool, its timer or counter let go already: the captures in it
 * that were never collected no longer wait (they count no more towards a wake). */
static void slot_release(SampledThread *t) {
  for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
    if (__atomic_load_n(&t->tslot->cap[i].state, __ATOMIC_ACQUIRE) == SLOT_DONE)
      __atomic_add_fetch(&hot.timer_collected, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&t->tslot->magic, 0, __ATOMIC_RELEASE);
  t->tslot = NULL;
}

/* Arms t in its slot ts through engine e, after another engine let it go. A new counter counts
 * from 0: the periods' boundaries start again. Only a counter's handler reads them, and one of a
 * counter closed just now may still run: it is waited for (a timer's handler does not read them;
 * a counter closed at an earlier move has long finished). */
static int engine_rearm(SampledThread *t, ThreadSlot *ts, const SxsSamplerEngine *e, gboolean counter_closed_now) {
  if (e->kind == SXS_ENGINE_PERF) {
    if (counter_closed_now)
      sxs__sampler_cpu_handlers_drained();
    ts->count = ts->boundary = ts->target = 0;
  }
  return e->add_thread(t, ts, sampler.event, hot.event_period);
}

/* Cpu mode, engine=auto: thread t leaves its engine for `to` (the same slot: captures made and
 * not collected stay). What the engine it leaves counted is kept for its rate. When `to` cannot
 * take it, it stays where it was; when neither can, it is not sampled any more. Context: the
 * sampler thread. */
static void thread_move(SampledThread *t, const SxsSamplerEngine *to) {
  ThreadSlot *ts = t->tslot;
  const SxsSamplerEngine *from = t->engine;
  guint64 counted = counted_since_armed(t, TRUE);
  from->remove_thread(t);
  if (from->kind == SXS_ENGINE_PERF)
    sampler.perf_fds--;
  t->counted_before += counted;
  if (from->kind == SXS_ENGINE_TIMER && t->moved)
    t->timer_before += counted;
  t->expiries_at_move = t->expiries;
  t->moved = TRUE;
  t->engine = to;
  if (engine_rearm(t, ts, to, FALSE) != 0) {
    t->engine = from;
    if (engine_rearm(t, ts, from, from->kind == SXS_ENGINE_PERF) != 0) {
      thread_rate_note(t, FALSE); /* what was counted until now: nothing armed counts more */
      slot_release(t);
      sxs__sampler_count_dropped("timer not created");
      return;
    }
  }
  if (t->engine->kind == SXS_ENGINE_PERF)
    sampler.perf_fds++;
}

/* Cpu mode, engine=auto: reads the CPU time and the waits (voluntary context switches) of up to
 * SAMPLER_SLICE_LOOKS threads (in turn; at each rescan until a thread is first judged, at most
 * SAMPLER_SLICE_QUICK_LOOKS times, then at most every SAMPLER_SLICE_LOOK_NS) and moves those that
 * run in short slices between two waits to a timer, those that no longer do back to a counter
 * (sxs__sampler_sched_counter). A thread that is only preempted (a CPU-bound thread on a busy
 * machine: its slices short too, none of them ended by a wait) keeps its counter and the rate
 * asked. Context: the sampler thread, after a rescan. */
void sxs__sampler_cpu_review(void) {
  if (!sampler.engine_moves || !sampler.order || sampler.order->len == 0)
    return;
  guint n = sampler.order->len, looked = 0;
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  guint i = 0;
  for (; i < n && looked < SAMPLER_SLICE_LOOKS; i++) {
    SampledThread *t = sampler.order->pdata[(sampler.slices_at + i) % n];
    gboolean quick = !t->judged && t->looks < SAMPLER_SLICE_QUICK_LOOKS;
    if (!t->tslot || (!quick && now - t->look_at_ns < (guint64)SAMPLER_SLICE_LOOK_NS))
      continue;
    looked++;
    gint64 cpu_now = sxs__sampler_thread_cpu_ns(t->tid), waits_now = sxs__sampler_thread_waits(t->tid);
    if (cpu_now < 0 || waits_now < 0)
      continue;
    guint64 cpu = (guint64)cpu_now, waits = (guint64)waits_now;
    gboolean first = t->looks == 0;
    t->look_at_ns = now;
    t->looks++;
    if (first || cpu < t->look_cpu_ns || waits < t->look_waits) {
      t->look_cpu_ns = cpu;
      t->look_waits = waits;
      continue;
    }
    gboolean on_counter = t->engine->kind == SXS_ENGINE_PERF, was = on_counter;
    if (!sxs__sampler_sched_counter(&on_counter, cpu - t->look_cpu_ns, waits - t->look_waits))
      continue;
    t->look_cpu_ns = cpu;
    t->look_waits = waits;
    t->judged = TRUE;
    if (on_counter == was || (on_counter && sampler.perf_fds >= sampler.perf_fd_budget))
      continue;
    thread_move(t, on_counter ? &sxs__engine_perf_ops : &sxs__engine_timer_ops);
  }
  sampler.slices_at = (sampler.slices_at + i) % n;
}

/* Timer mode: the thread is gone (or the sampler stops): its timer goes, then its slot. A gone
 * thread runs no handler, so its slot is free at once. */
void sxs__sampler_cpu_disarm(SampledThread *t) {
  if (!t->tslot)
    return;
  thread_rate_note(t, TRUE);
  t->engine->remove_thread(t);
  if (t->engine->kind == SXS_ENGINE_PERF)
    sampler.perf_fds--;
  slot_release(t);
}

/* Waits (at most 10 ms) until no timer handler is between its first and last read of hot.timer_res. */
gboolean sxs__sampler_cpu_handlers_drained(void) {
  for (int i = 0; i < 1000; i++) {
    if (__atomic_load_n(&hot.handlers_inflight, __ATOMIC_SEQ_CST) == 0)
      return TRUE;
    g_usleep(10);
  }
  return FALSE;
}

/* Timer mode: publishes the tick's walk resources to the handlers when they changed. The walk
 * taken for the handlers is kept until a newer one replaces it and no handler can still hold the
 * old one. Returns TRUE when it kept res (the tick must not release it). */
gboolean sxs__sampler_cpu_publish(const SxsWalkResources *res) {
  if (sampler.timer_walk_taken && res->map == sampler.timer_walk.map && res->steps == sampler.timer_walk.steps)
    return FALSE;
  __atomic_store_n(&hot.timer_res.loader, sxs__modmap_find_named(res->map, SAMPLER_LOADER), __ATOMIC_RELEASE);
  __atomic_store_n(&hot.timer_res.steps, res->steps, __ATOMIC_RELEASE);
  __atomic_store_n(&hot.timer_res.map, res->map, __ATOMIC_RELEASE);
  if (sampler.timer_walk_taken && sxs__sampler_cpu_handlers_drained())
    sxs__walk_resources_leave_map(); /* the previous one: nobody reads it now */
  sampler.timer_walk = *res;
  sampler.timer_walk_taken = TRUE;
  return TRUE;
}

/* Timer mode, at the end of the tick that published: what the handlers keep is the map and the
 * steps; the tick itself was the last to read the owners cache through it. */
void sxs__sampler_cpu_published(void) {
  sxs__walk_resources_drop_owners(&sampler.timer_walk);
}

/*
 * A timer-mode batch: the captures the threads' CPU-time timers made since the last one, each
 * where its thread ran, on its own CPU (no signal crossed CPUs), are collected. The signal walker
 * counts each as its frames name it. The suspend walker takes up to SAMPLER_SUSPEND_MAX_THREADS
 * of them (the others stay in their slots for the next batch, which follows at once) and
 * stitches them with the runtimes' walks (timer_sample_prepare, suspend_finish). Batches take
 * the threads in turn (sampler.order), each starting where the last one stopped: a batch that
 * always began with the same threads filled up on their captures, and the suspend walker's
 * threads later in the table were never collected while the program ran. Each capture
 * counts as a tick, the expiries it stands for beyond its own as ticks missed (see
 * sxs__sampler_fill). Returns the captures collected. Context: the sampler thread.
 */
guint sxs__sampler_cpu_tick(const SxsWalkResources *res, const SxsStitchTarget *targets,
                            const SxsStitchRuntime *runtimes, guint n_targets, gboolean use_suspend) {
  SuspendedSample *samples = use_suspend ? sxs__walker_suspend_samples() : NULL;
  guint n_due = 0, collected = 0;
  guint64 missed_total = 0;
  guint64 now = use_suspend ? sxs__sampler_now_ns(CLOCK_MONOTONIC) : 0;
  /* A batch that learns walks suspends the runtimes, which stops all their threads: at most one
   * every SAMPLER_LEARN_NS (the batches between count their captures, or merge them with the walks
   * kept). */
  gboolean may_learn = use_suspend && now - sampler.learned_ns >= (guint64)SAMPLER_LEARN_NS, any_learned = FALSE;
  guint n = sampler.order ? sampler.order->len : 0, start = n > 0 ? sampler.batch_at % n : 0, k = 0;
  sampler.timer_leftover = FALSE;
  for (; k < n; k++) {
    SampledThread *t = sampler.order->pdata[(start + k) % n];
    ThreadSlot *ts = t->tslot;
    if (!ts)
      continue;
    gboolean learned = FALSE;
    guint64 collected_before = collected;
    for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++) {
      TimerCapture *c = &ts->cap[i];
      if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) != SLOT_DONE)
        continue;
      if (use_suspend && n_due == SAMPLER_SUSPEND_MAX_THREADS) {
        sampler.timer_leftover = TRUE;
        break;
      }
      /* The expiries that found no room are counted with the first capture collected after them. */
      guint64 weight = c->weight + (guint64)__atomic_exchange_n(&ts->missed, 0, __ATOMIC_RELAXED);
      collected++;
      t->captures += c->out.n > 0;
      t->expiries += weight;
      missed_total += weight - 1;
      int n = c->out.n;
      SuspendedSample *s = NULL;
      if (n <= 0) {
        sxs__sampler_count_failed_capture(n);
      } else {
        sxs__sampler_note_capture(c->out.capture_ns);
        if (!use_suspend) {
          sampler.sample_at_ns = c->out.at_ns;
          sampler.sample_token = c->out.token;
          sxs__sampler_record_capture(t, res, c->out.frames, (guint)n, &c->out, weight, targets, runtimes, n_targets);
          sampler.sample_at_ns = 0;
          sampler.sample_token = 0;
        } else {
          s = &samples[n_due++];
          s->thread = t;
          s->weight = weight;
          s->n_walks = 0;
          s->n_native = n;
          memcpy(s->native, c->out.frames, (size_t)n * sizeof s->native[0]);
        }
      }
      if (s != NULL) {
        sxs__walker_suspend_prepare_timer_sample(s, &c->out, res, now, may_learn && !learned, targets, runtimes,
                                                 n_targets);
        learned |= s->learn_only;
        any_learned |= s->learn_only;
        if (s->n_native <= 0 && !s->learn_only)
          n_due--; /* counted already, nothing to merge: its place in the batch is free again */
      }
      /* The frames were counted or copied: the handler may write the capture again. */
      __atomic_store_n(&c->state, SLOT_IDLE, __ATOMIC_RELEASE);
      __atomic_add_fetch(&hot.timer_collected, 1, __ATOMIC_RELAXED);
    }
    if (collected > collected_before)
      thread_rate_note(t, FALSE);
    if (sampler.timer_leftover)
      break;
  }
  if (any_learned)
    sampler.learned_ns = now;
  /* The next batch starts at the thread this one stopped in (its captures left), or the next one. */
  sampler.batch_at = n > 0 ? (start + (k < n ? k : 1)) % n : 0;
  g_mutex_lock(&sampler.lock);
  sampler.ticks += collected;
  sampler.ticks_missed += missed_total;
  g_mutex_unlock(&sampler.lock);
  if (n_due > 0 && !sampler.abandoned && sxs__walker_suspend_learn(samples, n_due, res))
    sxs__walker_suspend_finish(samples, n_due, res, targets, runtimes, n_targets);
  return collected;
}

/* Cpu mode: sleeps until a timer handler has work for the sampler (on_timer), the stop, or
 * deadline (CLOCK_MONOTONIC, ns), whichever comes first. Returns at once when the captures that
 * wait already call for a batch (one thread's all full, or SAMPLER_WAKE_PENDING in all) or the
 * last batch left some. Context: the sampler thread. */
static void wait_for_captures(guint64 deadline) {
  if (sampler.timer_leftover)
    return;
  __atomic_store_n(&hot.sampler_asleep, 1, __ATOMIC_SEQ_CST);
  /* Read after announcing the sleep: a handler that finished before this is seen here, one
   * after it sees the sampler asleep (both sequentially consistent). */
  guint done = __atomic_load_n(&hot.timer_done, __ATOMIC_SEQ_CST);
  gboolean due = done - __atomic_load_n(&hot.timer_collected, __ATOMIC_RELAXED) >= SAMPLER_WAKE_PENDING;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (!due && g_hash_table_iter_next(&it, NULL, &value)) {
    ThreadSlot *ts = ((SampledThread *)value)->tslot;
    if (!ts)
      continue;
    guint full = 0;
    for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
      full += __atomic_load_n(&ts->cap[i].state, __ATOMIC_ACQUIRE) != SLOT_IDLE;
    due = full >= SAMPLER_WAKE_FULL || __atomic_load_n(&ts->missed, __ATOMIC_RELAXED) != 0;
  }
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  if (!due && now < deadline && !__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    guint64 left = deadline - now;
    struct timespec ts = {.tv_sec = (time_t)(left / 1000000000), .tv_nsec = (long)(left % 1000000000)};
    syscall(SYS_futex, &hot.sampler_asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
  }
  __atomic_store_n(&hot.sampler_asleep, 0, __ATOMIC_SEQ_CST);
}

/* Cpu mode: the sampler's loop. No fixed tick: a batch when handlers call for it (or when a
 * rescan is due), the rescan after it, every SAMPLER_RESCAN_NS; a last batch once the timers
 * are gone, so that every capture made is counted before the profile is written. */
void sxs__sampler_cpu_run(guint64 period) {
  guint64 last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  sxs__sampler_rescan();
  while (!__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    sxs__sampler_tick(period);
    g_mutex_lock(&sampler.lock);
    if (sampler.wakes == 0)
      sampler.first_tick_ns = now;
    sampler.last_tick_ns = now;
    sampler.wakes++;
    g_mutex_unlock(&sampler.lock);
    /* A thread that ended since the last rescan had its captures collected just now. */
    if (sxs__sampler_now_ns(CLOCK_MONOTONIC) - last_scan >= sxs__sampler_rescan_every()) {
      sxs__sampler_rescan();
      sxs__sampler_cpu_review();
      last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    }
    wait_for_captures(last_scan + sxs__sampler_rescan_every());
  }
  sxs__sampler_wall_requests_finish();
  GHashTableIter it;
  gpointer value;
  /* The timers go (no new expiry); the captures made until then are collected. */
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SampledThread *t = value;
    if (t->tslot)
      t->engine->stop_thread(t);
  }
  if (sxs__sampler_cpu_handlers_drained() && !sampler.abandoned) {
    do
      sxs__sampler_tick(period);
    while (sampler.timer_leftover && !sampler.abandoned);
  }
}

/*
 * Mode=cpu: which engine raises the samples. engine=auto takes perf_events where this process may
 * open a counter (a probe on the calling thread), the timers otherwise; engine=perf that is
 * refused falls back to the timers too, saying so. A hardware event has no fallback: sampling is
 * off, and the reason says why. Returns FALSE when sampling is off. Context: sxs__sampler_start.
 */
gboolean sxs__sampler_cpu_choose_engine(const SxsConfig *cfg) {
  sampler.event = cfg->sampling.event;
  sampler.engine_ops = &sxs__engine_timer_ops;
  hot.event_period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  if (!sampler.use_timers)
    return TRUE;
  SxsEngineKind asked = cfg->sampling.engine;
  if (asked == SXS_ENGINE_TIMER && sampler.event == SXS_EVENT_CPU_TIME) {
    sampler.engine_reason = g_strdup("engine=timer asked for");
    return TRUE;
  }
  /* The suspend walker stitches the runtimes' walks, made when it suspends them, to the captures:
   * it was proven with the timers' captures. With the perf_events engine's, the hot/cold test's
   * hot share fell to 34 and 61 % in two of five runs, so auto keeps the timers for it. */
  if (asked == SXS_ENGINE_AUTO && cfg->sampling.walker == SXS_WALKER_SUSPEND && sampler.event == SXS_EVENT_CPU_TIME) {
    sampler.engine_reason = g_strdup("walker=suspend: its walks are stitched to the timers' captures");
    return TRUE;
  }
  g_autofree char *refused = NULL;
  guint64 period = 0;
  if (sxs__engine_perf_ops.start(sampler.event, sampler.frequency, &period, &refused) == 0) {
    sampler.engine_ops = &sxs__engine_perf_ops;
    struct rlimit files;
    rlim_t soft = getrlimit(RLIMIT_NOFILE, &files) == 0 ? files.rlim_cur : 1024;
    sampler.perf_fd_budget = (guint)MIN(soft == RLIM_INFINITY ? G_MAXUINT : soft / 4, (rlim_t)SAMPLER_POOL_SLOTS);
    hot.event_period = period;
    /* engine=auto: a thread that runs in short slices is sampled by a timer instead (the counter
     * would cost each of its context switches: sxs_sampler_sched.h); engine=perf keeps counters. */
    sampler.engine_moves = asked == SXS_ENGINE_AUTO && sampler.event == SXS_EVENT_CPU_TIME;
    sampler.engine_reason = g_strdup(asked == SXS_ENGINE_PERF ? "engine=perf asked for" : "perf_event_open allowed");
    return TRUE;
  }
  g_autofree char *timer_refused = NULL;
  if (sxs__engine_timer_ops.start(sampler.event, sampler.frequency, &period, &timer_refused) != 0) {
    sxs__sampler_set_off(refused); /* a hardware event: no timer counts it */
    return FALSE;
  }
  hot.event_period = period;
  sampler.engine_reason = g_strdup_printf("%s; the CPU-time timers instead", refused);
  sxs__manager_log("sampling: engine=%s: %s", sxs__config_engine_name(asked), sampler.engine_reason);
  return TRUE;
}
