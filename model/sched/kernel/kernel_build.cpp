#include "model/sched/kernel/kernel_build.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/run_command.hpp"
#include "common/scratch_dir.hpp"

namespace blkmc::kernel {

namespace fs = std::filesystem;

namespace {

const char* compiler() {
  const char* cc = std::getenv("CC");
  return cc && *cc ? cc : "cc";
}

bool is_clang();

// The flags of every compile: the kernel's own C dialect (gnu11, no strict
// aliasing or overflow, NULL checks kept), the shim's interfaces as errors
// where a missing one would otherwise only warn, line tables (a memory
// error names its line) and frame pointers (and the calls above it).
const std::vector<std::string>& cflags() {
  static const std::vector<std::string> v{
      "-std=gnu11", "-O2", "-fPIC", "-fno-strict-aliasing", "-fno-strict-overflow",
      "-fno-delete-null-pointer-checks", "-fno-common", "-fvisibility=hidden", "-ftls-model=initial-exec",
      "-g1", "-fno-omit-frame-pointer",
      "-Werror=implicit-function-declaration", "-Werror=implicit-int", "-Werror=incompatible-pointer-types",
      "-Werror=int-conversion", "-Werror=return-type"};
  return v;
}

// The scheduler's file, the harness and the shim: every load, store and
// atomic a call to blkmc_tsan.c (the compiler's thread-sanitizer hooks,
// without its entry and exit hooks), and no memset or memcpy the compiler
// expands in place where no hook would see it.
const std::vector<std::string>& instrument_flags() {
  static const std::vector<std::string> v = is_clang()
      ? std::vector<std::string>{"-fsanitize=thread", "-mllvm", "-tsan-instrument-func-entry-exit=0", "-fno-builtin"}
      : std::vector<std::string>{"-fsanitize=thread", "--param=tsan-instrument-func-entry-exit=0", "-fno-builtin"};
  return v;
}

// blkmc_tsan.c itself: not instrumented, and its byte loops not turned
// back into calls of the memset and memcpy it defines.
const std::vector<std::string>& runtime_flags() {
  static const std::vector<std::string> v = is_clang()
      ? std::vector<std::string>{"-fno-builtin"}
      : std::vector<std::string>{"-fno-builtin", "-fno-tree-loop-distribute-patterns"};
  return v;
}

// The link: without -fsanitize=thread, which would load libtsan; every
// hook the code calls is defined in the object (--no-undefined).
const std::vector<std::string>& ldflags() {
  static const std::vector<std::string> v{"-shared", "-Wl,-z,now", "-Wl,-z,relro", "-Wl,--no-undefined"};
  return v;
}

// argv with stdout and stderr to `log`; its exit status (-1: no exec).
int run(const std::vector<std::string>& argv, const std::string& log) { return run_command(argv, log); }

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream o;
  o << f.rdbuf();
  return o.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  if (!f || !(f << text) || !f.flush()) throw std::runtime_error("cannot write " + p.string());
}

// The compiler's first line of --version: part of the cache key.
const std::string& compiler_id() {
  static const std::string id = [] {
    const ScratchDir d("", "blkmc-cc");
    const std::string log = d.file("v.txt");
    if (run({compiler(), "--version"}, log) != 0)
      throw UsageError(fmt::format("the C compiler '{}' does not run (set CC, or apt-get install gcc)", compiler()));
    std::string s = slurp(log);
    return s.substr(0, s.find('\n'));
  }();
  return id;
}

bool is_clang() { return compiler_id().find("clang") != std::string::npos; }

// Every command at once (each with its log); their exit statuses.
std::vector<int> run_all(const std::vector<std::vector<std::string>>& cmds, const std::vector<std::string>& logs) {
  std::vector<int> rc(cmds.size(), -1);
  std::vector<std::thread> th;
  for (std::size_t i = 0; i < cmds.size(); ++i) th.emplace_back([&, i] { rc[i] = run(cmds[i], logs[i]); });
  for (auto& t : th) t.join();
  return rc;
}

// The headers a C file includes: <linux/x.h> and "x.h".
std::set<std::pair<bool, std::string>> includes(const std::string& text) {
  std::set<std::pair<bool, std::string>> out;
  static const std::regex re("^[ \\t]*#[ \\t]*include[ \\t]*([<\"])([^>\"]+)[>\"]",
                              std::regex::ECMAScript | std::regex::multiline);
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    out.insert({(*it)[1] == "\"", (*it)[2].str()});
  return out;
}

// The first error of a compile, as one line; the kernel symbol the shim
// lacks when that is what the error says.
std::string first_error(const std::string& log, const Source& s) {
  std::istringstream in(log);
  std::string line;
  static const std::regex err("^([^:]+):([0-9]+):([0-9]+): (fatal )?error: (.*)$");
  static const std::regex missing(
      "implicit declaration of function '([A-Za-z_0-9]+)'|'([A-Za-z_0-9]+)' undeclared|unknown type name "
      "'([A-Za-z_0-9]+)'|has no member named '([A-Za-z_0-9]+)'|storage size of '([A-Za-z_0-9]+)' isn't known|"
      "invalid use of undefined type '([^']+)'");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, err)) continue;
    std::string where = fs::path(m[1].str()).filename().string();
    if (where == fs::path(s.file).filename().string()) where = s.file;
    const std::string msg = m[5];
    std::smatch mm;
    std::string sym;
    if (std::regex_search(msg, mm, missing))
      for (std::size_t i = 1; i < mm.size(); ++i)
        if (mm[i].matched) sym = mm[i];
    if (!sym.empty())
      return fmt::format("{}:{}: {} (blkmc's kernel shim has no '{}'; it covers the interfaces of 6.1 to 6.12)",
                         where, m[2].str(), msg, sym);
    return fmt::format("{}:{}: {}", where, m[2].str(), msg);
  }
  const std::string first = log.substr(0, log.find('\n'));
  return first.empty() ? "the compiler failed without a message" : first;
}

