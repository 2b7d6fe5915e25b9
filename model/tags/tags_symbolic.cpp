#include "model/tags/tags_symbolic.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>


namespace blkmc::tags {

Layout::Layout(const Config& c) {
  const Schema sc = schema(c);
  auto first = [&](const char* n) { return sc.first(sc.find(n)); };
  bit0 = first("bit"), owner0 = first("owner"), rqs0 = first("rqs");
  pc0 = first("pc"), round0 = first("round"), tag0 = first("tag");
  obj0 = c.pool ? first("obj") : -1;
  pos = first("pos"), count = first("count"), oops = first("oops");
  stale_fn = first("stale_fn"), stale_count = first("stale_count");
  nvars = sc.size();
}

std::vector<SymAction> actions(const Config& c) {
  std::vector<SymAction> out;
  auto st = [](int actor, int action, int arg) {
    return Step{std::uint8_t(actor), std::uint8_t(action), std::uint8_t(arg)};
  };
  for (int sub = 0; sub < c.nsub; ++sub) {
    for (int k = 1; k <= c.pool; ++k) out.push_back({st(sub, GET, k), k});
    for (int t = 0; t < c.ntags; ++t) out.push_back({st(sub, ALLOC, t), t});
    for (int t = 0; t < c.ntags; ++t) out.push_back({st(sub, ASSIGN, 0), t});
    out.push_back({st(sub, START, 0), 0});
    out.push_back({st(sub, COMPLETE, 0), 0});
    for (int t = 0; t < c.ntags; ++t) out.push_back({st(sub, FREE, 0), t});
  }
  for (int t = 0; t < c.ntags; ++t) out.push_back({st(c.nsub, VISIT, t), t});
  return out;
}

namespace {

// The guard of action a, and its update applied to v.
z3::expr guard_and_update(const Config& c, const SymAction& a, SymView& v) {
  const int sub = a.step.actor, i = a.index;
  z3::expr g = v.bc(true);
  switch (a.step.action) {
    case GET:
      g = may_get_request(c, v, sub, i);
      blk_mq_get_request(c, v, sub, i);
      break;
    case ALLOC:
      g = may_get_tag(c, v, sub, i);
      blk_mq_get_tag(c, v, sub, i);
      break;
    case ASSIGN:
      g = may_step_at(c, v, sub, ASSIGN, i);
      blk_mq_assign_rqs(c, v, sub, i);
      break;
    case START:
      g = may_step_at(c, v, sub, START, 0);
      blk_mq_start_request(c, v, sub);
      break;
    case COMPLETE:
      g = may_step_at(c, v, sub, COMPLETE, 0);
      blk_mq_complete_request(c, v, sub);
      break;
    case FREE:
      g = may_step_at(c, v, sub, FREE, i);
      blk_mq_free_request(c, v, sub, i);
      break;
    default:
      g = may_bt_iter(c, v, i);
      bt_iter(c, v, i);
      break;
  }
  return g;
}

// act in the set of action ids (sorted), as ranges.
z3::expr member(const z3::expr& act, const std::vector<int>& ids) {
  z3::expr_vector d(act.ctx());
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (i == j) d.push_back(act == ids[i]);
    else d.push_back(act >= ids[i] && act <= ids[j]);
    i = j + 1;
  }
  return z3::mk_or(d);
}

z3::expr lemma(int which, const Config& c, const Layout& l, const Frame& f) {
  const SymView v(l, f);
  switch (which) {
    case 0:
      return lemma_well_formed(c, v);
    case 1:
      return lemma_tag_ownership(c, v);
    case 2:
      return lemma_rqs_published(c, v);
    case 3:
      return lemma_fresh_ids(c, v);
    default:
      return lemma_walk_count(c, v);
  }
}

const char* const kLemmaNames[] = {"well-formed", "tag-ownership", "rqs-published", "fresh-ids",
                                   "walk-count"};

std::vector<int> lemma_ids(const Config& c, int prop) {
  std::vector<int> ids{0, 1, 2};
  if (!c.pool) ids.push_back(3);
  if (prop == WalkCountBounded) ids.push_back(4);
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
  // Integers as signed bit-vectors just wide enough for every value a step
  // computes (tags + 1, ids + 1, rounds + 1, the pcs, -1).
  {
    const int top = std::max({c.ntags + 1, c.nsub * c.rounds + c.rounds + 2, c.pool + 1, VISIT + 1});
    int w = 1;
    while ((1 << w) <= top) ++w;
    ts.bv_width = w + 1;
  }
  const auto acts = actions(c);
  ts.nactions = static_cast<int>(acts.size());

  ts.init = [c, l](const Frame& f) {
    z3::context& ctx = f[0].ctx();
    z3::expr_vector e(ctx);
    for (int t = 0; t < c.ntags; ++t) {
      e.push_back(!f[std::size_t(l.bit0 + t)]);
      e.push_back(f[std::size_t(l.owner0 + t)] == 0);
      e.push_back(f[std::size_t(l.rqs0 + t)] == 0);
    }
    for (int s = 0; s < c.nsub; ++s) {
      e.push_back(f[std::size_t(l.pc0 + s)] == (c.pool ? GET : ALLOC));
      e.push_back(f[std::size_t(l.round0 + s)] == 0);
      e.push_back(f[std::size_t(l.tag0 + s)] == 0);
      if (c.pool) e.push_back(f[std::size_t(l.obj0 + s)] == 0);
    }
    e.push_back(f[std::size_t(l.pos)] == 0);
    e.push_back(f[std::size_t(l.count)] == 0);
    e.push_back(!f[std::size_t(l.oops)]);
    e.push_back(!f[std::size_t(l.stale_fn)]);
    e.push_back(!f[std::size_t(l.stale_count)]);
    return z3::mk_and(e);
  };

  // trans: act selects one action; its guard holds; every variable takes the
  // value the action's update wrote, or keeps its own (frame condition).
  ts.trans = [c, l, acts](const Frame& s, const z3::expr& act, const Frame& n) {
    z3::context& ctx = s[0].ctx();
    z3::expr_vector conj(ctx);
    conj.push_back(act >= 0 && act < static_cast<int>(acts.size()));
    // Per variable: the distinct values written, each with its action ids.
    std::vector<std::vector<std::pair<z3::expr, std::vector<int>>>> writers(std::size_t(l.nvars));
    std::vector<std::map<unsigned, std::size_t>> by_id(std::size_t(l.nvars));
    for (std::size_t a = 0; a < acts.size(); ++a) {
      SymView v(l, s);
      const z3::expr g = guard_and_update(c, acts[a], v);
      conj.push_back(z3::implies(act == static_cast<int>(a), g));
      for (const auto& [var, e] : v.writes()) {
        auto& w = writers[std::size_t(var)];
        auto& ids = by_id[std::size_t(var)];
        const auto it = ids.find(e.id());
        if (it == ids.end()) {
          ids.emplace(e.id(), w.size());
          w.push_back({e, {static_cast<int>(a)}});
        } else {
          w[it->second].second.push_back(static_cast<int>(a));
        }
      }
    }
    for (int var = 0; var < l.nvars; ++var) {
      z3::expr val = s[std::size_t(var)];
      for (const auto& [e, ids] : writers[std::size_t(var)]) val = z3::ite(member(act, ids), e, val);
      conj.push_back(n[std::size_t(var)] == val);
    }
    return z3::mk_and(conj);
  };

  // No successor function: the per-action step case that suits inflight is
  // slower here (tag-ownership relates every tag to every submitter, so most
  // actions touch most of it; fn-sees-owner at 64 tags: 96 s split against
  // 12 s whole).

  ts.prop = {TagsModel::static_info().props.at(std::size_t(prop)).name, [c, l, prop](const Frame& f) {
               return !violates(c, SymView(l, f), prop);
             }};
  if (lemmas)
    for (int id : lemma_ids(c, prop))
      ts.lemmas.push_back({kLemmaNames[id], [c, l, id](const Frame& f) { return lemma(id, c, l, f); }});
  return ts;
}

std::optional<TagsModel::State> concrete_state(const TagsModel& m, const std::vector<int>& v) {
  if (!m.schema().representable(v)) return std::nullopt;
  TagsModel::State s{};
  m.schema().set_values(s, v);
  return s;
}

std::vector<int> frame_values(const TagsModel& m, const TagsModel::State& s) {
  return m.schema().values(s);
}

std::string state_text(const Config& c, const std::vector<int>& v) {
  const Layout l(c);
  auto at = [&](int i) { return v[std::size_t(i)]; };
  std::string bits, rqs, own;
  for (int t = 0; t < c.ntags; ++t) {
    bits += at(l.bit0 + t) ? '1' : '0';
    rqs += fmt::format("{}{}", t ? "," : "", at(l.rqs0 + t) ? std::to_string(at(l.rqs0 + t)) : "-");
    own += fmt::format("{}{}", t ? "," : "",
                       at(l.owner0 + t) ? std::to_string(at(l.owner0 + t)) : "-");
  }
  std::string out = fmt::format("bits {} owner[{}] rqs[{}] |", bits, own, rqs);
  for (int s = 0; s < c.nsub; ++s) {
    const int pc = at(l.pc0 + s);
    out += fmt::format(" s{}:{} round {} tag {}", s,
                       pc >= 0 && pc <= DONE ? kPcNames[pc] : fmt::format("pc={}", pc).c_str(),
                       at(l.round0 + s), at(l.tag0 + s));
    if (c.pool) out += fmt::format(" obj {}", at(l.obj0 + s));
  }
  out += fmt::format(" | iter pos {} count {}", at(l.pos), at(l.count));
  if (at(l.oops)) out += " OOPS";
  if (at(l.stale_fn)) out += " STALE-FN";
  if (at(l.stale_count)) out += " STALE-COUNT";
  return out;
}

std::string action_text(const Config& c, const SymAction& a) {
  if (a.step.actor == c.nsub) return fmt::format("iterator: bt_iter visits tag {}", a.index);
  const int sub = a.step.actor;
  switch (a.step.action) {
    case GET:
      return fmt::format("submitter {}: blk_mq_get_request takes object {}", sub, a.index);
    case ALLOC:
      return fmt::format("submitter {}: blk_mq_get_tag sets bit {}", sub, a.index);
    case ASSIGN:
      return fmt::format("submitter {}: rqs[{}] = its request", sub, a.index);
    case START:
      return fmt::format("submitter {}: blk_mq_start_request", sub);
    case COMPLETE:
      return fmt::format("submitter {}: blk_mq_complete_request", sub);
    default:
      return fmt::format("submitter {}: blk_mq_free_request clears bit {}", sub, a.index);
  }
}

}  // namespace blkmc::tags
