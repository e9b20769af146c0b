/* Unit tests of sxs__prologue_decode on prologues RyuJIT emitted for .NET 8 on x64 (read from the code of the
 * StackTruth app): framed methods (RBP pushed first, set by mov or lea, with vzeroupper or pushes between, and where
 * their frame record lies above sp in the body),
 * frameless tier-1 methods (their frame size and where they save RBP), and what is not a prologue (an OSR method's
 * entry, a leaf that builds nothing, bytes that end inside the prologue); and the frame at each instruction of such methods, prologue, body and
 * epilogue (sxs__prologue_frame_at). */
#include <glib.h>
#include <string.h>

#include "sxs_prologue.h"

/* Decodes code followed by int3 up to 64 bytes (as much as the sampler reads). */
static bool decode_padded(const uint8_t *code, size_t len, SxsPrologue *ret) {
  uint8_t padded[64];
  memset(padded, 0xCC, sizeof padded);
  memcpy(padded, code, len);
  return sxs__prologue_decode(padded, sizeof padded, ret);
}

static SxsPrologue decode_ok(const uint8_t *code, size_t len) {
  SxsPrologue p;
  memset(&p, 0xAB, sizeof p);
  g_assert_true(decode_padded(code, len, &p));
  return p;
}

static void test_framed(void) {
  /* push rbp; sub rsp, 0x10; lea rbp, [rsp+0x10]; mov [rbp-8], rdi (a Tier-0 leaf) */
  static const uint8_t tier0[] = {0x55, 0x48, 0x83, 0xec, 0x10, 0x48, 0x8d, 0x6c, 0x24, 0x10, 0x48, 0x89, 0x7d, 0xf8};
  SxsPrologue p = decode_ok(tier0, sizeof tier0);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 10);
  g_assert_cmpuint(p.record_above, ==, 0x10); /* what the lea sets RBP to, from sp */
  /* push rbp; sub rsp, 0x60; vzeroupper; lea rbp, [rsp+0x60] */
  static const uint8_t vzu[] = {0x55, 0x48, 0x83, 0xec, 0x60, 0xc5, 0xf8, 0x77, 0x48, 0x8d, 0x6c, 0x24, 0x60, 0xc4};
  p = decode_ok(vzu, sizeof vzu);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 13);
  g_assert_cmpuint(p.record_above, ==, 0x60);
  /* push rbp; push r15..r12; push rbx; sub rsp, 0x98; lea rbp, [rsp+0xc0] */
  static const uint8_t many[] = {0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x53, 0x48, 0x81, 0xec,
                                 0x98, 0x00, 0x00, 0x00, 0x48, 0x8d, 0xac, 0x24, 0xc0, 0x00, 0x00, 0x00, 0x33};
  p = decode_ok(many, sizeof many);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 25);
  g_assert_cmpuint(p.record_above, ==, 0xc0);
  /* push rbp; mov rbp, rsp; mov rax, rdi (a tier-1 leaf) */
  static const uint8_t mov[] = {0x55, 0x48, 0x8b, 0xec, 0x48, 0x8b, 0xc7};
  p = decode_ok(mov, sizeof mov);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 4);
  g_assert_cmpuint(p.record_above, ==, 0);
  /* push rbp; push rbx; push rax; lea rbp, [rsp+0x10] (tier-1 recursion) */
  static const uint8_t three[] = {0x55, 0x53, 0x50, 0x48, 0x8d, 0x6c, 0x24, 0x10, 0x8b, 0xdf};
  p = decode_ok(three, sizeof three);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 8);
  g_assert_cmpuint(p.record_above, ==, 0x10);
}

static void test_frameless(void) {
  /* push rbx; mov rbx, rdi; mov rdi, rbx; call [rip+...] (tier-1 A of OsrLoop) */
  static const uint8_t rbx[] = {0x53, 0x48, 0x8b, 0xdf, 0x48, 0x8b, 0xfb, 0xff, 0x15};
  SxsPrologue p = decode_ok(rbx, sizeof rbx);
  g_assert_false(p.framed);
  g_assert_cmpuint(p.frame_bytes, ==, 8);
  g_assert_cmpuint(p.rbp_slot, ==, 0);
  g_assert_cmpuint(p.prologue_len, ==, 1);
  /* push rax; mov rdi, rsi; call [rip+...] */
  static const uint8_t rax[] = {0x50, 0x48, 0x8b, 0xfe, 0xff, 0x15};
  p = decode_ok(rax, sizeof rax);
  g_assert_false(p.framed);
  g_assert_cmpuint(p.frame_bytes, ==, 8);
  /* push r15; push r14; push rbp; push rbx; sub rsp, 0x28; xor eax, eax: RBP saved third, used as a register */
  static const uint8_t regs[] = {0x41, 0x57, 0x41, 0x56, 0x55, 0x53, 0x48, 0x83, 0xec, 0x28, 0x33, 0xc0};
  p = decode_ok(regs, sizeof regs);
  g_assert_false(p.framed);
  g_assert_cmpuint(p.frame_bytes, ==, 4 * 8 + 0x28);
  g_assert_cmpuint(p.rbp_slot, ==, 16 + 2 * 8);
  g_assert_cmpuint(p.prologue_len, ==, 10);
  /* nop5 then sub rsp, 0x1000 (imm32) */
  static const uint8_t big[] = {0x0f, 0x1f, 0x44, 0x00, 0x00, 0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00, 0x90};
  p = decode_ok(big, sizeof big);
  g_assert_false(p.framed);
  g_assert_cmpuint(p.frame_bytes, ==, 0x1000);
  g_assert_cmpuint(p.prologue_len, ==, 12);
}

