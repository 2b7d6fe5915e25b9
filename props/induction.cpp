#include "props/induction.hpp"

#include <chrono>
#include <deque>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "props/z3_interrupt.hpp"

namespace blkmc {

std::string to_string(ProofVerdict v) {
  switch (v) {
    case ProofVerdict::Proved:
      return "proved";
    case ProofVerdict::Violated:
      return "violated";
    default:
      return "incomplete";
  }
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The frames s0, s1, ... and the actions between them, made on demand and
// shared by the base and the step solver.
class Unrolling {
 public:
  Unrolling(z3::context& c, const TransitionSystem& ts) : c_(c), ts_(ts) {}

  const Frame& frame(std::size_t i) {
    while (frames_.size() <= i) {
      Frame f;
      const std::size_t k = frames_.size();
      for (const auto& v : ts_.vars) {
        const std::string n = fmt::format("{}@{}", v.name, k);
        f.push_back(v.is_bool        ? c_.bool_const(n.c_str())
                    : ts_.bv_width ? c_.bv_const(n.c_str(), unsigned(ts_.bv_width))
                                   : c_.int_const(n.c_str()));
      }
      frames_.push_back(std::move(f));
    }
    return frames_[i];
  }
  // The transition from frame i to i + 1.
  const z3::expr& trans(std::size_t i) {
    while (trans_.size() <= i) {
      const std::size_t k = trans_.size();
      const std::string n = fmt::format("act@{}", k);
      acts_.push_back(ts_.bv_width ? c_.bv_const(n.c_str(), 32) : c_.int_const(n.c_str()));
      trans_.push_back(ts_.trans(frame(k), acts_.back(), frame(k + 1)));
    }
    return trans_[i];
  }
  const z3::expr& act(std::size_t i) {
    trans(i);
    return acts_[i];
  }
  z3::expr distinct(std::size_t i, std::size_t j) {
    const Frame &a = frame(i), &b = frame(j);
    z3::expr_vector d(c_);
    for (std::size_t v = 0; v < a.size(); ++v) d.push_back(a[v] != b[v]);
    return z3::mk_or(d);
  }

 private:
  z3::context& c_;
  const TransitionSystem& ts_;
  // Deques: references handed out stay valid as frames are added.
  std::deque<Frame> frames_;
  std::deque<z3::expr> trans_, acts_;
};

// A numeral's value; bit-vectors read as signed.
int value(const z3::expr& v) {
  if (v.is_bool()) return v.is_true() ? 1 : 0;
  if (!v.is_bv()) return v.get_numeral_int();
  const unsigned w = v.get_sort().bv_size();
  const auto u = static_cast<long long>(v.get_numeral_uint64());
  return static_cast<int>(u >= (1LL << (w - 1)) ? u - (1LL << w) : u);
}

std::vector<int> values(const z3::model& m, const Frame& f) {
  std::vector<int> out;
  for (const auto& e : f) out.push_back(value(m.eval(e, true)));
  return out;
}

class Prover {
 public:
  Prover(z3::context& c, const TransitionSystem& ts, const InductionOptions& opt)
      : c_(c), ts_(ts), opt_(opt), u_(c, ts), t0_(Clock::now()) {}

  TargetResult run(const TransitionSystem::Formula& target,
                   const std::vector<const TransitionSystem::Formula*>& assumed, int k_max) {
    const auto start = Clock::now();
    TargetResult r;
    r.name = target.name;
    z3::solver base = mk(), step = mk();
    base.add(ts_.init(u_.frame(0)));
    for (int k = 0; k <= k_max; ++k) {
      const auto uk = std::size_t(k);
      // Frame k joins both unrollings.
      if (k > 0) {
        base.add(u_.trans(uk - 1));
        step.add(u_.trans(uk - 1));
        step.add(target.holds(u_.frame(uk - 1)));
        for (std::size_t i = 0; i < uk; ++i) step.add(u_.distinct(i, uk));
      }
      for (const auto* a : assumed) step.add(a->holds(u_.frame(uk)));
      const z3::expr bad = !target.holds(u_.frame(uk));
      // Base case: a real path of length k to a violation.
      const z3::check_result b = check(base, bad);
      if (b == z3::sat) {
        r.verdict = ProofVerdict::Violated;
        r.k = k;
        r.note.clear();
        r.states.clear();
        r.actions.clear();
        extract(*model_, uk, r);
        break;
      }
      if (b == z3::unknown) {
        r.note = note(base, k, "base");
        break;
      }
      // Step case: k states satisfying the target, then one that does not.
      const z3::check_result s =
          k == 1 && ts_.successor ? check_split(target, assumed, r) : check(step, bad);
      if (s == z3::unsat) {
        r.verdict = ProofVerdict::Proved;
        r.k = k;
        break;
      }
      if (s == z3::unknown) {
        r.note = note(step, k, "step");
        break;
      }
      r.k = k;
      if (!(k == 1 && ts_.successor)) {  // check_split filled the CTI
        r.states.clear();
        r.actions.clear();
        extract(*model_, uk, r);
      }
      r.note = fmt::format("induction fails up to k = {}", k);
    }
    r.seconds = since(start);
    return r;
  }

  double elapsed() const { return since(t0_); }

  // Bit-vector systems go to Z3's bit-blasting tactic (qfbv: SAT), far
  // faster here than the incremental SMT core; integers to the SMT core.
  z3::solver mk() {
    if (ts_.bv_width) return z3::tactic(c_, "qfbv").mk_solver();
    return z3::solver(c_);
  }

 private:
  // The step case at k = 1, one action at a time on one incremental solver:
  // s0 satisfies the assumed lemmas and the target; action a is enabled,
  // changes the state, and its successor satisfies the lemmas but not the
  // target. sat: the CTI (s0, a, s1) goes into r.
  z3::check_result check_split(const TransitionSystem::Formula& target,
                               const std::vector<const TransitionSystem::Formula*>& assumed,
                               TargetResult& r) {
    const Frame& s0 = u_.frame(0);
    // solve-eqs first: an action's guard fixes variables (the reader's
    // position, a pc), and substituting them turns the lemmas' position-
    // dependent sums into plain ones; the SMT core alone case-splits on them
    // (24 submitters: 8 s against over 150 s).
    z3::solver sol = (z3::tactic(c_, "simplify") & z3::tactic(c_, "propagate-values") &
                      z3::tactic(c_, "solve-eqs") & z3::tactic(c_, "simplify") &
                      z3::tactic(c_, "smt"))
                         .mk_solver();
    // The conjuncts true in s0: a conjunct of the target in s1 over only
    // variables the action did not write is the same term (Z3 shares
    // terms), so only the others can fail.
    std::unordered_set<unsigned> known;
    for (const auto* a : assumed) {
      const z3::expr h = a->holds(s0);
      sol.add(h);
      conjuncts(h, known);
    }
    const z3::expr t0 = target.holds(s0);
    sol.add(t0);
    conjuncts(t0, known);
    for (int a = 0; a < ts_.nactions; ++a) {
      const auto [guard, s1] = ts_.successor(s0, a);
      z3::expr_vector goal(c_), changed(c_), fails(c_);
      goal.push_back(guard);
      for (std::size_t v = 0; v < s0.size(); ++v)
        if (!z3::eq(s0[v], s1[v])) changed.push_back(s0[v] != s1[v]);
      if (changed.empty()) continue;  // a self-loop is not a simple path
      goal.push_back(z3::mk_or(changed));
      std::vector<z3::expr> parts;
      for (const auto* l : assumed) flatten(l->holds(s1), parts);
      for (const auto& p : parts)
        if (!known.count(p.id())) goal.push_back(p);  // the others are asserted on s0
      parts.clear();
      flatten(target.holds(s1), parts);
      for (const auto& p : parts)
        if (!known.count(p.id())) fails.push_back(!p);
      if (fails.empty()) continue;  // the target over untouched variables only
      goal.push_back(z3::mk_or(fails));
      const z3::check_result res = check(sol, z3::mk_and(goal));
      if (res == z3::unsat) continue;
      if (res == z3::sat) {
        r.states = {values(*model_, s0), values(*model_, s1)};
        r.actions = {a};
      }
      return res;
    }
    return z3::unsat;
  }

  // The top-level conjuncts of e.
  static void flatten(const z3::expr& e, std::vector<z3::expr>& out) {
    if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = 0; i < e.num_args(); ++i) flatten(e.arg(i), out);
    } else {
      out.push_back(e);
    }
  }
  static void conjuncts(const z3::expr& e, std::unordered_set<unsigned>& ids) {
    std::vector<z3::expr> parts;
    flatten(e, parts);
    for (const auto& p : parts) ids.insert(p.id());
  }

