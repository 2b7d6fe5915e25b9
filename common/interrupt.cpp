#include "common/interrupt.hpp"

#include <csignal>

namespace blkmc {

volatile int g_interrupted = 0;

namespace {
void (*volatile g_hook)(void*) = nullptr;
void* volatile g_hook_arg = nullptr;
extern "C" void on_signal(int) {
  g_interrupted = 1;
  if (auto* hook = g_hook) hook(g_hook_arg);
}
}  // namespace

void set_interrupt_hook(void (*hook)(void*), void* arg) {
  g_hook = nullptr;
  g_hook_arg = arg;
  g_hook = hook;
}

void install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}


}  // namespace blkmc
