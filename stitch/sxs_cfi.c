/* The unwind-table row at a code address, from .eh_frame_hdr and .eh_frame in memory (no DWARF
 * expressions, no walking). */
#include "sxs_cfi.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/*
 * The tables, as the toolchain lays them out (the LSB's "Exception Frames" and DWARF 4, 6.4):
 *
 *   .eh_frame_hdr   version 1, three pointer encodings, a pointer to .eh_frame, the FDE count,
 *                   then a table sorted by address of {initial location, FDE address}, each a
 *                   32-bit offset from the start of .eh_frame_hdr (encoding datarel|sdata4, the
 *                   only one linkers write and the only one read here): a binary search finds the
 *                   one FDE that may cover pc.
 *   FDE             length, the distance back to its CIE, the range of code it covers (in the
 *                   CIE's 'R' encoding), augmentation data, then call-frame instructions.
 *   CIE             the instructions every FDE of it starts with, the code and data alignment
 *                   factors, the return-address column, the augmentation ('z' sizes the data,
 *                   'R' the FDE pointer encoding, 'P' a personality routine, 'L' the LSDA
 *                   encoding, 'S' a signal trampoline's frame).
 *
 * The row at pc is the CIE's instructions followed by the FDE's, run until the location they
 * advance to passes pc. Of the registers only three matter to a step: the CFA rule (a register
 * plus an offset), RBP (x86-64 DWARF register 6) and the return address (column 16). Everything
 * else is parsed past. Every byte read is checked against the segment the table lies in, so a
 * corrupt table ends the lookup; it never faults.
 */

#define DW_REG_RBP 6
#define DW_REG_RSP 7
#define DW_REG_RA 16

#define CFI_MAX_OPS 4096    /* instructions run for one row, at most */
#define CFI_STATE_DEPTH 8   /* DW_CFA_remember_state nesting kept */
#define CFI_AUGMENTATION 16 /* the longest augmentation string read */

enum {
  DW_EH_PE_absptr = 0x00,
  DW_EH_PE_uleb128 = 0x01,
  DW_EH_PE_udata2 = 0x02,
  DW_EH_PE_udata4 = 0x03,
  DW_EH_PE_udata8 = 0x04,
  DW_EH_PE_sleb128 = 0x09,
  DW_EH_PE_sdata2 = 0x0a,
  DW_EH_PE_sdata4 = 0x0b,
  DW_EH_PE_sdata8 = 0x0c,
  DW_EH_PE_pcrel = 0x10,
  DW_EH_PE_datarel = 0x30,
  DW_EH_PE_indirect = 0x80,
  DW_EH_PE_omit = 0xff,
};

/* A bounded cursor over [p, end) inside [lo, hi). */
typedef struct {
  const uint8_t *p, *end;
  bool bad;
} Reader;

static inline bool need(Reader *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = true;
    return false;
  }
  return true;
}

static uint64_t read_le(Reader *r, size_t n) {
  if (!need(r, n))
    return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint64_t)r->p[i] << (8 * i);
  r->p += n;
  return v;
}

static uint64_t read_uleb(Reader *r) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (!need(r, 1) || shift > 63) {
      r->bad = true;
      return 0;
    }
    uint8_t b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if ((b & 0x80) == 0)
      return v;
  }
}

static int64_t read_sleb(Reader *r) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b;
  do {
    if (!need(r, 1) || shift > 63) {
      r->bad = true;
      return 0;
    }
    b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  if (shift < 64 && (b & 0x40))
    v |= ~UINT64_C(0) << shift;
  return (int64_t)v;
}

/* A pointer in encoding enc (pcrel from the field's own address, datarel from data_base). An
 * indirect pointer is not followed: its value is only skipped over (personality routines). */
static uintptr_t read_encoded(Reader *r, uint8_t enc, uintptr_t data_base) {
  uintptr_t field = (uintptr_t)r->p;
  uint64_t v;
  switch (enc & 0x0f) {
  case DW_EH_PE_absptr:
  case DW_EH_PE_udata8:
  case DW_EH_PE_sdata8: v = read_le(r, 8); break;
  case DW_EH_PE_uleb128: v = read_uleb(r); break;
  case DW_EH_PE_sleb128: v = (uint64_t)read_sleb(r); break;
  case DW_EH_PE_udata2: v = read_le(r, 2); break;
  case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)read_le(r, 2); break;
  case DW_EH_PE_udata4: v = read_le(r, 4); break;
  case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)read_le(r, 4); break;
  default: r->bad = true; return 0;
  }
  switch (enc & 0x70) {
  case 0: break;
  case DW_EH_PE_pcrel: v += field; break;
  case DW_EH_PE_datarel: v += data_base; break;
  default: r->bad = true; return 0;
  }
  return (uintptr_t)v;
}

