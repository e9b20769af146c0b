/* sxs_elt_amd64.S: the fast-path Enter/Leave/Tailcall hooks (SetEnterLeaveFunctionHooks3) for
 * Linux x86-64. The JIT calls these directly from a managed method's prolog and epilog, outside
 * the normal calling convention:
 *
 *   Enter:    client ID in R14 (the caller's SP in R15); the method's argument registers
 *             (RDI, RSI, RDX, RCX, R8, R9, XMM0-7) are live and must survive.
 *   Leave:    client ID in RDI; the return registers (RAX, RDX, XMM0, XMM1) are live.
 *   Tailcall: client ID in RDI; the JIT calls it before it sets up the outgoing arguments, with
 *             the same registers to keep as Leave.
 *
 * Each trampoline saves the general-purpose registers the JIT expects to survive the call and
 * calls the C side with the client ID as its one argument. The C side (manager/record/sxs_trace_hot.c) is compiled with -mgeneral-regs-only, so it
 * never touches a vector register; the only path that may (a thread's first hook, which maps its
 * state) goes through sxs_elt_thread_init (manager/record/sxs_trace_amd64.S), which saves XMM0-15.
 *
 * Context: any managed thread; no allocation beyond that first mapping, no lock. */

    .text
    .intel_syntax noprefix

/* What each hook must keep, from the JIT's own trash sets for these helper calls (and never less
 * than older runtimes assumed):
 *   Enter:           RDI, RSI, RDX, RCX, R8, R9 (the method's integer arguments; RAX, R10, R11 are
 *                    trashed by the JIT's rules, XMM registers are never touched by the C side)
 *   Leave, Tailcall: RAX, RDX (the integer return registers; XMM0/XMM1 likewise untouched)
 * The JIT keeps RSP % 16 == 8 at the call, as for any call; each trampoline pushes an odd number of
 * slots so the C side runs on an aligned stack. */

    .globl  sxs_elt_enter3
    .hidden sxs_elt_enter3
    .type   sxs_elt_enter3, @function
sxs_elt_enter3:
    .cfi_startproc
    push    rdi
    .cfi_adjust_cfa_offset 8
    push    rsi
    .cfi_adjust_cfa_offset 8
    push    rdx
    .cfi_adjust_cfa_offset 8
    push    rcx
    .cfi_adjust_cfa_offset 8
    push    r8
    .cfi_adjust_cfa_offset 8
    push    r9
    .cfi_adjust_cfa_offset 8
    sub     rsp, 8
    .cfi_adjust_cfa_offset 8
    mov     rdi, r14
    call    sxs__trace_enter
    add     rsp, 8
    .cfi_adjust_cfa_offset -8
    pop     r9
    .cfi_adjust_cfa_offset -8
    pop     r8
    .cfi_adjust_cfa_offset -8
    pop     rcx
    .cfi_adjust_cfa_offset -8
    pop     rdx
    .cfi_adjust_cfa_offset -8
    pop     rsi
    .cfi_adjust_cfa_offset -8
    pop     rdi
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_endproc
    .size   sxs_elt_enter3, .-sxs_elt_enter3

/* LEAVE_LIKE name, target: a hook whose client ID is already in RDI. */
.macro LEAVE_LIKE name, target
    .globl  \name
    .hidden \name
    .type   \name, @function
\name:
    .cfi_startproc
    push    rax
    .cfi_adjust_cfa_offset 8
    push    rdx
    .cfi_adjust_cfa_offset 8
    sub     rsp, 8
    .cfi_adjust_cfa_offset 8
    call    \target
    add     rsp, 8
    .cfi_adjust_cfa_offset -8
    pop     rdx
    .cfi_adjust_cfa_offset -8
    pop     rax
    .cfi_adjust_cfa_offset -8
    ret
    .cfi_endproc
    .size   \name, .-\name
.endm

    LEAVE_LIKE sxs_elt_leave3, sxs__trace_leave
    LEAVE_LIKE sxs_elt_tailcall3, sxs__trace_tailcall

/* hooks=empty: the probes' own cost, with no routing or bookkeeping. */
    .globl  sxs_elt_empty3
    .hidden sxs_elt_empty3
    .type   sxs_elt_empty3, @function
sxs_elt_empty3:
    .cfi_startproc
    ret
    .cfi_endproc
    .size   sxs_elt_empty3, .-sxs_elt_empty3

    .section .note.GNU-stack, "", @progbits
