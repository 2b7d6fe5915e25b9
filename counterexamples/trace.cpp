#include "counterexamples/trace.hpp"

#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <filesystem>
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
  json j{{"format", "blkmc-trace-1"}, {"model", t.model},     {"variant", t.variant},
         {"params", t.params},        {"property", t.property}, {"search", t.search},
         {"initial", t.initial},      {"steps", steps}};
  if (t.stuck) j["stuck"] = *t.stuck;
  if (t.loop) j["loop"] = *t.loop;
  if (t.value) j["value"] = *t.value;
  for (const auto& [k, f] : t.param_files) j["param_files"][k] = {{"name", f.name}, {"text", f.text}};
  if (!t.source.is_null()) j["source"] = t.source;
  if (!t.share.is_null()) j["share"] = t.share;
  return j;
}

void attach_param_files(const ModelInfo& info, Trace& t) {
  for (const auto& p : info.params) {
    const auto v = t.params.find(p.name);
    if (!p.open || v == t.params.end()) continue;
    if (std::string text = p.open->text(v->second); !text.empty())
      t.param_files[p.name] = {p.open->name(v->second), std::move(text)};
  }
}

Params trace_params(const ModelInfo& info, const Trace& t) {
  Params given = t.params;
  for (const auto& [k, f] : t.param_files) {
    const auto p = std::find_if(info.params.begin(), info.params.end(), [&](auto& x) { return x.name == k; });
    if (p == info.params.end() || !p->open)
      throw UsageError(fmt::format("malformed trace: param_files has '{}', which model {} does not read from a file",
                                   k, info.name));
    given[k] = p->open->add(f.name, f.text, f.name + " (in the trace)");
  }
  return resolve_params(info, given);
}

namespace {

const json& member(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw UsageError(fmt::format("malformed trace: {} has no '{}'", where, key));
  return j.at(key);
}

std::string str_field(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_string())
    throw UsageError(fmt::format("malformed trace: {}.{} is not a string", where, key));
  return v.get<std::string>();
}

// Optional string: absent is "", present must be a string.
std::string opt_str_field(const json& j, const char* key, const std::string& where) {
  return j.is_object() && j.contains(key) ? str_field(j, key, where) : std::string();
}

// Integers only (no fractions, no floats), within [lo, hi].
int int_field(const json& j, const char* key, const std::string& where, long long lo,
              long long hi) {
  const json& v = member(j, key, where);
  if (!v.is_number_integer())
    throw UsageError(fmt::format("malformed trace: {}.{} is not an integer", where, key));
  const bool neg = v.is_number_unsigned() ? false : v.get<long long>() < 0;
  const bool above = !neg && v.get<unsigned long long>() > static_cast<unsigned long long>(hi);
  if (above || (!above && v.get<long long>() < lo))
    throw UsageError(fmt::format("malformed trace: {}.{} = {} is out of range", where, key, v.dump()));
  return int(v.get<long long>());
}

}  // namespace