/* How one register is recovered. */
enum { RULE_SAME, RULE_UNDEFINED, RULE_OFFSET, RULE_OTHER };
typedef struct {
  uint8_t kind;
  int64_t offset; /* RULE_OFFSET: the value is saved at CFA + offset */
} RegRule;

typedef struct {
  uint64_t cfa_reg;
  int64_t cfa_offset;
  bool cfa_other; /* given by an expression */
  RegRule rbp, ra;
} CfiState;

typedef struct {
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_column;
  uint8_t fde_enc;
  bool has_z;
  bool signal_frame;
  const uint8_t *insns, *insns_end;
} Cie;

/* A unit (CIE or FDE) at p: its body's [start, end) after the length field, inside [lo, hi). */
static bool unit_bounds(const uint8_t *p, uintptr_t lo, uintptr_t hi, const uint8_t **ret_body,
                        const uint8_t **ret_end) {
  if ((uintptr_t)p < lo || (uintptr_t)p > hi - 4)
    return false;
  Reader r = {p, (const uint8_t *)hi, false};
  uint64_t len = read_le(&r, 4);
  if (len == 0xffffffffu)
    len = read_le(&r, 8);
  if (r.bad || len == 0 || len > (uint64_t)(hi - (uintptr_t)r.p))
    return false;
  *ret_body = r.p;
  *ret_end = r.p + len;
  return true;
}

static int parse_cie(const uint8_t *at, uintptr_t lo, uintptr_t hi, uintptr_t data_base, Cie *ret) {
  const uint8_t *body, *end;
  if (!unit_bounds(at, lo, hi, &body, &end))
    return -EFAULT;
  Reader r = {body, end, false};
  if (read_le(&r, 4) != 0) /* the CIE id of .eh_frame */
    return -EFAULT;
  uint8_t version = (uint8_t)read_le(&r, 1);
  if (r.bad || (version != 1 && version != 3 && version != 4))
    return -ENOTSUP;
  char aug[CFI_AUGMENTATION];
  size_t n = 0;
  for (;;) {
    if (!need(&r, 1))
      return -EFAULT;
    char c = (char)*r.p++;
    if (c == '\0')
      break;
    if (n + 1 >= sizeof aug)
      return -ENOTSUP;
    aug[n++] = c;
  }
  aug[n] = '\0';
  if (version == 4) {
    uint8_t address_size = (uint8_t)read_le(&r, 1), segment_size = (uint8_t)read_le(&r, 1);
    if (address_size != 8 || segment_size != 0)
      return -ENOTSUP;
  }
  Cie cie = {.fde_enc = DW_EH_PE_absptr};
  cie.code_align = read_uleb(&r);
  cie.data_align = read_sleb(&r);
  cie.ra_column = version == 1 ? read_le(&r, 1) : read_uleb(&r);
  if (n > 0 && aug[0] != 'z')
    return -ENOTSUP; /* an augmentation of unknown size ("eh" of old compilers) */
  const uint8_t *aug_end = NULL;
  if (n > 0) {
    cie.has_z = true;
    uint64_t aug_len = read_uleb(&r);
    if (r.bad || aug_len > (uint64_t)(end - r.p))
      return -EFAULT;
    aug_end = r.p + aug_len;
    Reader a = {r.p, aug_end, false};
    for (size_t i = 1; i < n && !a.bad; i++) {
      switch (aug[i]) {
      case 'R': cie.fde_enc = (uint8_t)read_le(&a, 1); break;
      case 'P': {
        uint8_t enc = (uint8_t)read_le(&a, 1);
        (void)read_encoded(&a, (uint8_t)(enc & ~DW_EH_PE_indirect), data_base);
        break;
      }
      case 'L': (void)read_le(&a, 1); break;
      case 'S': cie.signal_frame = true; break;
      case 'B': break;
      default:
        i = n; /* the rest is sized by 'z': skipped */
        break;
      }
    }
    if (a.bad)
      return -EFAULT;
    r.p = aug_end;
  }
  if (r.bad || cie.code_align == 0)
    return -EFAULT;
  cie.insns = r.p;
  cie.insns_end = end;
  *ret = cie;
  return 0;
}

