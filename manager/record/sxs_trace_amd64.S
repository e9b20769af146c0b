/* sxs_trace_amd64.S: the one place a hook may allocate. The hooks' C side (sxs_trace_hot.c) is
 * compiled without vector registers and called by trampolines that save only general ones; a
 * thread's first hook maps that thread's state through the wrapper below, which keeps XMM0-15 (the
 * managed method's argument and return registers among them) intact across mmap and GLib. */

    .text
    .intel_syntax noprefix

/* SxsThreadTrace *sxs_elt_thread_init(uint32_t slot): an ordinary SysV call from the C side that
 * also preserves XMM0-15, which the managed method may have live and which the allocation below
 * (mmap, GLib) is free to use. */
    .globl  sxs_elt_thread_init
    .hidden sxs_elt_thread_init
    .type   sxs_elt_thread_init, @function
sxs_elt_thread_init:
    .cfi_startproc
    push    rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset rbp, 0
    mov     rbp, rsp
    .cfi_def_cfa_register rbp
    and     rsp, -16
    sub     rsp, 256
    movdqa  [rsp + 0x00], xmm0
    movdqa  [rsp + 0x10], xmm1
    movdqa  [rsp + 0x20], xmm2
    movdqa  [rsp + 0x30], xmm3
    movdqa  [rsp + 0x40], xmm4
    movdqa  [rsp + 0x50], xmm5
    movdqa  [rsp + 0x60], xmm6
    movdqa  [rsp + 0x70], xmm7
    movdqa  [rsp + 0x80], xmm8
    movdqa  [rsp + 0x90], xmm9
    movdqa  [rsp + 0xa0], xmm10
    movdqa  [rsp + 0xb0], xmm11
    movdqa  [rsp + 0xc0], xmm12
    movdqa  [rsp + 0xd0], xmm13
    movdqa  [rsp + 0xe0], xmm14
    movdqa  [rsp + 0xf0], xmm15
    call    sxs__trace_thread_create
    movdqa  xmm0, [rsp + 0x00]
    movdqa  xmm1, [rsp + 0x10]
    movdqa  xmm2, [rsp + 0x20]
    movdqa  xmm3, [rsp + 0x30]
    movdqa  xmm4, [rsp + 0x40]
    movdqa  xmm5, [rsp + 0x50]
    movdqa  xmm6, [rsp + 0x60]
    movdqa  xmm7, [rsp + 0x70]
    movdqa  xmm8, [rsp + 0x80]
    movdqa  xmm9, [rsp + 0x90]
    movdqa  xmm10, [rsp + 0xa0]
    movdqa  xmm11, [rsp + 0xb0]
    movdqa  xmm12, [rsp + 0xc0]
    movdqa  xmm13, [rsp + 0xd0]
    movdqa  xmm14, [rsp + 0xe0]
    movdqa  xmm15, [rsp + 0xf0]
    mov     rsp, rbp
    pop     rbp
    .cfi_def_cfa rsp, 8
    ret
    .cfi_endproc
    .size   sxs_elt_thread_init, .-sxs_elt_thread_init

    .section .note.GNU-stack, "", @progbits