// A source's record: its hash and the version it was read as (the same
// file read as a tree's 6.12.117 and as a lone file's 6.5-6.12 are two).
std::string index_path(const std::string& family, const std::string& sha, const std::string& name) {
  return fmt::format("{}/kernel/{}-{}-{}-{}.json", cache_dir(), family, sha.substr(0, 16),
                     sha256_hex(name).substr(0, 8), shim_hash().substr(0, 8));
}

std::mutex& build_mutex() {
  static std::mutex m;
  return m;
}

// One compile: 0 on success, else the compiler's log in `log`.
int compile(const Source& s, const std::vector<std::string>& defines, const std::string& out, std::string& log) {
  const ScratchDir dir("", "blkmc-cc");
  const fs::path root = dir.path();
  for (const ShimFile& f : shim_files()) write(root / f.name, f.text);
  const std::string base = fs::path(s.file).filename().string();
  const fs::path local = root / fs::path(s.file).parent_path();
  write(local / base, s.text);
  for (const SourceFile& f : s.extra) write(root / f.path, f.text);
  // Every header the code includes that is not one of its own files: a
  // stand-in for the shim.
  auto stub_includes = [&](const std::string& text) {
    for (const auto& [quoted, name] : includes(text)) {
      if (name.find("..") != std::string::npos) continue;
      const fs::path stub = quoted ? local / name : root / "include" / name;
      if (!fs::exists(stub)) write(stub, "#include \"blkmc_shim.h\"\n");
    }
  };
  stub_includes(s.text);
  for (const SourceFile& f : s.extra) stub_includes(f.text);
  // Each C file on its own (at once), then the link.
  std::vector<fs::path> units{root / "harness.c", root / "blkmc_shim.c"};
  for (const SourceFile& f : s.extra)
    if (fs::path(f.path).extension() == ".c") units.push_back(root / f.path);
  units.push_back(root / "blkmc_tsan.c");
  std::vector<std::vector<std::string>> cmds;
  std::vector<std::string> logs, objs;
  for (std::size_t i = 0; i < units.size(); ++i) {
    std::vector<std::string> argv{compiler()};
    for (const auto& f : cflags()) argv.push_back(f);
    const bool runtime = i + 1 == units.size();
    for (const auto& f : runtime ? runtime_flags() : instrument_flags()) argv.push_back(f);
    argv.push_back("-I" + (root / "include").string());
    argv.push_back("-I" + root.string());
    argv.push_back(fmt::format("-DBLKMC_KV={}", s.kv));
    argv.push_back(fmt::format("-DBLKMC_FILE=\"{}\"", s.file));
    for (const auto& d : defines) argv.push_back("-D" + d);
    objs.push_back(dir.file(fmt::format("u{}.o", i)));
    argv.insert(argv.end(), {"-c", "-o", objs.back(), units[i].string()});
    cmds.push_back(std::move(argv));
    logs.push_back(dir.file(fmt::format("cc{}.log", i)));
  }
  std::vector<int> rcs = run_all(cmds, logs);
  std::vector<std::string> link{compiler()};
  for (const auto& f : ldflags()) link.push_back(f);
  link.insert(link.end(), {"-o", out});
  link.insert(link.end(), objs.begin(), objs.end());
  int rc = 0;
  log.clear();
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    log += slurp(logs[i]);
    if (rcs[i] == 127 || rcs[i] < 0)
      throw UsageError(fmt::format("the C compiler '{}' does not run (set CC, or apt-get install gcc)", compiler()));
    if (rcs[i] != 0 && rc == 0) rc = rcs[i];
  }
  if (rc == 0) {
    cmds.push_back(link);
    logs.push_back(dir.file("ld.log"));
    rc = run(link, logs.back());
    log += slurp(logs.back());
  }
  if (const char* keep = std::getenv("BLKMC_CC_LOG"); keep && *keep) {  // debugging the shim: the whole log
    std::ofstream f(keep, std::ios::app);
    for (const auto& c : cmds) f << fmt::format("{}\n", fmt::join(c, " "));
    f << log;
  }
  if (rc == 127 || rc < 0)
    throw UsageError(fmt::format("the C compiler '{}' does not run (set CC, or apt-get install gcc)", compiler()));
  return rc;
}

