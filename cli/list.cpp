#include "cli/list.hpp"

#include <algorithm>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/registry.hpp"
#include "model/params.hpp"
#include "model/sched/kernel/kernel_source.hpp"

namespace blkmc {
namespace {

bool has_kernel_harness(const std::string& model) {
  const auto& f = kernel::source_families();
  return std::find(f.begin(), f.end(), model) != f.end();
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, ListArgs& a) {
  auto* list = app.add_subcommand("list", "models, variants, properties and parameters");
  list->add_flag("--json", a.json, "machine-readable output");
  return list;
}

int run_list(const ListArgs& a) {
  const bool as_json = a.json;
  nlohmann::json all = nlohmann::json::array();
  for (const ModelHandle* mh : all_models()) {
    const ModelInfo& inf = mh->info();
    if (as_json) {
      nlohmann::json j{{"model", inf.name}, {"summary", inf.summary}};
      for (const auto& p : inf.params)
      {
        j["params"].push_back(
            {{"name", p.name}, {"default", p.def}, {"min", p.min}, {"max", p.max}, {"help", p.help}});
        if (!p.names.empty()) j["params"].back()["names"] = p.names;
      }
      for (const auto& v : inf.variants)
        j["variants"].push_back(
            {{"name", v.name}, {"commit", v.commit}, {"summary", v.summary}, {"source", v.source}});
      for (const auto& p : inf.props)
        j["properties"].push_back(
            {{"name", p.name}, {"kind", to_string(p.kind)}, {"summary", p.summary}});
      if (has_kernel_harness(inf.name)) j["kernel_code"] = kernel::family_file(inf.name);
      all.push_back(j);
      continue;
    }
    std::cout << fmt::format("model {}: {}\n  parameters:\n", inf.name, inf.summary);
    for (const auto& p : inf.params)
      std::cout << fmt::format("    {:<12} default {:<3} range {}..{}  {}\n", p.name, p.def, p.min,
                               p.max, p.help);
    std::cout << "  variants:\n";
    for (const auto& v : inf.variants)
      std::cout << fmt::format("    {:<12} [{}] {}\n    {:<12} source: {}\n", v.name, v.commit,
                               v.summary, "", v.source);
    if (has_kernel_harness(inf.name))
      std::cout << fmt::format("  the kernel's own code: --kernel DIR|TARBALL|debian:X.Y or --source FILE.c runs {} (6.1 "
                               "to 6.12) instead of a variant; blkmc conform -v V holds a variant against it\n",
                               kernel::family_file(inf.name));
    std::cout << "  properties:\n";
    for (const auto& p : inf.props)
      std::cout << fmt::format("    {:<20} {}{}\n", p.name, p.summary, kind_info(p.kind).note);
  }
  if (as_json) std::cout << all.dump(2) << '\n';
  return 0;
}

}  // namespace blkmc
