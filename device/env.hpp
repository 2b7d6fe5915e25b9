// device/env: errors of the environment (no root, no loop devices, no
// tracefs): exit code 5 (kExitUnsupported), one line; and the flag the
// SIGINT/SIGTERM handler sets.
#pragma once

#include <stdexcept>
#include <string>

#include "common/interrupt.hpp"  // Interrupted

namespace blkmc::device {

struct EnvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The running kernel has no such I/O scheduler (built without it, and no
// module to load): its rows cannot run on this machine.
struct SchedulerMissing : EnvError {
  using EnvError::EnvError;
};

// Installs SIGINT/SIGTERM handlers (no SA_RESTART) that set a flag;
// check_interrupt() throws Interrupted once it is set.
void install_device_signal_handlers();
bool interrupted();
void check_interrupt();
// Sleeps (milliseconds), throwing Interrupted when a signal arrives.
void sleep_ms(int ms);

// Writes a sysfs/tracefs file; throws std::runtime_error naming the path.
void write_file(const std::string& path, const std::string& value);
std::string read_file(const std::string& path);  // throws
void write_file_new(const std::string& path, const std::string& value);  // creates or truncates
std::string trim(std::string s);

}  // namespace blkmc::device
