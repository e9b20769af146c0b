/* sxs_config: reads the SXSPROF_CONFIG key file and turns it into an SxsConfig, or into one precise
 * error line. It does not open the output or log file (the caller does, and falls back).
 *
 * GKeyFile reports no line numbers and silently merges duplicate keys and groups, so the text is
 * scanned here, line by line, with the same lexical rules GKeyFile uses:
 *
 *   file bytes ──> size/type checks ──> NUL and UTF-8 checks ──> line scan ──> unescape ──> values
 *                  (before reading all)                          (structure,   (\s, \n,    (meaning,
 *                                                                 line numbers) \t, \r, \\) cross-key)
 *
 * Nine groups exist: [profiler] (required), [tracing], [stacks], [sampling], [exceptions], [contention],
 * [allocations], [lines] and [symbols] (optional), in any
 * order, each at most once. A key name may belong to several groups (enabled= to [tracing] and
 * [sampling], mode= to [profiler] and [sampling]), so every (group, key) pair is its own entry of
 * config_keys and a key is looked up within the group being read. The scan keeps, for each entry,
 * the line it came from and its raw value, whose escapes are then undone as GKeyFile's string
 * values are (a file the launcher copies with GKeyFile reads back the same). GLib is never asked
 * to parse the file, so nothing it could log about a bad one reaches the program's stderr.
 *
 * include= and exclude= are compiled into a ConfigMatcher that sxs__config_traces() reads from
 * JIT threads: immutable once built, no allocation and no lock when matching.
 */
#include "sxs_config.h"
#include "sxs_version.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

GQuark sxs__config_error_quark(void) {
  return g_quark_from_static_string("sxs-config-error-quark");
}

#define CONFIG_CORECLR "libcoreclr.so"
#define CONFIG_VERSION_MAX_COMPONENTS 4
#define CONFIG_VERSION_MAX_DIGITS 5
#define CONFIG_QUOTE_MAX_CHARS 60

enum {
  GROUP_PROFILER,
  GROUP_TRACING,
  GROUP_STACKS,
  GROUP_SAMPLING,
  GROUP_EXCEPTIONS,
  GROUP_CONTENTION,
  GROUP_ALLOCATIONS,
  GROUP_LINES,
  GROUP_SYMBOLS,
  GROUP_TIMELINE,
  GROUP_LABELS,
  N_GROUPS
};

static const char *const config_groups[N_GROUPS] = {"profiler",   "tracing",    "stacks",      "sampling",
                                                    "exceptions", "contention", "allocations", "lines",
                                                    "symbols",    "timeline",   "labels"};
static const char *const config_group_labels[N_GROUPS] = {"[profiler]",   "[tracing]",    "[stacks]",      "[sampling]",
                                                          "[exceptions]", "[contention]", "[allocations]", "[lines]",
                                                          "[symbols]",    "[timeline]",   "[labels]"};

#define N_KEYS SXS_CONFIG_N_KEYS

typedef struct SxsConfigScan SxsConfigScan;
typedef struct ConfigKey ConfigKey;

/* Parses a key's value (escapes undone) into cfg: FALSE with error set on a bad value. */
typedef gboolean (*ConfigParse)(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error);
/* A check of how a key fits the keys before it, run in the key's turn whether it is given or not:
 * FALSE with error set. */
typedef gboolean (*ConfigCheck)(const SxsConfigScan *scan, char *const values[N_KEYS], SxsConfig *cfg, GError **error);

/* One key of the file: everything about it is in its row of config_key_table (at the end of this
 * file, after the parsers it names), in SxsConfigKey order, which is also the order values are
 * checked in (so the first problem reported is the first key's). */
struct ConfigKey {
  int group;
  const char *name;
  ConfigParse parse;
  size_t field;             /* offsetof(SxsConfig, ...) of the int-sized field set (words, booleans, numbers) */
  const char *const *words; /* a word key: its words, */
  const int *word_values;   /* the value each sets (NULL: its index), */
  size_t n_words;           /* how many, */
  const char *expected;     /* and the list the messages name */
  ConfigCheck check;        /* or NULL */
  const char *help;         /* one line for people: what it does */
};

static const ConfigKey config_key_table[N_KEYS];

#define CONFIG_OUTPUT_EXPECTED                                                                                         \
  "a path prefix such as /tmp/myapp (the profile goes to <prefix>.json) or a folder ending in / "                      \
  "(profiles go to <folder>/<program>-<pid>.json)"
#define CONFIG_LOG_EXPECTED "a file path such as /tmp/sxsprof.log, or stderr"
#define CONFIG_FLUSH_EXPECTED "a whole number of seconds from 0 to 86400 (0: write only at shutdown and exit)"

static const char *const config_modes[] = {
    [SXS_MODE_PICK_FIRST] = "pick-first",
    [SXS_MODE_PICK_ONE] = "pick-one",
    [SXS_MODE_PICK_ALL] = "pick-all",
};
#define CONFIG_MODE_LIST "pick-first, pick-one or pick-all"

static const char *const config_inlinings[] = {"allowed", "disabled"};
#define CONFIG_INLINING_LIST "allowed or disabled"

static const char *const config_routings[] = {
    [SXS_ROUTING_MAPPER2] = "mapper2",
    [SXS_ROUTING_CLOSURE] = "closure",
};
#define CONFIG_ROUTING_LIST "mapper2 or closure"

static const char *const config_hooks[] = {
    [SXS_HOOKS_FULL] = "full",
    [SXS_HOOKS_EMPTY] = "empty",
};
#define CONFIG_HOOKS_LIST "full or empty"

static const char *const config_paths[] = {"fast", "slow"};
#define CONFIG_PATH_LIST "fast or slow"

static const char *const config_timings[] = {"on", "off"};
#define CONFIG_TIMING_LIST "on or off"

static const char *const config_booleans[] = {"true", "false"};
#define CONFIG_BOOLEAN_LIST "true or false"

/* [sampling] mode= and walker=. */
static const char *const config_sampling_modes[] = {
    [SXS_SAMPLING_CPU] = "cpu",
    [SXS_SAMPLING_WALL] = "wall",
};
#define CONFIG_SAMPLING_MODE_LIST "cpu or wall"

static const char *const config_walkers[] = {
    [SXS_WALKER_AUTO] = "auto",
    [SXS_WALKER_SIGNAL] = "signal",
    [SXS_WALKER_SUSPEND] = "suspend",
};
#define CONFIG_WALKER_LIST "signal, suspend or auto"

static const char *const config_engines[] = {
    [SXS_ENGINE_AUTO] = "auto",
    [SXS_ENGINE_PERF] = "perf",
    [SXS_ENGINE_TIMER] = "timer",
};
#define CONFIG_ENGINE_LIST "perf, timer or auto"

static const char *const config_events[] = {
    [SXS_EVENT_CPU_TIME] = "cpu-time",           [SXS_EVENT_CYCLES] = "cycles",
    [SXS_EVENT_INSTRUCTIONS] = "instructions",   [SXS_EVENT_CACHE_MISSES] = "cache-misses",
    [SXS_EVENT_BRANCH_MISSES] = "branch-misses",
};
#define CONFIG_EVENT_LIST "cpu-time, cycles, instructions, cache-misses or branch-misses"

#define CONFIG_FREQUENCY_EXPECTED                                                                                      \
  "a whole number of samples per second from 1 to " G_STRINGIFY(SXS_SAMPLING_FREQUENCY_MAX)

/* [stacks] on=: the word of each SxsStackEvents bit (bit i is word i), then "none" for the empty
 * set; the list is separated as include= is. */
static const char *const config_stack_words[] = {"exception", "jit", "gc", "none"};
#define CONFIG_STACK_NONE 3
G_STATIC_ASSERT(SXS_STACKS_EXCEPTION == 1 << 0 && SXS_STACKS_JIT == 1 << 1 && SXS_STACKS_GC == 1 << 2);
#define CONFIG_STACKS_SEPARATORS ", \t\n\r"
#define CONFIG_STACKS_EXPECTED "expected events among exception, jit and gc, separated by commas or spaces, or none"

/* include= and exclude=: limits, separators and the characters a pattern may not hold. */
#define CONFIG_PATTERN_MAX_BYTES 512
#define CONFIG_PATTERNS_MAX 256
#define CONFIG_PATTERN_SEPARATORS ", \t\n\r"
#define CONFIG_PATTERN_RESERVED "[]{}()|\\\"'"
#define CONFIG_PATTERN_EXPECTED                                                                                        \
  "expected function name patterns such as MyApp.* or Ns.Type.Method, separated by commas or "                         \
  "spaces, using * and ? as wildcards and none of [ ] { } ( ) | \\ \" ' or control characters"

#define CONFIG_SELECTOR_EXPECTED                                                                                       \
  "expected a version prefix of 1 to 4 dot-separated numbers such as 10, 10.0 or 2.0.0, or an "                        \
  "absolute path of a runtime folder or of a libcoreclr.so"
#define CONFIG_RUNTIME_PATH_EXPECTED                                                                                   \
  "expected an absolute path of a runtime folder containing libcoreclr.so or of a libcoreclr.so"

/* What the line scan found: where each group and key was and each key's raw (still escaped) value. */
struct SxsConfigScan {
  const char *source;
  int group_line[N_GROUPS]; /* line of each group's "[group]", 0 when absent */
  int group;                /* group of the lines being read; -1 before the first group line */
  int key_line[N_KEYS];     /* 0: key not given */
  char *raw_value[N_KEYS];  /* leading and trailing white space removed, escapes intact */
};

