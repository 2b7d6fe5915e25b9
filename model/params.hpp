// Model parameters: name=value integers, validated against the model's
// ParamInfo so absurd bounds are a usage error, never a crash.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "model/model.hpp"

namespace blkmc {

using Params = std::map<std::string, int>;

// Defaults for every parameter, overridden by "k=v" strings.
Params resolve_params(const ModelInfo& info, const std::vector<std::string>& kvs);
// Checks names and ranges of an already-parsed map (e.g. from a trace).
Params resolve_params(const ModelInfo& info, const Params& given);
std::string params_string(const Params& p);  // "k=v,k=v"
// The same with each value by its name where it has one ("workload=gated-write,
// shadow=none"); `-p` takes these back.
std::string params_string(const ModelInfo& info, const Params& p);
// The value's name when the parameter names its values, else the number.
std::string param_value_name(const ParamInfo& p, int v);

int find_prop(const ModelInfo& info, const std::string& name);
int find_variant_index(const ModelInfo& info, const std::string& name);

// A selected property: its index and, for a maximize property written
// NAME<=K, the bound K (violated by a reachable state whose measure > K).
struct PropSpec {
  int index = 0;
  std::optional<int> bound;
  friend bool operator==(const PropSpec&, const PropSpec&) = default;
};
// Parses "NAME" or "NAME<=K" (K a decimal integer 0..INT_MAX, no sign or
// spaces; only for maximize properties). Throws a one-line UsageError.
PropSpec parse_prop_spec(const ModelInfo& info, const std::string& text);
std::string prop_spec_string(const ModelInfo& info, const PropSpec& spec);  // inverse
std::string to_string(PropKind k);  // "invariant", "deadlock", ...

}  // namespace blkmc
