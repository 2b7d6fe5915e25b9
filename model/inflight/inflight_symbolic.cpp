#include "model/inflight/inflight_symbolic.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace blkmc::inflight {

Layout::Layout(const Config& c) {
  SchemaIds id{};
  const Schema sc = schema(c, &id);
  pc0 = sc.first(id.pc), target0 = sc.first(id.target), round0 = sc.first(id.round);
  ncnt_cpu = c.ncnt_cpu();
  cnt0 = id.cnt0 < 0 ? -1 : sc.first(id.cnt0);
  rd_pos = sc.first(id.pos), rd_done = sc.first(id.done), rd_target = sc.first(id.rd_target);
  rd_acc = sc.first(id.sum), rd_acc0 = sc.first(id.sum0);
  rd_seen = sc.first(id.seen), rd_seen0 = sc.first(id.seen0);
  live = sc.first(id.live), part_wrong = sc.first(id.part_wrong);
  part0_wrong = sc.first(id.part0_wrong), over_bound = sc.first(id.over_bound);
  negative = sc.first(id.negative), missed_queued = sc.first(id.missed_queued);
  nvars = sc.size();
}

std::vector<SymAction> actions(const Config& c) {
  std::vector<SymAction> out;
  auto st = [](int actor, int action, int arg) {
    return Step{std::uint8_t(actor), std::uint8_t(action), std::uint8_t(arg)};
  };
  const int cpus = c.uses_percpu() ? c.ncpu : 1;
  for (int sub = 0; sub < c.nsub; ++sub) {
    for (int t = c.first_target(); t <= c.parts; ++t)
      for (int cpu = 0; cpu < cpus; ++cpu) out.push_back({st(sub, SUBMIT, t | (cpu << 4)), t});
    out.push_back({st(sub, DISPATCH, 0), 0});
    for (int t = 0; t <= c.parts; ++t)
      for (int cpu = 0; cpu < cpus; ++cpu) out.push_back({st(sub, COMPLETE, cpu), t});
    out.push_back({st(sub, FREE, 0), 0});
  }
  for (int t = 0; t <= c.parts; ++t) out.push_back({st(c.nsub, READ, t), t});
  for (int t = 0; t <= c.parts; ++t)
    for (int e = 1; e < c.read_elements(); ++e) out.push_back({st(c.nsub, VISIT, e), t});
  return out;
}

namespace {

z3::expr guard_and_update(const Config& c, const SymAction& a, SymView& v) {
  const int sub = a.step.actor, i = a.index;
  z3::expr g = v.bc(true);
  switch (a.step.action) {
    case SUBMIT:
      g = may_submit(c, v, sub);
      blk_account_io_start(c, v, sub, a.step.arg & 0x0f, a.step.arg >> 4);
      break;
    case DISPATCH:
      g = may_dispatch(c, v, sub);
      blk_mq_start_request(c, v, sub);
      break;
    case COMPLETE:
      g = may_complete(c, v, sub, i);
      blk_account_io_done(c, v, sub, i, a.step.arg);
      break;
    case FREE:
      g = may_free(c, v, sub);
      blk_mq_free_request(c, v, sub);
      break;
    case READ:
      g = may_read(c, v, i);
      part_in_flight(c, v, i, 0);
      break;
    default:
      g = may_visit(c, v, i, a.step.arg);
      part_in_flight(c, v, i, a.step.arg);
      break;
  }
  return g;
}

z3::expr lemma(int which, const Config& c, const Layout& l, const Frame& f) {
  const SymView v(l, f);
  switch (which) {
    case 0:
      return lemma_well_formed(c, v);
    case 1:
      return lemma_counters_sum(c, v);
    case 2:
      return lemma_quiescent_sum(c, v);
    default:
      return lemma_read_bounded(c, v);
  }
}

const char* const kLemmaNames[] = {"well-formed", "counters-sum", "quiescent-sum", "read-bounded"};

// The lemmas a property's proof needs: the counters' sums (counter
// variants) for any read, the partial sums of a quiescent read for the
// exactness properties, the seen-requests bound for a live read.
std::vector<int> lemma_ids(const Config& c, int prop) {
  std::vector<int> ids{0};
  if (!c.uses_tag_walk()) ids.push_back(1);
  if (prop == QuiescentExactPart || prop == QuiescentExactPart0 || prop == QuiescentCountsQueued)
    ids.push_back(2);
  if (prop == LiveReadBounded) ids.push_back(3);
  return ids;
}

}  // namespace

std::vector<std::string> lemma_names(const Config& c, int prop) {
  std::vector<std::string> out;
  for (int i : lemma_ids(c, prop)) out.push_back(kLemmaNames[i]);
  return out;
}

