#include "model/sched/kernel/kernel_source.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <deque>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "common/errors.hpp"
#include "common/scratch_dir.hpp"

namespace blkmc::kernel {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p, const std::string& what) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw UsageError(fmt::format("{}: cannot read {}", what, p.string()));
  std::ostringstream o;
  o << f.rdbuf();
  if (o.str().size() > (8u << 20)) throw UsageError(fmt::format("{}: {} is larger than 8 MiB", what, p.string()));
  return o.str();
}

// VERSION, PATCHLEVEL and SUBLEVEL of a tree's top Makefile.
std::string makefile_version(const std::string& mk, const std::string& where) {
  auto field = [&](const char* name) {
    const std::regex re(std::string("(^|\\n)") + name + "\\s*=\\s*([0-9]+)");
    std::smatch m;
    if (!std::regex_search(mk, m, re))
      throw UsageError(fmt::format("{}: its Makefile has no {} line (not a kernel tree?)", where, name));
    return m[2].str();
  };
  return fmt::format("{}.{}.{}", field("VERSION"), field("PATCHLEVEL"), field("SUBLEVEL"));
}

int parse_version(const std::string& v, const std::string& where) {
  static const std::regex re("([0-9]+)\\.([0-9]+)(\\.([0-9]+))?");
  std::smatch m;
  if (!std::regex_match(v, m, re))
    throw UsageError(fmt::format("{}: '{}' is not a kernel version (X.Y or X.Y.Z)", where, v));
  return kernel_version(std::stoi(m[1]), std::stoi(m[2]), m[4].matched ? std::stoi(m[4]) : 0);
}

void check_range(int kv, const std::string& version, const std::string& where) {
  if (kv < kMinKv || kv > kMaxKv)
    throw UsageError(fmt::format(
        "{}: kernel {} is outside the range blkmc's kernel shim supports (6.1 to 6.12)", where, version));
}

// The body of `struct NAME {...};` in C text ("" when absent).
std::string struct_body(const std::string& text, const std::string& name) {
  const std::regex re("struct\\s+" + name + "\\s*\\{");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return "";
  const std::size_t open = std::size_t(m.position(0) + m.length(0));
  int depth = 1;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(open, i - open);
  }
  return "";
}

// What the mq-deadline walker (shim/walk_deadline.h) finds in the file.
void deadline_layout(Source& s) {
  const std::string prio = struct_body(s.text, "dd_per_prio");
  const std::string dd = struct_body(s.text, "deadline_data");
  auto has = [](const std::string& body, const char* re) { return std::regex_search(body, std::regex(re)); };
  if (prio.empty() || dd.empty() || !has(prio, "fifo_list") || !has(prio, "sort_list") ||
      !has(prio, "stats") || !has(dd, "per_prio") || !has(dd, "last_dir")) {
    s.layout_note = "its deadline_data / dd_per_prio are not the ones blkmc's walker reads (6.1-6.12)";
    return;
  }
  s.layout.push_back("BLKMC_WALK_DEADLINE");
  if (has(prio, "latest_pos")) s.layout.push_back("BLKMC_DD_LATEST_POS");
  if (has(prio, "struct\\s+list_head\\s+dispatch\\s*;")) s.layout.push_back("BLKMC_DD_PRIO_DISPATCH");
}

// What the BFQ walker (shim/walk_bfq.h) reads, in bfq-iosched.h.
void bfq_layout(Source& s) {
  std::string header;
  for (const SourceFile& f : s.extra)
    if (f.path == "block/bfq-iosched.h") header = f.text;
  const std::string bfqd = struct_body(header, "bfq_data");
  const std::string bfqq = struct_body(header, "bfq_queue");
  auto has = [](const std::string& body, const char* re) { return std::regex_search(body, std::regex(re)); };
  if (bfqd.empty() || bfqq.empty() || !has(bfqd, "\\bqueued\\s*;") || !has(bfqd, "in_service_queue") ||
      !has(bfqd, "idle_slice_timer") || !has(bfqd, "list_head\\s+dispatch\\s*;") || !has(bfqq, "\\bpid\\s*;") ||
      !has(bfqq, "list_head\\s+fifo\\s*;") || !has(bfqq, "wr_coeff")) {
    s.layout_note = "its bfq_data / bfq_queue are not the ones blkmc's walker reads (6.1-6.12)";
    return;
  }
  s.layout.push_back("BLKMC_WALK_BFQ");
}

struct Registry {
  std::mutex mu;
  std::deque<Source> all;  // references stay valid as sources are added
  unsigned generation = 0;
};
Registry& registry() {
  static Registry r;
  return r;
}

