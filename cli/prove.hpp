// blkmc prove: invariants by k-induction over a model's symbolic semantics
// (props/induction.hpp; the tags and inflight models' steps instantiated on
// z3::expr).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/prove.hpp"

namespace blkmc {

struct ProveArgs {
  ProveRequest req;
  bool no_lemmas = false, as_json = false;
};

// The subcommand and its options, bound to a.
CLI::App* add_prove_command(CLI::App& app, ProveArgs& a);
// Runs it: prints and returns the exit code.
int run_prove(ProveArgs& a);

// The parameters prove accepts for a model (its own, larger ranges).
std::vector<ParamInfo> prove_params(const std::string& model);
// Throws UsageError on bad input. Runs one proof per property.
std::vector<ProveOutcome> prove(const ProveRequest& req);
std::string prove_text(const ProveOutcome& o);
nlohmann::json prove_json(const ProveOutcome& o);
int prove_exit_code(const std::vector<ProveOutcome>& v);
// The CLI: prints and returns the exit code.
int run_prove(const ProveRequest& req, bool as_json);

}  // namespace blkmc