// What the instrumentation cannot see, in the linked object: an atomic
// instruction (a lock prefix, or xchg with memory, which locks) written as
// inline asm, or a call of libc's memory functions (the object defines its
// own, checked). "" when there is none, else a line saying where.
std::string unseen_accesses(const std::string& so) {
  const ScratchDir d("", "blkmc-objdump");
  const std::string log = d.file("d.txt");
  if (run({"objdump", "-d", "--no-show-raw-insn", so}, log) != 0)
    throw UsageError("objdump does not run (apt-get install binutils): blkmc reads the compiled code with it");
  std::ifstream in(log);
  std::string line, fn;
  static const std::regex head("^[0-9a-f]+ <([^>]+)>:$");
  static const std::regex locked("\\s(lock\\s|xchg[bwlq]?\\s+[^,]*\\(|xchg[bwlq]?\\s+%[a-z0-9]+,[^,]*\\()");
  static const std::regex libc_mem("call\\s.*<(mem(set|cpy|move|cmp)|str[a-z]*cpy|bzero)@plt>");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      fn = m[1];
      continue;
    }
    if (std::regex_search(line, locked)) {
      std::string insn = line.substr(line.find(':') + 1);
      insn.erase(0, insn.find_first_not_of(" \t"));
      std::replace(insn.begin(), insn.end(), '\t', ' ');
      return fmt::format("an atomic instruction in {} that blkmc cannot see ({}): write it with the kernel's "
                         "atomic helpers, which the shim provides in C", fn, insn);
    }
    if (std::regex_search(line, m, libc_mem))
      return fmt::format("{} calls libc's {}, which blkmc cannot see", fn, m[1].str());
  }
  return "";
}

}  // namespace

const std::string& shim_hash() {
  static const std::string h = [] {
    std::string all;
    for (const ShimFile& f : shim_files()) all += std::string(f.name) + '\0' + f.text + '\0';
    return sha256_hex(all);
  }();
  return h;
}

