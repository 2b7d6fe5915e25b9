#include "model/sched/kernel/conform_model.hpp"

#include <algorithm>
#include <cstring>

namespace blkmc::sched {

// The first side's parameter: a hand variant, or a loaded source.
template <class Hand, class Kern>
static ParamInfo side_info() {
  ParamInfo p{ConformModel<Hand, Kern>::side_param(), 0, 0, std::max(0, int(Hand::variants().size()) - 1),
              ConformModel<Hand, Kern>::kTwoSources ? "the loaded source the variant's is compared with"
                                              : "the variant of blkmc's model held against the kernel's code"};
  for (const auto& v : Hand::variants()) p.names.push_back(v.name);
  return p;
}

template <class Hand, class Kern>
const ModelInfo& ConformModel<Hand, Kern>::static_info() {
  static ModelInfo info = [] {
    const ModelInfo& k = KernelModel::static_info();
    ModelInfo m;
    m.name = k.name;
    m.summary = kTwoSources ? fmt::format("two sources of {}'s code explored together (blkmc compare --kernel)", k.name)
                            : fmt::format("blkmc's model of {} and the kernel's own code of it, explored together "
                                          "(blkmc conform)",
                                          k.name);
    m.params = k.params;
    m.params.insert(m.params.begin(), side_info<Hand, Kern>());
    m.variants = k.variants;
    m.props = {{"conforms", PropKind::Invariant,
                "at every step blkmc's model (variant `hand`) and the kernel's code agree: the same requests in "
                "the same places, has_work, and the same steps enabled (the same request dispatched)"},
               Kern::extra_props().at(0), Kern::extra_props().at(1)};
    m.actions = k.actions;
    m.actions.push_back("depart");
    return m;
  }();
  static unsigned gen = Kern::variants_generation();
  if (gen != Kern::variants_generation()) {
    info.variants = KernelModel::static_info().variants;
    info.params.front() = side_info<Hand, Kern>();
    gen = Kern::variants_generation();
  }
  return info;
}

// The hand model's parameters: the shared ones where the value is in the
// hand model's range (BFQ's max_budget 0, "from the peak rate", is not: the
// model's scaled budget keeps its default), its own defaults, no shadow.
template <class Hand, class Kern>
Params ConformModel<Hand, Kern>::hand_params(const Params& p) {
  Params h;
  for (const auto& pi : HandModel::static_info().params) {
    const auto it = p.find(pi.name);
    h[pi.name] = it != p.end() && (pi.open || (it->second >= pi.min && it->second <= pi.max)) ? it->second : pi.def;
  }
  if (h.count("shadow")) h["shadow"] = -1;
  return h;
}

template <class Hand, class Kern>
ConformModel<Hand, Kern>::ConformModel(int variant, const Params& p)
    : hand_(p.at(side_param()), hand_params(p)), kern_(variant, p) {
  hb_ = hand_.state_bytes();
  kb_ = kern_.state_bytes();
  if (hb_ + kb_ + 1 > State::capacity) throw UsageError("conform: the two states do not fit one");
  departed_.off = std::uint32_t(hb_ + kb_);
  const auto& kp = kern_.info().props;
  for (std::size_t i = 0; i < kp.size(); ++i)
    if (kp[i].name == "kernel-bug") kbug_ = int(i);
    else if (kp[i].name == "kernel-in-model") kin_ = int(i);
}

template <class Hand, class Kern>
void ConformModel<Hand, Kern>::split(const State& s, HState& h, KState& k) const {
  std::memcpy(h.b.data(), s.b.data(), hb_);
  std::memset(h.b.data() + hb_, 0, HState::capacity - hb_);
  std::memcpy(k.b.data(), s.b.data() + hb_, kb_);
  std::memset(k.b.data() + kb_, 0, KState::capacity - kb_);
}

template <class Hand, class Kern>
void ConformModel<Hand, Kern>::join(const HState& h, const KState& k, State& s) const {
  std::memcpy(s.b.data(), h.b.data(), hb_);
  std::memcpy(s.b.data() + hb_, k.b.data(), kb_);
  departed_.set(s, 0);
}

template <class Hand, class Kern>
typename ConformModel<Hand, Kern>::State ConformModel<Hand, Kern>::initial() const {
  State s{};
  join(hand_.initial(), kern_.initial(), s);
  return s;
}

template <class Hand, class Kern>
bool ConformModel<Hand, Kern>::finished(const State& s) const {
  if (departed(s)) return true;
  HState h;
  KState k;
  split(s, h, k);
  return hand_.finished(h) && kern_.finished(k);
}

template <class Hand, class Kern>
bool ConformModel<Hand, Kern>::violates(int prop, const State& s) const {
  if (prop == kConforms) return departed(s);
  const int kp = prop == kKernelBug ? kbug_ : prop == kInModel ? kin_ : -1;
  if (kp < 0) return false;
  HState h;
  KState k;
  split(s, h, k);
  return kern_.violates(kp, k);
}

// The framework's variables as each model has them.
template <class Hand, class Kern>
std::string ConformModel<Hand, Kern>::framework_difference(const HState& h, const KState& k) const {
  const RqTable& hr = hand_.rqs();
  const RqTable& kr = kern_.rqs();
  for (int r = 0; r < hr.size(); ++r) {
    if (hr.status(h, r) != kr.status(k, r))
      return fmt::format("{} is {} in blkmc's model, {} with the kernel's code", hr.name(r), st_name(hr.status(h, r)),
                         st_name(kr.status(k, r)));
    if (hr.seq(h, r) != kr.seq(k, r) || hr.age(h, r) != kr.age(k, r) ||
        hr.flag(h, r, kInserted) != kr.flag(k, r, kInserted))
      return fmt::format("{}'s place in its list, age or inserted flag differs", hr.name(r));
  }
  for (int p = 0; p < hand_.nprocs(); ++p)
    if (hand_.pc(h, p) != kern_.pc(k, p) || hand_.think(h, p) != kern_.think(k, p))
      return fmt::format("process {} stands elsewhere", hand_.actor_name(p));
  if (hand_.head_pos(h) != kern_.head_pos(k) || hand_.requeues_left(h) != kern_.requeues_left(k) ||
      hand_.wait(h) != kern_.wait(k) || hand_.wait_ticks(h) != kern_.wait_ticks(k) ||
      hand_.expired_wait(h) != kern_.expired_wait(k) || hand_.ghost_err(h) != kern_.ghost_err(k) ||
      hand_.fair_svc(h, 0) != kern_.fair_svc(k, 0) || hand_.fair_svc(h, 1) != kern_.fair_svc(k, 1))
    return "the device or the tracked request's counters differ";
  return "";
}

template <class Hand, class Kern>
std::string ConformModel<Hand, Kern>::step_text(const Step& st) const {
  const auto& a = info().actions;
  std::string what = st.action < a.size() ? a[st.action] : "?";
  if (st.action == HandModel::DISPATCH)
    return st.arg == HandModel::kNull ? "makes a dispatch that returns NULL"
                                      : fmt::format("dispatches {}", hand_.rqs().name(st.arg));
  if (st.action == HandModel::TICK) return "lets a tick pass";
  return fmt::format("lets {} {} {}", actor_name(st.actor), what, st.arg < hand_.rqs().size() ? hand_.rqs().name(st.arg) : "");
}

template <class Hand, class Kern>
std::string ConformModel<Hand, Kern>::departure(const State& s) const {
  HState h;
  KState k;
  split(s, h, k);
  if (std::string d = framework_difference(h, k); !d.empty()) return d;
  if (hand_.sched().has_work(h) != kern_.sched().has_work(k))
    return fmt::format("has_work is {} in {}, {} in {}", hand_.sched().has_work(h), first_side(),
                       kern_.sched().has_work(k), second_side());
  std::vector<Step> hs, ks;
  hand_.for_each_successor(h, [&](const Step& st, const HState&) { hs.push_back(st); });
  kern_.for_each_successor(k, [&](const Step& st, const KState&) { ks.push_back(st); });
  for (const Step& st : ks)
    if (std::find(hs.begin(), hs.end(), st) == hs.end()) {
      std::string alt;
      for (const Step& x : hs)
        if (x.actor == st.actor && std::find(ks.begin(), ks.end(), x) == ks.end()) alt = step_text(x);
      return fmt::format("{} {}; {} {}", second_side(), step_text(st), first_side(), alt.empty() ? "cannot" : alt);
    }
  for (const Step& st : hs)
    if (std::find(ks.begin(), ks.end(), st) == ks.end())
      return fmt::format("{} {}; {} cannot", first_side(), step_text(st), second_side());
  return "";
}

template <class Hand, class Kern>
std::string ConformModel<Hand, Kern>::describe(const State& s, const Step& st) const {
  if (st.action == kDepart) return fmt::format("DEPARTURE: {}", departure(s));
  HState h;
  KState k;
  split(s, h, k);
  return kern_.describe(k, st);
}

template <class Hand, class Kern>
nlohmann::json ConformModel<Hand, Kern>::state_json(const State& s) const {
  HState h;
  KState k;
  split(s, h, k);
  nlohmann::json j{{kTwoSources ? "before" : "model", hand_.state_json(h)}, {kTwoSources ? "after" : "kernel", kern_.state_json(k)}};
  if (departed(s)) j["departed"] = true;
  return j;
}

template <class Hand, class Kern>
std::string ConformModel<Hand, Kern>::summary(const State& s) const {
  HState h;
  KState k;
  split(s, h, k);
  std::string out = kern_.summary(k) + (kTwoSources ? " | before: " : " | model: ") + hand_.sched().summary(h);
  if (departed(s)) out += " | DEPARTED";
  return out;
}

template <class Hand, class Kern>
nlohmann::json ConformModel<Hand, Kern>::source_json() const {
  nlohmann::json j = kern_.source_json();
  j["kind"] = kTwoSources ? "pair" : "conform";
  if constexpr (kTwoSources) j["before"] = hand_.sched().source_json();
  return j;
}

template class ConformModel<DeadlineScheduler>;
template class ConformModel<KernelScheduler>;
template class ConformModel<BfqScheduler, KernelBfqScheduler>;
template class ConformModel<KernelBfqScheduler, KernelBfqScheduler>;

}  // namespace blkmc::sched
