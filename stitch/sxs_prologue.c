/* sxs_prologue: the frame an x64 JIT prologue builds (sxs_prologue.h).
 *
 * The instructions recognised, in the order a prologue has them:
 *
 *   90 | 66 90 | 0F 1F 44 00 00          no-ops (a patchable entry)
 *   C5 F8 77                            vzeroupper, anywhere in the prologue
 *   50+r | 41 50+r                      push r64 (RBP is 55), any number
 *   48 8B EC | 48 89 E5                 mov rbp, rsp          (framed)
 *   48 83 EC ib | 48 81 EC id           sub rsp, imm
 *   48 8D 6C 24 ib | 48 8D AC 24 id     lea rbp, [rsp + imm]  (framed)
 *
 * RBP pushed first is a frame pointer's save: such a method is framed. A prologue that pushes nothing and moves RSP
 * by no `sub` is none of these (an OSR method's starts by reading its Tier-0 frame): not known. Anything else ends
 * the prologue. A `sub rsp` comes at most once; a second adjustment, or an RSP write of any other
 * kind before the body, makes the frame unknown, so the caller never applies a frame size it did not read.
 */
#include "sxs_prologue.h"

#include <string.h>

#define PROLOGUE_MAX_PUSHES 16

static bool at(const uint8_t *code, size_t len, size_t i, const uint8_t *bytes, size_t n) {
  return i + n <= len && memcmp(code + i, bytes, n) == 0;
}

/* The prologue read one instruction at a time: its state after the instructions before `i`. */
typedef struct {
  size_t i;        /* the next instruction's offset */
  unsigned pushes; /* registers pushed so far, regs[0] first */
  uint8_t regs[PROLOGUE_MAX_PUSHES + 1];
  unsigned rbp_push; /* RBP's index among the pushes, when rbp_pushed */
  bool rbp_pushed, framed, rbp_set, subbed;
  uint32_t sub;
  bool bad; /* a sequence no frame is known from (a negative or huge sub, lea rbp without RBP saved) */
} Scan;

/* Reads the prologue in code[0, len) up to the first instruction that is not one of a prologue's, or to offset
 * `stop` (the scan stops before the instruction there). Pure. */
static void scan_prologue(const uint8_t *code, size_t len, size_t stop, Scan *s) {
  static const uint8_t nop2[] = {0x66, 0x90}, nop5[] = {0x0F, 0x1F, 0x44, 0x00, 0x00};
  static const uint8_t mov_rbp_rsp_a[] = {0x48, 0x8B, 0xEC}, mov_rbp_rsp_b[] = {0x48, 0x89, 0xE5};
  static const uint8_t sub8[] = {0x48, 0x83, 0xEC}, sub32[] = {0x48, 0x81, 0xEC};
  static const uint8_t lea8[] = {0x48, 0x8D, 0x6C, 0x24}, lea32[] = {0x48, 0x8D, 0xAC, 0x24};
  static const uint8_t vzeroupper[] = {0xC5, 0xF8, 0x77};
  memset(s, 0, sizeof *s);
  size_t i = 0;
  while (i < len && i < stop && (code[i] == 0x90 || at(code, len, i, nop2, 2) || at(code, len, i, nop5, 5)))
    i += code[i] == 0x90 ? 1 : code[i] == 0x66 ? 2 : 5;
  while (i < stop) {
    if (at(code, len, i, vzeroupper, 3)) {
      i += 3;
    } else if (i < len && code[i] >= 0x50 && code[i] <= 0x57 && !s->subbed) {
      if (code[i] == 0x55) {
        s->rbp_pushed = true;
        s->rbp_push = s->pushes;
        /* RBP pushed first is the frame pointer's save (RyuJIT pushes it before the other registers): the body
         * sets RBP from RSP somewhere after the prologue's other instructions. */
        s->framed = s->framed || s->pushes == 0;
      }
      s->regs[s->pushes++] = (uint8_t)(code[i] - 0x50);
      i++;
    } else if (i + 1 < len && code[i] == 0x41 && code[i + 1] >= 0x50 && code[i + 1] <= 0x57 && !s->subbed) {
      s->regs[s->pushes++] = (uint8_t)(8 + code[i + 1] - 0x50);
      i += 2;
    } else if ((at(code, len, i, mov_rbp_rsp_a, 3) || at(code, len, i, mov_rbp_rsp_b, 3)) && s->rbp_pushed) {
      s->framed = s->rbp_set = true;
      i += 3;
    } else if (at(code, len, i, sub8, 3) && i + 4 <= len && !s->subbed) {
      s->sub = code[i + 3];
      s->bad = s->bad || (s->sub & 0x80) != 0; /* a negative immediate: not a frame */
      s->subbed = true;
      i += 4;
    } else if (at(code, len, i, sub32, 3) && i + 7 <= len && !s->subbed) {
      s->sub = (uint32_t)code[i + 3] | (uint32_t)code[i + 4] << 8 | (uint32_t)code[i + 5] << 16 |
               (uint32_t)code[i + 6] << 24;
      s->bad = s->bad || s->sub >= (1u << 24);
      s->subbed = true;
      i += 7;
    } else if ((at(code, len, i, lea8, 4) && i + 5 <= len) || (at(code, len, i, lea32, 4) && i + 8 <= len)) {
      s->bad = s->bad || !s->rbp_pushed;
      s->framed = s->rbp_set = true;
      i += code[i + 2] == 0x6C ? 5 : 8;
    } else {
      break;
    }
    if (s->bad || s->pushes > PROLOGUE_MAX_PUSHES) {
      s->bad = true;
      break;
    }
  }
  s->i = i;
}

