#include "props/diff.hpp"

#include <cctype>
#include <chrono>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "model/params.hpp"
#include "props/z3_interrupt.hpp"
#include "props/z3_render.hpp"

namespace blkmc {

z3::expr input_const(z3::context& c, const DecisionFn& f, std::size_t i) {
  const DiffInput& in = f.inputs[i];
  if (in.boolean) return c.bool_const(in.name.c_str());
  return f.bv_width ? c.bv_const(in.name.c_str(), f.bv_width) : c.int_const(in.name.c_str());
}

z3::expr input_value(z3::context& c, const DecisionFn& f, std::size_t i, int v) {
  if (f.inputs[i].boolean) return c.bool_val(v != 0);
  return f.bv_width ? c.bv_val(v, f.bv_width) : c.int_val(v);
}

// The solver-side objects a result keeps for in_cube().
class DiffSemantics {
 public:
  z3::context ctx;
  std::vector<z3::expr> inputs;
  std::vector<z3::expr> atoms;     // as printed (over named values)
  std::vector<z3::expr> expanded;  // over the inputs only
};

namespace {

bool is_connective(const z3::expr& e) {
  if (!e.is_app()) return false;
  switch (e.decl().decl_kind()) {
    case Z3_OP_AND:
    case Z3_OP_OR:
    case Z3_OP_NOT:
    case Z3_OP_IMPLIES:
    case Z3_OP_XOR:
    case Z3_OP_ITE:
    case Z3_OP_TRUE:
    case Z3_OP_FALSE: return true;
    case Z3_OP_EQ:
    case Z3_OP_DISTINCT: return e.arg(0).is_bool();
    default: return false;
  }
}

// The atoms of e: its boolean subterms that are no connective (comparisons,
// boolean inputs and named values), in first-occurrence order.
void collect_atoms(const z3::expr& e, std::vector<z3::expr>& out) {
  if (e.is_bool() && !is_connective(e)) {
    for (const auto& a : out)
      if (z3::eq(a, e)) return;
    out.push_back(e);
    return;
  }
  if (e.is_app())
    for (unsigned i = 0; i < e.num_args(); ++i) collect_atoms(e.arg(i), out);
}

z3::expr as_int(const z3::expr& e) {
  return e.is_bool() ? z3::ite(e, e.ctx().int_val(1), e.ctx().int_val(0)) : e;
}

int int_of(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  if (v.is_bool()) return v.is_true() ? 1 : 0;
  return v.get_numeral_int();
}

z3::expr expand(z3::expr e, const SymNames& names) {
  z3::expr_vector from(e.ctx()), to(e.ctx());
  for (const auto& [k, d] : names.named()) {
    from.push_back(k);
    to.push_back(d);
  }
  for (std::size_t i = 0; i <= names.named().size(); ++i) e = e.substitute(from, to);
  return e;
}

}  // namespace

std::vector<DiffCube> DiffResult::where(int a, int b) const {
  std::vector<DiffCube> out;
  for (const auto& c : cubes)
    if (c.from_value == a && c.to_value == b) out.push_back(c);
  return out;
}

std::vector<bool> DiffResult::atom_values(const std::vector<int>& x) const {
  z3::context& ctx = sem->ctx;
  z3::model m(ctx);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const z3::expr& in = sem->inputs[i];
    z3::func_decl d = in.decl();
    z3::expr v = in.is_bool() ? ctx.bool_val(x[i] != 0) : ctx.num_val(x[i], in.get_sort());
    m.add_const_interp(d, v);
  }
  std::vector<bool> v;
  for (const auto& e : sem->expanded) v.push_back(m.eval(e, true).is_true());
  return v;
}

bool DiffResult::in_cube(const DiffCube& c, const std::vector<bool>& atom_values) {
  for (const auto& l : c.literals)
    if (atom_values[l.atom] != l.value) return false;
  return true;
}

bool DiffResult::in_cube(const DiffCube& c, const std::vector<int>& x) const {
  return in_cube(c, atom_values(x));
}

std::string DiffResult::outcome_name(int v) const {
  if (v >= 0 && std::size_t(v) < outcomes.size()) return outcomes[std::size_t(v)];
  return std::to_string(v);
}