static void config_scan_clear(SxsConfigScan *scan) {
  for (int i = 0; i < N_KEYS; i++)
    g_clear_pointer(&scan->raw_value[i], g_free);
}

/* Sets error to "<source>:<line>: <message>" (or "<source>: <message>" when line is 0). */
G_GNUC_PRINTF(5, 6)
static void config_fail(GError **error, int code, const char *source, int line, const char *format, ...) {
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  if (line > 0)
    g_set_error(error, SXS_CONFIG_ERROR, code, "%s:%d: %s", source, line, what);
  else
    g_set_error(error, SXS_CONFIG_ERROR, code, "%s: %s", source, what);
}

/* A user-written string in double quotes, control characters (C0, DEL and C1) escaped so that a
 * message stays on one line, cut after CONFIG_QUOTE_MAX_CHARS characters. s must be valid UTF-8. */
static char *config_quote(const char *s) {
  GString *out = g_string_new("\"");
  int n_chars = 0;
  for (const char *p = s; *p; p = g_utf8_next_char(p)) {
    if (n_chars++ == CONFIG_QUOTE_MAX_CHARS) {
      g_string_append(out, "...");
      break;
    }
    unsigned char c = (unsigned char)*p;
    switch (c) {
    case '"': g_string_append(out, "\\\""); break;
    case '\\': g_string_append(out, "\\\\"); break;
    case '\n': g_string_append(out, "\\n"); break;
    case '\r': g_string_append(out, "\\r"); break;
    case '\t': g_string_append(out, "\\t"); break;
    default:
      if (c < 0x20 || c == 0x7f)
        g_string_append_printf(out, "\\x%02x", c);
      else if (c >= 0x80 && g_unichar_iscntrl(g_utf8_get_char(p)))
        g_string_append_printf(out, "\\u%04x", (unsigned)g_utf8_get_char(p));
      else
        g_string_append_len(out, p, g_utf8_next_char(p) - p);
    }
  }
  g_string_append_c(out, '"');
  return g_string_free(out, FALSE);
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions), ASCII
 * case-insensitive; enough for short key and mode names. */
static size_t config_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  g_autofree size_t *d = g_new0(size_t, (la + 1) * (lb + 1));
#define D(i, j) d[(i) * (lb + 1) + (j)]
  for (size_t i = 0; i <= la; i++)
    D(i, 0) = i;
  for (size_t j = 0; j <= lb; j++)
    D(0, j) = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]) ? 0 : 1;
      size_t best = MIN(D(i - 1, j) + 1, D(i, j - 1) + 1);
      best = MIN(best, D(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 2]) &&
          g_ascii_tolower(a[i - 2]) == g_ascii_tolower(b[j - 1]))
        best = MIN(best, D(i - 2, j - 2) + 1);
      D(i, j) = best;
    }
  }
  size_t result = D(la, lb);
#undef D
  return result;
}

/* " (did you mean X?)" for the nearest of candidates when it is close enough, else "". */
static char *config_suggest(const char *word, const char *const *candidates, size_t n_candidates) {
  if (strlen(word) > 64)
    return g_strdup("");
  const char *best = NULL;
  size_t best_distance = SIZE_MAX;
  for (size_t i = 0; i < n_candidates; i++) {
    size_t distance = config_distance(word, candidates[i]);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidates[i];
    }
  }
  if (best && best_distance <= 2 && best_distance < strlen(best))
    return g_strdup_printf(" (did you mean %s?)", best);
  return g_strdup("");
}

static int config_line_of(const char *text, const char *at) {
  int line = 1;
  for (const char *p = text; p < at; p++)
    if (*p == '\n')
      line++;
  return line;
}

/* Opens and reads the file, refusing folders, special files and anything over
 * SXS_CONFIG_MAX_SIZE before reading it. O_NONBLOCK keeps a FIFO from blocking the open. */
static char *config_read(const char *path, gsize *ret_len, GError **error) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT)
      config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "no such file; expected an existing config file");
    else
      config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "cannot open (%s); expected a readable config file",
                  g_strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int saved = errno;
    close(fd);
    config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "cannot stat (%s); expected a readable config file",
                g_strerror(saved));
    return NULL;
  }
  if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) {
    close(fd);
    config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "is %s; expected a config file",
                S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    return NULL;
  }
  if (st.st_size > SXS_CONFIG_MAX_SIZE) {
    close(fd);
    config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0,
                "is %lld bytes; expected a config file of at most 1 MiB (%d bytes)", (long long)st.st_size,
                SXS_CONFIG_MAX_SIZE);
    return NULL;
  }

  /* The file may change between fstat and read: read at most one byte past the limit. */
  gsize capacity = (gsize)st.st_size + 1, len = 0;
  g_autofree char *buffer = g_malloc(capacity + 1);
  for (;;) {
    if (len == capacity) {
      if (capacity > SXS_CONFIG_MAX_SIZE)
        break;
      capacity = MIN(capacity * 2, (gsize)SXS_CONFIG_MAX_SIZE + 1);
      buffer = g_realloc(buffer, capacity + 1);
    }
    ssize_t n = read(fd, buffer + len, capacity - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int saved = errno;
      close(fd);
      config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "cannot read (%s); expected a readable config file",
                  g_strerror(saved));
      return NULL;
    }
    if (n == 0)
      break;
    len += (gsize)n;
  }
  close(fd);
  if (len > SXS_CONFIG_MAX_SIZE) {
    config_fail(error, SXS_CONFIG_ERROR_FILE, path, 0, "is more than %d bytes; expected a config file of at most 1 MiB",
                SXS_CONFIG_MAX_SIZE);
    return NULL;
  }
  buffer[len] = '\0';
  *ret_len = len;
  return g_steal_pointer(&buffer);
}

static gboolean config_check_text(const char *source, const char *text, gsize len, GError **error) {
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    config_fail(error, SXS_CONFIG_ERROR_SYNTAX, source, config_line_of(text, nul),
                "contains a NUL byte; expected a text file");
    return FALSE;
  }
  const char *end = NULL;
  if (!g_utf8_validate_len(text, len, &end)) {
    config_fail(error, SXS_CONFIG_ERROR_SYNTAX, source, config_line_of(text, end),
                "invalid UTF-8 byte 0x%02x; expected UTF-8 text", (unsigned char)*end);
    return FALSE;
  }
  return TRUE;
}

static void config_chomp_space(char *s) {
  size_t n = strlen(s);
  while (n > 0 && g_ascii_isspace(s[n - 1]))
    s[--n] = '\0';
}

/* The group named exactly name[0..len), or -1. */
static int config_group_of(const char *name, size_t len) {
  for (int g = 0; g < N_GROUPS; g++)
    if (strlen(config_groups[g]) == len && strncmp(name, config_groups[g], len) == 0)
      return g;
  return -1;
}

/* The key named key in group g, or -1. */
static int config_key_in_group(const char *key, int g) {
  for (int k = 0; k < N_KEYS; k++)
    if (config_key_table[k].group == g && strcmp(key, config_key_table[k].name) == 0)
      return k;
  return -1;
}

/* The names of group g's keys, in table order, into names (room for N_KEYS): how many. */
static size_t config_group_key_names(int g, const char **names) {
  size_t n = 0;
  for (int k = 0; k < N_KEYS; k++)
    if (config_key_table[k].group == g)
      names[n++] = config_key_table[k].name;
  return n;
}

/* "mode, runtime, output, ...": the keys of group g, as the messages list them (g_free). */
static char *config_group_key_list(int g) {
  const char *names[N_KEYS];
  size_t n = config_group_key_names(g, names);
  GString *list = g_string_new(NULL);
  for (size_t i = 0; i < n; i++)
    g_string_append_printf(list, "%s%s", i ? ", " : "", names[i]);
  return g_string_free(list, FALSE);
}

/* "[profiler], [tracing], ... or [lines]": every group (g_free). */
static char *config_group_list(void) {
  GString *list = g_string_new(NULL);
  for (int g = 0; g < N_GROUPS; g++)
    g_string_append_printf(list, "%s%s", g == 0 ? "" : g + 1 == N_GROUPS ? " or " : ", ", config_group_labels[g]);
  return g_string_free(list, FALSE);
}

/* The first group, in config_groups order, that has a key named key, or -1: the group a message
 * names for a key written outside any group or in another group. */
static int config_home_group(const char *key) {
  for (int g = 0; g < N_GROUPS; g++)
    if (config_key_in_group(key, g) >= 0)
      return g;
  return -1;
}

/* A "[group]" line (start points at '['; trailing blanks already removed). */
static gboolean config_scan_group_line(SxsConfigScan *scan, int line_no, char *start, GError **error) {
  const char *source = scan->source;
  char *close = strchr(start, ']');
  if (!close || close[1] != '\0') {
    /* Name the group the line was meant to open when its text is one, else all of them. */
    const char *name = start + 1;
    int g = config_group_of(name, close ? (size_t)(close - name) : strlen(name));
    g_autofree char *quoted = config_quote(start);
    g_autofree char *all = config_group_list();
    config_fail(error, SXS_CONFIG_ERROR_SYNTAX, source, line_no,
                "malformed group line %s; expected %s alone on its line", quoted,
                g >= 0 ? config_group_labels[g] : all);
    return FALSE;
  }
  *close = '\0';
  const char *name = start + 1;
  int g = config_group_of(name, strlen(name));
  if (g < 0) {
    g_autofree char *hint = config_suggest(name, config_groups, N_GROUPS);
    g_autofree char *quoted = config_quote(name);
    g_autofree char *all = config_group_list();
    config_fail(error, SXS_CONFIG_ERROR_UNKNOWN, source, line_no, "unknown group %s%s; expected %s", quoted, hint, all);
    return FALSE;
  }
  if (scan->group_line[g]) {
    config_fail(error, SXS_CONFIG_ERROR_DUPLICATE, source, line_no,
                "duplicate group %s (first on line %d); expected one %s group", config_group_labels[g],
                scan->group_line[g], config_group_labels[g]);
    return FALSE;
  }
  scan->group_line[g] = line_no;
  scan->group = g;
  return TRUE;
}

