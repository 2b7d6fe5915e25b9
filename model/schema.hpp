// model/schema: a model's state variables, declared once (in the spirit of
// LTSmin's lts_type). Each variable has a name, a kind (bool, bit, bounded int, or
// enum with value names), a range, and a place: the state's top level, a
// group (one named object, e.g. the iterator), or a block (one copy per actor
// or per object, e.g. each submitter, each tag). From that one declaration
// come:
//   - the byte layout: a block's copies lie back to back (an actor's
//     variables share a cache line), booleans and bits are packed at the
//     end, every other value is one byte holding value - lo, or a few bits
//     of a byte shared with other small variables (pack());
//   - typed slots (ByteVar, BitVar, FieldVar) the model's views read and write;
//   - the flat variable list (var-major: every copy of a variable, then the
//     next variable): footprint bits, `variable_names()`, the Z3 variables of
//     `blkmc prove` (TsVar) and frame values;
//   - `state_json`: groups as objects, blocks as arrays of objects, enum
//     values by name.
// A reduction reads the same schema: which variables a property reads, which
// blocks are interchangeable actors, how a state splits into parts.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/transition_system.hpp"

namespace blkmc {

// Bool: false/true; Bit: a bitmap bit, a boolean shown as 0/1; Int: a
// bounded integer; Enum: an integer whose values have names.
enum class VarKind : std::uint8_t { Bool, Bit, Int, Enum };

// One byte per element, stored as value - lo.
struct ByteVar {
  std::uint32_t off = 0;
  std::uint32_t stride = 0;  // bytes between copies
  int lo = 0;
  template <class S>
  int get(const S& s, int i = 0) const {
    return int(s.b[off + stride * std::uint32_t(i)]) + lo;
  }
  template <class S>
  void set(S& s, int i, int v) const {
    s.b[off + stride * std::uint32_t(i)] = std::uint8_t(v - lo);
  }
  template <class S>
  void set(S& s, int v) const {
    set(s, 0, v);
  }
};

// One bit per element (a Bool or Bit variable).
struct BitVar {
  std::uint32_t bit = 0;  // bit position of copy 0 in the state
  std::uint32_t stride = 0;
  int lo = 0;
  template <class S>
  int get(const S& s, int i = 0) const {
    const std::uint32_t p = bit + stride * std::uint32_t(i);
    return ((s.b[p >> 3] >> (p & 7)) & 1) + lo;
  }
  template <class S>
  bool test(const S& s, int i = 0) const {
    return get(s, i) != lo;
  }
  template <class S>
  void set(S& s, int i, int v) const {
    const std::uint32_t p = bit + stride * std::uint32_t(i);
    const auto m = std::uint8_t(1u << (p & 7));
    s.b[p >> 3] = std::uint8_t(v != lo ? s.b[p >> 3] | m : s.b[p >> 3] & ~m);
  }
  template <class S>
  void set(S& s, int v) const {
    set(s, 0, v);
  }
};

// A few bits of a byte shared with other variables of the same place (see
// Schema::pack), stored as value - lo.
struct FieldVar {
  std::uint32_t off = 0;
  std::uint32_t stride = 0;  // bytes between copies
  std::uint8_t shift = 0, mask = 0xff;
  int lo = 0;
  template <class S>
  int get(const S& s, int i = 0) const {
    return ((s.b[off + stride * std::uint32_t(i)] >> shift) & mask) + lo;
  }
  template <class S>
  bool test(const S& s, int i = 0) const {
    return get(s, i) != lo;
  }
  template <class S>
  void set(S& s, int i, int v) const {
    auto& b = s.b[off + stride * std::uint32_t(i)];
    b = std::uint8_t((b & ~(mask << shift)) | ((std::uint32_t(v - lo) & mask) << shift));
  }
  template <class S>
  void set(S& s, int v) const {
    set(s, 0, v);
  }
};

class Schema {
 public:
  struct Var {
    std::string name;
    VarKind kind = VarKind::Int;
    int lo = 0, hi = 1;
    std::vector<std::string> values;  // Enum: the name of each value lo..hi
    int place = -1;                   // -1: top level; else a group or block
    int pack = -1;                    // the byte it shares (Schema::pack), or -1
  };
  struct Place {
    std::string name;
    int copies = 1;
    bool block = false;  // an array of copies (json array) rather than one group
  };

  // A group: one named object of variables (copies = 1).
  int group(std::string name) { return add_place({std::move(name), 1, false}); }
  // A block: `copies` copies of its variables (one per actor or object).
  int block(std::string name, int copies) { return add_place({std::move(name), copies, true}); }