DiffResult diff_decision(const DecisionFn& f, int from, int to, std::size_t max_cubes) {
  const int nv = static_cast<int>(f.variants.size());
  if (from < 0 || from >= nv || to < 0 || to >= nv)
    throw UsageError(fmt::format("diff: {} has no such variant", f.name));
  const auto t0 = std::chrono::steady_clock::now();
  DiffResult r;
  r.sem = std::make_shared<DiffSemantics>();
  z3::context& c = r.sem->ctx;
  auto& in = r.sem->inputs;
  z3::expr_vector theory(c);
  for (std::size_t i = 0; i < f.inputs.size(); ++i) {
    r.input_names.push_back(f.inputs[i].name);
    r.kernel_names[f.inputs[i].name] = f.inputs[i].kernel.empty() ? f.inputs[i].name : f.inputs[i].kernel;
    in.push_back(input_const(c, f, i));
    if (!f.inputs[i].boolean) theory.push_back(in.back() >= f.inputs[i].lo && in.back() <= f.inputs[i].hi);
  }
  if (f.assume) theory.push_back(f.assume(in));
  for (const KernelTerm& t : f.terms) r.kernel_names[t.name] = t.kernel;
  SymNames names(c);
  const z3::expr a = f.symbolic(from, in, names);
  names.set_suffix("[" + f.variants[std::size_t(to)] + "]");
  const z3::expr b = f.symbolic(to, in, names);
  for (const auto& d : names.definitions()) theory.push_back(d);
  const z3::expr T = z3::mk_and(theory);
  const z3::expr oa = as_int(a), ob = as_int(b);
  auto& atoms = r.sem->atoms;
  collect_atoms(a, atoms);
  collect_atoms(b, atoms);
  for (const auto& at : atoms) r.sem->expanded.push_back(expand(at, names));

  r.function = f.name;
  r.from = f.variants[std::size_t(from)];
  r.to = f.variants[std::size_t(to)];
  r.outcomes = f.outcomes;
  const Z3Interruptible interruptible(c);
  z3::solver s(c);
  Z3Interruptible::quiet_ctrl_c(s);
  s.add(T);
  s.add(oa != ob);
  for (;;) {
    Z3Interruptible::stopped();
    const z3::check_result res = s.check();
    Z3Interruptible::stopped();
    if (res == z3::unknown)
      throw std::runtime_error(fmt::format("diff {}: z3 gave up ({})", f.name, s.reason_unknown()));
    if (res == z3::unsat) break;
    if (r.cubes.size() >= max_cubes) {
      r.truncated = true;
      break;
    }
    const z3::model m = s.get_model();
    DiffCube cube;
    cube.from_value = int_of(m, oa);
    cube.to_value = int_of(m, ob);
    const z3::expr target = oa == cube.from_value && ob == cube.to_value;
    std::vector<z3::expr> lit;
    std::vector<int> keep;  // 1 true, 0 false, -1 dropped
    for (const auto& at : atoms) {
      keep.push_back(m.eval(at, true).is_true() ? 1 : 0);
      lit.push_back(keep.back() ? at : !at);
    }
    auto implied = [&](const z3::expr_vector& extra) {
      z3::solver t(c);
      t.add(T);
      for (std::size_t j = 0; j < lit.size(); ++j)
        if (keep[j] >= 0) t.add(lit[j]);
      for (const auto& e : extra) t.add(e);
      t.add(!target);
      Z3Interruptible::quiet_ctrl_c(t);
      const z3::check_result tr = t.check();
      Z3Interruptible::stopped();
      if (tr == z3::unknown)
        throw std::runtime_error(fmt::format("diff {}: z3 gave up ({})", f.name, t.reason_unknown()));
      return tr == z3::unsat;
    };
    z3::expr_vector pin(c);  // input values, only when the atoms do not decide
    if (!implied(pin))
      for (std::size_t i = 0; i < in.size(); ++i) pin.push_back(in[i] == m.eval(in[i], true));
    for (std::size_t j = 0; j < lit.size(); ++j) {
      const int k = keep[j];
      keep[j] = -1;
      if (!implied(pin)) keep[j] = k;
    }
    z3::expr_vector conj(c);
    for (std::size_t j = 0; j < lit.size(); ++j)
      if (keep[j] >= 0) {
        cube.literals.push_back({render_literal(atoms[j], keep[j] == 1), j, keep[j] == 1});
        conj.push_back(lit[j]);
      }
    for (const auto& p : pin) {
      conj.push_back(p);
      cube.literals.push_back({render_literal(p, true), r.sem->expanded.size(), true});
      r.sem->expanded.push_back(p);
    }
    // A small witness: each input in turn as low as the cube allows
    // (booleans false), lexicographically.
    z3::optimize o(c);
    o.add(T);
    for (const auto& e : conj) o.add(e);
    for (const auto& x : in) o.minimize(as_int(x));
    Z3Interruptible::quiet_ctrl_c(o);
    const z3::check_result wr = o.check();
    Z3Interruptible::stopped();
    if (wr != z3::sat) throw std::logic_error("diff: a cube has no witness");
    const z3::model w = o.get_model();
    for (const auto& x : in) cube.witness.push_back(int_of(w, x));
    // The two semantics must agree: the witness decides the same concretely.
    const int ca = f.concrete(from, cube.witness), cb = f.concrete(to, cube.witness);
    if (ca != cube.from_value || cb != cube.to_value ||
        (f.assume_concrete && !f.assume_concrete(cube.witness)))
      throw std::logic_error(fmt::format(
          "diff {}: the solver's witness gives {} / {} concretely, not {} / {} (the two "
          "semantics disagree)",
          f.name, ca, cb, cube.from_value, cube.to_value));
    r.cubes.push_back(std::move(cube));
    s.add(!z3::mk_and(conj));
  }
  r.equivalent = r.cubes.empty();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string kernel_text(const std::string& text, const std::map<std::string, std::string>& names) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (!(std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      out += text[i++];
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && ident(text[j])) ++j;
    const std::string tok = text.substr(i, j - i);
    const auto it = names.find(tok);
    std::string k = it == names.end() ? tok : it->second;
    if (k.find(' ') != std::string::npos && !(i == 0 && j == text.size())) k = "(" + k + ")";
    if (!out.empty() && out.back() == '!' && k.size() > 1 && k[0] == '!' && k[1] != '=') {
      out.pop_back();  // "!rot" with rot = "!blk_queue_nonrot(q)"
      k.erase(0, 1);
    }
    out += k;
    i = j;
  }
  return out;
}