  z3::check_result check(z3::solver& s, const z3::expr& goal) {
    z3::params p(c_);
    if (opt_.seconds > 0) {
      const double left = opt_.seconds - since(t0_);
      if (left <= 0) {
        timed_out_ = true;
        return z3::unknown;
      }
      p.set("timeout", static_cast<unsigned>(left * 1000) + 1);
    }
    p.set("ctrl_c", false);
    s.set(p);
    // Ctrl-C ends the proof: no lemma is left "not assumed" by it.
    Z3Interruptible::stopped();
    s.push();
    s.add(goal);
    const z3::check_result r = s.check();
    Z3Interruptible::stopped();
    if (r == z3::sat) model_.emplace(s.get_model());
    s.pop();
    if (r == z3::unknown && opt_.seconds > 0 && since(t0_) >= opt_.seconds) timed_out_ = true;
    return r;
  }
  std::string note(z3::solver& s, int k, const char* which) {
    if (timed_out_) return fmt::format("time limit reached in the {} case at k = {}", which, k);
    return fmt::format("z3 answered unknown in the {} case at k = {} ({})", which, k,
                       s.reason_unknown());
  }
  void extract(const z3::model& m, std::size_t k, TargetResult& r) {
    // The solver's models are over frames 0..k; the last one repeats the
    // base/step goal's frame.
    for (std::size_t i = 0; i <= k; ++i) r.states.push_back(values(m, u_.frame(i)));
    for (std::size_t i = 0; i < k; ++i) r.actions.push_back(value(m.eval(u_.act(i), true)));
  }