static void set_rule(CfiState *s, uint64_t reg, uint8_t kind, int64_t offset) {
  RegRule rule = {kind, offset};
  if (reg == DW_REG_RBP)
    s->rbp = rule;
  else if (reg == DW_REG_RA)
    s->ra = rule;
}

static void restore_rule(CfiState *s, const CfiState *initial, uint64_t reg) {
  if (reg == DW_REG_RBP)
    s->rbp = initial->rbp;
  else if (reg == DW_REG_RA)
    s->ra = initial->ra;
}

/* Runs the instructions [p, end) from location *loc, stopping before an advance past pc (pc
 * UINTPTR_MAX: all of them, for a CIE). initial is the state restore instructions go back to (NULL
 * while running the CIE's own). Returns 0 or a negative errno. */
static int run(const Cie *cie, const uint8_t *p, const uint8_t *end, uintptr_t *loc, uintptr_t pc, uintptr_t data_base,
               CfiState *s, const CfiState *initial) {
  Reader r = {p, end, false};
  CfiState stack[CFI_STATE_DEPTH];
  unsigned depth = 0;
  for (unsigned ops = 0; r.p < r.end; ops++) {
    if (ops >= CFI_MAX_OPS)
      return -ENOTSUP;
    uint8_t op = *r.p++;
    uint64_t delta = 0, reg;
    bool advance = false;
    switch (op >> 6) {
    case 1: /* DW_CFA_advance_loc */
      delta = op & 0x3f;
      advance = true;
      break;
    case 2: /* DW_CFA_offset */
      reg = op & 0x3f;
      set_rule(s, reg, RULE_OFFSET, (int64_t)read_uleb(&r) * cie->data_align);
      break;
    case 3: /* DW_CFA_restore */
      if (initial)
        restore_rule(s, initial, op & 0x3f);
      break;
    default:
      switch (op) {
      case 0x00: /* nop */ break;
      case 0x01: { /* set_loc */
        uintptr_t to = read_encoded(&r, cie->fde_enc, data_base);
        if (r.bad)
          return -EFAULT;
        if (to > pc)
          return 0;
        *loc = to;
        break;
      }
      case 0x02: /* advance_loc1 */
        delta = read_le(&r, 1);
        advance = true;
        break;
      case 0x03:
        delta = read_le(&r, 2);
        advance = true;
        break;
      case 0x04:
        delta = read_le(&r, 4);
        advance = true;
        break;
      case 0x05: /* offset_extended */
        reg = read_uleb(&r);
        set_rule(s, reg, RULE_OFFSET, (int64_t)read_uleb(&r) * cie->data_align);
        break;
      case 0x06: /* restore_extended */
        reg = read_uleb(&r);
        if (initial)
          restore_rule(s, initial, reg);
        break;
      case 0x07: /* undefined */ set_rule(s, read_uleb(&r), RULE_UNDEFINED, 0); break;
      case 0x08: /* same_value */ set_rule(s, read_uleb(&r), RULE_SAME, 0); break;
      case 0x09: /* register */
        reg = read_uleb(&r);
        (void)read_uleb(&r);
        set_rule(s, reg, RULE_OTHER, 0);
        break;
      case 0x0a: /* remember_state */
        if (depth >= CFI_STATE_DEPTH)
          return -ENOTSUP;
        stack[depth++] = *s;
        break;
      case 0x0b: /* restore_state */
        if (depth == 0)
          return -EFAULT;
        *s = stack[--depth];
        break;
      case 0x0c: /* def_cfa */
        s->cfa_reg = read_uleb(&r);
        s->cfa_offset = (int64_t)read_uleb(&r);
        s->cfa_other = false;
        break;
      case 0x0d: /* def_cfa_register */ s->cfa_reg = read_uleb(&r); break;
      case 0x0e: /* def_cfa_offset */ s->cfa_offset = (int64_t)read_uleb(&r); break;
      case 0x0f: { /* def_cfa_expression */
        uint64_t len = read_uleb(&r);
        if (!need(&r, len))
          return -EFAULT;
        r.p += len;
        s->cfa_other = true;
        break;
      }
      case 0x10:   /* expression */
      case 0x16: { /* val_expression */
        reg = read_uleb(&r);
        uint64_t len = read_uleb(&r);
        if (!need(&r, len))
          return -EFAULT;
        r.p += len;
        set_rule(s, reg, RULE_OTHER, 0);
        break;
      }
      case 0x11: /* offset_extended_sf */
        reg = read_uleb(&r);
        set_rule(s, reg, RULE_OFFSET, read_sleb(&r) * cie->data_align);
        break;
      case 0x12: /* def_cfa_sf */
        s->cfa_reg = read_uleb(&r);
        s->cfa_offset = read_sleb(&r) * cie->data_align;
        s->cfa_other = false;
        break;
      case 0x13: /* def_cfa_offset_sf */ s->cfa_offset = read_sleb(&r) * cie->data_align; break;
      case 0x14: /* val_offset */
        reg = read_uleb(&r);
        (void)read_uleb(&r);
        set_rule(s, reg, RULE_OTHER, 0);
        break;
      case 0x15: /* val_offset_sf */
        reg = read_uleb(&r);
        (void)read_sleb(&r);
        set_rule(s, reg, RULE_OTHER, 0);
        break;
      case 0x2e: /* GNU_args_size */ (void)read_uleb(&r); break;
      case 0x2f: /* GNU_negative_offset_extended */
        reg = read_uleb(&r);
        set_rule(s, reg, RULE_OFFSET, -(int64_t)read_uleb(&r) * cie->data_align);
        break;
      default: return -ENOTSUP;
      }
    }
    if (r.bad)
      return -EFAULT;
    if (advance) {
      uintptr_t to = *loc + (uintptr_t)(delta * cie->code_align);
      if (to > pc)
        return 0;
      *loc = to;
    }
  }
  return 0;
}

