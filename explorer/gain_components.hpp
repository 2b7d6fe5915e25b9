// The strongly connected components of a control graph (explorer/path_gains.hpp),
// shared by the gain analysis (path_gains.cpp) and the long-run share
// (long_run_share.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "explorer/path_gains.hpp"

namespace blkmc {

// The strongly connected components of g (without its reset edges where
// asked), numbered so that every edge leads to a component numbered no
// higher (Tarjan's order: a component is closed after every component it
// reaches), and the nodes listed by component, lowest (the sinks) first.
struct Components {
  std::uint32_t count = 0;
  std::vector<std::uint32_t> of;    // node -> component
  std::vector<std::uint64_t> at;    // component c's nodes: order[at[c], at[c + 1])
  std::vector<std::uint32_t> order;
};

Components components(const GainGraph& g, bool without_resets);

}  // namespace blkmc