Trace trace_from_json(const json& j) {
  if (!j.is_object()) throw UsageError("malformed trace: not a JSON object");
  if (opt_str_field(j, "format", "trace") != "blkmc-trace-1")
    throw UsageError("malformed trace: 'format' is not blkmc-trace-1");
  Trace t;
  t.model = str_field(j, "model", "trace");
  t.variant = str_field(j, "variant", "trace");
  t.property = str_field(j, "property", "trace");
  t.search = opt_str_field(j, "search", "trace");
  // What a search writes (the order decides which shortest trace it is).
  if (!t.search.empty() && t.search != "bfs" && t.search != "dfs")
    throw UsageError(fmt::format("malformed trace: 'search' is '{}', not bfs or dfs", t.search));
  if (j.contains("params")) {
    const json& params = j.at("params");
    if (!params.is_object()) throw UsageError("malformed trace: 'params' is not an object");
    for (const auto& [k, v] : params.items())
      t.params[k] = int_field(params, k.c_str(), "params", -1000000, 1000000);
  }
  t.initial = j.contains("initial") ? j.at("initial") : json();
  if (!j.contains("steps") || !j.at("steps").is_array())
    throw UsageError("malformed trace: 'steps' is missing or not an array");
  int i = 0;
  for (const auto& s : j.at("steps")) {
    const std::string where = fmt::format("step {}", ++i);
    TraceStep st;
    st.actor = int_field(s, "actor", where, 0, 255);
    st.action = str_field(s, "action", where);
    st.arg = s.contains("arg") ? int_field(s, "arg", where, 0, 255) : 0;
    st.actor_name = opt_str_field(s, "actor_name", where);
    st.text = opt_str_field(s, "text", where);
    st.state = s.contains("state") ? s.at("state") : json();
    t.steps.push_back(std::move(st));
  }
  const long n = long(t.steps.size());
  if (j.contains("stuck")) t.stuck = int_field(j, "stuck", "trace", 0, n);
  if (j.contains("loop")) t.loop = int_field(j, "loop", "trace", t.stuck.value_or(0), n);
  if (j.contains("value")) t.value = int_field(j, "value", "trace", 0, 2147483647);
  if (j.contains("param_files")) {
    const json& files = j.at("param_files");
    if (!files.is_object()) throw UsageError("malformed trace: 'param_files' is not an object");
    for (const auto& [k, f] : files.items()) {
      const std::string where = "param_files." + k;
      if (!t.params.count(k)) throw UsageError(fmt::format("malformed trace: {} has no value in 'params'", where));
      t.param_files[k] = {str_field(f, "name", where), str_field(f, "text", where)};
    }
  }
  if (j.contains("source")) {
    const json& src = j.at("source");
    if (!src.is_object()) throw UsageError("malformed trace: 'source' is not an object");
    for (const char* k : {"kind", "file", "version", "sha256", "name"}) str_field(src, k, "source");
    const std::string kind = src.at("kind").get<std::string>();
    if (kind != "kernel" && kind != "conform" && kind != "pair")
      throw UsageError(fmt::format("malformed trace: source.kind '{}' is not kernel, conform or pair", kind));
    if (kind == "pair" && !src.contains("before"))
      throw UsageError("malformed trace: a pair trace's source has no 'before'");
    const std::string sha = src.at("sha256").get<std::string>();
    if (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw UsageError("malformed trace: source.sha256 is not a SHA-256 in hex");
    t.source = src;
  }
  if (j.contains("share")) {
    const json& sh = j.at("share");
    if (!sh.is_object()) throw UsageError("malformed trace: 'share' is not an object");
    str_field(sh, "of", "share");
    str_field(sh, "other", "share");
    int_field(sh, "mine", "share", 0, 2147483647);
    int_field(sh, "theirs", "share", 1, 2147483647);
    if (!sh.contains("fair_alone") || !sh.at("fair_alone").is_boolean())
      throw UsageError("malformed trace: share.fair_alone is missing or not true/false");
    if (sh.contains("within")) str_field(sh, "within", "share");
    if (!t.loop) throw UsageError("malformed trace: a long-run share trace ('share') needs a 'loop'");
    if (t.stuck) throw UsageError("malformed trace: a long-run share trace has no 'stuck'");
    if (t.value) throw UsageError("malformed trace: a long-run share trace has no 'value'");
    t.share = sh;
  }
  return t;
}

Trace read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cannot open trace '{}'", path));
  // A trace nests a few levels (trace, steps, a step, its state, an array
  // in it); refusing deeper input while parsing keeps a hostile file from
  // exhausting the stack in what walks the parsed value.
  constexpr int kMaxDepth = 64;
  struct TooDeep {};
  json j;
  try {
    j = json::parse(in, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const json::parse_error& e) {
    throw UsageError(fmt::format("malformed trace '{}': not JSON (byte {})", path, e.byte));
  } catch (const TooDeep&) {
    throw UsageError(fmt::format("malformed trace '{}': JSON nested deeper than {} levels", path, kMaxDepth));
  } catch (const json::out_of_range&) {  // a number such as 1e999
    throw UsageError(fmt::format("malformed trace '{}': a number out of range", path));
  }
  return trace_from_json(j);
}

void write_text_file(const std::string& text, const std::string& path, const std::string& what) {
  // A regular file is written beside the target and renamed over it, so a
  // full disk or an interrupted write never leaves a truncated file under
  // the name; anything else (a device, a pipe) is written in place, never
  // replaced.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    std::ofstream out(path);
    if (!out) throw UsageError(fmt::format("cannot write {} '{}'", what, path));
    out << text;
    out.close();
    if (!out) throw UsageError(fmt::format("error writing {} '{}'", what, path));
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    if (!out) throw UsageError(fmt::format("cannot write {} '{}'", what, path));
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw UsageError(fmt::format("error writing {} '{}' (disk full?)", what, path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UsageError(fmt::format("cannot write {} '{}'", what, path));
  }
}

void write_trace_file(const Trace& t, const std::string& path) {
  write_text_file(trace_to_json(t).dump(2) + '\n', path, "trace");
}

}  // namespace blkmc