/* Classifies one line (its '\n' and a '\r' before it removed) the way GKeyFile does: blank or
 * '#' comment, "[group]" with only blanks after ']', or "key=value" with a non-empty key. A key
 * belongs to the group of the last group line and is looked up among that group's keys only; a
 * key of another group is unknown there, and the message names the first group that has it. */
static gboolean config_scan_line(SxsConfigScan *scan, int line_no, char *line, GError **error) {
  const char *source = scan->source;
  char *start = line;
  while (g_ascii_isspace(*start))
    start++;
  config_chomp_space(start);
  if (*start == '\0' || *start == '#')
    return TRUE;
  if (*start == '[')
    return config_scan_group_line(scan, line_no, start, error);

  char *equals = strchr(start, '=');
  if (!equals || equals == start) {
    g_autofree char *quoted = config_quote(start);
    config_fail(error, SXS_CONFIG_ERROR_SYNTAX, source, line_no,
                "cannot parse %s; expected a [group] line, a key=value line or a # comment", quoted);
    return FALSE;
  }
  *equals = '\0';
  char *key = start, *value = equals + 1;
  config_chomp_space(key);
  while (g_ascii_isspace(*value))
    value++;

  g_autofree char *quoted_key = config_quote(key);
  if (scan->group < 0) {
    int home = config_home_group(key);
    g_autofree char *all = config_group_list();
    config_fail(error, SXS_CONFIG_ERROR_SYNTAX, source, line_no,
                "key %s is outside any group; expected a %s line before it", quoted_key,
                home >= 0 ? config_group_labels[home] : all);
    return FALSE;
  }
  int g = scan->group;
  int k = config_key_in_group(key, g);
  if (k < 0) {
    int home = config_home_group(key);
    g_autofree char *hint = NULL;
    if (home >= 0)
      hint = g_strdup_printf(" (it belongs in %s, not %s)", config_group_labels[home], config_group_labels[g]);
    else {
      const char *names[N_KEYS];
      hint = config_suggest(key, names, config_group_key_names(g, names));
    }
    g_autofree char *list = config_group_key_list(g);
    config_fail(error, SXS_CONFIG_ERROR_UNKNOWN, source, line_no, "unknown key %s%s; expected one of %s", quoted_key,
                hint, list);
    return FALSE;
  }
  if (scan->key_line[k]) {
    config_fail(error, SXS_CONFIG_ERROR_DUPLICATE, source, line_no,
                "duplicate key %s (first on line %d); expected each key at most once", quoted_key, scan->key_line[k]);
    return FALSE;
  }
  scan->key_line[k] = line_no;
  scan->raw_value[k] = g_strdup(value);
  return TRUE;
}

static gboolean config_scan_text(SxsConfigScan *scan, const char *text, gsize len, GError **error) {
  int line_no = 1;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    gsize line_len = (gsize)(line_end - p);
    if (line_len > 0 && p[line_len - 1] == '\r')
      line_len--;
    g_autofree char *line = g_strndup(p, line_len);
    if (!config_scan_line(scan, line_no, line, error))
      return FALSE;
    line_no++;
    p = nl ? nl + 1 : end;
  }
  if (!scan->group_line[GROUP_PROFILER]) {
    config_fail(error, SXS_CONFIG_ERROR_UNKNOWN, scan->source, 0,
                "no [profiler] group; expected a [profiler] line followed by key=value settings");
    return FALSE;
  }
  return TRUE;
}

/* Decodes the key-file escapes of one raw value (\s, \t, \n, \r, \\); NULL at any other
 * backslash, a lone one at the end included. Done here rather than by GKeyFile, whose decoder
 * sets its GError twice on "\x\" (an invalid escape, then a backslash at the end) and so prints
 * a GLib warning on the program's stderr. */
static char *config_unescape_value(const char *raw) {
  GString *out = g_string_sized_new(strlen(raw));
  for (const char *p = raw; *p; p++) {
    if (*p != '\\') {
      g_string_append_c(out, *p);
      continue;
    }
    char c = *++p;
    char decoded = c == 's' ? ' ' : c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '\\' ? '\\' : '\0';
    if (decoded == '\0') {
      g_string_free(out, TRUE);
      return NULL;
    }
    g_string_append_c(out, decoded);
  }
  return g_string_free(out, FALSE);
}

/* Undoes the escapes of the raw values. ret_values[k] is NULL for keys not given. */
static gboolean config_unescape(const SxsConfigScan *scan, char *ret_values[N_KEYS], GError **error) {
  char *values[N_KEYS] = {NULL};
  for (int k = 0; k < N_KEYS; k++) {
    if (!scan->key_line[k])
      continue;
    values[k] = config_unescape_value(scan->raw_value[k]);
    if (!values[k]) {
      config_fail(error, SXS_CONFIG_ERROR_SYNTAX, scan->source, scan->key_line[k],
                  "invalid escape sequence in the value of %s=; expected \\s, \\n, \\t, \\r or \\\\ after "
                  "a backslash",
                  config_key_table[k].name);
      for (int i = 0; i < N_KEYS; i++)
        g_free(values[i]);
      return FALSE;
    }
  }
  memcpy(ret_values, values, sizeof values);
  return TRUE;
}

/* Checks the version-prefix grammar: 1 to 4 dot-separated components of 1 to 5 decimal digits.
 * Returns NULL when valid, else a short description of the first problem. */
static char *config_version_problem(const char *s) {
  const char *dash = strchr(s, '-');
  if (dash && dash != s && dash[1] != '\0') {
    g_autofree char *head = g_strndup(s, (gsize)(dash - s));
    g_autofree char *head_problem = config_version_problem(head);
    if (!head_problem) {
      g_autofree char *quoted = config_quote(dash);
      return g_strdup_printf("prerelease suffix %s is not supported", quoted);
    }
  }
  g_auto(GStrv) parts = g_strsplit(s, ".", -1);
  guint n = g_strv_length(parts);
  for (guint i = 0; i < n; i++) {
    const char *c = parts[i];
    if (*c == '\0')
      return g_strdup("empty component");
    for (const char *q = c; *q; q++) {
      if (!g_ascii_isdigit(*q)) {
        g_autofree char *quoted = config_quote(c);
        return g_strdup_printf("component %s is not a number", quoted);
      }
    }
    if (strlen(c) > CONFIG_VERSION_MAX_DIGITS) {
      g_autofree char *quoted = config_quote(c);
      return g_strdup_printf("component %s has more than %d digits", quoted, CONFIG_VERSION_MAX_DIGITS);
    }
  }
  if (n > CONFIG_VERSION_MAX_COMPONENTS)
    return g_strdup_printf("%u components, at most %d allowed", n, CONFIG_VERSION_MAX_COMPONENTS);
  return NULL;
}

static gboolean config_is_relative_path(const char *s) {
  return strchr(s, '/') != NULL || s[0] == '~' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* Parses runtime=: a version prefix is kept as written, a path is resolved and must name a
 * libcoreclr.so or a folder that holds one. */
static gboolean config_parse_runtime(const SxsConfigScan *scan, const char *value, SxsSelectorKind *ret_kind,
                                     char **ret_selector, GError **error) {
  const char *source = scan->source;
  int line = scan->key_line[SXS_KEY_PROFILER_RUNTIME];
  g_autofree char *quoted = config_quote(value);
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "runtime= is empty; " CONFIG_SELECTOR_EXPECTED);
    return FALSE;
  }
  if (value[0] != '/') {
    if (config_is_relative_path(value)) {
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime path %s is relative; " CONFIG_RUNTIME_PATH_EXPECTED, quoted);
      return FALSE;
    }
    g_autofree char *problem = config_version_problem(value);
    if (problem) {
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime %s is not a valid version prefix (%s); " CONFIG_SELECTOR_EXPECTED, quoted, problem);
      return FALSE;
    }
    *ret_kind = SXS_SELECTOR_VERSION;
    *ret_selector = g_strdup(value);
    return TRUE;
  }

  g_autofree char *resolved = realpath(value, NULL);
  if (!resolved) {
    if (errno == ENOENT)
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime path %s does not exist; " CONFIG_RUNTIME_PATH_EXPECTED, quoted);
    else
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime path %s cannot be resolved (%s); " CONFIG_RUNTIME_PATH_EXPECTED, quoted, g_strerror(errno));
    return FALSE;
  }
  struct stat st;
  if (stat(resolved, &st) == 0 && S_ISDIR(st.st_mode)) {
    g_autofree char *coreclr = g_build_filename(resolved, CONFIG_CORECLR, NULL);
    if (stat(coreclr, &st) != 0 || !S_ISREG(st.st_mode)) {
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime path %s is a folder without " CONFIG_CORECLR "; " CONFIG_RUNTIME_PATH_EXPECTED, quoted);
      return FALSE;
    }
  } else {
    g_autofree char *given_name = g_path_get_basename(value);
    g_autofree char *resolved_name = g_path_get_basename(resolved);
    gboolean named = strcmp(given_name, CONFIG_CORECLR) == 0 || strcmp(resolved_name, CONFIG_CORECLR) == 0;
    if (stat(resolved, &st) != 0 || !S_ISREG(st.st_mode) || !named) {
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "runtime path %s is neither a folder containing " CONFIG_CORECLR " nor a file named " CONFIG_CORECLR
                  "; " CONFIG_RUNTIME_PATH_EXPECTED,
                  quoted);
      return FALSE;
    }
  }
  *ret_kind = SXS_SELECTOR_PATH;
  *ret_selector = g_steal_pointer(&resolved);
  return TRUE;
}