// debian:6.12 -> /usr/src/linux-source-6.12.tar.xz
std::string debian_tarball(const std::string& where) {
  const std::string v = where.substr(7);
  if (!std::regex_match(v, std::regex("[0-9]+\\.[0-9]+")))
    throw UsageError(fmt::format("--kernel {}: debian:X.Y names a linux-source-X.Y package", where));
  const std::string path = fmt::format("/usr/src/linux-source-{}.tar.xz", v);
  if (!fs::exists(path))
    throw UsageError(fmt::format("--kernel {}: {} is not installed (apt-get install linux-source-{})", where,
                                 path, v));
  return path;
}

bool is_tarball(const std::string& p) {
  for (const char* ext : {".tar.xz", ".tar.gz", ".tar.bz2", ".tar.zst", ".tar"})
    if (p.size() > std::strlen(ext) && p.compare(p.size() - std::strlen(ext), std::string::npos, ext) == 0) return true;
  return false;
}

// A tarball's TOP/Makefile and TOP/FILE for each of files, into a scratch
// directory.
void extract(const std::string& tarball, const std::vector<std::string>& files, const ScratchDir& dir,
             std::string& top) {
  // The first member names the top directory.
  std::string cmd = fmt::format("tar -tf '{}' 2>/dev/null | head -n 1", tarball);
  FILE* p = popen(cmd.c_str(), "r");
  char buf[512] = {0};
  if (!p || !fgets(buf, sizeof buf, p)) {
    if (p) pclose(p);
    throw UsageError(fmt::format("--kernel {}: not a readable tar archive", tarball));
  }
  pclose(p);
  top = buf;
  while (!top.empty() && (top.back() == '\n' || top.back() == '/')) top.pop_back();
  if (top.find('/') != std::string::npos) top = top.substr(0, top.find('/'));
  std::vector<std::string> args{"tar", "-xf", tarball, "-C", dir.path(), "--occurrence=1", top + "/Makefile"};
  for (const auto& f : files) args.push_back(top + "/" + f);
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("tar", argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw UsageError(fmt::format("--kernel {}: tar could not extract {}/{} from it", tarball, top, files.front()));
}

// The code's name: the SHA-256 of the main file's bytes, and of each extra
// file's path and bytes after them (a family of one file: of its bytes).
std::string code_hash(const Source& s) {
  if (s.extra.empty()) return sha256_hex(s.text);
  std::string all = s.text;
  for (const SourceFile& f : s.extra) all += std::string(1, '\0') + f.path + '\0' + f.text;
  return sha256_hex(all);
}

}  // namespace

const std::vector<std::string>& source_families() {
  static const std::vector<std::string> v{"deadline", "bfq"};
  return v;
}

const std::string& family_file(const std::string& family) {
  static const std::string deadline = "block/mq-deadline.c", bfq = "block/bfq-iosched.c";
  if (family == "deadline") return deadline;
  if (family == "bfq") return bfq;
  throw UsageError(fmt::format("model '{}' has no kernel-source harness yet (blkmc compiles the kernel's own "
                               "code for: deadline, bfq)",
                               family));
}

const std::vector<std::string>& family_extra_files(const std::string& family) {
  static const std::vector<std::string> none, bfq{"block/bfq-iosched.h", "block/bfq-wf2q.c", "block/bfq-cgroup.c"};
  family_file(family);
  return family == "bfq" ? bfq : none;
}

int family_rq_state_words(const std::string& family) {
  family_file(family);
  // Words 0-1 queuelist, 2-4 rb_node, 5 fifo_time, 6 rq_flags, 7-8
  // elv.priv[], 9 elv.icq.
  return family == "bfq" ? 10 : 8;
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr))
    throw std::runtime_error("sha256: EVP_Digest failed");
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

bool debian_installed(const std::string& where) {
  return where.rfind("debian:", 0) == 0 && fs::exists(fmt::format("/usr/src/linux-source-{}.tar.xz", where.substr(7)));
}

