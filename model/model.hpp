// The model interface every blkmc model implements (in the spirit of LTSmin's
// PINS): search code knows nothing about the block layer, models know nothing
// about search. `concept Model` below is what the explorer needs of a model
// (the search, its checks and traces); `concept ReportedModel` adds what
// users read (trace steps, state JSON, stories), which the registry's
// adapters need. States hash and compare as their first state_bytes() bytes.
// Models laid out by a Schema take the members they all share from
// SchemaModel (model/schema_model.hpp).
#pragma once

#include <array>
#include <bitset>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace blkmc {

// Scratch that is written before it is read: a large state (the kernel
// code's, kilobytes) is not zeroed on every use.
struct NoInit {};
inline constexpr NoInit kNoInit{};

// n bytes rounded up to whole 8-byte words: hashing reads word by word, so
// a state's bytes are copied with their padding.
constexpr std::size_t padded_bytes(std::size_t n) { return (n + 7) / 8 * 8; }

// A fixed-size state; models lay their variables out in the first
// state_bytes() bytes (a runtime length, so small parameters give small
// states) and leave the rest zero (but a kNoInit scratch state, of which
// only the padded state_bytes() are ever written and read).
template <std::size_t N>
struct ByteState {
  static constexpr std::size_t capacity = padded_bytes(N);
  std::array<std::uint8_t, capacity> b;
  ByteState() : b{} {}
  // Uninitialised: only for a scratch state whose used bytes are copied
  // in before any read (nothing reads past them).
  explicit ByteState(NoInit) {}
};

// One atomic step: which actor moves, what it does, and the nondeterministic
// choice it made (a tag, an object, ...). Actions are model-specific enums.
struct Step {
  std::uint8_t actor = 0;
  std::uint8_t action = 0;
  std::uint8_t arg = 0;
  friend bool operator==(const Step&, const Step&) = default;
};

// What a step reads and writes, as indices into the model's variable names;
// the basis for partial-order reduction (two steps are independent when
// neither writes what the other touches).
struct Footprint {
  static constexpr std::size_t kMaxVars = 256;
  std::bitset<kMaxVars> reads, writes;
  bool independent_of(const Footprint& o) const {
    return (writes & (o.reads | o.writes)).none() && (o.writes & reads).none();
  }
};

// The usual apply(): the step among the state's successors (a step carries
// its nondeterministic choice, so at most one successor matches).
template <class M, class State>
bool apply_step(const M& m, const State& s, const Step& step, State& next) {
  bool found = false;
  m.for_each_successor(s, [&](const Step& st, const State& n) {
    if (!found && st == step) {
      next = n;
      found = true;
    }
  });
  return found;
}

// Values a parameter gains at run time, beyond its built-in max: a user's
// workload file (`-p workload=my.wl`) or one a trace carries. Each is
// numbered after the built-in ones and keeps the text that defines it, so a
// trace made from it replays where the file is not.
struct OpenValues {
  int (*max)();  // the largest value known now (>= the parameter's max)
  // The value of a text that is neither a number nor a built-in name (a
  // file path), loading it; throws a one-line UsageError.
  int (*load)(const std::string& arg);
  std::string (*name)(int v);  // the value's name
  // The defining text of a value added at run time; "" for built-in values.
  std::string (*text)(int v);
  // Adds (or finds) the value defined by `text`, named `name`: its number.
  // `where` names the source in errors (a trace file).
  int (*add)(const std::string& name, const std::string& text, const std::string& where);
};

struct ParamInfo {
  std::string name;
  int def, min, max;
  std::string help;
  // Optional names for the values: names[i] names the value min + i (e.g. a
  // shipped workload, or a shadow variant with "none" for -1). `-p k=NAME`
  // takes a name where a number is accepted; the value is still the integer.
  std::vector<std::string> names{};
  const OpenValues* open = nullptr;  // values added at run time (none: null)
};