/* What is wrong with an output= or log= value before it is made absolute, or NULL: empty, or
 * starting with '~' (not expanded). */
static char *config_path_problem(const char *value) {
  if (*value == '\0')
    return g_strdup("is empty");
  if (value[0] == '~')
    return g_strdup("starts with ~, which is not expanded");
  return NULL;
}

/* Does a path name a folder by its spelling: a final '/', "/." or "/..", or "." or "..". */
static gboolean config_names_folder(const char *value) {
  g_autofree char *base = g_path_get_basename(value);
  return g_str_has_suffix(value, "/") || strcmp(base, ".") == 0 || strcmp(base, "..") == 0;
}

/* Checks output= or log= and makes it absolute against the current folder. A log path that
 * names a folder is refused; an output that names one selects folder output. */
static gboolean config_parse_file_path(const SxsConfigScan *scan, int k, const char *value, const char *expected,
                                       char **ret_path, gboolean *ret_is_folder, GError **error) {
  const char *source = scan->source, *key = config_key_table[k].name;
  int line = scan->key_line[k];
  g_autofree char *quoted = config_quote(value);
  g_autofree char *problem = config_path_problem(value);
  if (problem) {
    if (*value == '\0')
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s= %s; expected %s", key, problem, expected);
    else
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s=%s %s; expected %s", key, quoted, problem, expected);
    return FALSE;
  }
  gboolean is_folder = config_names_folder(value);
  if (is_folder && !ret_is_folder) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s=%s names a folder; expected %s", key, quoted,
                expected);
    return FALSE;
  }
  *ret_path = g_canonicalize_filename(value, NULL);
  if (ret_is_folder)
    *ret_is_folder = is_folder;
  return TRUE;
}

gboolean sxs__config_set_output(SxsConfig *cfg, const char *value, const char *what, GError **error) {
  g_autofree char *problem = config_path_problem(value ? value : "");
  if (problem) {
    g_autofree char *quoted = config_quote(value ? value : "");
    g_set_error(error, SXS_CONFIG_ERROR, SXS_CONFIG_ERROR_VALUE, "%s=%s %s; expected %s", what, quoted, problem,
                CONFIG_OUTPUT_EXPECTED);
    return FALSE;
  }
  g_free(cfg->output);
  cfg->output = g_canonicalize_filename(value, NULL);
  cfg->output_is_folder = config_names_folder(value);
  cfg->output_given = TRUE;
  return TRUE;
}

/* flush=: a whole number of seconds, 0 to SXS_CONFIG_FLUSH_MAX. */
static gboolean config_parse_flush(const SxsConfigScan *scan, const char *value, int *ret_seconds, GError **error) {
  int line = scan->key_line[SXS_KEY_PROFILER_FLUSH];
  g_autofree char *quoted = config_quote(value);
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line, "flush= is empty; expected " CONFIG_FLUSH_EXPECTED);
    return FALSE;
  }
  size_t digits = strspn(value, "0123456789");
  if (value[digits] != '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                "flush=%s is not a whole number of seconds; expected " CONFIG_FLUSH_EXPECTED, quoted);
    return FALSE;
  }
  if (digits > 6 || g_ascii_strtoull(value, NULL, 10) > SXS_CONFIG_FLUSH_MAX) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                "flush=%s is too large; expected " CONFIG_FLUSH_EXPECTED, quoted);
    return FALSE;
  }
  *ret_seconds = (int)g_ascii_strtoull(value, NULL, 10);
  return TRUE;
}

/* frequency=: a whole number of samples per second, 1 to SXS_SAMPLING_FREQUENCY_MAX. Digits with
 * an optional leading '-' are a number, and one outside the range (0, negative, too large) is
 * named as written; anything else (99.5, 99Hz, +99) is not a whole number. */
static gboolean config_parse_frequency(const SxsConfigScan *scan, const char *value, int *ret_frequency,
                                       GError **error) {
  int line = scan->key_line[SXS_KEY_SAMPLING_FREQUENCY];
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                "frequency= is empty; expected " CONFIG_FREQUENCY_EXPECTED);
    return FALSE;
  }
  gboolean negative = value[0] == '-';
  const char *number = value + (negative ? 1 : 0);
  size_t digits = strspn(number, "0123456789");
  if (digits == 0 || number[digits] != '\0') {
    g_autofree char *quoted = config_quote(value);
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                "frequency=%s is not a whole number of samples per second; expected " CONFIG_FREQUENCY_EXPECTED,
                quoted);
    return FALSE;
  }
  size_t significant = digits - MIN(strspn(number, "0"), digits - 1); /* leading zeros do not count */
  guint64 n = significant > 6 ? G_MAXUINT64 : g_ascii_strtoull(number, NULL, 10);
  if (negative || n < 1 || n > SXS_SAMPLING_FREQUENCY_MAX) {
    /* Only a sign and digits: safe to print as written, cut like a quote. */
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                "frequency=%.*s%s is out of range; expected " CONFIG_FREQUENCY_EXPECTED, CONFIG_QUOTE_MAX_CHARS, value,
                strlen(value) > CONFIG_QUOTE_MAX_CHARS ? "..." : "");
    return FALSE;
  }
  *ret_frequency = (int)n;
  return TRUE;
}

/* A value that must be one of a few words (mode=, inlining=, routing=, hooks=, walker=): returns the
 * index of the word, or -1 with error set, hinting at the nearest word when it is close. */
static int config_parse_word(const SxsConfigScan *scan, int k, const char *value, const char *const *words,
                             size_t n_words, const char *list, GError **error) {
  int line = scan->key_line[k];
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line, "%s= is empty; expected %s",
                config_key_table[k].name, list);
    return -1;
  }
  for (size_t i = 0; i < n_words; i++)
    if (strcmp(value, words[i]) == 0)
      return (int)i;
  g_autofree char *quoted = config_quote(value);
  g_autofree char *hint = config_suggest(value, words, n_words);
  config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line, "unknown %s %s%s; expected %s",
              config_key_table[k].name, quoted, hint, list);
  return -1;
}

/* enabled=: exactly true or false (not GKeyFile's 1 and 0, nor yes or on). */
static gboolean config_parse_boolean(const SxsConfigScan *scan, int k, const char *value, gboolean *ret_value,
                                     GError **error) {
  int line = scan->key_line[k];
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line, "%s= is empty; expected " CONFIG_BOOLEAN_LIST,
                config_key_table[k].name);
    return FALSE;
  }
  if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
    *ret_value = strcmp(value, "true") == 0;
    return TRUE;
  }
  g_autofree char *quoted = config_quote(value);
  g_autofree char *hint = config_suggest(value, config_booleans, G_N_ELEMENTS(config_booleans));
  config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
              "%s=%s is not true or false%s; expected " CONFIG_BOOLEAN_LIST, config_key_table[k].name, quoted, hint);
  return FALSE;
}

/* What is wrong with one include= or exclude= pattern, or NULL: a control character (C0, DEL or
 * C1) or a reserved character (the first one is named), else more than CONFIG_PATTERN_MAX_BYTES
 * bytes. *ret_expected is set to what the message should say is expected. pattern is valid
 * UTF-8 and holds no separator. */
static char *config_pattern_problem(const char *pattern, const char **ret_expected) {
  *ret_expected = CONFIG_PATTERN_EXPECTED;
  for (const char *p = pattern; *p; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char(p);
    if (g_unichar_iscntrl(c))
      return c < 0x80 ? g_strdup_printf("contains the control character 0x%02x", (unsigned)c)
                      : g_strdup_printf("contains the control character U+%04X", (unsigned)c);
    if (c < 0x80 && strchr(CONFIG_PATTERN_RESERVED, (int)c))
      return g_strdup_printf("contains '%c', which is reserved", (char)c);
  }
  size_t len = strlen(pattern);
  if (len > CONFIG_PATTERN_MAX_BYTES) {
    *ret_expected = "expected patterns of at most " G_STRINGIFY(CONFIG_PATTERN_MAX_BYTES) " bytes";
    return g_strdup_printf("is %zu bytes long", len);
  }
  return NULL;
}

/* include= or exclude=: patterns separated by any run of commas and white space. Returns the
 * patterns (NULL-terminated, at least one) or NULL with error set. */
static char **config_parse_patterns(const SxsConfigScan *scan, int k, const char *value, GError **error) {
  const char *source = scan->source, *key = config_key_table[k].name;
  int line = scan->key_line[k];
  g_autoptr(GPtrArray) patterns = g_ptr_array_new_with_free_func(g_free);
  for (const char *p = value; *p;) {
    p += strspn(p, CONFIG_PATTERN_SEPARATORS);
    size_t len = strcspn(p, CONFIG_PATTERN_SEPARATORS);
    if (len > 0)
      g_ptr_array_add(patterns, g_strndup(p, len));
    p += len;
  }
  if (patterns->len == 0) {
    if (*value == '\0') {
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s= is empty; " CONFIG_PATTERN_EXPECTED, key);
    } else {
      g_autofree char *quoted = config_quote(value);
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s=%s holds no pattern; " CONFIG_PATTERN_EXPECTED, key,
                  quoted);
    }
    return NULL;
  }
  if (patterns->len > CONFIG_PATTERNS_MAX) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s= holds %u patterns; expected at most %d patterns", key,
                patterns->len, CONFIG_PATTERNS_MAX);
    return NULL;
  }
  for (guint i = 0; i < patterns->len; i++) {
    const char *pattern = g_ptr_array_index(patterns, i), *expected = NULL;
    g_autofree char *problem = config_pattern_problem(pattern, &expected);
    if (!problem)
      continue;
    g_autofree char *quoted = config_quote(pattern);
    config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "%s pattern %s %s; %s", key, quoted, problem, expected);
    return NULL;
  }
  g_ptr_array_add(patterns, NULL);
  return (char **)g_ptr_array_free(g_steal_pointer(&patterns), FALSE);
}

