#include "model/schema.hpp"

#include <fmt/format.h>

namespace blkmc {

int Schema::add_place(Place p) {
  if (laid_out_) throw std::logic_error("schema: declaration after layout");
  places_.push_back(std::move(p));
  return int(places_.size()) - 1;
}

int Schema::add(Var v) {
  if (laid_out_) throw std::logic_error("schema: declaration after layout");
  if (v.hi < v.lo) throw std::logic_error(fmt::format("schema: {} ranges over {}..{}", v.name, v.lo, v.hi));
  if (v.place >= int(places_.size())) throw std::logic_error("schema: " + v.name + " in an unknown place");
  vars_.push_back(std::move(v));
  return int(vars_.size()) - 1;
}

void Schema::layout() {
  slots_.assign(vars_.size(), {});
  // A variable wider than a byte (prove's sizes, far beyond the explorer's)
  // has a place in the flat list and in Z3, but no explicit state.
  wide_.clear();
  for (const Var& v : vars_)
    if (v.hi - v.lo > 255) wide_ = v.name;
  first_.assign(vars_.size(), 0);
  auto is_bit = [](const Var& v) {
    return v.pack < 0 && (v.kind == VarKind::Bool || v.kind == VarKind::Bit);
  };
  // A byte of its own: a variable, or the first variable of a packed byte.
  std::vector<int> pack_head(std::size_t(npacks_), -1);
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].pack >= 0 && pack_head[std::size_t(vars_[i].pack)] < 0)
      pack_head[std::size_t(vars_[i].pack)] = int(i);
  auto owns_byte = [&](std::size_t i) {
    const Var& v = vars_[i];
    return v.pack < 0 ? !is_bit(v) : pack_head[std::size_t(v.pack)] == int(i);
  };
  auto put = [&](std::size_t i, std::uint32_t at, std::uint32_t stride) {
    if (vars_[i].pack < 0) {
      slots_[i] = {at, stride, Slot::Byte, 0, 0xff};
      return;
    }
    unsigned shift = 0;
    for (std::size_t j = i; j < vars_.size(); ++j)
      if (vars_[j].pack == vars_[i].pack) {
        unsigned w = 0;
        while ((1 << w) <= vars_[j].hi - vars_[j].lo) ++w;
        slots_[j] = {at, stride, Slot::Field, std::uint8_t(shift), std::uint8_t((1u << w) - 1)};
        shift += w;
      }
  };
  std::uint32_t at = 0;
  // Bytes: the top level and the groups, then each block's copies back to back.
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (owns_byte(i) && (vars_[i].place < 0 || !places_[std::size_t(vars_[i].place)].block)) put(i, at++, 0);
  for (std::size_t p = 0; p < places_.size(); ++p) {
    if (!places_[p].block) continue;
    std::uint32_t rec = 0;
    for (std::size_t i = 0; i < vars_.size(); ++i)
      if (owns_byte(i) && vars_[i].place == int(p)) ++rec;
    for (std::size_t i = 0; i < vars_.size(); ++i)
      if (owns_byte(i) && vars_[i].place == int(p)) put(i, at++, rec);
    at += rec * std::uint32_t(places_[p].copies - 1);
  }
  // Bits: each variable's copies side by side (a bitmap reads as one).
  std::uint32_t bit = at * 8;
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (is_bit(vars_[i])) {
      slots_[i] = {bit, 1, Slot::Bit, 0, 1};
      bit += std::uint32_t(copies(int(i)));
    }
  bytes_ = (bit + 7) / 8;
  int flat = 0;
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    first_[i] = flat;
    flat += copies(int(i));
  }
  nflat_ = flat;
  laid_out_ = true;
}

int Schema::find(const std::string& name) const {
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].name == name) return int(i);
  throw std::logic_error("schema: no variable " + name);
}

void Schema::need_bytes() const {
  if (!wide_.empty())
    throw std::logic_error("schema: " + wide_ + " ranges over more than a byte: no explicit state");
}

ByteVar Schema::byte_var(int id) const {
  need_bytes();
  const Slot& s = slots_.at(std::size_t(id));
  if (s.kind != Slot::Byte) throw std::logic_error("schema: " + var(id).name + " is not a byte of its own");
  return {s.at, s.stride, var(id).lo};
}

FieldVar Schema::field_var(int id) const {
  need_bytes();
  const Slot& s = slots_.at(std::size_t(id));
  if (s.kind == Slot::Bit) throw std::logic_error("schema: " + var(id).name + " is packed in bits");
  return {s.at, s.stride, s.shift, s.mask, var(id).lo};
}

void Schema::pack(const std::vector<int>& ids) {
  if (laid_out_) throw std::logic_error("schema: pack after layout");
  unsigned bits = 0;
  for (int id : ids) {
    const Var& v = var(id);
    if (v.pack >= 0 || v.place != var(ids.front()).place)
      throw std::logic_error("schema: " + v.name + " packed twice or with another place's variable");
    unsigned w = 0;
    while ((1 << w) <= v.hi - v.lo) ++w;
    bits += w;
  }
  if (bits > 8) throw std::logic_error("schema: a packed byte of more than 8 bits");
  for (int id : ids) vars_[std::size_t(id)].pack = npacks_;
  ++npacks_;
}