static void test_not_known(void) {
  SxsPrologue p;
  /* An OSR method: mov rax, [rbp]; push rax; sub rsp, 0x30 (it continues the Tier-0 frame) */
  static const uint8_t osr[] = {0x48, 0x8b, 0x45, 0x00, 0x50, 0x48, 0x83, 0xec, 0x30, 0x4c};
  g_assert_false(decode_padded(osr, sizeof osr, &p));
  /* Nothing built: a leaf that starts with its body */
  static const uint8_t leaf[] = {0x48, 0x8b, 0xc7, 0xc3};
  g_assert_false(decode_padded(leaf, sizeof leaf, &p));
  /* The bytes end inside the prologue: its end and the frame size are not known */
  static const uint8_t cut[] = {0x53, 0x41, 0x57, 0x48, 0x83};
  g_assert_false(sxs__prologue_decode(cut, sizeof cut, &p));
  static const uint8_t short_body[] = {0x53, 0x48, 0x8b, 0xdf, 0xff, 0x15, 0x00};
  g_assert_false(sxs__prologue_decode(short_body, sizeof short_body, &p));
  /* lea rbp without RBP saved first; a negative sub; a second sub */
  static const uint8_t lea[] = {0x53, 0x48, 0x8d, 0x6c, 0x24, 0x10, 0x90};
  g_assert_false(decode_padded(lea, sizeof lea, &p));
  static const uint8_t neg[] = {0x53, 0x48, 0x83, 0xec, 0xf0, 0x90};
  g_assert_false(decode_padded(neg, sizeof neg, &p));
  static const uint8_t twice[] = {0x53, 0x48, 0x83, 0xec, 0x10, 0x48, 0x83, 0xec, 0x10, 0x90};
  SxsPrologue once = decode_ok(twice, sizeof twice);
  g_assert_cmpuint(once.prologue_len, ==, 5); /* the second sub is the body's, never a frame size added */
  g_assert_false(sxs__prologue_decode(NULL, 4, &p));
}

/* The frame at `offset` of a method whose code is code[0, len) (padded with int3 as the sampler's reads are). */
static bool frame_at(const uint8_t *code, size_t len, size_t offset, SxsFrameAt *ret) {
  uint8_t padded[96];
  memset(padded, 0xCC, sizeof padded);
  memcpy(padded, code, len);
  memset(ret, 0xAB, sizeof *ret);
  return sxs__prologue_frame_at(padded, 64, offset, padded + offset, 16, ret);
}

static void assert_sp(const uint8_t *code, size_t len, size_t offset, unsigned ra_offset, unsigned rbp_slot) {
  SxsFrameAt f;
  g_assert_true(frame_at(code, len, offset, &f));
  g_assert_cmpint(f.kind, ==, SXS_FRAME_AT_SP);
  g_assert_cmpuint(f.ra_offset, ==, ra_offset);
  g_assert_cmpuint(f.rbp_slot, ==, rbp_slot);
}

static void assert_fp(const uint8_t *code, size_t len, size_t offset) {
  SxsFrameAt f;
  g_assert_true(frame_at(code, len, offset, &f));
  g_assert_cmpint(f.kind, ==, SXS_FRAME_AT_FP);
}

