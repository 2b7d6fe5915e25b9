#include "counterexamples/trace.hpp"

#include <fstream>

#include <fmt/format.h>

namespace blkmc {

using nlohmann::json;

json trace_to_json(const Trace& t) {
  json steps = json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    steps.push_back({{"i", i + 1},
                     {"actor", s.actor},
                     {"actor_name", s.actor_name},
                     {"action", s.action},
                     {"arg", s.arg},
                     {"text", s.text},
                     {"state", s.state}});
  }
  return {{"format", "blkmc-trace-1"}, {"model", t.model},     {"variant", t.variant},
          {"params", t.params},        {"property", t.property}, {"search", t.search},
          {"initial", t.initial},      {"steps", steps}};
}

namespace {

template <class T>
T field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw UsageError(fmt::format("malformed trace: {} has no '{}'", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw UsageError(fmt::format("malformed trace: {}.{} has the wrong type", where, key));
  }
}

}  // namespace

Trace trace_from_json(const json& j) {
  if (!j.is_object()) throw UsageError("malformed trace: not a JSON object");
  if (j.value("format", std::string()) != "blkmc-trace-1")
    throw UsageError("malformed trace: 'format' is not blkmc-trace-1");
  Trace t;
  t.model = field<std::string>(j, "model", "trace");
  t.variant = field<std::string>(j, "variant", "trace");
  t.property = field<std::string>(j, "property", "trace");
  t.search = j.value("search", std::string());
  const json& params = j.contains("params") ? j.at("params") : json::object();
  if (!params.is_object()) throw UsageError("malformed trace: 'params' is not an object");
  for (const auto& [k, v] : params.items()) {
    if (!v.is_number_integer())
      throw UsageError(fmt::format("malformed trace: parameter {} is not an integer", k));
    const auto x = v.get<long long>();
    if (x < -1000000 || x > 1000000)
      throw UsageError(fmt::format("malformed trace: parameter {} = {} is absurd", k, x));
    t.params[k] = int(x);
  }
  t.initial = j.value("initial", json());
  if (!j.contains("steps") || !j.at("steps").is_array())
    throw UsageError("malformed trace: 'steps' is missing or not an array");
  int i = 0;
  for (const auto& s : j.at("steps")) {
    const std::string where = fmt::format("step {}", ++i);
    TraceStep st;
    st.actor = field<int>(s, "actor", where);
    st.action = field<std::string>(s, "action", where);
    st.arg = s.contains("arg") ? field<int>(s, "arg", where) : 0;
    st.actor_name = s.value("actor_name", std::string());
    st.text = s.value("text", std::string());
    st.state = s.value("state", json());
    t.steps.push_back(std::move(st));
  }
  return t;
}

Trace read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot open trace '{}'", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UsageError(fmt::format("malformed trace '{}': not JSON (byte {})", path, e.byte));
  }
  return trace_from_json(j);
}

void write_trace_file(const Trace& t, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw UsageError(fmt::format("cannot write trace '{}'", path));
  out << trace_to_json(t).dump(2) << '\n';
  if (!out) throw UsageError(fmt::format("error writing trace '{}'", path));
}

}  // namespace blkmc
