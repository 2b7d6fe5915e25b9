#include "props/diff.hpp"

#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "model/params.hpp"

namespace blkmc {

namespace {

// All cubes of `goal` (a formula over `in`): take a model, keep the literals
// of every input, drop each literal whose removal keeps goal valid on the
// cube, block the cube, repeat.
std::vector<DiffCube> cubes(z3::context& c, const std::vector<z3::expr>& in,
                            const std::vector<std::string>& names, const z3::expr& goal,
                            const DecisionFn& f, int va, int vb) {
  std::vector<DiffCube> out;
  z3::solver s(c);
  s.add(goal);
  while (s.check() == z3::sat) {
    const z3::model m = s.get_model();
    std::vector<int> lit(in.size());  // 1 true, 0 false, -1 dropped
    std::vector<bool> witness(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      witness[i] = m.eval(in[i], true).is_true();
      lit[i] = witness[i] ? 1 : 0;
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
      const int keep = lit[i];
      lit[i] = -1;
      z3::solver t(c);
      for (std::size_t j = 0; j < in.size(); ++j)
        if (lit[j] >= 0) t.add(lit[j] ? in[j] : !in[j]);
      t.add(!goal);
      if (t.check() != z3::unsat) lit[i] = keep;
    }
    DiffCube cube;
    z3::expr_vector conj(c);
    for (std::size_t i = 0; i < in.size(); ++i)
      if (lit[i] >= 0) {
        cube.literals.push_back({names[i], lit[i] == 1});
        conj.push_back(lit[i] ? in[i] : !in[i]);
      }
    // The two semantics must agree: the witness differs concretely too.
    if (f.concrete(va, witness) == f.concrete(vb, witness))
      throw std::logic_error(fmt::format("diff {}: the solver's witness does not differ when "
                                         "run concretely (the two semantics disagree)",
                                         f.name));
    cube.witness = witness;
    out.push_back(cube);
    s.add(!z3::mk_and(conj));
  }
  return out;
}

std::string cube_text(const DiffCube& c) {
  if (c.literals.empty()) return "always";
  std::string s;
  for (const auto& [n, v] : c.literals) {
    if (!s.empty()) s += " & ";
    s += (v ? "" : "!") + n;
  }
  return s;
}

}  // namespace

DiffResult diff_decision(const DecisionFn& f, int from, int to) {
  const int nv = static_cast<int>(f.variants.size());
  if (from < 0 || from >= nv || to < 0 || to >= nv)
    throw UsageError(fmt::format("diff: {} has no such variant", f.name));
  const auto t0 = std::chrono::steady_clock::now();
  z3::context c;
  std::vector<z3::expr> in;
  for (const auto& n : f.inputs) in.push_back(c.bool_const(n.c_str()));
  const z3::expr a = f.symbolic(from, in), b = f.symbolic(to, in);
  DiffResult r;
  r.function = f.name;
  r.from = f.variants[std::size_t(from)];
  r.to = f.variants[std::size_t(to)];
  r.from_only = cubes(c, in, f.inputs, a && !b, f, from, to);
  r.to_only = cubes(c, in, f.inputs, b && !a, f, from, to);
  r.equivalent = r.from_only.empty() && r.to_only.empty();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string diff_text(const DiffResult& r) {
  std::string s = fmt::format("{}: {} vs {}: {} (z3, {:.3f} s)\n", r.function, r.from, r.to,
                              r.equivalent ? "EQUIVALENT for all inputs" : "DIFFER", r.seconds);
  auto part = [&](const std::vector<DiffCube>& cs, const std::string& yes, const std::string& no) {
    if (cs.empty()) return;
    s += fmt::format("  {} decides true and {} false exactly when one of these holds:\n", yes, no);
    for (const auto& c : cs) s += "    " + cube_text(c) + "\n";
  };
  part(r.from_only, r.from, r.to);
  part(r.to_only, r.to, r.from);
  return s;
}

nlohmann::json diff_json(const DiffResult& r) {
  auto cs = [](const std::vector<DiffCube>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& c : v) {
      nlohmann::json lit = nlohmann::json::object();
      for (const auto& [n, b] : c.literals) lit[n] = b;
      a.push_back(lit);
    }
    return a;
  };
  return {{"function", r.function}, {"from", r.from},         {"to", r.to},
          {"equivalent", r.equivalent}, {"from_only", cs(r.from_only)},
          {"to_only", cs(r.to_only)},     {"seconds", r.seconds}};
}

}  // namespace blkmc
