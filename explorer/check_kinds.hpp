// The property kinds blkmc checks, one class each (explorer/check_kind.hpp
// says what a kind is made of). A new kind is its file, its PropKind with a
// kind_info row (model/), and its line here; the checks, the searches, the
// shortest traces and replay find it through this list.
#pragma once

#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "explorer/check_deadlock.hpp"
#include "explorer/check_invariant.hpp"
#include "explorer/check_maximize.hpp"
#include "explorer/check_progress.hpp"
#include "explorer/check_starvation.hpp"

namespace blkmc::checks {

template <class M>
using Kinds = std::tuple<Invariant<M>, Deadlock<M>, Maximize<M>, Progress<M>, Starvation<M>>;

// f(kind) for each kind of the list, in its order.
template <class M, class F>
void for_each_kind(Kinds<M>& kinds, F&& f) {
  std::apply([&](auto&... k) { (f(k), ...); }, kinds);
}
template <class M, class F>
void for_each_kind(const Kinds<M>& kinds, F&& f) {
  std::apply([&](const auto&... k) { (f(k), ...); }, kinds);
}

// f(std::type_identity<K>{}) for the kind K that checks properties of kind k.
template <class M, class F>
void with_kind(PropKind k, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    const bool found = ((std::tuple_element_t<I, Kinds<M>>::kKind == k
                             ? (f(std::type_identity<std::tuple_element_t<I, Kinds<M>>>{}), true)
                             : false) ||
                        ...);
    if (!found) throw std::logic_error("a property kind without its check (explorer/check_kinds.hpp)");
  }(std::make_index_sequence<std::tuple_size_v<Kinds<M>>>{});
}

}  // namespace blkmc::checks