  // Declares a variable; returns its id. place: -1, or a group or block id.
  int boolean(std::string name, int place = -1) {
    return add({std::move(name), VarKind::Bool, 0, 1, {}, place});
  }
  int bit(std::string name, int place = -1) {
    return add({std::move(name), VarKind::Bit, 0, 1, {}, place});
  }
  int integer(std::string name, int lo, int hi, int place = -1) {
    return add({std::move(name), VarKind::Int, lo, hi, {}, place});
  }
  int enumeration(std::string name, std::vector<std::string> values, int place = -1) {
    const int hi = int(values.size()) - 1;
    return add({std::move(name), VarKind::Enum, 0, hi, std::move(values), place});
  }

  // These variables of one place share one byte per copy (their value
  // ranges need at most 8 bits together), read through field_var(): e.g. a
  // request's status and its two flags.
  void pack(const std::vector<int>& ids);

  // Lays the state out; no declaration after this.
  void layout();

  // The explicit state's bytes (throws std::logic_error when a variable
  // ranges over more than a byte: such a schema serves the symbolic side only).
  std::size_t bytes() const { need_bytes(); return bytes_; }
  const std::vector<Var>& vars() const { return vars_; }
  const Var& var(int id) const { return vars_.at(std::size_t(id)); }
  int copies(int id) const { const Var& v = var(id); return v.place < 0 ? 1 : places_[std::size_t(v.place)].copies; }
  int find(const std::string& name) const;  // throws std::logic_error
  int find_place(const std::string& name) const;  // throws std::logic_error
  const std::string& place_name(int place) const { return places_.at(std::size_t(place)).name; }
  int place_copies(int place) const { return places_.at(std::size_t(place)).copies; }

  // For the reductions (explorer/reduced_model.hpp). A mask over the state's
  // bytes that clears every copy of the variables not kept (keep: by id).
  std::vector<std::uint8_t> keep_mask(const std::vector<bool>& keep) const;
  // Where a block's copies lie: copy c's bytes are [base + c * rec, base +
  // (c + 1) * rec); its booleans and bits at position bits[k] + c.
  struct BlockLayout {
    std::uint32_t base = 0, rec = 0;
    std::vector<std::uint32_t> bits;
  };
  BlockLayout block_layout(int place) const;

  // The slot of a variable (throws std::logic_error when it is the other kind).
  ByteVar byte_var(int id) const;
  BitVar bit_var(int id) const;
  FieldVar field_var(int id) const;  // a packed variable

  // The flat variable list: element (id, copy) has index first(id) + copy.
  int first(int id) const { return first_.at(std::size_t(id)); }
  int index(int id, int copy = 0) const { return first(id) + copy; }
  int size() const { return nflat_; }
  std::vector<std::string> element_names() const;  // "pc[1]", "pos"
  // The flat list as the Z3 variables of `blkmc prove` (booleans as Bool).
  std::vector<TsVar> ts_vars() const;

  // Element values, flat, and back; state_json.
  template <class S>
  int value(const S& s, int id, int copy = 0) const {
    need_bytes();
    const Slot& sl = slots_[std::size_t(id)];
    const int lo = vars_[std::size_t(id)].lo;
    if (sl.kind == Slot::Field) return FieldVar{sl.at, sl.stride, sl.shift, sl.mask, lo}.get(s, copy);
    return sl.kind == Slot::Bit ? BitVar{sl.at, sl.stride, lo}.get(s, copy)
                                : ByteVar{sl.at, sl.stride, lo}.get(s, copy);
  }
  template <class S>
  void set_value(S& s, int id, int copy, int v) const {
    need_bytes();
    const Slot& sl = slots_[std::size_t(id)];
    const int lo = vars_[std::size_t(id)].lo;
    if (sl.kind == Slot::Field)
      FieldVar{sl.at, sl.stride, sl.shift, sl.mask, lo}.set(s, copy, v);
    else if (sl.kind == Slot::Bit)
      BitVar{sl.at, sl.stride, lo}.set(s, copy, v);
    else
      ByteVar{sl.at, sl.stride, lo}.set(s, copy, v);
  }
  template <class S>
  std::vector<int> values(const S& s) const {
    std::vector<int> out(static_cast<std::size_t>(nflat_));
    for (int id = 0; id < int(vars_.size()); ++id)
      for (int c = 0; c < copies(id); ++c) out[std::size_t(index(id, c))] = value(s, id, c);
    return out;
  }
  // Whether every value fits its variable's storage (so set_values is exact).
  bool representable(const std::vector<int>& flat) const;
  template <class S>
  void set_values(S& s, const std::vector<int>& flat) const {
    for (int id = 0; id < int(vars_.size()); ++id)
      for (int c = 0; c < copies(id); ++c) set_value(s, id, c, flat.at(std::size_t(index(id, c))));
  }
  template <class S>
  nlohmann::json json(const S& s) const {
    return json_of(values(s));
  }
  nlohmann::json json_of(const std::vector<int>& flat) const;
  // A value as text: an enum's name, a boolean's true/false, else the number.
  std::string value_text(int id, int v) const;