/* The FDE address for pc from the header's sorted table, or 0. */
static const uint8_t *find_fde(const SxsEhFrame *eh, uintptr_t pc, int *ret_why) {
  uintptr_t hdr = eh->hdr;
  if (hdr < eh->lo || hdr > eh->hi - 4) {
    *ret_why = -EFAULT;
    return NULL;
  }
  Reader r = {(const uint8_t *)hdr, (const uint8_t *)eh->hi, false};
  uint8_t version = (uint8_t)read_le(&r, 1);
  uint8_t ptr_enc = (uint8_t)read_le(&r, 1), count_enc = (uint8_t)read_le(&r, 1), table_enc = (uint8_t)read_le(&r, 1);
  if (version != 1 || table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4) || count_enc == DW_EH_PE_omit ||
      ptr_enc == DW_EH_PE_omit) {
    *ret_why = -ENOTSUP;
    return NULL;
  }
  (void)read_encoded(&r, ptr_enc, hdr);
  uint64_t count = read_encoded(&r, count_enc, hdr);
  if (r.bad || count > (uint64_t)(r.end - r.p) / 8) {
    *ret_why = -EFAULT;
    return NULL;
  }
  const uint8_t *table = r.p;
  /* The last entry whose initial location is at most pc. */
  uint64_t lo = 0, hi = count;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    int32_t start;
    memcpy(&start, table + mid * 8, 4);
    if (hdr + (intptr_t)start <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) {
    *ret_why = -ENOENT;
    return NULL;
  }
  int32_t fde;
  memcpy(&fde, table + (lo - 1) * 8 + 4, 4);
  return (const uint8_t *)(hdr + (intptr_t)fde);
}

/* The FDE that covers pc, read up to its instructions: its CIE, the function's start and end, and a
 * reader at what follows the address range. 0, or -ENOENT, -ENOTSUP, -EFAULT as sxs__cfi_row. */
