// model/z3_values: the second semantics of the decision functions
// (docs/architecture.md, "One source, two semantics"). The decision templates call
// ite(c, a, b), bval(like, v) and ival(like, v) unqualified; for B = z3::expr
// argument-dependent lookup finds z3::ite and the two constant makers below,
// which therefore live in namespace z3.
#pragma once

#include <z3++.h>

namespace z3 {

inline expr bval(const expr& like, bool v) { return like.ctx().bool_val(v); }
// An integer constant of like's sort (int or bit-vector; a boolean `like`
// stands for the int sort).
inline expr ival(const expr& like, int v) {
  return like.is_bool() ? like.ctx().int_val(v) : like.ctx().num_val(v, like.get_sort());
}

}  // namespace z3