static void test_frame_at_frameless(void) {
  /* Tier-1 Closures.<>c.<Run>b__1_1 (.NET 10): push rax; mov rax, rsi; mov rsi, rdx; mov rdi, [rax+8];
   * call [rax+0x18]; xor rax, 1; add rsp, 8; ret */
  static const uint8_t lambda[] = {0x50, 0x48, 0x8b, 0xc6, 0x48, 0x8b, 0xf2, 0x48, 0x8b, 0x78, 0x08, 0xff,
                                   0x50, 0x18, 0x48, 0x83, 0xf0, 0x01, 0x48, 0x83, 0xc4, 0x08, 0xc3};
  assert_sp(lambda, sizeof lambda, 0x00, 0, 0); /* before the push: the return address at sp */
  assert_sp(lambda, sizeof lambda, 0x01, 8, 0); /* the body */
  assert_sp(lambda, sizeof lambda, 0x0e, 8, 0); /* after the call */
  assert_sp(lambda, sizeof lambda, 0x12, 8, 0); /* add rsp, 8 undoes the push rax */
  assert_sp(lambda, sizeof lambda, 0x16, 0, 0); /* ret */
  /* push r15; push r14; push rbp; push rbx; sub rsp, 0x28; xor eax, eax; ...; add rsp, 0x28; pop rbx; pop rbp;
   * pop r14; pop r15; ret: RBP saved third (its slot 32 below the CFA) and used as a register */
  static const uint8_t regs[] = {0x41, 0x57, 0x41, 0x56, 0x55, 0x53, 0x48, 0x83, 0xec, 0x28, 0x33, 0xc0,
                                 0x48, 0x83, 0xc4, 0x28, 0x5b, 0x5d, 0x41, 0x5e, 0x41, 0x5f, 0xc3};
  assert_sp(regs, sizeof regs, 0, 0, 0);
  assert_sp(regs, sizeof regs, 2, 8, 0);
  assert_sp(regs, sizeof regs, 4, 16, 0);
  assert_sp(regs, sizeof regs, 5, 24, 32); /* RBP pushed: the caller's is in its slot from here on */
  assert_sp(regs, sizeof regs, 6, 32, 32);
  assert_sp(regs, sizeof regs, 10, 72, 32); /* the body */
  assert_sp(regs, sizeof regs, 12, 72, 32); /* add rsp, 0x28 */
  assert_sp(regs, sizeof regs, 16, 32, 32); /* pop rbx */
  assert_sp(regs, sizeof regs, 17, 24, 32); /* pop rbp */
  assert_sp(regs, sizeof regs, 18, 16, 0);  /* pop r14: RBP is the caller's again */
  assert_sp(regs, sizeof regs, 20, 8, 0);
  assert_sp(regs, sizeof regs, 22, 0, 0);
  /* A tail call: add rsp, 8; jmp rel32 is an epilogue; a jmp alone is the body's */
  static const uint8_t tail[] = {0x50, 0x48, 0x8b, 0xc6, 0x48, 0x8b, 0xf2, 0x48, 0x8b, 0x78, 0x08, 0x90, 0x48,
                                 0x83, 0xc4, 0x08, 0xe9, 0x00, 0x00, 0x00, 0x00, 0xe9, 0x00, 0x00, 0x00, 0x00};
  assert_sp(tail, sizeof tail, 12, 8, 0);
  assert_sp(tail, sizeof tail, 16, 8, 0); /* a jmp with nothing undone before it: the body's */
  /* Pops in another order than the pushes', or more of them: not this method's epilogue */
  static const uint8_t order[] = {0x53, 0x55, 0x48, 0x83, 0xec, 0x08, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                  0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3, 0x5d, 0x5b, 0x5b, 0xc3};
  SxsFrameAt f;
  g_assert_false(frame_at(order, sizeof order, 12, &f));
  g_assert_false(frame_at(order, sizeof order, 19, &f));
  assert_sp(order, sizeof order, 21, 8, 0); /* pop rbx; ret: the first push's pop alone */
}

