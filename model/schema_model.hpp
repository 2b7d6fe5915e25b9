// The members every model laid out by a Schema (model/schema.hpp) shares:
// its state's size, its variables' names for footprints, and replay through
// its own successors. A model derives from SchemaModel<itself>, fills
// schema_ in its constructor and calls fit_schema() once it is laid out;
// what is left to write is the block-layer logic.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "model/model.hpp"
#include "model/schema.hpp"

namespace blkmc {

template <class Derived>
class SchemaModel {
 public:
  std::size_t state_bytes() const { return schema_.bytes(); }
  const Schema& schema() const { return schema_; }
  // Footprint bit -> name: the flat variables (elements) of the schema.
  std::vector<std::string> variable_names() const { return schema_.element_names(); }
  // A trace's step replayed: the successor that step names.
  // (A template: Derived's State is not known where the base is.)
  template <class State>
  bool apply(const State& s, const Step& step, State& next) const {
    return apply_step(static_cast<const Derived&>(*this), s, step, next);
  }

 protected:
  // After the layout: a state that does not fit State is the user's fault
  // where their input sizes it (a workload), else the model's.
  void fit_schema(const char* model, const char* input = "layout", bool users_fault = false) const {
    constexpr std::size_t capacity = Derived::State::capacity;
    if (schema_.bytes() <= capacity) return;
    const std::string what = fmt::format("{}: the {} does not fit the state ({} bytes, at most {})", model, input,
                                         schema_.bytes(), capacity);
    if (users_fault) throw UsageError(what);
    throw std::logic_error(what);
  }

  Schema schema_;
};

}  // namespace blkmc
