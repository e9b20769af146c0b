/* sxs_prologue: what an x64 JIT prologue says about its method's frame, read from the code's first bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A method's frame as its prologue builds it. RyuJIT on x64 opens every method with pushes of the callee-saved
 * registers it uses and a `sub rsp, N`; a method that needs a frame pointer pushes RBP first and points it into
 * the frame (`mov rbp, rsp` or `lea rbp, [rsp + K]`). A method without one keeps its caller's RBP (or saves it
 * among the pushes and uses it as a register), so a frame-pointer walk that reaches it goes on from its caller's
 * frame record and skips the caller: its return address is found instead at sp + frame_bytes.
 */
typedef struct SxsPrologue {
  bool framed;           /* RBP points into the frame: a frame-pointer step is right */
  unsigned frame_bytes;  /* frameless: the bytes between sp (in the body) and the return address */
  unsigned rbp_slot;     /* frameless: where the caller's RBP is saved, as bytes below the return address's slot
                          * plus 8 (CFA - slot); 0 when RBP is not pushed (unchanged) */
  unsigned prologue_len; /* the prologue's length: the body starts there */
} SxsPrologue;

/*
 * Decodes the prologue in code[0, len): optional no-ops, pushes of general registers, an optional `sub rsp, imm`,
 * and whether RBP is then set from RSP; at least 8 bytes must follow the prologue in what is given (read 64). Returns
 * false when the bytes are not such a prologue (the frame is then not
 * known: a stack probe, an unusual sequence); the caller keeps its frame-pointer step. Pure; any context.
 */
bool sxs__prologue_decode(const uint8_t *code, size_t len, SxsPrologue *ret);
