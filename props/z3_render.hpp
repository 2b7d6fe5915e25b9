// props/z3_render: z3 terms in the infix a kernel developer reads
// ("queued >= 4", "seek_mean > 8", "!rot"), for blkmc diff's tables.
#pragma once

#include <string>

#include <z3++.h>

namespace blkmc {

// The literal `e` (value true) or its negation (value false), with negated
// comparisons flipped ("queued < 4" rather than "!(queued >= 4)").
std::string render_literal(const z3::expr& e, bool value);
std::string render_term(const z3::expr& e);

}  // namespace blkmc
