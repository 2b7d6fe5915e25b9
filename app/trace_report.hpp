// app/trace_report: one self-contained HTML page per counterexample trace
// (`blkmc report`, `check --report`, `diff --reach --report`). The page has
// a message-sequence chart in SVG (a lifeline per actor, a row per step, the
// violating step marked, a lasso's stuck point and loop drawn), the state
// after every step by variable name with what changed highlighted, and for
// the scheduler models a dispatch timeline (a lane per process, each request
// from insert to dispatch to completion, the tracked request's wait shaded,
// direction switches and new batches marked). CSS, SVG and the few lines of
// script are inline: the file opens without a network.
#pragma once

#include <string>

#include "app/registry.hpp"

namespace blkmc {

// The page for trace t of model mh. `command` is shown as the command that
// reproduces it. Replays t first (throws UsageError or TraceMismatch as
// `blkmc replay` does), so the verdict shown is the model's, not the file's.
std::string trace_report_html(const ModelHandle& mh, const Trace& t, const std::string& command);

}  // namespace blkmc