namespace {

std::string cube_text(const DiffCube& c, const std::map<std::string, std::string>& names) {
  if (c.literals.empty()) return "always";
  std::string s;
  for (const auto& l : c.literals) {
    if (!s.empty()) s += " & ";
    s += kernel_text(l.text, names);
  }
  return s;
}

std::string witness_text(const DiffCube& c, const DecisionFn& f) {
  std::string s;
  for (std::size_t i = 0; i < f.inputs.size(); ++i) {
    const auto& in = f.inputs[i];
    if (in.boolean ? c.witness[i] == 0 : c.witness[i] == in.lo) continue;
    if (!s.empty()) s += ", ";
    const std::string k = in.kernel.empty() ? in.name : in.kernel;
    if (in.boolean)
      s += k;
    else
      s += fmt::format("{} = {}", k.find(' ') != std::string::npos ? "(" + k + ")" : k, c.witness[i]);
  }
  return s.empty() ? "every input false or at its lowest" : s;
}

}  // namespace

std::string diff_text(const DiffResult& r, const DecisionFn& f) {
  std::string s = fmt::format("{}: {} vs {}: {} (z3, {:.3f} s)\n", r.function, r.from, r.to,
                              r.equivalent ? "EQUIVALENT for all inputs" : "DIFFER", r.seconds);
  std::map<std::pair<int, int>, std::vector<const DiffCube*>> groups;
  for (const auto& c : r.cubes) groups[{c.from_value, c.to_value}].push_back(&c);
  for (const auto& [k, cs] : groups) {
    s += fmt::format("  {} decides {} and {} decides {} exactly when one of these holds:\n", r.from,
                     r.outcome_name(k.first), r.to, r.outcome_name(k.second));
    for (const DiffCube* c : cs)
      s += fmt::format("    {}\n        e.g. {}\n", cube_text(*c, r.kernel_names), witness_text(*c, f));
  }
  if (r.truncated)
    s += fmt::format("  (only the first {} input classes are listed)\n", r.cubes.size());
  if (!r.equivalent && !f.reach.empty()) s += "  explorer: " + f.reach + "\n";
  return s;
}

nlohmann::json diff_json(const DiffResult& r) {
  nlohmann::json cubes = nlohmann::json::array();
  for (const auto& c : r.cubes) {
    nlohmann::json lits = nlohmann::json::array(), klits = nlohmann::json::array(), w = nlohmann::json::object(),
                   kw = nlohmann::json::object();
    for (const auto& l : c.literals) {
      lits.push_back(l.text);
      klits.push_back(kernel_text(l.text, r.kernel_names));
    }
    for (std::size_t i = 0; i < c.witness.size(); ++i) {
      w[r.input_names[i]] = c.witness[i];
      kw[r.kernel_names.at(r.input_names[i])] = c.witness[i];
    }
    cubes.push_back({{"from", r.outcome_name(c.from_value)},
                     {"to", r.outcome_name(c.to_value)},
                     {"when", lits},
                     {"when_kernel", klits},
                     {"witness", w},
                     {"witness_kernel", kw}});
  }
  nlohmann::json inputs = nlohmann::json::array();
  for (const std::string& n : r.input_names) inputs.push_back({{"name", n}, {"kernel", r.kernel_names.at(n)}});
  return {{"function", r.function}, {"from", r.from},   {"to", r.to},
          {"equivalent", r.equivalent}, {"truncated", r.truncated}, {"inputs", inputs},
          {"classes", cubes}, {"seconds", r.seconds}};
}

}  // namespace blkmc