struct VariantInfo {
  std::string name;
  std::string commit;   // kernel commit, version or series it stands for
  std::string summary;  // one line
  std::string source;   // seed file or commit reference
};

// Invariant: violates(prop, s) is false in every reachable state.
// Deadlock: every reachable state without successors is finished().
// Progress: from every reachable state some finished() state stays reachable
// (AG EF finished): no deadlock and no livelock (a waiter no remaining step
// can wake, a busy-looping waker). Decided on the complete state space; its
// counterexample is a lasso: a path to a stuck state, then a cycle among
// stuck states (empty when the stuck state has no successors).
// Maximize: a measure over reachable states (the model's
// `int measure(int prop, const State&) const`, e.g. how many dispatches the
// tracked request has waited); the explorer reports its maximum and a
// shortest trace to it, and `--prop NAME<=K` turns it into holds/violated.
// Starvation: with the model's `bool pending(int prop, const State&) const`
// (e.g. the tracked request is still queued), violated by a reachable cycle
// of pending states that is fair (weak fairness per actor: an actor enabled
// in every state of the cycle takes a step in it); a lasso counterexample.
enum class PropKind { Invariant, Deadlock, Progress, Maximize, Starvation };

// What the rest of blkmc needs to know of a property kind beside its check
// (explorer/checks.hpp): one row per kind, in model/params.cpp. The
// reductions, replay, the trace pages and `list` ask these, never the kind.
struct PropKindInfo {
  const char* name;  // "invariant", ... (list, traces, JSON)
  // Decided on the explored graph after a complete search (an edge log);
  // its counterexample is a lasso (stuck, loop); the partial-order
  // reduction does not keep it.
  bool on_graph;
  bool per_actor;    // judged per actor (weak fairness): symmetry does not keep it
  bool measured;     // a measure: its maximum is reported, NAME<=K bounds it
  const char* note;  // what `list` adds to the property's summary
};
const PropKindInfo& kind_info(PropKind k);

struct PropInfo {
  std::string name;
  PropKind kind;
  std::string summary;
};

struct ModelInfo {
  std::string name;
  std::string summary;
  std::vector<ParamInfo> params;
  std::vector<VariantInfo> variants;
  std::vector<PropInfo> props;
  std::vector<std::string> actions;  // Step::action -> name
};

// What the explorer needs of a model.
template <class M>
concept Model = requires(const M& m, const typename M::State& s, typename M::State& out, const Step& step) {
  requires std::is_trivially_copyable_v<typename M::State>;
  { M::State::capacity } -> std::convertible_to<std::size_t>;
  { m.state_bytes() } -> std::convertible_to<std::size_t>;  // bytes of State that carry data
  { m.initial() } -> std::same_as<typename M::State>;
  // emit(const Step&, const State& next) for each successor, in a fixed order
  m.for_each_successor(s, [](const Step&, const typename M::State&) {});
  { m.apply(s, step, out) } -> std::same_as<bool>;  // the step's successor (replay)
  { m.finished(s) } -> std::convertible_to<bool>;   // every actor has terminated
  { m.violates(0, s) } -> std::convertible_to<bool>;  // an invariant property fails
  { m.info() } -> std::convertible_to<const ModelInfo&>;
};

// A model the registry offers users: steps described, states as JSON and as
// one line for stories, actors named, and what each step reads and writes
// (Footprint bit -> variable_names()[bit]) for the reductions and pages.
template <class M>
concept ReportedModel = Model<M> && requires(const M& m, const typename M::State& s, const Step& step) {
  { m.footprint(s, step) } -> std::same_as<Footprint>;
  { m.variable_names() } -> std::same_as<std::vector<std::string>>;
  { m.describe(s, step) } -> std::convertible_to<std::string>;
  { m.actor_name(0) } -> std::convertible_to<std::string>;
  { m.state_json(s) } -> std::same_as<nlohmann::json>;
  { m.summary(s) } -> std::convertible_to<std::string>;
};

}  // namespace blkmc