std::string cache_dir() {
  if (const char* c = std::getenv("BLKMC_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/blkmc";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/blkmc";
  return "/tmp/blkmc-cache";
}

Built build_source(const Source& s) {
  std::lock_guard<std::mutex> lock(build_mutex());
  const std::string key = sha256_hex(fmt::format(
      "{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}", shim_hash(), s.sha256, s.kv, s.file, fmt::join(s.layout, " "),
      compiler_id(), fmt::join(cflags(), " "), fmt::join(instrument_flags(), " "), fmt::join(runtime_flags(), " "),
      fmt::join(ldflags(), " ")));
  const fs::path dir = fs::path(cache_dir()) / "kernel";
  const fs::path so = dir / (key.substr(0, 32) + ".so");
  Built b;
  b.so = so.string();
  b.walker = !s.layout.empty();
  b.note = s.layout_note;
  const fs::path meta = so.string() + ".json";
  if (fs::exists(so) && fs::exists(meta)) {
    const auto j = nlohmann::json::parse(slurp(meta.string()), nullptr, false);
    if (j.is_object()) {
      b.walker = j.value("walker", false);
      b.note = j.value("note", std::string());
      b.from_cache = true;
      return b;
    }
  }
  if (s.text.empty())
    throw UsageError(fmt::format("the compiled {} of {} is no longer in {}: give the code again (--kernel or --source)",
                                 s.file, s.name, dir.string()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(fmt::format("cannot create the cache directory {}: {}", dir.string(), ec.message()));
  const std::string tmp = so.string() + fmt::format(".{}.tmp", getpid());
  std::string log;
  if (compile(s, s.layout, tmp, log) != 0) {
    const std::string error = first_error(log, s);
    if (s.layout.empty() || error.rfind("walk_", 0) != 0)
      throw UsageError(fmt::format("{} ({}) does not compile against blkmc's kernel shim: {}", s.file, s.origin, error));
    // The file compiles, the walker of its structs does not: without it.
    std::string log2;
    if (compile(s, {}, tmp, log2) != 0)
      throw UsageError(fmt::format("{} ({}) does not compile against blkmc's kernel shim: {}", s.file, s.origin,
                                   first_error(log2, s)));
    b.walker = false;
    b.note = "blkmc's walker of its structs does not compile against them (" + error + ")";
  }
  if (const std::string unseen = unseen_accesses(tmp); !unseen.empty()) {
    fs::remove(tmp, ec);
    throw UsageError(fmt::format("{} ({}): {}", s.file, s.origin, unseen));
  }
  fs::rename(tmp, so, ec);
  if (ec) throw UsageError(fmt::format("cannot store {}: {}", so.string(), ec.message()));
  write(meta, nlohmann::json{{"walker", b.walker}, {"note", b.note}}.dump() + "\n");
  // The source's record, so a trace made on it replays from the cache.
  write(index_path(s.family, s.sha256, s.name),
        nlohmann::json{{"family", s.family},
                       {"file", s.file},
                       {"origin", s.origin},
                       {"version", s.version},
                       {"kv", s.kv},
                       {"sha256", s.sha256},
                       {"name", s.name},
                       {"layout", s.layout},
                       {"layout_note", s.layout_note}}
                .dump(1) + "\n");
  return b;
}

bool cached_source(const std::string& family, const std::string& sha256, const std::string& name, Source& out) {
  const std::string p = index_path(family, sha256, name);
  if (!fs::exists(p)) return false;
  const auto j = nlohmann::json::parse(slurp(p), nullptr, false);
  if (!j.is_object() || j.value("sha256", std::string()) != sha256 || j.value("name", std::string()) != name)
    return false;
  out = Source{};
  out.family = family;
  out.file = j.value("file", family_file(family));
  out.origin = j.value("origin", std::string("(cache)"));
  out.version = j.value("version", std::string());
  out.kv = j.value("kv", 0);
  out.sha256 = sha256;
  out.name = j.value("name", std::string());
  out.layout = j.value("layout", std::vector<std::string>{});
  out.layout_note = j.value("layout_note", std::string());
  return !out.name.empty();
}

}  // namespace blkmc::kernel
