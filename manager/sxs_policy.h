/* sxs_policy: which runtimes get profiled (pick-first, pick-one, pick-all), as pure decisions over
 * runtime identities. It keeps no state: the caller owns the lists of runtimes already admitted
 * or profiled and makes "first" atomic. */
#pragma once

#include <stddef.h>

#include <glib.h>

#include "sxs_config.h"

/* Who a runtime is: the manager's id, its product version ("10.0.12") and its libcoreclr.so path.
 * version and path are NULL when unknown. */
typedef struct {
  int id;
  const char *version;
  const char *path;
  /* Whether the pick-one selector matches this runtime, when the caller worked it out beforehand
   * (matching resolves paths, which a caller holding a lock must not do):
   * SXS_MATCH_UNKNOWN (the policy works it out), SXS_MATCH_YES or SXS_MATCH_NO. */
  int selector_match;
} SxsRuntimeIdentity;

enum { SXS_MATCH_UNKNOWN = 0, SXS_MATCH_YES = 1, SXS_MATCH_NO = 2 };

typedef enum { SXS_DECISION_PROFILE, SXS_DECISION_DECLINE } SxsDecision;

/* Called at CreateInstance time; candidate's version and path may be NULL. admitted lists the
 * runtimes already admitted (candidate itself is skipped if present).
 * pick-first: PROFILE when no other runtime was admitted, else DECLINE. pick-one and pick-all:
 * always PROFILE (pick-one decides at Initialize, when the identity is known).
 * On DECLINE, *ret_why (g_free) gets one sentence for the user; ret_why may be NULL and is
 * untouched on PROFILE. A NULL cfg means the built-in defaults (pick-all). */
SxsDecision sxs__policy_at_create(const SxsConfig *cfg, const SxsRuntimeIdentity *candidate,
                                  const SxsRuntimeIdentity *const *admitted, size_t n_admitted, char **ret_why);

/* Called at Initialize time with the full identity. profiled lists the runtimes profiled so far
 * (candidate itself is skipped if present).
 * pick-one: PROFILE iff the selector matches the candidate and no other profiled runtime matches
 * it too (the first match wins; two copies of one version are told apart by path).
 * pick-first and pick-all: PROFILE. ret_why as for sxs__policy_at_create. */
SxsDecision sxs__policy_at_initialize(const SxsConfig *cfg, const SxsRuntimeIdentity *candidate,
                                      const SxsRuntimeIdentity *const *profiled, size_t n_profiled, char **ret_why);

/* "10.0.12 at /x/libcoreclr.so", "version unknown at /x/libcoreclr.so", "10.0.12, path unknown",
 * "version and path unknown". g_free. */
char *sxs__policy_describe(const SxsRuntimeIdentity *identity);