/* One compiled pattern: its text and length, so that matching needs no strlen of the pattern. */
typedef struct {
  char *text;
  size_t len;
} ConfigPattern;

/* SxsTracingConfig.matcher: the include patterns, then the exclude patterns, each an owned copy.
 * Built once while the config is read and never changed after, so any thread may match against
 * it without a lock. */
typedef struct {
  size_t n_include, n_exclude;
  ConfigPattern patterns[];
} ConfigMatcher;

static ConfigMatcher *config_matcher_new(char **include, char **exclude) {
  size_t n_include = include ? g_strv_length(include) : 0, n_exclude = exclude ? g_strv_length(exclude) : 0;
  ConfigMatcher *m = g_malloc(sizeof *m + (n_include + n_exclude) * sizeof m->patterns[0]);
  m->n_include = n_include;
  m->n_exclude = n_exclude;
  for (size_t i = 0; i < n_include + n_exclude; i++) {
    const char *text = i < n_include ? include[i] : exclude[i - n_include];
    m->patterns[i].text = g_strdup(text);
    m->patterns[i].len = strlen(text);
  }
  return m;
}

static void config_matcher_free(ConfigMatcher *m) {
  if (!m)
    return;
  for (size_t i = 0; i < m->n_include + m->n_exclude; i++)
    g_free(m->patterns[i].text);
  g_free(m);
}

/* Length of the UTF-8 character that starts at s[0], at most n (s may be cut mid-character). */
static size_t config_utf8_char_len(const char *s, size_t n) {
  size_t i = 1;
  while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
    i++;
  return i;
}

/* Does the whole of s[0..n) match the pattern? '*' matches any run of characters ('.' included),
 * '?' exactly one character, anything else itself. Greedy with one backtrack point, the last
 * '*': on a mismatch that '*' takes one more character and matching resumes after it, which is
 * enough for these two wildcards. At worst O(len * n); no allocation, no recursion, and always
 * moving by whole UTF-8 characters. Context: any thread. */
static gboolean config_pattern_match(const ConfigPattern *pattern, const char *s, size_t n) {
  const char *p = pattern->text;
  size_t len = pattern->len, pi = 0, si = 0;
  size_t star_pi = SIZE_MAX, star_si = 0;
  while (si < n) {
    if (pi < len && p[pi] == '*') {
      star_pi = ++pi;
      star_si = si;
    } else if (pi < len && p[pi] == '?') {
      pi++;
      si += config_utf8_char_len(s + si, n - si);
    } else if (pi < len && p[pi] == s[si]) {
      pi++;
      si++;
    } else if (star_pi != SIZE_MAX) {
      star_si += config_utf8_char_len(s + star_si, n - star_si);
      pi = star_pi;
      si = star_si;
    } else {
      return FALSE;
    }
  }
  while (pi < len && p[pi] == '*')
    pi++;
  return pi == len;
}

gboolean sxs__config_pattern_matches(const char *pattern, const char *name) {
  ConfigPattern p = {.text = (char *)pattern, .len = strlen(pattern)};
  return config_pattern_match(&p, name ? name : "", name ? strlen(name) : 0);
}

/* A name is traced when it matches an include pattern (or there is none) and no exclude
 * pattern. A NULL name is taken as "". Neither [tracing] enabled= nor anything else is looked
 * at: this answers only which functions the patterns select.
 * Context: any thread, notably the runtime's JIT threads inside the function-ID mapper; reads
 * immutable data, takes no lock and allocates nothing. */
gboolean sxs__config_traces(const SxsConfig *cfg, const char *name) {
  if (!cfg || !cfg->tracing.matcher)
    return TRUE;
  const ConfigMatcher *m = cfg->tracing.matcher;
  if (!name)
    name = "";
  size_t n = strlen(name);
  gboolean included = m->n_include == 0;
  for (size_t i = 0; i < m->n_include && !included; i++)
    included = config_pattern_match(&m->patterns[i], name, n);
  if (!included)
    return FALSE;
  for (size_t i = m->n_include; i < m->n_include + m->n_exclude; i++)
    if (config_pattern_match(&m->patterns[i], name, n))
      return FALSE;
  return TRUE;
}

/* [stacks] on=: words separated by any run of commas and white space, each of exception, jit
 * and gc at most once, or none alone for the empty set. The first problem, left to right, is
 * reported: an unknown word (with a hint when one is close), a word given twice, then none
 * together with events. *ret_events is set only on success. */
static gboolean config_parse_stacks(const SxsConfigScan *scan, const char *value, guint *ret_events, GError **error) {
  const char *source = scan->source;
  int line = scan->key_line[SXS_KEY_STACKS_ON];
  if (*value == '\0') {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "on= is empty; " CONFIG_STACKS_EXPECTED);
    return FALSE;
  }
  guint seen = 0; /* bit i: config_stack_words[i] given */
  for (const char *p = value; *p;) {
    p += strspn(p, CONFIG_STACKS_SEPARATORS);
    size_t len = strcspn(p, CONFIG_STACKS_SEPARATORS);
    if (len == 0)
      break;
    g_autofree char *word = g_strndup(p, len);
    p += len;
    size_t i = 0;
    while (i < G_N_ELEMENTS(config_stack_words) && strcmp(word, config_stack_words[i]) != 0)
      i++;
    if (i == G_N_ELEMENTS(config_stack_words)) {
      g_autofree char *quoted = config_quote(word);
      g_autofree char *hint = config_suggest(word, config_stack_words, G_N_ELEMENTS(config_stack_words));
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "unknown stack event %s%s; " CONFIG_STACKS_EXPECTED,
                  quoted, hint);
      return FALSE;
    }
    if (seen & (1u << i)) {
      g_autofree char *quoted = config_quote(word);
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "stack event %s given twice; expected each event at most once", quoted);
      return FALSE;
    }
    seen |= 1u << i;
  }
  guint none = 1u << CONFIG_STACK_NONE;
  if (seen == 0 || ((seen & none) && seen != none)) {
    g_autofree char *quoted = config_quote(value);
    if (seen == 0)
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line, "on=%s holds no event; " CONFIG_STACKS_EXPECTED, quoted);
    else
      config_fail(error, SXS_CONFIG_ERROR_VALUE, source, line,
                  "on=%s combines none with other events; expected none alone, or events without none", quoted);
    return FALSE;
  }
  *ret_events = seen & ~none;
  return TRUE;
}

/* [lines] paths= and [symbols] debug_dirs= (key): folders separated by ':', each made absolute
 * against the current folder. */
static gboolean config_parse_paths(const SxsConfigScan *scan, int key, const char *value, char ***ret_paths,
                                   GError **error) {
  int line = scan->key_line[key];
  g_auto(GStrv) parts = g_strsplit(value, ":", -1);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; parts[i]; i++) {
    g_autofree char *problem = config_path_problem(parts[i]);
    if (problem) {
      g_autofree char *quoted = config_quote(value);
      config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, line,
                  "%s=%s holds a folder that %s; expected folders separated by :, such as /opt/app/symbols",
                  config_key_table[key].name, quoted, problem);
      return FALSE;
    }
    g_ptr_array_add(paths, g_canonicalize_filename(parts[i], NULL));
  }
  g_ptr_array_add(paths, NULL);
  g_strfreev(*ret_paths);
  *ret_paths = (char **)g_ptr_array_free(g_steal_pointer(&paths), FALSE);
  return TRUE;
}

/* ---- the keys' parsers, as the table calls them ---- */

/* The int-sized field of cfg that key k sets. */
static int *config_field(SxsConfig *cfg, int k) {
  return (int *)(void *)((char *)cfg + config_key_table[k].field);
}

/* A word key: the word's value into its field. */
static gboolean config_key_word(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  const ConfigKey *key = &config_key_table[k];
  int i = config_parse_word(scan, k, value, key->words, key->n_words, key->expected, error);
  if (i < 0)
    return FALSE;
  *config_field(cfg, k) = key->word_values ? key->word_values[i] : i;
  return TRUE;
}

static gboolean config_key_boolean(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                   GError **error) {
  gboolean b = FALSE;
  if (!config_parse_boolean(scan, k, value, &b, error))
    return FALSE;
  *config_field(cfg, k) = b;
  return TRUE;
}

static gboolean config_key_runtime(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                   GError **error) {
  (void)k;
  return config_parse_runtime(scan, value, &cfg->selector_kind, &cfg->selector, error);
}

static gboolean config_key_output(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  char *output = NULL;
  gboolean is_folder = FALSE;
  if (!config_parse_file_path(scan, k, value, CONFIG_OUTPUT_EXPECTED, &output, &is_folder, error))
    return FALSE;
  g_free(cfg->output);
  cfg->output = output;
  cfg->output_is_folder = is_folder;
  cfg->output_given = TRUE;
  return TRUE;
}