static void test_frame_at_framed(void) {
  /* push rbp; sub rsp, 0x10; lea rbp, [rsp+0x10]; mov [rbp-8], rdi; ...; add rsp, 0x10; pop rbp; ret */
  static const uint8_t tier0[] = {0x55, 0x48, 0x83, 0xec, 0x10, 0x48, 0x8d, 0x6c, 0x24, 0x10,
                                  0x48, 0x89, 0x7d, 0xf8, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3};
  assert_sp(tier0, sizeof tier0, 0, 0, 0);
  assert_sp(tier0, sizeof tier0, 1, 8, 16);    /* RBP pushed, not yet set */
  assert_sp(tier0, sizeof tier0, 5, 0x18, 16); /* after the sub */
  assert_fp(tier0, sizeof tier0, 10);          /* the body */
  assert_fp(tier0, sizeof tier0, 14);          /* add rsp: RBP is still the frame's */
  assert_fp(tier0, sizeof tier0, 18);          /* pop rbp */
  assert_sp(tier0, sizeof tier0, 19, 0, 0);    /* ret */
  SxsFrameAt f;
  g_assert_false(frame_at(tier0, sizeof tier0, 3, &f)); /* inside the sub */
  /* push rbp; push rbx; sub rsp, 8; vzeroupper; xor eax, eax; lea rbp, [rsp+0x10]: RBP set after the prologue read
   * ends, so the body's frame is not known */
  static const uint8_t late[] = {0x55, 0x53, 0x48, 0x83, 0xec, 0x08, 0xc5, 0xf8, 0x77, 0x33, 0xc0, 0x48,
                                 0x8d, 0x6c, 0x24, 0x10, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
  g_assert_false(frame_at(late, sizeof late, 16, &f));
  assert_sp(late, sizeof late, 2, 16, 16);
  /* A leaf that builds nothing is not known (an OSR method's entry looks the same) */
  static const uint8_t leaf[] = {0x48, 0x8b, 0xc7, 0xc3};
  g_assert_false(frame_at(leaf, sizeof leaf, 3, &f));
}

/* The runtime's stubs, known from the code around an interrupted instruction at each of the stub's instructions and
 * at none of the bytes inside one. The call-counting stub is one .NET 10 wrote (read from a running process, the
 * stubs before and after it around it); the precodes are made as the runtimes lay them out. */
static void test_stub_name(void) {
  static const uint8_t counting[] = {
      0x66, 0xff, 0x08, 0x74, 0x06, 0xff, 0x25, 0xf6, 0x3f, 0x00, 0x00, 0xff, 0x25, 0xf8, 0x3f, 0x00, /* stub before */
      0x00, 0x48, 0x8b, 0x05, 0xf9, 0x3f, 0x00, 0x00, 0x66, 0xff, 0x08, 0x74, 0x06, 0xff, 0x25, 0xf6,
      0x3f, 0x00, 0x00, 0xff, 0x25, 0xf8, 0x3f, 0x00, 0x00, 0x48, 0x8b, 0x05, 0xf9, 0x3f, 0x00, 0x00};
  const size_t first = 17; /* the stub's first instruction */
  static const size_t instructions[] = {0, 7, 10, 12, 18};
  for (size_t i = 0; i < G_N_ELEMENTS(instructions); i++)
    g_assert_cmpstr(sxs__prologue_stub_name(counting, sizeof counting, first + instructions[i]), ==,
                    "[call counting stub]");
  g_assert_null(sxs__prologue_stub_name(counting, sizeof counting, first + 1)); /* inside `mov rax` */
  g_assert_null(sxs__prologue_stub_name(counting, sizeof counting, first + 8)); /* inside `dec` */
  g_assert_null(sxs__prologue_stub_name(counting, first + 20, first));          /* cut short */
  g_assert_null(sxs__prologue_stub_name(counting, sizeof counting, sizeof counting));

  static const uint8_t fixup[] = {0xff, 0x25, 0xfa, 0x3f, 0x00, 0x00, 0x4c, 0x8b, 0x15, 0xfb, 0x3f,
                                  0x00, 0x00, 0xff, 0x25, 0xfd, 0x3f, 0x00, 0x00, 0xcc, 0xcc, 0xcc};
  g_assert_cmpstr(sxs__prologue_stub_name(fixup, sizeof fixup, 0), ==, "[precode]");
  g_assert_cmpstr(sxs__prologue_stub_name(fixup, sizeof fixup, 6), ==, "[precode]");
  g_assert_cmpstr(sxs__prologue_stub_name(fixup, sizeof fixup, 13), ==, "[precode]");
  g_assert_null(sxs__prologue_stub_name(fixup, sizeof fixup, 2));
  /* before .NET 7: mov r10, imm64; jmp rel32 */
  static const uint8_t old_stub[] = {0x49, 0xba, 0x10, 0x20, 0x30, 0x40, 0x7f, 0x00,
                                     0x00, 0x00, 0xe9, 0x11, 0x22, 0x33, 0x44, 0xcc};
  g_assert_cmpstr(sxs__prologue_stub_name(old_stub, sizeof old_stub, 0), ==, "[precode]");
  g_assert_cmpstr(sxs__prologue_stub_name(old_stub, sizeof old_stub, 10), ==, "[precode]");
  /* a method's prologue is no stub */
  static const uint8_t method[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20, 0x48, 0x8b, 0x05,
                                   0x11, 0x22, 0x33, 0x44, 0x66, 0xff, 0x08, 0x75, 0x06, 0xcc, 0xcc};
  for (size_t at = 0; at < sizeof method; at++)
    g_assert_null(sxs__prologue_stub_name(method, sizeof method, at));
  g_assert_null(sxs__prologue_stub_name(NULL, 0, 0));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/prologue/framed", test_framed);
  g_test_add_func("/stitch/prologue/frameless", test_frameless);
  g_test_add_func("/stitch/prologue/not-known", test_not_known);
  g_test_add_func("/stitch/prologue/frame-at/frameless", test_frame_at_frameless);
  g_test_add_func("/stitch/prologue/frame-at/framed", test_frame_at_framed);
  g_test_add_func("/stitch/prologue/stub-name", test_stub_name);
  return g_test_run();
}