bool sxs__prologue_decode(const uint8_t *code, size_t len, SxsPrologue *ret) {
  if (code == NULL || ret == NULL)
    return false;
  Scan s;
  scan_prologue(code, len, SIZE_MAX, &s);
  if (s.bad)
    return false;
  if (s.i + 8 > len)
    return false; /* the prologue ran (nearly) to the end of what was read: an instruction may be cut */
  if (s.pushes == 0 && !s.subbed)
    return false; /* no frame built here (an OSR method's prologue, which starts from its Tier-0 frame, or a leaf) */
  *ret = (SxsPrologue){.framed = s.framed, .prologue_len = (unsigned)s.i};
  if (!s.framed) {
    ret->frame_bytes = s.pushes * 8 + s.sub;
    ret->rbp_slot = s.rbp_pushed ? 16 + 8 * s.rbp_push : 0;
  } else {
    ret->record_above = (s.pushes - 1 - s.rbp_push) * 8 + s.sub;
  }
  return true;
}

/* Where the caller's RBP is while the first `pushes` of the prologue's pushes are on the stack. */
static unsigned rbp_slot_of(const Scan *s, unsigned pushes) {
  return s->rbp_pushed && s->rbp_push < pushes ? 16 + 8 * s->rbp_push : 0;
}

/* An epilogue at at[0, len): optional vzeroupper, then `add rsp, imm` (*ret_add) or `lea rsp, [rbp + d]`
 * (*ret_lea), then pops (their registers in ret_pops, *ret_n), then `ret`, or a `jmp` after at least one of those.
 * Pure. */
static bool read_epilogue(const uint8_t *code, size_t len, uint32_t *ret_add, bool *ret_lea, uint8_t *ret_pops,
                          unsigned *ret_n) {
  static const uint8_t vzeroupper[] = {0xC5, 0xF8, 0x77};
  static const uint8_t add8[] = {0x48, 0x83, 0xC4}, add32[] = {0x48, 0x81, 0xC4};
  static const uint8_t lea8[] = {0x48, 0x8D, 0x65}, lea32[] = {0x48, 0x8D, 0xA5};
  size_t i = 0;
  *ret_add = 0;
  *ret_lea = false;
  *ret_n = 0;
  if (at(code, len, i, vzeroupper, 3))
    i += 3;
  if (at(code, len, i, add8, 3) && i + 4 <= len) {
    *ret_add = code[i + 3];
    if (*ret_add & 0x80)
      return false;
    i += 4;
  } else if (at(code, len, i, add32, 3) && i + 7 <= len) {
    *ret_add =
        (uint32_t)code[i + 3] | (uint32_t)code[i + 4] << 8 | (uint32_t)code[i + 5] << 16 | (uint32_t)code[i + 6] << 24;
    i += 7;
  } else if (at(code, len, i, lea8, 3) && i + 4 <= len) {
    *ret_lea = true;
    i += 4;
  } else if (at(code, len, i, lea32, 3) && i + 7 <= len) {
    *ret_lea = true;
    i += 7;
  }
  bool undid = *ret_add != 0 || *ret_lea;
  for (;;) {
    if (i < len && code[i] >= 0x58 && code[i] <= 0x5F) {
      ret_pops[(*ret_n)++] = (uint8_t)(code[i] - 0x58);
      i++;
    } else if (i + 1 < len && code[i] == 0x41 && code[i + 1] >= 0x58 && code[i + 1] <= 0x5F) {
      ret_pops[(*ret_n)++] = (uint8_t)(8 + code[i + 1] - 0x58);
      i += 2;
    } else {
      break;
    }
    if (*ret_n > PROLOGUE_MAX_PUSHES)
      return false;
  }
  undid = undid || *ret_n > 0;
  if (i < len && (code[i] == 0xC3 || code[i] == 0xC2))
    return true;
  /* A tail call: jmp rel32, or jmp through a register or memory (FF /4, maybe with a REX prefix). */
  size_t j = i < len && (code[i] & 0xF0) == 0x40 ? i + 1 : i;
  bool jmp = (j < len && code[j] == 0xE9) || (j + 1 < len && code[j] == 0xFF && ((code[j + 1] >> 3) & 7) == 4);
  return undid && jmp;
}

