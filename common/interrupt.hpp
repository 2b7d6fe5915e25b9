// common/interrupt: Ctrl-C and SIGTERM. Searches and solvers stop cleanly
// with what they found so far; where nothing partial can be reported, the
// command ends with Interrupted (exit kExitIncomplete).
#pragma once

#include <stdexcept>
#include <string>

namespace blkmc {

// Set by SIGINT/SIGTERM (install_interrupt_handler), and by solver_stopped()
// where Z3 caught the SIGINT itself.
extern volatile int g_interrupted;
void install_interrupt_handler();

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

// While set, the SIGINT/SIGTERM handler also calls hook(arg), e.g. a
// solver's own interrupt (Z3_interrupt: props/z3_interrupt.hpp), so that a
// long check stops at once; null: none.
void set_interrupt_hook(void (*hook)(void*), void* arg);

}  // namespace blkmc
