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

bool sxs__prologue_decode(const uint8_t *code, size_t len, SxsPrologue *ret) {
  static const uint8_t nop2[] = {0x66, 0x90}, nop5[] = {0x0F, 0x1F, 0x44, 0x00, 0x00};
  static const uint8_t mov_rbp_rsp_a[] = {0x48, 0x8B, 0xEC}, mov_rbp_rsp_b[] = {0x48, 0x89, 0xE5};
  static const uint8_t sub8[] = {0x48, 0x83, 0xEC}, sub32[] = {0x48, 0x81, 0xEC};
  static const uint8_t lea8[] = {0x48, 0x8D, 0x6C, 0x24}, lea32[] = {0x48, 0x8D, 0xAC, 0x24};
  static const uint8_t vzeroupper[] = {0xC5, 0xF8, 0x77};
  if (code == NULL || ret == NULL)
    return false;
  size_t i = 0;
  while (i < len && (code[i] == 0x90 || at(code, len, i, nop2, 2) || at(code, len, i, nop5, 5)))
    i += code[i] == 0x90 ? 1 : code[i] == 0x66 ? 2 : 5;
  unsigned pushes = 0, rbp_push = 0;
  bool rbp_pushed = false, framed = false, subbed = false;
  uint32_t sub = 0;
  for (;;) {
    if (at(code, len, i, vzeroupper, 3)) {
      i += 3;
    } else if (i < len && code[i] >= 0x50 && code[i] <= 0x57 && !subbed) {
      if (code[i] == 0x55) {
        rbp_pushed = true;
        rbp_push = pushes;
        /* RBP pushed first is the frame pointer's save (RyuJIT pushes it before the other registers): the body
         * sets RBP from RSP somewhere after the prologue's other instructions. */
        framed = framed || pushes == 0;
      }
      pushes++;
      i++;
    } else if (i + 1 < len && code[i] == 0x41 && code[i + 1] >= 0x50 && code[i + 1] <= 0x57 && !subbed) {
      pushes++;
      i += 2;
    } else if ((at(code, len, i, mov_rbp_rsp_a, 3) || at(code, len, i, mov_rbp_rsp_b, 3)) && rbp_pushed) {
      framed = true;
      i += 3;
    } else if (at(code, len, i, sub8, 3) && i + 4 <= len && !subbed) {
      sub = code[i + 3];
      if (sub & 0x80)
        return false; /* a negative immediate: not a frame */
      subbed = true;
      i += 4;
    } else if (at(code, len, i, sub32, 3) && i + 7 <= len && !subbed) {
      sub = (uint32_t)code[i + 3] | (uint32_t)code[i + 4] << 8 | (uint32_t)code[i + 5] << 16 |
            (uint32_t)code[i + 6] << 24;
      if (sub >= (1u << 24))
        return false;
      subbed = true;
      i += 7;
    } else if ((at(code, len, i, lea8, 4) && i + 5 <= len) || (at(code, len, i, lea32, 4) && i + 8 <= len)) {
      if (!rbp_pushed)
        return false;
      framed = true;
      i += code[i + 2] == 0x6C ? 5 : 8;
    } else {
      break;
    }
    if (pushes > PROLOGUE_MAX_PUSHES)
      return false;
  }
  if (i + 8 > len)
    return false; /* the prologue ran (nearly) to the end of what was read: an instruction may be cut */
  if (pushes == 0 && !subbed)
    return false; /* no frame built here (an OSR method's prologue, which starts from its Tier-0 frame, or a leaf) */
  *ret = (SxsPrologue){.framed = framed, .prologue_len = (unsigned)i};
  if (!framed) {
    ret->frame_bytes = pushes * 8 + sub;
    ret->rbp_slot = rbp_pushed ? 16 + 8 * rbp_push : 0;
  }
  return true;
}
