#include "model/params.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace blkmc {

namespace {

template <class T, class F>
std::string names_of(const std::vector<T>& v, F get) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(get(x));
  return fmt::format("{}", fmt::join(out, ", "));
}

const ParamInfo& find_param(const ModelInfo& info, const std::string& name) {
  for (const auto& p : info.params)
    if (p.name == name) return p;
  throw UsageError(fmt::format("model {} has no parameter '{}' (valid: {})", info.name, name,
                               names_of(info.params, [](auto& p) { return p.name; })));
}

}  // namespace

Params resolve_params(const ModelInfo& info, const Params& given) {
  Params out;
  for (const auto& p : info.params) out[p.name] = p.def;
  for (const auto& [k, v] : given) {
    const auto& p = find_param(info, k);
    const int hi = p.open ? p.open->max() : p.max;
    if (v < p.min || v > hi)
      throw UsageError(fmt::format("parameter {}={} is out of range for model {} (allowed {}..{})", k,
                                   v, info.name, p.min, hi));
    out[k] = v;
  }
  return out;
}

Params resolve_params(const ModelInfo& info, const std::vector<std::string>& kvs) {
  Params given;
  for (const auto& kv : kvs) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(fmt::format("parameter '{}' is not of the form name=value", kv));
    std::string name = kv.substr(0, eq), val = kv.substr(eq + 1);
    find_param(info, name);
    if (given.count(name))
      throw UsageError(fmt::format("parameter {} given twice (-p {}=...)", name, name));
    int v = 0;
    auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc() || ptr != val.data() + val.size()) {
      const ParamInfo& p = find_param(info, name);
      if (p.names.empty())
        throw UsageError(fmt::format("parameter {}: '{}' is not an integer", name, val));
      const auto it = std::find(p.names.begin(), p.names.end(), val);
      if (it != p.names.end())
        v = p.min + static_cast<int>(it - p.names.begin());
      else if (p.open)
        v = p.open->load(val);  // a file, or a name added at run time
      else
        throw UsageError(fmt::format("parameter {}: no value named '{}' (valid: {}, or {}..{})",
                                     name, val, fmt::join(p.names, ", "), p.min, p.max));
    }
    given[name] = v;
  }
  return resolve_params(info, given);
}

std::string param_value_name(const ParamInfo& p, int v) {
  const long i = long(v) - p.min;
  if (i >= 0 && i < long(p.names.size())) return p.names[std::size_t(i)];
  if (p.open && v > p.max && v <= p.open->max()) return p.open->name(v);
  return std::to_string(v);
}

std::string params_string(const Params& p) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : p) parts.push_back(fmt::format("{}={}", k, v));
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string params_string(const ModelInfo& info, const Params& p) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : p) {
    const auto it = std::find_if(info.params.begin(), info.params.end(), [&](auto& x) { return x.name == k; });
    parts.push_back(fmt::format("{}={}", k, it == info.params.end() ? std::to_string(v) : param_value_name(*it, v)));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

int find_variant_index(const ModelInfo& info, const std::string& name) {
  for (std::size_t i = 0; i < info.variants.size(); ++i)
    if (info.variants[i].name == name) return static_cast<int>(i);
  throw UsageError(fmt::format("model {} has no variant '{}' (valid: {})", info.name, name,
                               names_of(info.variants, [](auto& v) { return v.name; })));
}

int find_prop(const ModelInfo& info, const std::string& name) {
  for (std::size_t i = 0; i < info.props.size(); ++i)
    if (info.props[i].name == name) return static_cast<int>(i);
  throw UsageError(fmt::format("model {} has no property '{}' (valid: {})", info.name, name,
                               names_of(info.props, [](auto& p) { return p.name; })));
}

PropSpec parse_prop_spec(const ModelInfo& info, const std::string& text) {
  const auto le = text.find("<=");
  if (le == std::string::npos) return {find_prop(info, text), std::nullopt};
  const std::string name = text.substr(0, le), k = text.substr(le + 2);
  if (name.empty())
    throw UsageError(fmt::format("property '{}': a property name must come before <=", text));
  PropSpec spec{find_prop(info, name), std::nullopt};
  const PropKind kind = info.props[std::size_t(spec.index)].kind;
  if (!kind_info(kind).measured)
    throw UsageError(
        fmt::format("property '{}': a bound <=K applies only to maximize properties "
                    "({} is of kind {})",
                    text, name, to_string(kind)));
  int v = 0;
  const auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), v);
  if (k.empty() || k[0] < '0' || k[0] > '9' || ec != std::errc() || ptr != k.data() + k.size())
    throw UsageError(
        fmt::format("property '{}': the bound '{}' after <= is not an integer in "
                    "0..2147483647",
                    text, k));
  spec.bound = v;
  return spec;
}

std::string prop_spec_string(const ModelInfo& info, const PropSpec& spec) {
  const std::string& name = info.props.at(std::size_t(spec.index)).name;
  return spec.bound ? fmt::format("{}<={}", name, *spec.bound) : name;
}

const PropKindInfo& kind_info(PropKind k) {
  // In PropKind's order: name, on_graph, per_actor, measured, note.
  static const PropKindInfo kinds[] = {
      {"invariant", false, false, false, ""},
      {"deadlock", false, false, false, ""},
      {"progress", true, false, false, ""},
      {"maximize", false, false, true, " [maximize; NAME<=K bounds it]"},
      {"starvation", true, true, false, " [starvation, weak fairness]"},
  };
  return kinds[static_cast<std::size_t>(k)];
}

std::string to_string(PropKind k) { return kind_info(k).name; }

}  // namespace blkmc
