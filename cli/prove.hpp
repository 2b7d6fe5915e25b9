// blkmc prove: invariants by k-induction over a model's symbolic semantics
// (props/induction.hpp; the tags and inflight models' steps instantiated on
// z3::expr).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "props/induction.hpp"

namespace blkmc {

struct ProveRequest {
  std::string model, variant;
  std::vector<std::string> params;  // k=v
  std::vector<std::string> props;   // empty: every invariant property
  int k_max = 10;
  double seconds = 0;
  bool lemmas = true;
  std::string trace_out;  // a violated property's path, as a trace file
};

// The outcome for one property, with what the explorer says about it when
// the parameters fit the explicit model.
struct ProveOutcome {
  std::string model, property, variant, params;
  ProveResult result;
  std::vector<std::string> lemma_names;
  std::vector<std::string> story;  // the path (violated) or the CTI (incomplete)
  std::optional<bool> cti_reachable;  // incomplete, explorer-sized: s0 reachable?
  std::string trace_written;
};

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
