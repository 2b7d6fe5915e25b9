// `blkmc list`: the models, their variants, properties and parameters, as
// text or JSON.
#pragma once

#include <CLI/CLI.hpp>

namespace blkmc {

struct ListArgs {
  bool json = false;
};

CLI::App* add_list_command(CLI::App& app, ListArgs& a);
int run_list(const ListArgs& a);

}  // namespace blkmc
