// model/concrete_values: the first semantics of the step and decision
// templates (docs/architecture.md, "One source, two semantics"): ite, bval
// and ival over plain bool and int. model/z3_values.hpp gives the same three
// over z3::expr, where argument-dependent lookup finds them; these, in
// namespace blkmc, are found by ordinary lookup from every family's
// templates.
#pragma once

namespace blkmc {

inline bool ite(bool c, bool a, bool b) { return c ? a : b; }
inline int ite(bool c, int a, int b) { return c ? a : b; }
// A constant of the sort of `like` (the first argument only names the sort).
inline bool bval(bool /*like*/, bool v) { return v; }
inline bool bval(int /*like*/, bool v) { return v; }
inline int ival(bool /*like*/, int v) { return v; }
inline int ival(int /*like*/, int v) { return v; }

}  // namespace blkmc