static int fde_covering(const SxsEhFrame *eh, uintptr_t pc, Cie *ret_cie, uintptr_t *ret_begin, uintptr_t *ret_end,
                        Reader *ret_r) {
  if (eh == NULL || eh->hdr == 0)
    return -ENOENT;
  if (eh->lo >= eh->hi)
    return -EFAULT;
  int error = 0;
  const uint8_t *fde = find_fde(eh, pc, &error);
  if (fde == NULL)
    return error;
  const uint8_t *body, *end;
  if (!unit_bounds(fde, eh->lo, eh->hi, &body, &end))
    return -EFAULT;
  Reader r = {body, end, false};
  const uint8_t *id_at = r.p;
  uint32_t cie_delta = (uint32_t)read_le(&r, 4);
  if (r.bad || cie_delta == 0 || cie_delta > (uintptr_t)id_at - eh->lo)
    return -EFAULT;
  int rc = parse_cie(id_at - cie_delta, eh->lo, eh->hi, eh->hdr, ret_cie);
  if (rc != 0)
    return rc;
  uintptr_t begin = read_encoded(&r, ret_cie->fde_enc, eh->hdr);
  uintptr_t range = read_encoded(&r, (uint8_t)(ret_cie->fde_enc & 0x0f), eh->hdr);
  if (r.bad)
    return -EFAULT;
  if (pc < begin || pc - begin >= range)
    return -ENOENT;
  *ret_begin = begin;
  *ret_end = begin + range;
  *ret_r = r;
  return 0;
}

int sxs__cfi_function_start(const SxsEhFrame *eh, uintptr_t pc, uintptr_t *ret_start) {
  if (ret_start == NULL)
    return -ENOENT;
  Cie cie;
  Reader r;
  uintptr_t begin, end;
  int rc = fde_covering(eh, pc, &cie, &begin, &end, &r);
  if (rc == 0)
    *ret_start = begin;
  return rc;
}

bool sxs__cfi_signal_frame(const SxsEhFrame *eh, uintptr_t pc, uintptr_t *ret_end) {
  Cie cie;
  Reader r;
  uintptr_t begin, end;
  if (fde_covering(eh, pc, &cie, &begin, &end, &r) != 0 || !cie.signal_frame)
    return false;
  if (ret_end != NULL)
    *ret_end = end;
  return true;
}

int sxs__cfi_row(const SxsEhFrame *eh, uintptr_t pc, SxsCfiRow *ret_row) {
  if (ret_row == NULL)
    return -ENOENT;
  Cie cie;
  Reader r;
  uintptr_t begin, end;
  int rc = fde_covering(eh, pc, &cie, &begin, &end, &r);
  if (rc != 0)
    return rc;
  if (cie.signal_frame)
    return -ENOTSUP;
  if (cie.has_z) {
    uint64_t len = read_uleb(&r);
    if (!need(&r, len))
      return -EFAULT;
    r.p += len;
  }

  CfiState s = {.cfa_reg = DW_REG_RSP, .cfa_offset = 0, .cfa_other = true};
  s.rbp.kind = RULE_SAME;
  s.ra.kind = RULE_SAME;
  uintptr_t loc = begin;
  rc = run(&cie, cie.insns, cie.insns_end, &loc, UINTPTR_MAX, eh->hdr, &s, NULL);
  if (rc != 0)
    return rc;
  CfiState initial = s;
  loc = begin;
  rc = run(&cie, r.p, r.end, &loc, pc, eh->hdr, &s, &initial);
  if (rc != 0)
    return rc;

  if (cie.ra_column != DW_REG_RA)
    return -ENOTSUP;
  SxsCfiRow row = {.start = begin};
  if (s.ra.kind == RULE_UNDEFINED) {
    row.end = true;
    *ret_row = row;
    return 0;
  }
  if (s.cfa_other || (s.cfa_reg != DW_REG_RSP && s.cfa_reg != DW_REG_RBP))
    return -ENOTSUP;
  if (s.ra.kind != RULE_OFFSET || s.ra.offset != -8)
    return -ENOTSUP;
  if (s.rbp.kind != RULE_SAME && s.rbp.kind != RULE_OFFSET)
    return -ENOTSUP;
  row.cfa_is_rbp = s.cfa_reg == DW_REG_RBP;
  row.cfa_offset = s.cfa_offset;
  row.rbp_saved = s.rbp.kind == RULE_OFFSET;
  row.rbp_offset = row.rbp_saved ? s.rbp.offset : 0;
  *ret_row = row;
  return 0;
}
