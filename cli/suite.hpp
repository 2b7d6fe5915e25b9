// `blkmc suite`: the verification suite behind Makefile.verify. Each line is
//   check MODEL VARIANT PARAMS PROPERTY EXPECTED     (PARAMS: k=v,k=v or -)
//   replay TRACE-FILE
// Checks of the same model, variant and parameters share one BFS run. Prints
// a verdict table (expected vs found, states, time); returns non-zero when
// any verdict differs or a trace does not reproduce. markdown: the verdict
// table as Markdown (for the README), the replays only counted.
#pragma once

#include <istream>
#include <string>

namespace blkmc {

int run_suite(std::istream& in, const std::string& name, double seconds_per_run,
              bool markdown = false);

}  // namespace blkmc
