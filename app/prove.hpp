// app/prove: what `blkmc prove` asks of a family with symbolic semantics
// (k-induction, props/induction.hpp) and what it answers. A family offers a
// ProveDriver in app/registry.cpp; app/prove_driver.hpp builds one from the
// family's Proof trait.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

class ProveDriver {
 public:
  virtual ~ProveDriver() = default;
  // The parameters prove accepts (the family's own, larger ranges).
  virtual const std::vector<ParamInfo>& params() const = 0;
  // Throws UsageError on bad input. Runs one proof per property.
  virtual std::vector<ProveOutcome> run(const ProveRequest& req) const = 0;
};

}  // namespace blkmc
