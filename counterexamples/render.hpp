// Rendering a trace as a message-sequence chart: one column per actor, one
// row per step, the step's text wrapped inside its actor's column, so the
// interleaving reads top to bottom like a race diagram on a mailing list.
#pragma once

#include <string>

#include "counterexamples/trace.hpp"

namespace blkmc {

std::string render_msc(const Trace& t, int column_width = 34);

}  // namespace blkmc
