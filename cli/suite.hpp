// `blkmc suite`: the verification suite, one file per model family next to
// its model (model/**/*.suite; `blkmc suite model/` runs them all, in sorted
// path order). A row names one run once and then what that run must find:
//
//   check    MODEL VARIANT PARAMS      PROPERTY EXPECTED [PROPERTY EXPECTED ...]
//   check    MODEL @CODE PARAMS        PROPERTY EXPECTED [...]
//   conform  MODEL VARIANT @CODE PARAMS PROPERTY EXPECTED [...]
//   simulate MODEL VARIANT PARAMS RUN  FIGURE VALUE [FIGURE VALUE ...]
//   prove    MODEL VARIANT PARAMS      PROPERTY proved|violated|incomplete [...]
//   diff     MODEL FROM TO             FUNCTION equivalent|differ|differ:N [...]
//   replay   TRACE-FILE [TRACE-FILE ...]   (paths from the working directory)
//
// PARAMS: `-` (the model's defaults) or k=v,k=v with only the parameters
// that differ from the defaults; a value may be a name where the parameter
// names its values (workload=gated-write, shadow=head-request, shadow=none).
// prove's PARAMS default to prove's own parameters (blkmc prove --help).
// EXPECTED (check) is holds, violated or incomplete, or for a maximize
// property without a bound its maximum (an integer: the row passes when the
// search completes with exactly that maximum); PROPERTY may be NAME<=K for a
// maximize property (EXPECTED then a verdict). RUN (simulate) is
// ticks=N,steps=N,seed=N or first, comma-separated; FIGURE a figure of the
// run (per_1000, latency.P, PROCESS.FIELD) and VALUE its expected value.
// @CODE is the kernel's own code (app/kernel_select.hpp): a tree, a
// tarball, debian:X.Y or a .c file; a check row runs the kernel-code model,
// a conform row holds VARIANT against the code (blkmc conform). A row on a
// debian:X.Y package that is not installed is skipped, and counted apart.
// An indented line continues the row above it with more pairs (or files);
// `#` starts a comment, to the end of the line. The one-expectation-per-row
// form of earlier suites is the special case of one pair per row.
//
// Each pair is one expectation ("row" in the counts). Checks of the same
// model, variant and parameters share one BFS run, wherever they are
// written. Prints a verdict table (expected vs found, states, time); returns
// non-zero when any verdict differs or a trace does not reproduce. markdown:
// the verdict table as Markdown (for the README), the rest only counted.
// Bad input (an unknown name, a malformed row, a missing file) is a one-line
// UsageError naming the file and line, before anything runs.
#pragma once

#include <functional>
#include <istream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/registry.hpp"

namespace blkmc {

// How the suite finds a model by name (the registry's find_model; tests
// pass their own toy models).
using ModelLookup = std::function<const ModelHandle&(const std::string&)>;

// How the check rows search: with every reduction that applies (the
// default), without any, or both, where a row also fails when the two
// searches differ in a verdict, a maximum or its exactness.
enum class SuiteReduce { On, Off, Compare };

// How the check rows search.
struct SuiteSearch {
  SuiteReduce reduce = SuiteReduce::On;
  unsigned threads = 1;  // workers of each breadth-first search
  // Search every check row again on one thread: a row also fails when the
  // two differ at all (search_difference, app/report.hpp).
  bool compare_threads = false;
  // Under mpirun (process_cluster()): every check and conform run is
  // searched over the ranks and again in this process alone; a row fails
  // when the two differ at all.
  Cluster* cluster = nullptr;
  // --only: run the rows of these kinds (check, conform, simulate, prove,
  // diff, replay) and count the others as not run; empty: every row.
  std::set<std::string> only;
};

int run_suite(std::istream& in, const std::string& name, double seconds_per_run,
              bool markdown = false, const ModelLookup& lookup = ModelLookup(find_model),
              const SuiteSearch& how = {});

// PATHS: suite files, directories (every *.suite below, sorted by path) or
// - (stdin), in the order given.
std::vector<std::string> suite_files(const std::vector<std::string>& paths);

// Runs the suites in PATHS as one. expand: instead of running, prints every
// expectation as a canonical one-per-line row (every parameter, in the
// model's order, as an integer; figures as the shortest decimal) and
// returns 0: `blkmc suite --expand model/ | sort` is the suite's content.
int run_suite_files(const std::vector<std::string>& paths, double seconds_per_run,
                    bool markdown = false, bool expand = false,
                    const ModelLookup& lookup = ModelLookup(find_model),
                    const SuiteSearch& how = {});

struct SuiteArgs {
  std::vector<std::string> paths, only;
  double seconds = 600;
  unsigned threads = 0;  // 0: every core
  bool markdown = false, expand = false, no_reduce = false, compare_reductions = false, compare_threads = false;
};

// The subcommand and its options, bound to a.
CLI::App* add_suite_command(CLI::App& app, SuiteArgs& a);
// Runs it (over the ranks of cluster, where set): run_suite_files' exit code.
int run_suite(const SuiteArgs& a, Cluster* cluster);

}  // namespace blkmc