Source read_source(const std::string& family, const std::string& where_in, bool tree, const std::string& version) {
  // Tarballs take seconds to read: each once.
  static std::mutex mu;
  static std::map<std::string, Source> read;
  const std::string key = fmt::format("{}\n{}\n{}\n{}", family, where_in, tree, version);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = read.find(key); it != read.end()) return it->second;
  }
  Source s;
  s.family = family;
  s.file = family_file(family);
  s.origin = where_in;
  std::string where = where_in;
  const std::string opt = tree ? "--kernel" : "--source";
  if (tree && where.rfind("debian:", 0) == 0) where = debian_tarball(where);
  std::string tree_version;
  const std::vector<std::string>& extra = family_extra_files(family);
  // The family's other files, from the directory the main file is in.
  auto read_extra = [&](const fs::path& main_dir, const std::string& in) {
    for (const std::string& e : extra) {
      const fs::path f = main_dir / fs::path(e).filename();
      if (!fs::is_regular_file(f))
        throw UsageError(fmt::format("{} {}: {} has no {} beside {} ({}'s code is {} and these)", opt, where_in,
                                     in, fs::path(e).filename().string(), fs::path(s.file).filename().string(),
                                     family, s.file));
      s.extra.push_back({e, read_file(f, opt)});
    }
  };
  if (tree && is_tarball(where)) {
    if (!fs::is_regular_file(where)) throw UsageError(fmt::format("{} {}: no such file", opt, where));
    const ScratchDir dir("", "blkmc-src");
    std::string top;
    std::vector<std::string> files{s.file};
    files.insert(files.end(), extra.begin(), extra.end());
    extract(where, files, dir, top);
    const fs::path root = fs::path(dir.path()) / top;
    if (!fs::exists(root / s.file))
      throw UsageError(fmt::format("{} {}: the archive has no {}", opt, where, s.file));
    s.text = read_file(root / s.file, opt);
    read_extra((root / s.file).parent_path(), "the archive");
    tree_version = makefile_version(read_file(root / "Makefile", opt), opt + " " + where);
  } else if (tree) {
    if (!fs::is_directory(where)) throw UsageError(fmt::format("{} {}: not a directory or linux-source tarball", opt, where));
    const fs::path f = fs::path(where) / s.file;
    if (!fs::is_regular_file(f)) throw UsageError(fmt::format("{} {}: the tree has no {}", opt, where, s.file));
    if (!fs::is_regular_file(fs::path(where) / "Makefile"))
      throw UsageError(fmt::format("{} {}: no Makefile at the top (not a kernel tree)", opt, where));
    s.text = read_file(f, opt);
    read_extra(f.parent_path(), "the tree");
    tree_version = makefile_version(read_file(fs::path(where) / "Makefile", opt), opt + " " + where);
  } else {
    if (!fs::is_regular_file(where)) throw UsageError(fmt::format("{} {}: no such file", opt, where));
    s.text = read_file(where, opt);
    read_extra(fs::absolute(fs::path(where)).parent_path(), "its directory");
  }
  if (!version.empty()) {
    s.version = version;
    s.kv = parse_version(version, "--kernel-version");
  } else if (!tree_version.empty()) {
    s.version = tree_version;
    s.kv = parse_version(tree_version, opt + " " + where);
  } else if (s.text.find("blk_insert_t") != std::string::npos) {
    // A lone file: the interface range its calls belong to.
    s.version = "6.5-6.12";
    s.kv = kernel_version(6, 12, 0);
  } else {
    s.version = "6.1-6.4";
    s.kv = kernel_version(6, 1, 0);
  }
  check_range(s.kv, s.version, opt + " " + where);
  s.sha256 = code_hash(s);
  s.name = fmt::format("{}@{}", s.version, s.sha256.substr(0, 8));
  if (family == "deadline") deadline_layout(s);
  if (family == "bfq") bfq_layout(s);
  if (tree && is_tarball(where)) {
    std::lock_guard<std::mutex> lock(mu);
    read[key] = s;
  }
  return s;
}

int add_source(Source s) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  int n = 0;
  for (const Source& x : r.all) {
    if (x.family != s.family) continue;
    if (x.name == s.name && x.sha256 == s.sha256) return n;
    ++n;
  }
  r.all.push_back(std::move(s));
  ++r.generation;
  return n;
}

int source_count(const std::string& family) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  int n = 0;
  for (const Source& x : r.all) n += x.family == family;
  return n;
}

const Source& source_at(const std::string& family, int variant) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  int n = 0;
  for (const Source& x : r.all)
    if (x.family == family && n++ == variant) return x;
  throw UsageError(fmt::format("{}: no kernel source {} is loaded (give --kernel DIR or --source FILE)", family,
                               variant));
}

std::vector<VariantInfo> source_variants(const std::string& family) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<VariantInfo> v;
  for (const Source& x : r.all)
    if (x.family == family)
      v.push_back({x.name, x.sha256, fmt::format("the kernel's own {} of {} (sha256 {})", x.file, x.version, x.sha256),
                   x.origin});
  return v;
}

unsigned source_generation() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.generation;
}

}  // namespace blkmc::kernel
