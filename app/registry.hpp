// app/registry: the models blkmc knows, behind one type-erased handle so the
// CLI, the suite and the tests can name them at run time. Each handle is a
// ModelAdapter<M> (app/adapter.hpp) over a concrete model class, registered
// once in registry.cpp with what its family offers besides check, replay
// and simulate. This is the only place that knows the families by name.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "counterexamples/trace.hpp"
#include "explorer/checks.hpp"
#include "explorer/simulate.hpp"
#include "model/decision.hpp"
#include "model/model.hpp"
#include "model/params.hpp"

namespace blkmc {

struct CheckOutcome {
  struct Prop {
    std::string name;  // NAME, or NAME<=K for a bounded maximize property
    Verdict verdict = Verdict::Holds;
    std::optional<Trace> trace;
    // Maximize properties only (see PropOutcome in explorer/search.hpp).
    std::optional<int> bound, value;
    bool value_exact = false;
    std::vector<ShareFigure> shares;  // see PropOutcome
    std::string shares_note;
    // A lasso trace per share found: its cycle repeats forever (Trace::share).
    std::vector<Trace> share_traces;
  };
  std::string model, variant;
  Params params;
  std::string params_shown;  // params with their value names, as the model that ran names them
  std::string search;
  std::vector<Prop> props;
  StopReason stop = StopReason::Complete;
  Stats stats;
  std::optional<Census> census;  // check --census
};

class ProveDriver;  // app/prove.hpp

// What a family offers besides check, replay and simulate.
struct Offers {
  // Decision functions for `blkmc diff` (null: none).
  const std::vector<DecisionFn>& (*decisions)() = nullptr;
  // k-induction for `blkmc prove` (null: no symbolic semantics).
  const ProveDriver* prove = nullptr;
  // The kernel elevator `blkmc device` runs the model against, by its sysfs
  // name ("": not a scheduler model), the model parameters it writes to the
  // elevator's sysfs tunables, and the variant a run takes by default
  // (-1: the last listed, where the list ends with the running kernel).
  std::string elevator;
  std::vector<std::string> tunables = {};
  int device_variant = 0;
  // The elevator's limit_depth: the smallest share of nr_requests, in
  // sixteenths, it lets async requests and writes take (16: no limit), and
  // what it limits, for a gated run it held back.
  int async_depth_16ths = 16;
  std::string depth_limit = {};
};

class ModelHandle {
 public:
  explicit ModelHandle(Offers offers = {}) : offers_(std::move(offers)) {}
  const Offers& offers() const { return offers_; }
  virtual ~ModelHandle() = default;
  virtual const ModelInfo& info() const = 0;
  // props: property names (NAME<=K for a bounded maximize property); empty
  // checks all. Throws UsageError on bad names.
  virtual CheckOutcome check(const std::string& variant, const Params& params,
                             const std::vector<std::string>& props,
                             const SearchOptions& opt) const = 0;
  // check --dot: the state graph of the variant (at most `limit` states,
  // else UsageError) in DOT, with the counterexamples of `marks` (a check's
  // outcome) drawn on it; states and edges: how many were drawn.
  virtual std::string state_graph(const std::string& variant, const Params& params, const CheckOutcome& marks,
                                  std::size_t limit, std::size_t& states, std::size_t& edges) const = 0;
  // Throws UsageError (unknown names) or TraceMismatch (does not fit).
  virtual ReplayResult replay(const Trace& t) const = 0;
  // One run along a single schedule (explorer/simulate.hpp).
  virtual SimOutcome simulate(const std::string& variant, const Params& params,
                              const SimOptions& opt) const = 0;

 private:
  Offers offers_;
};

const std::vector<const ModelHandle*>& all_models();
const ModelHandle& find_model(const std::string& name);  // throws UsageError
// The model of a family run on the kernel's own code (model/sched/kernel/):
// its variants are the sources loaded (app/kernel_select.hpp). Throws
// UsageError for a family without the harness.
const ModelHandle& kernel_model(const std::string& family);
// The family's hand model and kernel-code model explored together
// (blkmc conform; model/sched/kernel/conform_model.hpp): variants the loaded
// sources, the parameter `hand` the hand model's variant.
const ModelHandle& conform_model(const std::string& family);
// Two sources of the family's code explored together (compare --kernel A
// --after-kernel B): variants the sources, the parameter `before` the first.
const ModelHandle& pair_model(const std::string& family);

// The names of the models for which pred holds (all when pred is empty), as
// "a, b, c" (for help texts and messages).
std::string model_names(const std::function<bool(const ModelHandle&)>& pred = {});

// A family's offers, each throwing a one-line UsageError for a model that
// does not offer it (naming the ones that do).
const std::vector<DecisionFn>& decision_functions(const std::string& model);
const ProveDriver& prove_driver(const std::string& model);
// The model of a kernel elevator ("mq-deadline" -> "deadline"; a scheduler
// model's own name is accepted too), and the elevator of a model.
const ModelHandle& model_of_elevator(const std::string& elevator);
const std::string& elevator_of_model(const std::string& model);

}  // namespace blkmc
