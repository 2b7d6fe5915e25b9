#include "device/fio_export.hpp"

#include <cctype>
#include <filesystem>
#include <set>

#include <fmt/format.h>

namespace blkmc::device {

namespace {
// A process name as part of a file name: anything but letters, digits, '.',
// '-' and '_' becomes '_' (a '/' would name a directory that is not there).
std::string file_safe(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return s.empty() || s[0] == '.' ? "_" + s : s;
}
}  // namespace

FioExport export_fio(const Plan& plan, const std::string& job_path, const std::string& target) {
  namespace fs = std::filesystem;
  FioExport out;
  std::set<std::string> taken, sections{"global"};
  const fs::path jp(job_path);
  const std::string stem = jp.stem().string();
  std::string& j = out.job;
  j += fmt::format("; blkmc export --fio: workload {} ({} processes, {} requests)\n", plan.wl.name,
                   plan.procs.size(), plan.rqs.size());
  j += fmt::format("; target {} (named in the iologs); model sector = {} bytes\n", target, kUnitBytes);
  if (plan.gated)
    j += "; the workload is gated: fio cannot freeze the filesystem under the device, so the\n"
         "; processes below the gate only start 50 ms later; `blkmc device run` reproduces the gate\n";
  for (const auto& n : plan.notes) j += "; note: " + n + "\n";
  j += "\n[global]\nioengine=libaio\ndirect=1\nthread\ngroup_reporting=0\n";
  for (std::size_t i = 0; i < plan.procs.size(); ++i) {
    const PlanProc& p = plan.procs[i];
    std::string log_name = fmt::format("{}.{}.iolog", stem, file_safe(p.name));
    for (int k = 2; !taken.insert(log_name).second; ++k)  // two names made the same
      log_name = fmt::format("{}.{}-{}.iolog", stem, file_safe(p.name), k);
    const fs::path log_path = jp.parent_path() / log_name;
    std::string log = "fio version 2 iolog\n";
    log += fmt::format("{} add\n{} open\n", target, target);
    for (int id : p.rqs) {
      const PlanRq& r = plan.rqs[std::size_t(id)];
      log += fmt::format("{} {} {} {}\n", target, r.dir ? "write" : "read", r.offset, r.bytes);
    }
    log += fmt::format("{} close\n", target);
    out.iologs.emplace_back(log_path.string(), log);
    // A job's section: its name made safe, each once. fio reads every
    // section whose name starts with "global" as options for all jobs.
    std::string safe = file_safe(p.name);
    if (safe.rfind("global", 0) == 0) safe.insert(safe.begin(), '_');
    std::string section = safe;
    for (int k = 2; !sections.insert(section).second; ++k) section = fmt::format("{}-{}", safe, k);
    j += fmt::format("\n[{}]\n", section);
    if (section != p.name) j += fmt::format("; process {}\n", p.name);
    j += fmt::format("; {} {} request(s), {}\n", p.sync ? "sync," : "async,", p.rqs.size(),
                     p.pre_gate ? "above the gate" : "below the gate");
    j += fmt::format("read_iolog={}\n", fs::absolute(log_path).string());
    j += fmt::format("iodepth={}\n", p.sync ? 1 : std::max<std::size_t>(1, p.rqs.size()));
    if (!p.sync) j += fmt::format("iodepth_batch_submit=1\n");
    j += fmt::format("prioclass={}\nprio={}\n", p.ioprio_class, p.ioprio_level);
    if (!p.pre_gate && plan.gated) j += "startdelay=50ms\n";
  }
  return out;
}

}  // namespace blkmc::device
