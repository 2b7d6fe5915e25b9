#include "device/analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace blkmc::device {

Joined join_events(const Plan& plan, const std::vector<RawEvent>& raw) {
  Joined j;
  const std::size_t n = plan.rqs.size();
  std::vector<bool> inserted(n, false);
  // stage: 0 not inserted, 1 inserted, 2 issued, 3 completed
  std::vector<int> stage(n, 0);
  auto find_at = [&](std::uint64_t sector, int dir, int want) {
    for (const auto& r : plan.rqs)
      if (r.sector == sector && r.dir == dir && stage[std::size_t(r.id)] == want) return r.id;
    return -1;
  };
  for (const auto& e : raw) {
    if (e.kind == EvKind::Merge) {
      ++j.merges;
      continue;
    }
    const int dir = e.dir();
    int id = -1;
    if (dir < 0) {
      ++j.unmatched;
      continue;
    }
    switch (e.kind) {
      case EvKind::Insert:
        id = find_request(plan, e.sector, dir, inserted);
        if (id >= 0) inserted[std::size_t(id)] = true, stage[std::size_t(id)] = 1;
        break;
      case EvKind::Issue:
        id = find_at(e.sector, dir, 1);
        if (id >= 0) stage[std::size_t(id)] = 2;
        break;
      case EvKind::Complete:
        id = find_at(e.sector, dir, 2);
        if (id >= 0) stage[std::size_t(id)] = 3;
        break;
      case EvKind::Requeue:
        id = find_at(e.sector, dir, 2);
        if (id >= 0) stage[std::size_t(id)] = 1;
        break;
      case EvKind::Merge:
        break;
    }
    if (id < 0) {
      ++j.unmatched;
      continue;
    }
    j.events.push_back(Event{e.kind, id, e.ts_us});
  }
  return j;
}

SubmitJoin join_submissions(const std::vector<std::int64_t>& submit_us, const std::vector<Event>& ev) {
  SubmitJoin j;
  std::vector<bool> inserted(submit_us.size(), false);
  for (const auto& e : ev) {
    if (e.kind != EvKind::Insert || e.rq < 0 || std::size_t(e.rq) >= submit_us.size()) continue;
    const std::int64_t t = submit_us[std::size_t(e.rq)];
    if (t < 0) {
      ++j.unsubmitted;
      continue;
    }
    if (inserted[std::size_t(e.rq)]) continue;
    inserted[std::size_t(e.rq)] = true;
    j.max_delay_us = std::max(j.max_delay_us, e.ts_us - t);
  }
  for (std::size_t r = 0; r < submit_us.size(); ++r) j.missing += submit_us[r] >= 0 && !inserted[r];
  return j;
}

namespace {
std::vector<int> order_of(const std::vector<Event>& ev, EvKind k) {
  std::vector<int> o;
  for (const auto& e : ev)
    if (e.kind == k) o.push_back(e.rq);
  return o;
}
}  // namespace

std::vector<int> issue_order(const std::vector<Event>& ev) { return order_of(ev, EvKind::Issue); }
std::vector<int> insert_order(const std::vector<Event>& ev) { return order_of(ev, EvKind::Insert); }

int kendall_distance(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return -1;
  std::map<int, int> pos;
  for (std::size_t i = 0; i < b.size(); ++i) pos[b[i]] = int(i);
  if (pos.size() != b.size()) return -1;
  std::vector<int> p;
  for (int x : a) {
    const auto it = pos.find(x);
    if (it == pos.end()) return -1;
    p.push_back(it->second);
  }
  int d = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t k = i + 1; k < p.size(); ++k) d += p[i] > p[k];
  return d;
}

int Modal::max_distance() const {
  int m = 0;
  for (int d : distance) m = d < 0 ? m : std::max(m, d);
  return m;
}

Modal modal_order(const std::vector<std::vector<int>>& orders) {
  Modal m;
  m.runs = int(orders.size());
  for (const auto& o : orders) {
    const int c = int(std::count(orders.begin(), orders.end(), o));
    if (c > m.count) m.count = c, m.order = o;
  }
  for (const auto& o : orders) m.distance.push_back(kendall_distance(o, m.order));
  return m;
}

int position(const std::vector<int>& order, int r) {
  const auto it = std::find(order.begin(), order.end(), r);
  return it == order.end() ? -1 : int(it - order.begin());
}

int gated_before(const Plan& plan, const std::vector<int>& order, int r) {
  int n = 0;
  for (int x : order) {
    if (x == r) return n;
    n += !plan.procs[std::size_t(plan.rqs[std::size_t(x)].proc)].pre_gate;
  }
  return -1;
}

std::string order_text(const Plan& plan, const std::vector<int>& order, std::size_t max_items) {
  std::vector<std::string> items;
  std::size_t i = 0;
  while (i < order.size()) {
    const PlanRq& a = plan.rqs[std::size_t(order[i])];
    std::size_t k = i;
    while (k + 1 < order.size()) {
      const PlanRq& b = plan.rqs[std::size_t(order[k + 1])];
      if (b.proc != a.proc || b.index != plan.rqs[std::size_t(order[k])].index + 1) break;
      ++k;
    }
    const std::string& pn = plan.procs[std::size_t(a.proc)].name;
    if (k == i)
      items.push_back(fmt::format("{}.{}", pn, a.index));
    else
      items.push_back(fmt::format("{}.{}-{}", pn, a.index, plan.rqs[std::size_t(order[k])].index));
    i = k + 1;
  }
  std::string s;
  for (std::size_t n = 0; n < items.size(); ++n) {
    if (max_items && n == max_items) {
      s += fmt::format(" ... (+{})", items.size() - n);
      break;
    }
    if (n) s += ' ';
    s += items[n];
  }
  return s;
}

}  // namespace blkmc::device
