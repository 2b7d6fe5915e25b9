// model/influence: what a model's steps, guards and properties read, declared
// per schema variable (all copies of a variable together). It is the ground
// for two reductions of the explorer (explorer/reduced_model.hpp):
//   - property slicing (cone of influence): a variable that neither a guard,
//     finished(), nor a selected property reads, and that flows into none of
//     those, is not stored;
//   - partial-order reduction: a step that writes what a selected property
//     reads is visible.
// tests/reduction_test.cpp checks the declaration against the model: along
// random walks, changing the sliced variables of a state changes neither
// which steps are enabled, nor the kept variables of any successor, nor a
// selected property.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/schema.hpp"

namespace blkmc {

struct Influence {
  // By schema variable id: the variables the new value of any copy of it is
  // computed from, by any step (including those that pick which copy a
  // step writes, e.g. the tag a free clears).
  std::vector<std::vector<int>> from;
  // By schema variable id: read by a guard (which steps are enabled, and
  // their choices), by finished(), or by both.
  std::vector<bool> control;
  // By property index: the variables violates(), measure() or pending()
  // reads for it.
  std::vector<std::vector<int>> prop_reads;

  // The variables the selected properties depend on: the control variables
  // and what the properties read, closed under `from`. By schema id.
  std::vector<bool> relevant(const std::vector<int>& props) const {
    std::vector<bool> keep = control;
    std::vector<int> work;
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) work.push_back(int(i));
    for (int p : props)
      for (int v : prop_reads.at(std::size_t(p)))
        if (!keep[std::size_t(v)]) {
          keep[std::size_t(v)] = true;
          work.push_back(v);
        }
    while (!work.empty()) {
      const int v = work.back();
      work.pop_back();
      for (int u : from[std::size_t(v)])
        if (!keep[std::size_t(u)]) {
          keep[std::size_t(u)] = true;
          work.push_back(u);
        }
    }
    return keep;
  }
};

// An Influence declared by variable names (throws std::logic_error on an unknown name).
class InfluenceBuilder {
 public:
  InfluenceBuilder(const Schema& sc, std::size_t nprops) : sc_(sc) {
    inf_.from.resize(sc.vars().size());
    inf_.control.assign(sc.vars().size(), false);
    inf_.prop_reads.resize(nprops);
  }
  // Names that may be absent from this schema (a variable only some
  // parameters or variants have): declarations naming them are skipped.
  // Any other unknown name is an error.
  InfluenceBuilder& maybe(std::initializer_list<const char*> names) {
    for (const char* s : names) maybe_.push_back(s);
    return *this;
  }
  // `var`'s new values are computed from `sources`.
  InfluenceBuilder& flow(const std::string& var, std::initializer_list<const char*> sources) {
    return flow(var, std::vector<std::string>(sources.begin(), sources.end()));
  }
  InfluenceBuilder& flow(const std::string& var, const std::vector<std::string>& sources) {
    const int v = id(var);
    if (v < 0) return *this;
    for (const std::string& s : sources)
      if (const int i = id(s); i >= 0) inf_.from[std::size_t(v)].push_back(i);
    return *this;
  }
  InfluenceBuilder& control(std::initializer_list<const char*> vars) {
    return control(std::vector<std::string>(vars.begin(), vars.end()));
  }
  InfluenceBuilder& control(const std::vector<std::string>& vars) {
    for (const std::string& s : vars)
      if (const int i = id(s); i >= 0) inf_.control[std::size_t(i)] = true;
    return *this;
  }
  InfluenceBuilder& reads(int prop, std::initializer_list<const char*> vars) {
    return reads(prop, std::vector<std::string>(vars.begin(), vars.end()));
  }
  InfluenceBuilder& reads(int prop, const std::vector<std::string>& vars) {
    for (const std::string& s : vars)
      if (const int i = id(s); i >= 0) inf_.prop_reads.at(std::size_t(prop)).push_back(i);
    return *this;
  }
  Influence done() const { return inf_; }

 private:
  // A name, or "place.name" where two places have a variable of that name
  // (an ambiguous plain name is an error: picking one would silently leave
  // the other undeclared).
  int id(const std::string& name) const {
    int found = -1;
    const std::size_t dot = name.find('.');
    for (std::size_t i = 0; i < sc_.vars().size(); ++i) {
      const Schema::Var& v = sc_.vars()[i];
      const bool match = dot == std::string::npos
                             ? v.name == name
                             : v.place >= 0 && v.name == name.substr(dot + 1) &&
                                   sc_.place_name(v.place) == name.substr(0, dot);
      if (!match) continue;
      if (found >= 0) throw std::logic_error("influence: ambiguous variable " + name);
      found = int(i);
    }
    if (found >= 0) return found;
    for (const std::string& m : maybe_)
      if (m == name) return -1;
    throw std::logic_error("influence: no variable " + name);
  }
  const Schema& sc_;
  std::vector<std::string> maybe_;
  Influence inf_;
};

}  // namespace blkmc