static gboolean config_key_log(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  if (strcmp(value, "stderr") == 0) {
    cfg->log_kind = SXS_LOG_STDERR;
    return TRUE;
  }
  if (!config_parse_file_path(scan, k, value, CONFIG_LOG_EXPECTED, &cfg->log_path, NULL, error))
    return FALSE;
  cfg->log_kind = SXS_LOG_FILE;
  return TRUE;
}

static gboolean config_key_flush(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  return config_parse_flush(scan, value, config_field(cfg, k), error);
}

static gboolean config_key_formats(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                   GError **error) {
  g_autofree char *problem = NULL;
  if (!sxs__config_parse_formats(value, FALSE, &cfg->formats, &problem)) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[k], "%s", problem);
    return FALSE;
  }
  return TRUE;
}

/* include= and exclude=: the patterns into their field (char **); the matcher is built from both
 * once every key is read. */
static gboolean config_key_patterns(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                    GError **error) {
  char **patterns = config_parse_patterns(scan, k, value, error);
  if (!patterns)
    return FALSE;
  char ***field = (char ***)(void *)((char *)cfg + config_key_table[k].field);
  g_strfreev(*field);
  *field = patterns;
  return TRUE;
}

static gboolean config_key_stacks(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  (void)k;
  return config_parse_stacks(scan, value, &cfg->stacks_on, error);
}

/* window=: a time (a whole number with s, m or h; seconds without) up to SXS_CONFIG_TIMELINE_WINDOW_MAX_S,
 * 0 for the whole run. */
static gboolean config_key_window(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  size_t digits = strspn(value, "0123456789");
  guint64 n = digits > 0 && digits <= 9 ? g_ascii_strtoull(value, NULL, 10) : G_MAXUINT64;
  const char *unit = value + digits;
  guint64 scale = g_str_equal(unit, "") || g_str_equal(unit, "s") ? 1
                  : g_str_equal(unit, "m")                        ? 60
                  : g_str_equal(unit, "h")                        ? 3600
                                                                  : 0;
  if (n == G_MAXUINT64 || scale == 0 || n * scale > SXS_CONFIG_TIMELINE_WINDOW_MAX_S) {
    g_autofree char *quoted = config_quote(value);
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[k],
                "window=%s is not a time of the run to keep in detail; expected 0 (the whole run) or a whole number "
                "of seconds, or of minutes or hours with m or h (10m, 2h), up to %dh",
                quoted, SXS_CONFIG_TIMELINE_WINDOW_MAX_S / 3600);
    return FALSE;
  }
  *(guint *)config_field(cfg, k) = (guint)(n * scale);
  return TRUE;
}

/* max_distinct=: a whole number of stacks within its bounds. */
static gboolean config_key_max_distinct(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                        GError **error) {
  size_t digits = strspn(value, "0123456789");
  guint64 n = digits > 0 && digits <= 9 && value[digits] == '\0' ? g_ascii_strtoull(value, NULL, 10) : 0;
  if (n < SXS_CONFIG_STACKS_MAX_DISTINCT_MIN || n > SXS_CONFIG_STACKS_MAX_DISTINCT_MAX) {
    g_autofree char *quoted = config_quote(value);
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[k],
                "max_distinct=%s is not a number of stacks from %d to %d; expected a whole number from %d to %d "
                "(default %d)",
                quoted, SXS_CONFIG_STACKS_MAX_DISTINCT_MIN, SXS_CONFIG_STACKS_MAX_DISTINCT_MAX,
                SXS_CONFIG_STACKS_MAX_DISTINCT_MIN, SXS_CONFIG_STACKS_MAX_DISTINCT_MAX,
                SXS_CONFIG_STACKS_MAX_DISTINCT_DEFAULT);
    return FALSE;
  }
  *(guint *)config_field(cfg, k) = (guint)n;
  return TRUE;
}

static gboolean config_key_frequency(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg,
                                     GError **error) {
  return config_parse_frequency(scan, value, config_field(cfg, k), error);
}

/* paths= and debug_dirs=: folders into their field (char **). */
static gboolean config_key_paths(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  return config_parse_paths(scan, k, value, (char ***)(void *)((char *)cfg + config_key_table[k].field), error);
}

/* event=: a hardware event is counted per thread by perf_events, neither by the timers nor in wall
 * time (mode= and engine= are read before). */
static gboolean config_key_event(const SxsConfigScan *scan, int k, const char *value, SxsConfig *cfg, GError **error) {
  if (!config_key_word(scan, k, value, cfg, error))
    return FALSE;
  const SxsSamplingConfig *sampling = &cfg->sampling;
  if (sampling->event != SXS_EVENT_CPU_TIME &&
      (sampling->engine == SXS_ENGINE_TIMER || sampling->mode == SXS_SAMPLING_WALL)) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[k],
                "event=%s is counted by perf_events on each thread's CPU; it goes with mode=cpu and engine=perf or "
                "auto, not %s",
                config_events[sampling->event], sampling->mode == SXS_SAMPLING_WALL ? "mode=wall" : "engine=timer");
    return FALSE;
  }
  return TRUE;
}

/* ---- how keys fit together ---- */

/* runtime= goes with mode=pick-one, and pick-one needs it (mode= is read before). */
static gboolean config_check_runtime(const SxsConfigScan *scan, char *const values[N_KEYS], SxsConfig *cfg,
                                     GError **error) {
  (void)values;
  if (scan->key_line[SXS_KEY_PROFILER_RUNTIME] && cfg->mode != SXS_MODE_PICK_ONE) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[SXS_KEY_PROFILER_RUNTIME],
                "runtime= is only used with mode=pick-one; expected no runtime= line with mode=%s%s",
                sxs__config_mode_name(cfg->mode), scan->key_line[SXS_KEY_PROFILER_MODE] ? "" : " (the default)");
    return FALSE;
  }
  if (cfg->mode == SXS_MODE_PICK_ONE && !scan->key_line[SXS_KEY_PROFILER_RUNTIME]) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[SXS_KEY_PROFILER_MODE],
                "mode=pick-one needs a runtime= line; expected runtime= with a version prefix such as 10.0 "
                "or an absolute path of a runtime folder or of a libcoreclr.so");
    return FALSE;
  }
  return TRUE;
}

/* Call tracing names the functions it counts through the inventory: it turns it on, and an
 * inventory=false beside it is a contradiction rather than a silent override (the [tracing] keys
 * are read before). */
static gboolean config_check_inventory(const SxsConfigScan *scan, char *const values[N_KEYS], SxsConfig *cfg,
                                       GError **error) {
  if (!cfg->tracing.enabled)
    return TRUE;
  if (values[SXS_KEY_PROFILER_INVENTORY] && !cfg->inventory) {
    config_fail(error, SXS_CONFIG_ERROR_VALUE, scan->source, scan->key_line[SXS_KEY_PROFILER_INVENTORY],
                "inventory=false cannot go with [tracing] enabled=true (line %d): tracing names the functions it "
                "counts through the inventory; expected inventory=true or no inventory= line",
                scan->key_line[SXS_KEY_TRACING_ENABLED]);
    return FALSE;
  }
  cfg->inventory = TRUE;
  return TRUE;
}

/* ---- the keys ---- */

static const int config_inlining_values[] = {TRUE, FALSE}; /* allowed, disabled */
static const int config_timing_values[] = {FALSE, TRUE};   /* on, off: timing_off */
static const int config_path_values[] = {FALSE, TRUE};     /* fast, slow: slow_path */

#define WORDS(w) .words = (w), .n_words = G_N_ELEMENTS(w)
#define FIELD(f) .field = offsetof(SxsConfig, f)

