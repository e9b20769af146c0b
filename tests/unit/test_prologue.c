/* Unit tests of sxs__prologue_decode on prologues RyuJIT emitted for .NET 8 on x64 (read from the code of the
 * StackTruth app): framed methods (RBP pushed first, set by mov or lea, with vzeroupper or pushes between),
 * frameless tier-1 methods (their frame size and where they save RBP), and what is not a prologue (an OSR method's
 * entry, a leaf that builds nothing, bytes that end inside the prologue). */
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
  /* push rbp; sub rsp, 0x60; vzeroupper; lea rbp, [rsp+0x60] */
  static const uint8_t vzu[] = {0x55, 0x48, 0x83, 0xec, 0x60, 0xc5, 0xf8, 0x77, 0x48, 0x8d, 0x6c, 0x24, 0x60, 0xc4};
  p = decode_ok(vzu, sizeof vzu);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 13);
  /* push rbp; push r15..r12; push rbx; sub rsp, 0x98; lea rbp, [rsp+0xc0] */
  static const uint8_t many[] = {0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x53, 0x48, 0x81, 0xec,
                                 0x98, 0x00, 0x00, 0x00, 0x48, 0x8d, 0xac, 0x24, 0xc0, 0x00, 0x00, 0x00, 0x33};
  p = decode_ok(many, sizeof many);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 25);
  /* push rbp; mov rbp, rsp; mov rax, rdi (a tier-1 leaf) */
  static const uint8_t mov[] = {0x55, 0x48, 0x8b, 0xec, 0x48, 0x8b, 0xc7};
  p = decode_ok(mov, sizeof mov);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 4);
  /* push rbp; push rbx; push rax; lea rbp, [rsp+0x10] (tier-1 recursion) */
  static const uint8_t three[] = {0x55, 0x53, 0x50, 0x48, 0x8d, 0x6c, 0x24, 0x10, 0x8b, 0xdf};
  p = decode_ok(three, sizeof three);
  g_assert_true(p.framed);
  g_assert_cmpuint(p.prologue_len, ==, 8);
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

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/prologue/framed", test_framed);
  g_test_add_func("/stitch/prologue/frameless", test_frameless);
  g_test_add_func("/stitch/prologue/not-known", test_not_known);
  return g_test_run();
}
