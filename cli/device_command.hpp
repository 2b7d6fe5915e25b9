// `blkmc device run|check|stress|cleanup` and `blkmc export --fio`: their
// options; the work is in cli/device.cpp.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/device.hpp"

namespace blkmc {

struct DeviceArgs {
  DeviceRunArgs run;
  std::string workload;  // device run: the source by name (instead of the positional)
  int check_repeat = 3;
  std::string check_only, check_model, check_kernel;
  bool check_json = false, check_quiet = false;
  DeviceStressArgs stress;
  bool cleanup_dry = false;
  CLI::App *run_cmd = nullptr, *check_cmd = nullptr, *stress_cmd = nullptr, *cleanup_cmd = nullptr;
};
struct ExportArgs {
  std::string source, workload, out, target = "blkmc-fio.img";
  bool fio = false;
};

CLI::App* add_device_command(CLI::App& app, DeviceArgs& a);
CLI::App* add_export_command(CLI::App& app, ExportArgs& a);
// The device subcommand that was parsed.
int run_device(DeviceArgs& a);
int run_export(ExportArgs& a);

}  // namespace blkmc