bool sxs__prologue_frame_at(const uint8_t *entry, size_t entry_len, size_t offset, const uint8_t *at_code,
                            size_t at_len, SxsFrameAt *ret) {
  if (entry == NULL || at_code == NULL || ret == NULL)
    return false;
  SxsPrologue whole;
  if (!sxs__prologue_decode(entry, entry_len, &whole))
    return false;
  Scan s;
  if (offset < whole.prologue_len) {
    /* Inside the prologue: what it has done before this instruction. */
    scan_prologue(entry, entry_len, offset, &s);
    if (s.bad || s.i != offset)
      return false; /* inside an instruction: not an instruction the method was interrupted at */
    if (s.rbp_set) {
      *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_FP};
      return true;
    }
    *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_SP,
                        .ra_offset = s.pushes * 8 + (s.subbed ? s.sub : 0),
                        .rbp_slot = rbp_slot_of(&s, s.pushes)};
    return true;
  }
  scan_prologue(entry, entry_len, SIZE_MAX, &s);
  uint32_t add;
  bool lea;
  uint8_t pops[PROLOGUE_MAX_PUSHES + 1];
  unsigned n_pops;
  if (read_epilogue(at_code, at_len, &add, &lea, pops, &n_pops)) {
    /* The pops undo the last n_pops pushes, in reverse order; the first pushes stay until their own pop. */
    if (n_pops > s.pushes)
      return false;
    for (unsigned k = 0; k < n_pops; k++)
      if (pops[k] != s.regs[n_pops - 1 - k])
        return false;
    if (s.framed) {
      /* RBP is the frame pointer until its own pop, the epilogue's last. */
      if (n_pops > 0 || lea) {
        if (!s.rbp_set || (lea && n_pops == 0))
          return false;
        *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_FP};
      } else {
        if (add != 0)
          return false;
        *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_SP, .ra_offset = 0};
      }
      return true;
    }
    /* An `add rsp` undoes the frame and the pushes no pop undoes (a `push rax` that only made room). */
    if (lea || (add != 0 && n_pops * 8 + add != s.pushes * 8 + s.sub))
      return false;
    *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_SP, .ra_offset = n_pops * 8 + add, .rbp_slot = rbp_slot_of(&s, n_pops)};
    return true;
  }
  /* The body. */
  if (s.framed) {
    if (!s.rbp_set)
      return false;
    *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_FP};
    return true;
  }
  *ret = (SxsFrameAt){.kind = SXS_FRAME_AT_SP, .ra_offset = whole.frame_bytes, .rbp_slot = whole.rbp_slot};
  return true;
}

/* A stub's bytes: -1 for a byte of an address or an immediate, which differs from stub to stub. */
typedef struct {
  const char *name;
  short bytes[24];
  size_t len;
  size_t starts[5]; /* its instructions' offsets */
  size_t n_starts;
} StubShape;

static const StubShape STUB_SHAPES[] = {
    {"[call counting stub]",
     {0x48, 0x8b, 0x05, -1, -1, -1, -1,   0x66, 0xff, 0x08, 0x74, 0x06,
      0xff, 0x25, -1,   -1, -1, -1, 0xff, 0x25, -1,   -1,   -1,   -1},
     24,
     {0, 7, 10, 12, 18},
     5},
    {"[precode]",
     {0xff, 0x25, -1, -1, -1, -1, 0x4c, 0x8b, 0x15, -1, -1, -1, -1, 0xff, 0x25, -1, -1, -1, -1},
     19,
     {0, 6, 13},
     3},
    {"[precode]", {0x4c, 0x8b, 0x15, -1, -1, -1, -1, 0xff, 0x25, -1, -1, -1, -1}, 13, {0, 7}, 2},
    {"[precode]", {0x49, 0xba, -1, -1, -1, -1, -1, -1, -1, -1, 0xe9, -1, -1, -1, -1}, 15, {0, 10}, 2},
};

const char *sxs__prologue_stub_name(const uint8_t *code, size_t len, size_t at) {
  if (code == NULL || at >= len)
    return NULL;
  for (size_t s = 0; s < sizeof STUB_SHAPES / sizeof STUB_SHAPES[0]; s++) {
    const StubShape *shape = &STUB_SHAPES[s];
    for (size_t k = 0; k < shape->n_starts; k++) {
      if (shape->starts[k] > at || at - shape->starts[k] + shape->len > len)
        continue;
      const uint8_t *start = code + (at - shape->starts[k]);
      size_t i = 0;
      while (i < shape->len && (shape->bytes[i] < 0 || start[i] == (uint8_t)shape->bytes[i]))
        i++;
      if (i == shape->len)
        return shape->name;
    }
  }
  return NULL;
}