  z3::context& c_;
  const TransitionSystem& ts_;
  const InductionOptions& opt_;
  Unrolling u_;
  Clock::time_point t0_;
  bool timed_out_ = false;
  std::optional<z3::model> model_;  // of the last sat check
};

}  // namespace

ProveResult prove_by_induction(z3::context& c, const TransitionSystem& ts,
                               const InductionOptions& opt) {
  if (ts.vars.empty() || ts.nactions <= 0 || !ts.init || !ts.trans || !ts.prop.holds)
    throw std::invalid_argument("prove: incomplete transition system");
  if (opt.k_max < 0) throw std::invalid_argument("prove: k_max must be >= 0");
  const Z3Interruptible interruptible(c);
  Prover p(c, ts, opt);
  ProveResult out;
  std::vector<const TransitionSystem::Formula*> assumed;
  // Lemmas on demand: plain induction (k <= 1) first; the lemmas are proved
  // and assumed only when that does not settle the property.
  if (!ts.lemmas.empty() && opt.k_max >= 1) {
    out.prop = p.run(ts.prop, assumed, 1);
    if (out.prop.verdict != ProofVerdict::Incomplete || out.prop.states.empty()) {
      out.seconds = p.elapsed();  // settled, or out of time
      return out;
    }
  }
  for (const auto& l : ts.lemmas) {
    out.lemmas.push_back(p.run(l, assumed, opt.k_max));
    if (out.lemmas.back().verdict == ProofVerdict::Proved) assumed.push_back(&l);
  }
  out.prop = p.run(ts.prop, assumed, opt.k_max);
  out.seconds = p.elapsed();
  return out;
}

}  // namespace blkmc