static const ConfigKey config_key_table[N_KEYS] = {
    [SXS_KEY_PROFILER_MODE] = {GROUP_PROFILER, "mode", config_key_word, FIELD(mode), WORDS(config_modes),
                               .expected = CONFIG_MODE_LIST, .help = "which runtimes of the process are profiled"},
    [SXS_KEY_PROFILER_RUNTIME] = {GROUP_PROFILER, "runtime", config_key_runtime, .check = config_check_runtime,
                                  .help = "the runtime mode=pick-one profiles: a version prefix or a path"},
    [SXS_KEY_PROFILER_OUTPUT] = {GROUP_PROFILER, "output", config_key_output,
                                 .help = "where the profile goes: a path prefix, or a folder ending in /"},
    [SXS_KEY_PROFILER_LOG] = {GROUP_PROFILER, "log", config_key_log,
                              .help = "where the profiler's messages go: a file, or stderr"},
    [SXS_KEY_PROFILER_FLUSH] = {GROUP_PROFILER, "flush", config_key_flush, FIELD(flush_seconds),
                                .help = "seconds between rewrites of the profile (0: at shutdown and exit only)"},
    [SXS_KEY_PROFILER_FORMATS] = {GROUP_PROFILER, "formats", config_key_formats,
                                  .help = "the files written beside the profile"},
    [SXS_KEY_PROFILER_INVENTORY] = {GROUP_PROFILER, "inventory", config_key_boolean, FIELD(inventory),
                                    .help = "list every function JIT-compiled, inlined or run precompiled"},
    [SXS_KEY_TRACING_ENABLED] = {GROUP_TRACING, "enabled", config_key_boolean, FIELD(tracing.enabled),
                                 .help = "trace every call exactly through the Enter/Leave/Tailcall hooks"},
    [SXS_KEY_TRACING_INLINING] = {GROUP_TRACING, "inlining", config_key_word, FIELD(tracing.inlining_allowed),
                                  WORDS(config_inlinings), .word_values = config_inlining_values,
                                  .expected = CONFIG_INLINING_LIST,
                                  .help = "whether the JIT may inline (inlined calls are not counted)"},
    [SXS_KEY_TRACING_ROUTING] = {GROUP_TRACING, "routing", config_key_word, FIELD(tracing.routing),
                                 WORDS(config_routings), .expected = CONFIG_ROUTING_LIST,
                                 .help = "how a hook finds its runtime"},
    [SXS_KEY_TRACING_HOOKS] = {GROUP_TRACING, "hooks", config_key_word, FIELD(tracing.hooks), WORDS(config_hooks),
                               .expected = CONFIG_HOOKS_LIST, .help = "what the hooks do (empty: measure the probes)"},
    [SXS_KEY_TRACING_TIMING] = {GROUP_TRACING, "timing", config_key_word, FIELD(tracing.timing_off),
                                WORDS(config_timings), .word_values = config_timing_values,
                                .expected = CONFIG_TIMING_LIST, .help = "whether calls are timed, or only counted"},
    [SXS_KEY_TRACING_PATH] = {GROUP_TRACING, "path", config_key_word, FIELD(tracing.slow_path), WORDS(config_paths),
                              .word_values = config_path_values, .expected = CONFIG_PATH_LIST,
                              .help = "the runtime's fast or slow hook path"},
    [SXS_KEY_TRACING_INCLUDE] = {GROUP_TRACING, "include", config_key_patterns, FIELD(tracing.include),
                                 .help = "trace only the functions these patterns name"},
    [SXS_KEY_TRACING_EXCLUDE] = {GROUP_TRACING, "exclude", config_key_patterns, FIELD(tracing.exclude),
                                 .help = "do not trace the functions these patterns name"},
    [SXS_KEY_STACKS_ON] = {GROUP_STACKS, "on", config_key_stacks, .check = config_check_inventory,
                           .help = "the events whose thread's stack is recorded"},
    [SXS_KEY_STACKS_MAX_DISTINCT] = {GROUP_STACKS, "max_distinct", config_key_max_distinct, FIELD(stacks_max_distinct),
                                     .help = "distinct stacks kept; a new one past it is counted under its leaf"},
    [SXS_KEY_SAMPLING_ENABLED] = {GROUP_SAMPLING, "enabled", config_key_boolean, FIELD(sampling.enabled),
                                  .help = "sample every thread's stack"},
    [SXS_KEY_SAMPLING_FREQUENCY] = {GROUP_SAMPLING, "frequency", config_key_frequency, FIELD(sampling.frequency),
                                    .help = "samples per second"},
    [SXS_KEY_SAMPLING_MODE] = {GROUP_SAMPLING, "mode", config_key_word, FIELD(sampling.mode),
                               WORDS(config_sampling_modes), .expected = CONFIG_SAMPLING_MODE_LIST,
                               .help = "CPU time or wall-clock time"},
    [SXS_KEY_SAMPLING_WALKER] = {GROUP_SAMPLING, "walker", config_key_word, FIELD(sampling.walker),
                                 WORDS(config_walkers), .expected = CONFIG_WALKER_LIST,
                                 .help = "how a sampled thread's stack is walked"},
    [SXS_KEY_SAMPLING_ENGINE] = {GROUP_SAMPLING, "engine", config_key_word, FIELD(sampling.engine),
                                 WORDS(config_engines), .expected = CONFIG_ENGINE_LIST,
                                 .help = "what raises cpu samples: perf_events, the CPU-time timers, or auto"},
    [SXS_KEY_SAMPLING_EVENT] = {GROUP_SAMPLING, "event", config_key_event, FIELD(sampling.event), WORDS(config_events),
                                .expected = CONFIG_EVENT_LIST,
                                .help = "what a cpu sample stands for: CPU time or a hardware event's count"},
    [SXS_KEY_EXCEPTIONS_ENABLED] = {GROUP_EXCEPTIONS, "enabled", config_key_boolean,
                                    FIELD(profiles[SXS_PROFILE_EXCEPTIONS]),
                                    .help = "every exception thrown, by type and throwing stack"},
    [SXS_KEY_CONTENTION_ENABLED] = {GROUP_CONTENTION, "enabled", config_key_boolean,
                                    FIELD(profiles[SXS_PROFILE_CONTENTION]),
                                    .help = "every lock wait, its time and stack"},
    [SXS_KEY_ALLOCATIONS_ENABLED] = {GROUP_ALLOCATIONS, "enabled", config_key_boolean,
                                     FIELD(profiles[SXS_PROFILE_ALLOCATIONS]),
                                     .help = "allocations, sampled, by type and stack"},
    [SXS_KEY_LINES_ENABLED] = {GROUP_LINES, "enabled", config_key_boolean, FIELD(lines.enabled),
                               .help = "source lines of managed frames from the assemblies' PDBs"},
    [SXS_KEY_LINES_PATHS] = {GROUP_LINES, "paths", config_key_paths, FIELD(lines.paths),
                             .help = "folders searched for PDBs after each assembly's own"},
    [SXS_KEY_SYMBOLS_DEBUG_DIRS] = {GROUP_SYMBOLS, "debug_dirs", config_key_paths, FIELD(symbols.debug_dirs),
                                    .help = "more roots for native debug files, after /usr/lib/debug"},
    [SXS_KEY_TIMELINE_WINDOW] = {GROUP_TIMELINE, "window", config_key_window, FIELD(timeline_window_s),
                                 .help = "the last part of the run whose samples keep their times (0: all of it)"},
    [SXS_KEY_LABELS_ENDPOINTS] = {GROUP_LABELS, "endpoints", config_key_boolean, FIELD(labels_endpoints),
                                  .help =
                                      "label samples and events with the HTTP endpoint of the request they were for"},
    [SXS_KEY_LABELS_ROUTES] = {GROUP_LABELS, "routes", config_key_boolean, FIELD(labels_routes),
                               .help = "name an endpoint by the route template it matched, from ASP.NET Core's "
                                       "routing metrics (the runtime's metrics source is then the profiler's)"},
};

#undef WORDS
#undef FIELD

/* Turns the scanned keys into cfg (which holds the defaults): each key in table order, its check
 * (how it fits the keys before it) and then its value, so the first problem reported is the first
 * key's. Every value is checked whether or not its group is enabled, so that one enabled=false line
 * switches a feature off and leaves the rest. */
static gboolean config_apply(const SxsConfigScan *scan, char *values[N_KEYS], SxsConfig *cfg, GError **error) {
  for (int k = 0; k < N_KEYS; k++) {
    const ConfigKey *key = &config_key_table[k];
    if (key->check && !key->check(scan, values, cfg, error))
      return FALSE;
    if (values[k] && !key->parse(scan, k, values[k], cfg, error))
      return FALSE;
  }
  if (cfg->tracing.include || cfg->tracing.exclude)
    cfg->tracing.matcher = config_matcher_new(cfg->tracing.include, cfg->tracing.exclude);
  return TRUE;
}

const char *sxs__config_key_group(SxsConfigKey k) {
  return (unsigned)k < N_KEYS ? config_groups[config_key_table[k].group] : NULL;
}

const char *sxs__config_key_name(SxsConfigKey k) {
  return (unsigned)k < N_KEYS ? config_key_table[k].name : NULL;
}

const char *sxs__config_key_help(SxsConfigKey k) {
  return (unsigned)k < N_KEYS ? config_key_table[k].help : NULL;
}

SxsConfigKey sxs__config_profile_key(SxsProfileKind kind) {
  static const SxsConfigKey keys[SXS_PROFILE_N_KINDS] = {
      [SXS_PROFILE_EXCEPTIONS] = SXS_KEY_EXCEPTIONS_ENABLED,
      [SXS_PROFILE_CONTENTION] = SXS_KEY_CONTENTION_ENABLED,
      [SXS_PROFILE_ALLOCATIONS] = SXS_KEY_ALLOCATIONS_ENABLED,
  };
  return keys[kind];
}

void sxs__config_keyfile_set(GKeyFile *kf, SxsConfigKey k, const char *value) {
  g_key_file_set_value(kf, sxs__config_key_group(k), sxs__config_key_name(k), value);
}

gboolean sxs__config_keyfile_has(GKeyFile *kf, SxsConfigKey k) {
  return g_key_file_has_key(kf, sxs__config_key_group(k), sxs__config_key_name(k), NULL);
}

char *sxs__config_default_output(const char *folder, int pid) {
  g_autofree char *cwd = folder ? NULL : g_get_current_dir();
  g_autofree char *name = g_strdup_printf("sxsprof-%d", pid);
  return g_build_filename(folder ? folder : cwd, name, NULL);
}

gboolean sxs__config_output_explicit(const SxsConfig *cfg) {
  return cfg->output_given;
}

SxsConfig *sxs__config_new_default(void) {
  SxsConfig *cfg = g_new0(SxsConfig, 1);
  cfg->mode = SXS_MODE_PICK_ALL;
  cfg->selector_kind = SXS_SELECTOR_NONE;
  cfg->output = sxs__config_default_output(NULL, (int)getpid());
  cfg->log_kind = SXS_LOG_DEFAULT;
  cfg->flush_seconds = SXS_CONFIG_FLUSH_DEFAULT;
  cfg->formats = SXS_FORMAT_BIT(SXS_FORMAT_JSON);
  cfg->tracing.enabled = FALSE;
  cfg->tracing.inlining_allowed = FALSE;
  cfg->tracing.routing = SXS_ROUTING_MAPPER2;
  cfg->tracing.hooks = SXS_HOOKS_FULL;
  cfg->stacks_on = 0;
  cfg->stacks_max_distinct = SXS_CONFIG_STACKS_MAX_DISTINCT_DEFAULT;
  cfg->sampling.enabled = FALSE;
  cfg->sampling.frequency = SXS_SAMPLING_FREQUENCY_DEFAULT;
  cfg->sampling.mode = SXS_SAMPLING_CPU;
  cfg->sampling.walker = SXS_WALKER_AUTO;
  cfg->sampling.engine = SXS_ENGINE_AUTO;
  cfg->sampling.event = SXS_EVENT_CPU_TIME;
  cfg->lines.enabled = TRUE;
  cfg->labels_routes = TRUE;
  return cfg;
}

