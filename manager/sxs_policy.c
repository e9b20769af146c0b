/* sxs_policy: decides, from the config and the runtimes seen so far, whether a runtime is
 * profiled or declined, and says why in words a user understands. Stateless and lock-free: the
 * caller serializes calls and keeps the lists; nothing here touches a runtime.
 *
 *   CreateInstance ──> sxs__policy_at_create ──> pick-first: only the first runtime goes on
 *                                                 pick-one, pick-all: everyone goes on
 *   Initialize ──────> sxs__policy_at_initialize ──> pick-one: selector matches and no earlier
 *                                                    profiled runtime matched it
 */
#include "sxs_policy.h"

char *sxs__policy_describe(const SxsRuntimeIdentity *identity) {
  const char *version = identity ? identity->version : NULL;
  const char *path = identity ? identity->path : NULL;
  if (version && path)
    return g_strdup_printf("%s at %s", version, path);
  if (path)
    return g_strdup_printf("version unknown at %s", path);
  if (version)
    return g_strdup_printf("%s, path unknown", version);
  return g_strdup("version and path unknown");
}

/* "runtime 1 (10.0.12 at /x/libcoreclr.so)" */
static char *policy_name(const SxsRuntimeIdentity *identity) {
  g_autofree char *described = sxs__policy_describe(identity);
  return g_strdup_printf("runtime %d (%s)", identity->id, described);
}

static gboolean policy_same_runtime(const SxsRuntimeIdentity *a, const SxsRuntimeIdentity *b) {
  return a == b || (a && b && a->id == b->id);
}

static SxsDecision policy_decline(char **ret_why, char *reason) {
  if (ret_why)
    *ret_why = reason;
  else
    g_free(reason);
  return SXS_DECISION_DECLINE;
}

static gboolean policy_matches(const SxsConfig *cfg, const SxsRuntimeIdentity *identity) {
  if (identity && identity->selector_match != SXS_MATCH_UNKNOWN)
    return identity->selector_match == SXS_MATCH_YES;
  return sxs__config_selector_matches(cfg, identity ? identity->version : NULL, identity ? identity->path : NULL);
}

static SxsMode policy_mode(const SxsConfig *cfg) {
  return cfg ? cfg->mode : SXS_MODE_PICK_ALL;
}

SxsDecision sxs__policy_at_create(const SxsConfig *cfg, const SxsRuntimeIdentity *candidate,
                                  const SxsRuntimeIdentity *const *admitted, size_t n_admitted, char **ret_why) {
  if (policy_mode(cfg) != SXS_MODE_PICK_FIRST)
    return SXS_DECISION_PROFILE;
  for (size_t i = 0; i < n_admitted; i++) {
    const SxsRuntimeIdentity *first = admitted[i];
    if (!first || policy_same_runtime(first, candidate))
      continue;
    g_autofree char *name = policy_name(first);
    return policy_decline(ret_why, g_strdup_printf("pick-first: %s is already profiled", name));
  }
  return SXS_DECISION_PROFILE;
}

SxsDecision sxs__policy_at_initialize(const SxsConfig *cfg, const SxsRuntimeIdentity *candidate,
                                      const SxsRuntimeIdentity *const *profiled, size_t n_profiled, char **ret_why) {
  if (policy_mode(cfg) != SXS_MODE_PICK_ONE)
    return SXS_DECISION_PROFILE;
  const char *selector = cfg->selector ? cfg->selector : "";
  if (!policy_matches(cfg, candidate)) {
    g_autofree char *described = sxs__policy_describe(candidate);
    return policy_decline(ret_why, g_strdup_printf("pick-one: runtime=%s does not match %s", selector, described));
  }
  for (size_t i = 0; i < n_profiled; i++) {
    const SxsRuntimeIdentity *earlier = profiled[i];
    if (!earlier || policy_same_runtime(earlier, candidate))
      continue;
    if (!policy_matches(cfg, earlier))
      continue;
    g_autofree char *name = policy_name(earlier);
    return policy_decline(ret_why, g_strdup_printf("pick-one: %s already matched runtime=%s", name, selector));
  }
  return SXS_DECISION_PROFILE;
}
