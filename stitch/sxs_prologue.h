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
  unsigned record_above; /* framed: the bytes between sp (in the body) and the frame record (RBP's save): the
                          * pushes after it and the `sub` */
} SxsPrologue;

/*
 * Decodes the prologue in code[0, len): optional no-ops, pushes of general registers, an optional `sub rsp, imm`,
 * and whether RBP is then set from RSP; at least 8 bytes must follow the prologue in what is given (read 64). Returns
 * false when the bytes are not such a prologue (the frame is then not
 * known: a stack probe, an unusual sequence); the caller keeps its frame-pointer step. Pure; any context.
 */
bool sxs__prologue_decode(const uint8_t *code, size_t len, SxsPrologue *ret);

/* The frame at one instruction of a method, as a walk that interrupted the method there must step it. */
typedef enum {
  SXS_FRAME_AT_FP = 1, /* RBP points at the method's frame record: a frame-pointer step */
  SXS_FRAME_AT_SP,     /* the return address at sp + ra_offset (the prologue's pushes so far, its frame, or what an
                        * epilogue has left) */
} SxsFrameAtKind;
typedef struct SxsFrameAt {
  SxsFrameAtKind kind;
  unsigned ra_offset; /* SP: the return address's slot, as bytes above sp */
  unsigned rbp_slot;  /* SP: the caller's RBP at (sp + ra_offset + 8) - rbp_slot; 0 when RBP is still the caller's */
} SxsFrameAt;

/*
 * The frame at the instruction `offset` bytes into a method whose first bytes are entry[0, entry_len) (read 64, as
 * for sxs__prologue_decode) and whose bytes from that instruction on are at[0, at_len) (read 16): inside the
 * prologue, the pushes and the `sub` done so far; at an epilogue (`add rsp, imm` or `lea rsp, [rbp + d]`, pops in
 * the reverse order of the prologue's pushes, then `ret`, or a `jmp` after at least one of them: a tail call), what
 * it has not undone yet; elsewhere, the body's frame. False when that is not known: the prologue is not one
 * sxs__prologue_decode knows, the offset falls inside one of its instructions, a framed method's RBP is set after
 * the prologue read, or an epilogue undoes what the prologue did not do. A leaf that builds no frame is not known
 * (an OSR method's entry looks the same). Pure; any context.
 */
bool sxs__prologue_frame_at(const uint8_t *entry, size_t entry_len, size_t offset, const uint8_t *at, size_t at_len,
                            SxsFrameAt *ret);

/*
 * The runtime stub an interrupted instruction is in, from the code around it: code[0, len) with the instruction at
 * code[at]. CoreCLR's x86-64 stubs in its stub heaps, which no API names (GetFunctionFromIP does not claim them, no
 * module holds them): "[call counting stub]" (.NET 7 and later: `mov rax, [rip + counter]; dec word [rax]; je +6;
 * jmp [rip + target]; jmp [rip + on-threshold]`), "[precode]" (.NET 7 and later, FixupPrecode: `jmp [rip + target];
 * mov r10, [rip + method]; jmp [rip + fixup]`, and StubPrecode: `mov r10, [rip + method]; jmp [rip + target]`; before
 * .NET 7, StubPrecode: `mov r10, imm64; jmp rel32`), the instruction being any of the stub's. NULL when the code is
 * none of them. Pure; any context.
 */
const char *sxs__prologue_stub_name(const uint8_t *code, size_t len, size_t at);
