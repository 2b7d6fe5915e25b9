// Rendering a trace as a message-sequence chart: one column per actor, one
// row per step, the step's text wrapped inside its actor's column, so the
// interleaving reads top to bottom like a race diagram on a mailing list.
#pragma once

#include <string>

#include "counterexamples/trace.hpp"
#include "model/model.hpp"

namespace blkmc {

// kind: the kind of the trace's property, for the markers of lassos
// (progress: stuck; starvation: pending) and of maximize traces.
std::string render_msc(const Trace& t, int column_width = 34, PropKind kind = PropKind::Progress);

}  // namespace blkmc
