// app/sim_report: `blkmc simulate --report F.html`, the figures of one
// simulated run drawn: the latency distribution of each process (a CDF),
// the service each process received over time, and the seek distance of
// each issue, beside the same table the text output prints. A workload
// imported from a capture (blkmc workload import) also draws the capture's
// own latencies, dashed, beside the run's. One
// self-contained HTML file with inline SVG, as app/trace_report's pages.
#pragma once

#include <string>

#include "explorer/simulate.hpp"

namespace blkmc {

// The page of run o; `command` reproduces it. A model without an observer
// (no series) gets the header and the final state only.
std::string simulation_report_html(const SimOutcome& o, const std::string& params_text, const std::string& command);

}  // namespace blkmc