BitVar Schema::bit_var(int id) const {
  need_bytes();
  const Slot& s = slots_.at(std::size_t(id));
  if (s.kind != Slot::Bit) throw std::logic_error("schema: " + var(id).name + " is not a bit of its own");
  return {s.at, s.stride, var(id).lo};
}

std::vector<std::string> Schema::element_names() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    const Var& v = vars_[i];
    const bool array = v.place >= 0 && places_[std::size_t(v.place)].block;
    for (int c = 0; c < copies(int(i)); ++c)
      out.push_back(array ? fmt::format("{}[{}]", v.name, c) : v.name);
  }
  return out;
}

std::vector<TsVar> Schema::ts_vars() const {
  std::vector<TsVar> out;
  const auto names = element_names();
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    const Var& v = vars_[i];
    for (int c = 0; c < copies(int(i)); ++c)
      out.push_back({names[std::size_t(index(int(i), c))], v.kind == VarKind::Bool || v.kind == VarKind::Bit,
                     v.lo, v.hi});
  }
  return out;
}

bool Schema::representable(const std::vector<int>& flat) const {
  if (int(flat.size()) != nflat_) return false;
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    const Var& v = vars_[i];
    const int hi = v.lo + (slots_[i].kind == Slot::Bit ? 1 : slots_[i].mask);
    for (int c = 0; c < copies(int(i)); ++c) {
      const int x = flat[std::size_t(index(int(i), c))];
      if (x < v.lo || x > hi) return false;
    }
  }
  return true;
}

nlohmann::json Schema::value_json(int id, int x) const {
  const Var& v = var(id);
  if (v.kind == VarKind::Bool) return x != 0;
  if (v.kind == VarKind::Enum && x >= v.lo && x <= v.hi) return v.values[std::size_t(x - v.lo)];
  return x;
}

std::string Schema::value_text(int id, int x) const {
  const Var& v = var(id);
  if (v.kind == VarKind::Bool) return x ? "true" : "false";
  if (v.kind == VarKind::Enum && x >= v.lo && x <= v.hi) return v.values[std::size_t(x - v.lo)];
  return std::to_string(x);
}

nlohmann::json Schema::json_of(const std::vector<int>& flat) const {
  nlohmann::json j = nlohmann::json::object();
  for (const Place& p : places_)
    if (p.block) {
      auto& a = j[p.name] = nlohmann::json::array();
      for (int c = 0; c < p.copies; ++c) a.push_back(nlohmann::json::object());
    } else {
      j[p.name] = nlohmann::json::object();
    }
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    const Var& v = vars_[i];
    for (int c = 0; c < copies(int(i)); ++c) {
      nlohmann::json x = value_json(int(i), flat[std::size_t(index(int(i), c))]);
      if (v.place < 0) j[v.name] = std::move(x);
      else {
        const Place& p = places_[std::size_t(v.place)];
        (p.block ? j[p.name][std::size_t(c)] : j[p.name])[v.name] = std::move(x);
      }
    }
  }
  return j;
}

int Schema::find_place(const std::string& name) const {
  for (std::size_t i = 0; i < places_.size(); ++i)
    if (places_[i].name == name) return int(i);
  throw std::logic_error("schema: no place " + name);
}

Schema::BlockLayout Schema::block_layout(int place) const {
  need_bytes();
  BlockLayout l;
  bool first = true;
  for (std::size_t id = 0; id < vars_.size(); ++id) {
    if (vars_[id].place != place) continue;
    const Slot& sl = slots_[id];
    if (sl.kind == Slot::Bit) {
      l.bits.push_back(sl.at);
    } else if (first || sl.at < l.base) {
      l.base = sl.at;
      l.rec = sl.stride;
      first = false;
    }
  }
  return l;
}

std::vector<std::uint8_t> Schema::keep_mask(const std::vector<bool>& keep) const {
  need_bytes();
  std::vector<std::uint8_t> m(bytes_, 0xff);
  for (std::size_t id = 0; id < vars_.size(); ++id) {
    if (keep.at(id)) continue;
    const Slot& sl = slots_[id];
    for (int c = 0; c < copies(int(id)); ++c) {
      if (sl.kind == Slot::Bit) {
        const std::uint32_t p = sl.at + sl.stride * std::uint32_t(c);
        m[p >> 3] = std::uint8_t(m[p >> 3] & ~(1u << (p & 7)));
      } else {
        auto& b = m[sl.at + sl.stride * std::uint32_t(c)];
        b = std::uint8_t(b & ~(std::uint32_t(sl.mask) << sl.shift));
      }
    }
  }
  return m;
}

}  // namespace blkmc
