// Counterexample traces: the JSON format, its validation, and replay.
//
// A trace names the model, variant, parameters and property, and lists every
// step (actor, action, argument, readable text) with the state after it.
// Replay re-executes the steps in the model; any step that is not enabled, or
// a recorded state that differs from the recomputed one, is reported as a
// one-line error. A progress counterexample is a lasso: "stuck": j says no
// finished state is reachable after step j, and "loop": k that the steps
// after step k return to the state after step k (when k is the last step:
// that no step is enabled there). A starvation counterexample is a lasso too:
// every state after step "stuck" is pending and the steps after "loop" (at
// least one) form a weakly fair cycle. A maximize trace names its property
// NAME (then "value": V says the last state's measure is V, the maximum) or
// NAME<=K (the last state's measure exceeds K). A long-run share trace
// (fair-ratio's, explorer/long_run_share.hpp) is a lasso too: "share":
// {"of", "other", "mine", "theirs", "fair_alone"} says that going round the
// steps after "loop" forever serves process `of` mine sectors for every
// `theirs` of the other's, and replay goes round until a state repeats.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/params.hpp"

namespace blkmc {

struct TraceStep {
  int actor = 0;
  std::string actor_name;
  std::string action;
  int arg = 0;
  std::string text;
  nlohmann::json state;  // state after the step (may be null when hand-written)
};

struct Trace {
  std::string model, variant, property, search;
  Params params;
  nlohmann::json initial;  // initial state (may be null)
  std::vector<TraceStep> steps;
  std::optional<int> stuck, loop;  // progress and starvation traces (step indices)
  std::optional<int> value;        // unbounded maximize traces: the maximum
  // Parameter values defined by a user's file (workload=my.wl): the file's
  // name and text, so the trace replays where the file is not.
  struct ParamFile {
    std::string name, text;
  };
  std::map<std::string, ParamFile> param_files;
  // A trace of the kernel's own code (model/sched/kernel/): the code it was
  // made on, {"kind": "kernel"|"conform"|"pair", "file", "version",
  // "sha256", "name"} (a pair's "before" names the other source); it
  // replays on that code only (null: a hand model's trace).
  nlohmann::json source;
  nlohmann::json share;  // a long-run share trace's claim (null: none)
};

// Records in t.param_files the text of every parameter value of t.params
// that a file defined (ParamInfo::open).
void attach_param_files(const ModelInfo& info, Trace& t);
// t's parameters resolved against the model, the values its param_files
// define added first (under their numbers in this process). Throws
// UsageError.
Params trace_params(const ModelInfo& info, const Trace& t);

nlohmann::json trace_to_json(const Trace& t);
Trace trace_from_json(const nlohmann::json& j);  // throws UsageError on malformed input
Trace read_trace_file(const std::string& path);  // throws UsageError
void write_trace_file(const Trace& t, const std::string& path);
// Writes text to path whole or not at all (a regular file is written beside
// it and renamed over it); errors are one-line UsageErrors naming `what`.
void write_text_file(const std::string& text, const std::string& path, const std::string& what);

struct ReplayResult {
  bool reproduced = false;        // the final state violates the property
  std::vector<std::string> story;  // one line per step, then a verdict line
  // What was (not) reproduced, for kinds where "P is violated" / "P holds at
  // the end" does not say it (maximize, starvation); empty otherwise.
  std::string verdict_line;
};

}  // namespace blkmc

namespace blkmc {
// A well-formed trace that does not fit the model (a step that is not
// enabled, a recorded state that differs): exit code 4.
struct TraceMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace blkmc