TransitionSystem transition_system(const Config& c, int prop, bool lemmas) {
  const Layout l(c);
  TransitionSystem ts;
  ts.vars = schema(c).ts_vars();
  // Mathematical integers: the lemmas are sums and bounds of counters,
  // which the arithmetic core settles far faster than bit-blasted adders
  // (8 submitters: 0.6 s against 31 s for well-formed), and nothing can wrap.
  ts.bv_width = 0;
  const auto acts = actions(c);
  ts.nactions = static_cast<int>(acts.size());

  ts.init = [c, l](const Frame& f) {
    z3::expr_vector e(f[0].ctx());
    for (int v = 0; v < l.nvars; ++v) {
      const z3::expr& x = f[std::size_t(v)];
      if (x.is_bool()) e.push_back(!x);
      else if (v >= l.pc0 && v < l.pc0 + c.nsub) e.push_back(x == SUBMIT);
      else e.push_back(x == 0);
    }
    return z3::mk_and(e);
  };

  ts.trans = [c, l, acts](const Frame& s, const z3::expr& act, const Frame& n) {
    z3::context& ctx = s[0].ctx();
    z3::expr_vector conj(ctx);
    conj.push_back(act >= 0 && act < static_cast<int>(acts.size()));
    std::vector<z3::expr> val(s.begin(), s.end());
    for (std::size_t a = 0; a < acts.size(); ++a) {
      SymView v(l, s);
      const z3::expr g = guard_and_update(c, acts[a], v);
      conj.push_back(z3::implies(act == static_cast<int>(a), g));
      for (const auto& [var, e] : v.writes())
        val[std::size_t(var)] = z3::ite(act == static_cast<int>(a), e, val[std::size_t(var)]);
    }
    for (int var = 0; var < l.nvars; ++var) conj.push_back(n[std::size_t(var)] == val[std::size_t(var)]);
    return z3::mk_and(conj);
  };

  ts.successor = [c, l, acts](const Frame& s, int a) {
    SymView v(l, s);
    const z3::expr g = guard_and_update(c, acts.at(std::size_t(a)), v);
    Frame n = s;
    for (const auto& [var, e] : v.writes()) n[std::size_t(var)] = e;
    return std::make_pair(g, n);
  };

  ts.prop = {InflightModel::static_info().props.at(std::size_t(prop)).name,
             [c, l, prop](const Frame& f) { return !violates(c, SymView(l, f), prop); }};
  if (lemmas)
    for (int id : lemma_ids(c, prop))
      ts.lemmas.push_back({kLemmaNames[id], [c, l, id](const Frame& f) { return lemma(id, c, l, f); }});
  return ts;
}

std::vector<int> frame_values(const InflightModel& m, const InflightModel::State& s) {
  return m.schema().values(s);
}

std::optional<InflightModel::State> concrete_state(const InflightModel& m, const std::vector<int>& v) {
  if (!m.schema().representable(v)) return std::nullopt;
  InflightModel::State s{};
  m.schema().set_values(s, v);
  return s;
}

std::string state_text(const Config& c, const std::vector<int>& v) {
  const Layout l(c);
  auto at = [&](int i) { return v.at(std::size_t(i)); };
  std::string out;
  for (int s = 0; s < c.nsub; ++s) {
    const int pc = at(l.pc0 + s);
    out += fmt::format("{}s{}:{}", s ? " " : "",
                       s, pc >= 0 && pc <= DONE ? kPcNames[pc] : fmt::format("pc={}", pc).c_str());
    if (pc != SUBMIT && pc != DONE) out += "->" + part_name(at(l.target0 + s));
    out += fmt::format(" round {}", at(l.round0 + s));
  }
  if (l.cnt0 >= 0) {
    out += " | in_flight";
    for (int t = 0; t <= c.parts; ++t) {
      out += fmt::format(" {}=", part_name(t));
      for (int cpu = 0; cpu < l.ncnt_cpu; ++cpu)
        out += fmt::format("{}{}", cpu ? "," : "", at(l.cnt0 + t * l.ncnt_cpu + cpu));
    }
  }
  if (at(l.rd_pos) == 0) {
    out += fmt::format(" | reader idle, {} reads done", at(l.rd_done));
  } else {
    out += fmt::format(" | reading {} at element {}: sum {}", part_name(at(l.rd_target)), at(l.rd_pos),
                       at(l.rd_acc));
    if (c.variant == TagWalkDouble) out += fmt::format(" (sda {})", at(l.rd_acc0));
    out += fmt::format(", seen {}{}", at(l.rd_seen), at(l.live) ? ", live" : ", quiescent");
  }
  const std::pair<int, const char*> flags[] = {{l.part_wrong, "PART-WRONG"},
                                               {l.part0_wrong, "PART0-WRONG"},
                                               {l.over_bound, "OVER-BOUND"},
                                               {l.negative, "NEGATIVE"},
                                               {l.missed_queued, "MISSED-QUEUED"}};
  for (const auto& [i, name] : flags)
    if (at(i)) out += fmt::format(" {}", name);
  return out;
}

std::string action_text(const Config& c, const SymAction& a) {
  const int who = a.step.actor;
  switch (a.step.action) {
    case SUBMIT:
      return fmt::format("submitter {}: blk_account_io_start, rq->part = {}{}", who,
                         part_name(a.step.arg & 0x0f),
                         c.uses_percpu() ? fmt::format(" on cpu {}", a.step.arg >> 4) : "");
    case DISPATCH:
      return fmt::format("submitter {}: blk_mq_get_driver_tag + blk_mq_start_request", who);
    case COMPLETE:
      return fmt::format("submitter {}: blk_account_io_done ({}){}", who, part_name(a.index),
                         c.uses_percpu() ? fmt::format(" on cpu {}", a.step.arg) : "");
    case FREE:
      return fmt::format("submitter {}: blk_mq_free_request", who);
    case READ:
      return fmt::format("reader: a read of {} begins at element 0", part_name(a.index));
    default:
      return fmt::format("reader: the read of {} visits element {}", part_name(a.index), a.step.arg);
  }
}

}  // namespace blkmc::inflight
