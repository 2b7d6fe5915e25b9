// Ctrl-C during a Z3 check: z3's own SIGINT handler is switched off
// (ctrl_c=false on every solver: it cancels the check without telling
// anyone, and a second Ctrl-C was needed), and while a Z3Interruptible is in
// scope blkmc's handler (common/interrupt.hpp) sets g_interrupted and asks
// the context to stop (Z3_interrupt). stopped() throws Interrupted then.
#pragma once

#include <z3++.h>

#include "common/interrupt.hpp"

namespace blkmc {

class Z3Interruptible {
 public:
  explicit Z3Interruptible(z3::context& c) { set_interrupt_hook(&stop, &c); }
  ~Z3Interruptible() { set_interrupt_hook(nullptr, nullptr); }
  Z3Interruptible(const Z3Interruptible&) = delete;
  Z3Interruptible& operator=(const Z3Interruptible&) = delete;

  template <class Solver>
  static void quiet_ctrl_c(Solver& s) {
    z3::params p(s.ctx());
    p.set("ctrl_c", false);
    s.set(p);
  }
  // Before and after each check: an interrupt ends the command.
  static void stopped() {
    if (g_interrupted) throw Interrupted();
  }

 private:
  static void stop(void* c) { Z3_interrupt(*static_cast<z3::context*>(c)); }
};

}  // namespace blkmc
