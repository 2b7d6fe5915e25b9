#include "props/z3_render.hpp"

#include <fmt/format.h>

namespace blkmc {

namespace {

// Binding strength: comparisons 1, + - 2, * / % 3, atoms 4.
int strength(const z3::expr& e) {
  if (!e.is_app() || e.num_args() == 0) return 4;
  switch (e.decl().decl_kind()) {
    case Z3_OP_ADD:
    case Z3_OP_SUB:
    case Z3_OP_BADD:
    case Z3_OP_BSUB: return 2;
    case Z3_OP_MUL:
    case Z3_OP_IDIV:
    case Z3_OP_DIV:
    case Z3_OP_MOD:
    case Z3_OP_BMUL:
    case Z3_OP_BSDIV:
    case Z3_OP_BUDIV: return 3;
    case Z3_OP_UMINUS: return 4;
    default: return 1;
  }
}

std::string sub(const z3::expr& e, int need) {
  const std::string s = render_term(e);
  return strength(e) < need ? fmt::format("({})", s) : s;
}

// Bit-vector comparisons (signed) read as the integer ones.
Z3_decl_kind plain(Z3_decl_kind k) {
  switch (k) {
    case Z3_OP_SLEQ: return Z3_OP_LE;
    case Z3_OP_SGEQ: return Z3_OP_GE;
    case Z3_OP_SLT: return Z3_OP_LT;
    case Z3_OP_SGT: return Z3_OP_GT;
    default: return k;
  }
}

const char* infix(Z3_decl_kind k) {
  switch (k) {
    case Z3_OP_LE: return "<=";
    case Z3_OP_GE: return ">=";
    case Z3_OP_LT: return "<";
    case Z3_OP_GT: return ">";
    case Z3_OP_EQ: return "==";
    case Z3_OP_ADD:
    case Z3_OP_BADD: return "+";
    case Z3_OP_SUB:
    case Z3_OP_BSUB: return "-";
    case Z3_OP_MUL:
    case Z3_OP_BMUL: return "*";
    case Z3_OP_BSDIV:
    case Z3_OP_BUDIV:
    case Z3_OP_IDIV:
    case Z3_OP_DIV: return "/";
    case Z3_OP_MOD: return "%";
    case Z3_OP_AND: return "&&";
    case Z3_OP_OR: return "||";
    default: return nullptr;
  }
}

Z3_decl_kind negated(Z3_decl_kind k) {
  switch (k) {
    case Z3_OP_LE: return Z3_OP_GT;
    case Z3_OP_GE: return Z3_OP_LT;
    case Z3_OP_LT: return Z3_OP_GE;
    case Z3_OP_GT: return Z3_OP_LE;
    default: return k;
  }
}

std::string comparison(const z3::expr& e, Z3_decl_kind k) {
  const char* op = k == Z3_OP_EQ ? "==" : infix(k);
  return fmt::format("{} {} {}", sub(e.arg(0), 2), op, sub(e.arg(1), 2));
}

}  // namespace

std::string render_term(const z3::expr& e) {
  if (e.is_numeral()) return e.get_decimal_string(0);
  if (!e.is_app()) return e.to_string();
  if (e.num_args() == 0) return e.decl().name().str();
  const Z3_decl_kind k = plain(e.decl().decl_kind());
  if (k == Z3_OP_NOT) return fmt::format("!{}", sub(e.arg(0), 4));
  if (k == Z3_OP_UMINUS) return fmt::format("-{}", sub(e.arg(0), 4));
  if (k == Z3_OP_ITE)
    return fmt::format("({} ? {} : {})", render_term(e.arg(0)), render_term(e.arg(1)),
                       render_term(e.arg(2)));
  if (k == Z3_OP_LE || k == Z3_OP_GE || k == Z3_OP_LT || k == Z3_OP_GT || k == Z3_OP_EQ)
    return comparison(e, k);
  if (const char* op = infix(k)) {
    const int me = strength(e);
    std::string s;
    for (unsigned i = 0; i < e.num_args(); ++i) {
      if (i) s += fmt::format(" {} ", op);
      // Left-associative: a right operand of - / % binds tighter.
      s += sub(e.arg(i), i ? me + 1 : me);
    }
    return s;
  }
  return e.to_string();
}

std::string render_literal(const z3::expr& e, bool value) {
  if (value) return render_term(e);
  if (e.is_app() && e.num_args() == 2) {
    const Z3_decl_kind k = plain(e.decl().decl_kind());
    if (k == Z3_OP_LE || k == Z3_OP_GE || k == Z3_OP_LT || k == Z3_OP_GT)
      return comparison(e, negated(k));
    if (k == Z3_OP_EQ && !e.arg(0).is_bool())
      return fmt::format("{} != {}", sub(e.arg(0), 2), sub(e.arg(1), 2));
  }
  return fmt::format("!{}", sub(e, 4));
}

}  // namespace blkmc
