/* sxs_activity: which request each thread works for ([labels] endpoints=true, --endpoints).
 *
 * ASP.NET Core's hosting events (RequestStart with the method and path, RequestStop) open and
 * close a request's activity; the runtime's TPL events say which work each thread runs: an async
 * operation begins under the activity current where it was created (TraceOperationBegin, whose
 * activity ID flows across awaits with TasksFlowActivityIds), and each piece of its work runs
 * between TraceSynchronousWorkBegin and End on some thread of the pool. So at every moment a thread
 * works for the request of the innermost work it runs, and a sample taken on it, or an allocation,
 * a lock wait or an exception raised on it, is that request's. A request is labelled with its
 * endpoint: its method and its path with the segments that are values (numbers, GUIDs, long hex
 * or mixed tokens) written {id}: `GET /orders/{id}`, not `GET /orders/42`; once ASP.NET Core's
 * routing metrics have named the route templates its requests matched (sxs__activity_route_seen),
 * a label is shown as its best matching template: `GET /users/{name}/orders/{orderId:int}` for
 * `GET /users/alice/orders/{id}`. Two labels may then be shown alike; the profile model merges
 * them (sxs__timeline_model_check_labels).
 *
 * The TPL's events cost the server a few microseconds for each await, so they are asked for only
 * once a request is seen to leave the thread it began on (the callback's choice, told by
 * request_start/stop's results): until then, and in a server whose requests never leave it, the
 * hosting events alone say which request a thread works for (from its RequestStart to its
 * RequestStop on that thread).
 *
 * Labels are numbered from 1 (0: none) in the order first met; SXS_ACTIVITY_MAX_LABELS at most
 * (later endpoints share the last label, "(other)").
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#define SXS_ACTIVITY_MAX_LABELS 4096

/* A request began on this thread: its activity ID (16 bytes; NULL or all zero when the TPL's
 * activity IDs are not flowing, then the request is this thread's until it stops on it) and the
 * HTTP method and path. TRUE when this shows a request that left its thread: one begun here
 * without an activity ID has not stopped here. Context: the thread that raised the event. */
gboolean sxs__activity_request_start(int runtime_id, const guint8 *activity, const char *method, const char *path,
                                     guint64 now_us);
/* The request of activity (else the last one begun on this thread without one) ended, on this
 * thread; recorded on the timeline as a request event. TRUE when it had left its thread: it began
 * on another, or it is not known and this thread began requests itself (one begun elsewhere
 * without an activity ID ended here; it is not counted). */
gboolean sxs__activity_request_stop(int runtime_id, const guint8 *activity, guint64 now_us);
/* An async operation (task_id of runtime_id) was created under activity (NULL or all zero: none). */
void sxs__activity_operation_begin(int runtime_id, gint32 task_id, const guint8 *activity);
/* ... and completed. */
void sxs__activity_operation_end(int runtime_id, gint32 task_id);
/* This thread begins to run a piece of task_id's work (work: the TPL's kind of work), and ends the
 * innermost piece of that kind. */
void sxs__activity_work_begin(int runtime_id, gint32 task_id, int work);
void sxs__activity_work_end(int runtime_id, int work);

/* The token of the request thread tid works for as it published it last (0: none): for a sample
 * of it taken now. Context: any, the signal handler included: no lock, no allocation. */
guint32 sxs__activity_tid_token(uint32_t tid);
/* The label of a token taken at at_ns (CLOCK_MONOTONIC; 0: now): its request's endpoint when the
 * request had not ended by then, else 0. Context: any thread, normal context. */
guint sxs__activity_token_label(guint32 token, guint64 at_ns);
/* The label of the request the calling thread works for now (0: none). Context: normal context. */
guint sxs__activity_current_label(void);
/* The same for an event of `thread`, when that is the calling thread; 0 for another thread's, or
 * while no request was ever seen. */
guint sxs__activity_thread_label(uint32_t thread);

/* The thread tid ended: it works for nothing. Context: any thread. */
void sxs__activity_thread_gone(uint32_t tid);

/* Is anything tracked (a request seen)? */
gboolean sxs__activity_any(void);
/* The labels' names as shown (index label - 1), a new array of copies. Context: any thread. */
GPtrArray *sxs__activity_labels(void);
/* Changes whenever a label's name as shown may have changed (a route template learnt). */
guint sxs__activity_labels_gen(void);

/* A route template that requests matched ("/orders/{id:int}", as ASP.NET Core's routing names it):
 * labels whose path it matches are shown as it. Context: any thread, normal context. */
void sxs__activity_route_seen(const char *route);
/* The value of tag key in a metric's tags as the runtime's metrics events write them
 * ("k1=v1,k2=v2"; a value may hold a comma not followed by a key and '='), newly allocated; NULL
 * when absent or empty. */
char *sxs__activity_metric_tag(const char *tags, const char *key);
/* How well a route template matches an endpoint's path (its values written {id}): 0 not at all;
 * else the higher the more specific, segment by segment from the left, as ASP.NET Core's router
 * ranks them (a literal over a parameter with a constraint over one without over a catch-all). */
guint64 sxs__activity_route_rank(const char *tmpl, const char *path);
/* An endpoint label ("GET /users/alice") shown as the best matching of routes ("GET /users/{name}"),
 * newly allocated; NULL when none matches. */
char *sxs__activity_route_label(const char *name, const GPtrArray *routes);

/* The endpoint label of a method and path ("GET /orders/{id}"), newly allocated. */
char *sxs__activity_endpoint(const char *method, const char *path);

/* Test support: forget everything. */
void sxs__activity_reset_for_tests(void);
