#include "app/kernel_select.hpp"

#include <fmt/format.h>

#include "common/errors.hpp"
#include "model/sched/kernel/kernel_build.hpp"
#include "model/sched/kernel/kernel_source.hpp"

namespace blkmc {

namespace {

kernel::Source read_given(const std::string& family, const KernelArgs& k) {
  if (!k.kernel.empty() && !k.source.empty()) throw UsageError("--kernel and --source exclude each other");
  if (!k.version.empty() && k.source.empty())
    throw UsageError("--kernel-version is for --source (a tree's version is in its Makefile)");
  return k.kernel.empty() ? kernel::read_source(family, k.source, false, k.version)
                          : kernel::read_source(family, k.kernel, true);
}

}  // namespace

KernelChoice choose_kernel(const std::string& family, const KernelArgs& k, KernelUse use) {
  if (!k.given()) throw UsageError("the kernel's own code needs --kernel DIR|TARBALL|debian:X.Y or --source FILE.c");
  const ModelHandle& mh = use == KernelUse::Conform ? conform_model(family)
                          : use == KernelUse::Pair  ? pair_model(family)
                                                    : kernel_model(family);
  kernel::Source s = read_given(family, k);
  kernel::build_source(s);  // compile errors before anything runs
  const std::string name = s.name;
  kernel::add_source(std::move(s));
  return {&mh, name};
}

namespace {

// The trace's code (a source record: sha256, file, version) loaded: from k
// when given, else what this process or the cache has.
void load_traced(const std::string& family, const nlohmann::json& src, const KernelArgs& k) {
  const std::string sha = src.at("sha256").get<std::string>();
  const std::string file = src.at("file").get<std::string>();
  const std::string version = src.at("version").get<std::string>();
  const std::string name = src.at("name").get<std::string>();
  if (k.given()) {
    kernel::Source s = read_given(family, k);
    if (s.sha256 != sha)
      throw UsageError(fmt::format("the trace was made on {} {} (sha256 {}), not on this code ({}, sha256 {})",
                                   file, version, sha.substr(0, 16), s.origin, s.sha256.substr(0, 16)));
    if (s.name != name)
      throw UsageError(fmt::format("the trace was made on this file read as {}, here it reads as {} (give it as "
                                   "then: a tree's version is its Makefile's, a lone file's --kernel-version)",
                                   name, s.name));
    kernel::build_source(s);
    kernel::add_source(std::move(s));
    return;
  }
  for (int v = 0; v < kernel::source_count(family); ++v)
    if (kernel::source_at(family, v).sha256 == sha && kernel::source_at(family, v).name == name) return;
  kernel::Source s;
  if (!kernel::cached_source(family, sha, name, s))
    throw UsageError(fmt::format("the trace was made on {} {} (sha256 {}), which this machine has not compiled: "
                                 "give that code with --kernel DIR or --source FILE",
                                 file, version, sha.substr(0, 16)));
  kernel::build_source(s);  // from the cache
  kernel::add_source(std::move(s));
}

}  // namespace

const ModelHandle& model_for_trace(const Trace& t, const KernelArgs& k) {
  if (t.source.is_null()) {
    if (k.given())
      throw UsageError(fmt::format("the trace was made on blkmc's own model of {}, not on kernel code: drop "
                                   "--kernel / --source",
                                   t.model));
    return find_model(t.model);
  }
  const std::string kind = t.source.at("kind").get<std::string>();
  if (kind == "pair") {
    if (k.given()) throw UsageError("a trace of two sources replays on the code both name: drop --kernel / --source");
    load_traced(t.model, t.source.at("before"), {});
    load_traced(t.model, t.source, {});
    return pair_model(t.model);
  }
  load_traced(t.model, t.source, k);
  return kind == "conform" ? conform_model(t.model) : kernel_model(t.model);
}

void fix_trace_sources(Trace& t) {
  if (t.source.is_null() || t.source.at("kind").get<std::string>() != "pair") return;
  const std::string name = t.source.at("before").at("name").get<std::string>();
  for (int v = 0; v < kernel::source_count(t.model); ++v)
    if (kernel::source_at(t.model, v).name == name) t.params["before"] = v;
}

}  // namespace blkmc
