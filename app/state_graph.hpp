// check --dot: the state graph of a small space in Graphviz's DOT language
// (`dot -Tsvg F.dot`), with each counterexample drawn on it: its path in
// red, its last state filled, and a lasso's stuck state and loop marked.
//
// The graph is searched again, breadth-first and without reductions, so
// that every node is a concrete state (the check's own search may have
// stored sliced or permuted keys) and the counterexamples' concrete states
// are nodes of it. A space larger than the limit is refused.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "explorer/hash.hpp"
#include "explorer/reach.hpp"
#include "explorer/search.hpp"

namespace blkmc {

namespace state_graph {

inline std::string dot_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace state_graph

// traces: (property, counterexample) of the check. Throws UsageError when
// the space has more than `limit` states.
template <class M>
std::string state_graph_dot(const M& m, const SearchOptions& check_opt,
                            const std::vector<std::pair<std::string, Counterexample<typename M::State>>>& traces,
                            std::size_t limit, std::size_t* states = nullptr, std::size_t* edges = nullptr) {
  using State = typename M::State;
  using state_graph::dot_string;
  SearchOptions opt;
  opt.bfs = true;
  opt.progress = false;
  opt.threads = check_opt.threads;
  opt.limits.max_states = limit + 1;
  opt.limits.seconds = check_opt.limits.seconds;
  Search<M> search(m, opt);
  // Every state stored, nothing else kept: a search for a state that is
  // never found (the one instantiation of the search behind every such question).
  FindState<M> none([](const State&) { return false; });
  const StopReason stop = search.run(none);
  if (stop == StopReason::MaxStates)
    throw UsageError(fmt::format("--dot: the state space has more than {} states; draw a smaller one "
                                 "(parameters) or raise --dot-limit",
                                 limit));
  if (stop != StopReason::Complete) throw UsageError(fmt::format("--dot: the graph's search stopped: {}", to_string(stop)));
  const VisitedStore& store = search.store();
  const std::size_t n = store.size(), len = m.state_bytes();
  auto id_of = [&](const State& s) { return store.lookup(s.b.data(), hash_padded(s.b.data(), len)); };

  // What the counterexamples mark.
  std::vector<std::string> fill(n), pen(n), note(n);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> path_edges;
  for (const auto& [prop, cx] : traces) {
    std::vector<std::uint32_t> ids;
    for (const State& s : cx.states) ids.push_back(id_of(s));
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] == VisitedStore::kNone) continue;  // beyond the graph: cannot happen for a complete one
      pen[ids[k]] = "red";
      if (k + 1 < ids.size() && ids[k + 1] != VisitedStore::kNone) path_edges.push_back({ids[k], ids[k + 1]});
      if (cx.loop_start && k >= *cx.loop_start) pen[ids[k]] = "blue";
      if (cx.stuck_at && k == *cx.stuck_at) {
        fill[ids[k]] = "orange";
        note[ids[k]] += fmt::format("{}: stuck from here\n", prop);
      }
    }
    if (!ids.empty() && ids.back() != VisitedStore::kNone) {
      if (fill[ids.back()].empty()) fill[ids.back()] = "#ff9999";
      // A lasso ends where its loop began, or in a state with no step.
      const bool cycle = cx.loop_start && *cx.loop_start + 1 < cx.states.size();
      note[ids.back()] += fmt::format("{}: {}\n", prop, cycle ? "the loop closes here" : cx.loop_start ? "no step enabled" : "violated");
    }
  }
  std::sort(path_edges.begin(), path_edges.end());

  std::string dot = fmt::format("digraph {} {{\n  // blkmc check --dot: {} states; red: a counterexample's path, "
                                "filled: where it ends, orange: a lasso's stuck state, blue: its loop\n"
                                "  node [shape=circle, fontsize=10];\n  edge [fontsize=8];\n",
                                dot_string(m.info().name), n);
  State s{};
  std::size_t nedges = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    store.load(i, s.b.data());
    std::string attrs = fmt::format("label={}, tooltip={}", dot_string(fmt::format("{}{}", note[i], i)),
                                    dot_string(m.state_json(s).dump()));
    if (i == 0) attrs += ", shape=doublecircle";
    if (!pen[i].empty()) attrs += fmt::format(", color={}, penwidth=2", dot_string(pen[i]));
    if (!fill[i].empty()) attrs += fmt::format(", style=filled, fillcolor={}", dot_string(fill[i]));
    dot += fmt::format("  s{} [{}];\n", i, attrs);
    m.for_each_successor(s, [&](const Step& st, const State& next) {
      const std::uint32_t to = id_of(next);
      const bool on_path = std::binary_search(path_edges.begin(), path_edges.end(), std::make_pair(i, to));
      dot += fmt::format("  s{} -> s{} [label={}{}];\n", i, to,
                         dot_string(fmt::format("{} {}", m.actor_name(st.actor), m.info().actions.at(st.action))),
                         on_path ? ", color=\"red\", penwidth=2" : "");
      ++nedges;
    });
  }
  dot += "}\n";
  if (states) *states = n;
  if (edges) *edges = nedges;
  return dot;
}

}  // namespace blkmc