SxsConfig *sxs__config_load(const char *path, GError **error) {
  if (!path || !*path) {
    config_fail(error, SXS_CONFIG_ERROR_FILE, "(config)", 0, "the config file name is empty; expected a path");
    return NULL;
  }

  gsize len = 0;
  g_autofree char *data = config_read(path, &len, error);
  if (!data)
    return NULL;
  const char *text = data;
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* a byte-order mark is not content */
    text += 3;
    len -= 3;
  }
  if (!config_check_text(path, text, len, error))
    return NULL;

  SxsConfigScan scan = {.source = path, .group = -1};
  char *values[N_KEYS] = {NULL};
  g_autoptr(SxsConfig) cfg = sxs__config_new_default();
  gboolean ok = config_scan_text(&scan, text, len, error) && config_unescape(&scan, values, error) &&
                config_apply(&scan, values, cfg, error);
  config_scan_clear(&scan);
  for (int k = 0; k < N_KEYS; k++)
    g_free(values[k]);
  if (!ok)
    return NULL;
  cfg->source = g_strdup(path);
  return g_steal_pointer(&cfg);
}

SxsConfig *sxs__config_load_env(GError **error) {
  const char *path = g_getenv(SXS_CONFIG_ENV);
  if (!path || !*path)
    return sxs__config_new_default();
  return sxs__config_load(path, error);
}

void sxs__config_free(SxsConfig *cfg) {
  if (!cfg)
    return;
  g_free(cfg->selector);
  g_free(cfg->output);
  g_free(cfg->log_path);
  g_free(cfg->source);
  g_strfreev(cfg->tracing.include);
  g_strfreev(cfg->tracing.exclude);
  g_strfreev(cfg->lines.paths);
  g_strfreev(cfg->symbols.debug_dirs);
  config_matcher_free(cfg->tracing.matcher);
  g_free(cfg);
}

const char *sxs__config_mode_name(SxsMode mode) {
  if ((unsigned)mode < G_N_ELEMENTS(config_modes))
    return config_modes[mode];
  return "unknown";
}

const char *sxs__config_stack_event_name(SxsStackEvents one_bit) {
  for (int i = 0; i < CONFIG_STACK_NONE; i++)
    if ((guint)one_bit == 1u << i)
      return config_stack_words[i];
  return NULL;
}

const char *sxs__config_sampling_mode_name(SxsSamplingMode mode) {
  if ((unsigned)mode < G_N_ELEMENTS(config_sampling_modes))
    return config_sampling_modes[mode];
  return "unknown";
}

const char *sxs__config_walker_name(SxsWalkerKind walker) {
  if ((unsigned)walker < G_N_ELEMENTS(config_walkers))
    return config_walkers[walker];
  return "unknown";
}

/* The check behind sxs__config_check_output: r is 0 or -errno, *ret_why set when r < 0. */
static int config_check_output(const char *output, gboolean is_folder, char **ret_why) {
  if (!output || !*output) {
    *ret_why = g_strdup("The output path is empty");
    return -EINVAL;
  }
  if (!is_folder && g_str_has_suffix(output, "/")) {
    *ret_why = g_strdup_printf("The output prefix %s names a folder, not a file prefix", output);
    return -EISDIR;
  }
  g_autofree char *folder = is_folder ? g_strdup(output) : g_path_get_dirname(output);
  struct stat st;
  if (stat(folder, &st) < 0) {
    int r = -errno;
    if (r == -ENOENT)
      *ret_why = g_strdup_printf("The output folder %s does not exist", folder);
    else
      *ret_why = g_strdup_printf("The output folder %s cannot be used (%s)", folder, g_strerror(-r));
    return r;
  }
  if (!S_ISDIR(st.st_mode)) {
    *ret_why = g_strdup_printf("The output folder %s is not a folder", folder);
    return -ENOTDIR;
  }
  if (access(folder, W_OK | X_OK) < 0) {
    int r = -errno;
    *ret_why = g_strdup_printf("The output folder %s is not writable (%s)", folder, g_strerror(-r));
    return r;
  }
  /* A folder that says it is writable may still hold no file (/proc, /sys, for root too): one is
   * created there and removed at once. */
  static guint probes;
  g_autofree char *probe =
      g_strdup_printf("%s/.sxsprof-probe-%d-%u", folder, (int)getpid(), (guint)g_atomic_int_add((gint *)&probes, 1));
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) {
    int r = -errno;
    *ret_why =
        g_strdup_printf("The output folder %s cannot hold a file (creating one fails: %s)", folder, g_strerror(-r));
    return r;
  }
  close(fd);
  unlink(probe);
  if (is_folder)
    return 0;
  g_autofree char *json = g_strconcat(output, ".json", NULL);
  if (stat(json, &st) == 0 && S_ISDIR(st.st_mode)) {
    *ret_why = g_strdup_printf("The output file %s is a folder", json);
    return -EISDIR;
  }
  if (stat(json, &st) == 0 && !S_ISREG(st.st_mode)) {
    *ret_why = g_strdup_printf("The output file %s exists and is not a regular file", json);
    return -EEXIST;
  }
  return 0;
}

int sxs__config_check_output(const char *output, gboolean is_folder, char **ret_why) {
  g_autofree char *message = NULL;
  int r = config_check_output(output, is_folder, &message);
  if (r < 0 && ret_why)
    *ret_why = g_steal_pointer(&message);
  return r;
}

/* Does the runtime's product version begin with the selector's components? The selector was
 * checked when the config was read; the version's prerelease or build suffix is ignored. */
static gboolean config_version_matches(const char *prefix, const char *version) {
  SxsVersion want, have;
  return sxs__version_parse(prefix, &want) && sxs__version_parse(version, &have) &&
         sxs__version_starts_with(&have, &want);
}

/* The selector is a resolved folder or libcoreclr.so. The runtime's path may be written through
 * a symbolic link (to the file or to a folder above it), so compare against the file itself,
 * its folder resolved, and the resolved file's folder. */
static gboolean config_path_matches(const char *selector, const char *coreclr_path) {
  if (strcmp(selector, coreclr_path) == 0)
    return TRUE;
  g_autofree char *folder = g_path_get_dirname(coreclr_path);
  if (strcmp(selector, folder) == 0)
    return TRUE;
  g_autofree char *resolved = realpath(coreclr_path, NULL);
  if (resolved) {
    g_autofree char *resolved_folder = g_path_get_dirname(resolved);
    if (strcmp(selector, resolved) == 0 || strcmp(selector, resolved_folder) == 0)
      return TRUE;
  }
  g_autofree char *folder_resolved = realpath(folder, NULL);
  return folder_resolved && strcmp(selector, folder_resolved) == 0;
}

gboolean sxs__config_selector_matches(const SxsConfig *cfg, const char *version, const char *coreclr_path) {
  if (!cfg || cfg->selector_kind == SXS_SELECTOR_NONE || !cfg->selector)
    return TRUE;
  if (cfg->selector_kind == SXS_SELECTOR_VERSION)
    return version != NULL && config_version_matches(cfg->selector, version);
  return coreclr_path != NULL && config_path_matches(cfg->selector, coreclr_path);
}

gboolean sxs__config_parse_formats(const char *value, gboolean summary_allowed, guint *ret_formats, char **ret_why) {
  guint n_names = summary_allowed ? SXS_N_FORMATS : SXS_FORMAT_SUMMARY;
  g_autoptr(GString) expected = g_string_new("expected a comma-separated list of ");
  for (guint i = 0; i < n_names; i++)
    g_string_append_printf(expected, "%s%s", i == 0 ? "" : i + 1 == n_names ? " or " : ", ", sxs__format_name(i));
  g_string_append(expected, ", or all");
  guint set = 0;
  for (const char *p = value ? value : ""; *p;) {
    p += strspn(p, ", \t");
    size_t len = strcspn(p, ", \t");
    if (len == 0)
      break;
    g_autofree char *word = g_strndup(p, len);
    p += len;
    if (strcmp(word, "all") == 0) {
      set |= SXS_FORMAT_BIT(n_names) - 1;
      continue;
    }
    guint i = 0;
    while (i < n_names && strcmp(word, sxs__format_name(i)) != 0)
      i++;
    if (i == n_names) {
      g_autofree char *quoted = config_quote(word);
      const char *names[SXS_N_FORMATS];
      for (guint k = 0; k < n_names; k++)
        names[k] = sxs__format_name(k);
      g_autofree char *hint = config_suggest(word, names, n_names);
      *ret_why = g_strdup_printf("unknown format %s%s; %s", quoted, hint, expected->str);
      return FALSE;
    }
    set |= SXS_FORMAT_BIT(i);
  }
  if (set == 0) {
    *ret_why = g_strdup_printf("no format given; %s", expected->str);
    return FALSE;
  }
  *ret_formats = set;
  return TRUE;
}

const char *sxs__config_engine_name(SxsEngineKind engine) {
  if ((unsigned)engine < G_N_ELEMENTS(config_engines))
    return config_engines[engine];
  return "unknown";
}

const char *sxs__config_event_name(SxsSamplingEvent event) {
  if ((unsigned)event < G_N_ELEMENTS(config_events))
    return config_events[event];
  return "unknown";
}
