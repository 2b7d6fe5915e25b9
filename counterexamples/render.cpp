#include "counterexamples/render.hpp"

#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace blkmc {

namespace {

// Greedy word wrap; words longer than the width are cut.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string line;
  for (std::string w; words >> w;) {
    while (w.size() > width) {
      if (!line.empty()) lines.push_back(line), line.clear();
      lines.push_back(w.substr(0, width));
      w = w.substr(width);
    }
    if (line.empty()) line = w;
    else if (line.size() + 1 + w.size() <= width) line += " " + w;
    else lines.push_back(line), line = w;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::string render_msc(const Trace& t, int column_width, PropKind kind) {
  const std::size_t w = std::size_t(std::max(column_width, 8));
  std::map<int, std::string> actors;  // column order: actor id
  for (const auto& s : t.steps)
    actors.emplace(s.actor, s.actor_name.empty() ? fmt::format("actor {}", s.actor) : s.actor_name);
  std::map<int, std::size_t> col;
  std::string out = "      ", rule = "      ";
  for (const auto& [id, name] : actors) {
    col[id] = col.size();
    out += fmt::format("{:<{}} ", name.substr(0, w), w);
    rule += std::string(w, '-') + ' ';
  }
  while (out.back() == ' ') out.pop_back();
  rule.pop_back();
  out += '\n' + rule + '\n';
  // Progress lassos: where the hang becomes certain, where the cycle starts.
  // Lassos of a kind judged per actor (starvation: a weakly fair cycle):
  // where the request becomes pending for good.
  const bool starvation = kind_info(kind).per_actor;
  auto marks = [&](int after) {
    if (t.stuck && *t.stuck == after)
      out += starvation ? fmt::format("      ==== {} is pending from here on\n", t.property)
                        : "      ==== stuck from here: no finished state is reachable\n";
    if (t.loop && *t.loop == after)
      out += after < int(t.steps.size())
                 ? starvation ? "      ==== the steps below repeat forever (a weakly fair cycle)\n"
                              : "      ==== the steps below repeat forever\n"
                 : "      ==== no step leads out of here\n";
  };
  int i = 0;
  for (const auto& s : t.steps) {
    marks(i);
    ++i;
    const auto lines = wrap(s.text.empty() ? s.action : s.text, w);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      std::string row = k == 0 ? fmt::format("{:>4}. ", i) : std::string(6, ' ');
      for (std::size_t c = 0; c < col.size(); ++c)
        row += c == col[s.actor] ? fmt::format("{:<{}} ", lines[k], w)
                                 : fmt::format("{:<{}} ", "|", w);
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + '\n';
    }
  }
  marks(i);
  if (kind_info(kind).measured)
    out += t.value ? fmt::format("      ==== {} = {} here: the maximum\n", t.property, *t.value)
                   : fmt::format("      ==== {} is exceeded here\n", t.property);
  return out;
}

}  // namespace blkmc