 private:
  struct Slot {
    enum Kind : std::uint8_t { Byte, Bit, Field };
    std::uint32_t at = 0;  // byte offset, or bit position for a Bit
    std::uint32_t stride = 0;
    Kind kind = Byte;
    std::uint8_t shift = 0, mask = 0xff;  // a Field's place in its byte
  };
  void need_bytes() const;
  int add_place(Place p);
  int add(Var v);
  nlohmann::json value_json(int id, int v) const;

  std::vector<Place> places_;
  int npacks_ = 0;
  std::vector<Var> vars_;
  std::vector<Slot> slots_;
  std::vector<int> first_;
  int nflat_ = 0;
  std::size_t bytes_ = 0;
  std::string wide_;  // a variable wider than a byte, if any
  bool laid_out_ = false;
};

// Copy a of a block against copy b (its bytes, then its bits): <0, 0, >0.
template <class S>
int compare_copies(const Schema::BlockLayout& l, const S& s, int a, int b) {
  const auto x = std::uint32_t(a), y = std::uint32_t(b);
  for (std::uint32_t k = 0; k < l.rec; ++k)
    if (const int d = int(s.b[l.base + x * l.rec + k]) - int(s.b[l.base + y * l.rec + k])) return d;
  for (std::uint32_t p : l.bits) {
    const std::uint32_t i = p + x, j = p + y;
    if (const int d = int((s.b[i >> 3] >> (i & 7)) & 1) - int((s.b[j >> 3] >> (j & 7)) & 1)) return d;
  }
  return 0;
}

// Moves each copy c of a block (its bytes and bits, Schema::block_layout)
// from `in` to copy perm[c] of `out`; a copy not moved elsewhere keeps
// what `out` had. Symmetry permutes the interchangeable copies with it.
template <class S>
void move_copies(const Schema::BlockLayout& l, const S& in, S& out, const std::vector<int>& perm) {
  for (std::size_t c = 0; c < perm.size(); ++c) {
    const auto to = std::uint32_t(perm[c]), from = std::uint32_t(c);
    if (to == from) continue;
    for (std::uint32_t k = 0; k < l.rec; ++k) out.b[l.base + to * l.rec + k] = in.b[l.base + from * l.rec + k];
    for (std::uint32_t p : l.bits) {
      const std::uint32_t src = p + from, dst = p + to;
      const auto m = std::uint8_t(1u << (dst & 7));
      const bool v = (in.b[src >> 3] >> (src & 7)) & 1;
      out.b[dst >> 3] = std::uint8_t(v ? out.b[dst >> 3] | m : out.b[dst >> 3] & ~m);
    }
  }
}

// A model's slots bound where its variables are declared, so that each is
// named once: slots.byte(member_, sc.integer("name", ...)) while declaring,
// then slots.bind(sc) after the layout sets every member (an optional one
// is engaged).
class SchemaSlots {
 public:
  int byte(ByteVar& v, int id) { return add(id, &v); }
  int byte(std::optional<ByteVar>& v, int id) { return add(id, &v); }
  int bit(BitVar& v, int id) { return add(id, &v); }
  int field(FieldVar& v, int id) { return add(id, &v); }
  void bind(const Schema& sc) const {
    for (const auto& [id, target] : slots_)
      std::visit(
          [&, id = id](auto* v) {
            using V = std::remove_pointer_t<decltype(v)>;
            if constexpr (std::is_same_v<V, BitVar>) *v = sc.bit_var(id);
            else if constexpr (std::is_same_v<V, FieldVar>) *v = sc.field_var(id);
            else *v = sc.byte_var(id);  // a ByteVar, or an optional one engaged
          },
          target);
  }

 private:
  using Target = std::variant<ByteVar*, std::optional<ByteVar>*, BitVar*, FieldVar*>;
  int add(int id, Target t) {
    slots_.emplace_back(id, t);
    return id;
  }
  std::vector<std::pair<int, Target>> slots_;
};

}  // namespace blkmc
