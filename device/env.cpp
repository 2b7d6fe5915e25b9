#include "device/env.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "explorer/limits.hpp"

namespace blkmc::device {

namespace {
volatile std::sig_atomic_t g_sig = 0;
extern "C" void on_device_signal(int s) {
  g_sig = s;
  g_interrupted = 1;
}
}  // namespace

void install_device_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_device_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  // A signal that came after main() installed the explorer's handler but
  // before this one only set the explorer's flag: honour it here.
  if (g_interrupted) g_sig = SIGINT;
}

bool interrupted() { return g_sig != 0; }

void check_interrupt() {
  if (interrupted()) throw Interrupted();
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, long(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) check_interrupt();
  check_interrupt();
}

void write_file(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int err = errno;
  ::close(fd);
  if (n != ssize_t(value.size()))
    throw std::runtime_error(fmt::format("cannot write '{}' to {}: {}", trim(value), path, std::strerror(err)));
}

void write_file_new(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  const ssize_t n = ::write(fd, value.data(), value.size());
  ::close(fd);
  if (n != ssize_t(value.size())) throw std::runtime_error(fmt::format("cannot write {}", path));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

}  // namespace blkmc::device
