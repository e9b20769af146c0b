/* The unwind-table row at a code address, read in place from a loaded module's .eh_frame through
 * its .eh_frame_hdr search table: no allocation, no lock, no loader call, so a signal handler may
 * ask. It follows the rules x86-64 code uses for the CFA, RBP and the return address; it does not
 * evaluate DWARF expressions and does not walk stacks (sxs_unwind.c turns rows into steps). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Where one loaded module's unwind tables are in the running process. */
typedef struct {
  uintptr_t hdr;    /* run-time address of .eh_frame_hdr (PT_GNU_EH_FRAME); 0 when there is none */
  uintptr_t lo, hi; /* the loaded segment holding it: every byte the reader reads lies in [lo, hi) */
} SxsEhFrame;

/* One row of the table, reduced to what a step to the caller needs on x86-64. */
typedef struct {
  bool end;        /* the return address is undefined there: the thread's outermost frame (the
                        * other fields are then not set) */
  bool cfa_is_rbp; /* the CFA (the caller's RSP) is RBP + cfa_offset; otherwise RSP + cfa_offset */
  int64_t cfa_offset;
  bool rbp_saved; /* the caller's RBP is saved at CFA + rbp_offset (negative); otherwise the
                        * frame leaves RBP as it found it */
  int64_t rbp_offset;
  uintptr_t start; /* the function's first instruction (the FDE's initial location) */
} SxsCfiRow;

/*
 * The row of eh's tables that holds at pc: for the frame a signal interrupted, pc is the
 * interrupted instruction; for a frame known by its return address, pc is that address - 1 (the
 * call instruction, whose row a return uses). The return address is always at CFA - 8 in a row
 * this gives.
 *
 * Returns 0 and *ret_row; -ENOENT when no FDE covers pc (or eh has no table); -ENOTSUP for a row
 * this reader does not follow (a CFA or RBP given by a DWARF expression or another register, a
 * return address elsewhere than CFA - 8, a signal trampoline's frame, a table that is not a sorted
 * one of 32-bit entries); -EFAULT when the tables are malformed or lead outside [eh->lo, eh->hi).
 * *ret_row is untouched on failure. The instructions run are bounded, so is the state stack.
 *
 * Context: any thread; async-signal-safe (reads the module's mapped tables, nothing else). The
 * module must stay loaded during the call: the caller's module map guarantees it.
 */
int sxs__cfi_row(const SxsEhFrame *eh, uintptr_t pc, SxsCfiRow *ret_row);

/*
 * The start of the function holding pc, as eh's tables know it (the initial location of the FDE
 * that covers pc): what names a function that no symbol does. Returns 0 and *ret_start; -ENOENT
 * when no FDE covers pc (or eh has no table); -ENOTSUP, -EFAULT as sxs__cfi_row.
 *
 * Context: any thread; async-signal-safe. The module must stay loaded during the call.
 */
int sxs__cfi_function_start(const SxsEhFrame *eh, uintptr_t pc, uintptr_t *ret_start);

/*
 * Whether the FDE that covers pc is a signal trampoline's (its CIE's augmentation has 'S': the
 * frame is the kernel's signal frame, whose caller is the interrupted instruction, not a return
 * address). *ret_end (may be NULL): the end of the FDE's range, so a caller reads the trampoline's
 * code only inside it.
 *
 * Context: any thread; async-signal-safe. The module must stay loaded during the call.
 */
bool sxs__cfi_signal_frame(const SxsEhFrame *eh, uintptr_t pc, uintptr_t *ret_end);
