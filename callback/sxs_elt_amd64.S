/* sxs_elt_amd64.S: the fast-path Enter/Leave/Tailcall hooks (SetEnterLeaveFunctionHooks3) for
 * Linux x86-64. The JIT calls these directly from a managed method's prolog and epilog, outside
 * the normal calling convention:
 *
 *   Enter:    client ID in R14 (the caller's SP in R15); the method's argument registers
 *             (RDI, RSI, RDX, RCX, R8, R9, XMM0-7) are live and must survive.
 *   Leave:    client ID in RDI; the return registers (RAX, RDX, XMM0, XMM1) are live.
 *   Tailcall: client ID in RDI; conservatively, every argument register is treated as live.
 *
 * Each trampoline saves every caller-saved general-purpose register, aligns the stack to 16
 * bytes (the JIT does not promise it), and calls the C side with the client ID as its one
 * argument. The C side (manager/sxs_trace_hot.c) is compiled with -mgeneral-regs-only, so it
 * never touches a vector register; the only path that may (a thread's first hook, which maps its
 * state) goes through sxs_elt_thread_init (manager/sxs_trace_amd64.S), which saves XMM0-15.
 *
 * Context: any managed thread; no allocation beyond that first mapping, no lock. */

    .text
    .intel_syntax noprefix

/* SAVE_GPRS / RESTORE_GPRS: RBP frame, aligned stack, the nine caller-saved GPRs plus one slot of
 * padding (ten pushes keep the alignment). */
.macro SAVE_GPRS
    push    rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    mov     rbp, rsp
    .cfi_def_cfa_register rbp
    and     rsp, -16
    push    rax
    push    rcx
    push    rdx
    push    rsi
    push    rdi
    push    r8
    push    r9
    push    r10
    push    r11
    push    r11
.endm

.macro RESTORE_GPRS
    pop     r11
    pop     r11
    pop     r10
    pop     r9
    pop     r8
    pop     rdi
    pop     rsi
    pop     rdx
    pop     rcx
    pop     rax
    mov     rsp, rbp
    pop     rbp
    .cfi_def_cfa rsp, 8
.endm

    .globl  sxs_elt_enter3
    .hidden sxs_elt_enter3
    .type   sxs_elt_enter3, @function
sxs_elt_enter3:
    .cfi_startproc
    SAVE_GPRS
    mov     rdi, r14
    call    sxs__trace_enter
    RESTORE_GPRS
    ret
    .cfi_endproc
    .size   sxs_elt_enter3, .-sxs_elt_enter3

    .globl  sxs_elt_leave3
    .hidden sxs_elt_leave3
    .type   sxs_elt_leave3, @function
sxs_elt_leave3:
    .cfi_startproc
    SAVE_GPRS
    call    sxs__trace_leave
    RESTORE_GPRS
    ret
    .cfi_endproc
    .size   sxs_elt_leave3, .-sxs_elt_leave3

    .globl  sxs_elt_tailcall3
    .hidden sxs_elt_tailcall3
    .type   sxs_elt_tailcall3, @function
sxs_elt_tailcall3:
    .cfi_startproc
    SAVE_GPRS
    call    sxs__trace_tailcall
    RESTORE_GPRS
    ret
    .cfi_endproc
    .size   sxs_elt_tailcall3, .-sxs_elt_tailcall3

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
