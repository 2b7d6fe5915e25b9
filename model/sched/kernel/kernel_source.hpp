// model/sched/kernel/kernel_source: a scheduler file from the user's kernel
// tree, found, identified and registered as a variant of the kernel-code
// model of its family (model/sched/kernel/kernel_sched.hpp).
//
// Where the code comes from (`--kernel WHERE` or `--source FILE.c`):
//   a tree        DIR/block/mq-deadline.c, the version from DIR/Makefile
//   a tarball     Debian's /usr/src/linux-source-6.12.tar.xz (the two files
//                 are extracted into a scratch directory, removed at once)
//   debian:6.12   the same, by the package's version
//   FILE.c        the file alone; its version range read off its interfaces
//                 (blk_insert_t: 6.5-6.12, else 6.1-6.4), or --kernel-version
// A source is named by its version and the first 8 hex digits of the
// SHA-256 of its bytes ("6.12.117@3f2a9c1d"): the variant name a trace
// records, with the whole hash. Kernel code is only read here; it is kept
// in memory and in the scratch directory of one compile (kernel_build.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace blkmc::kernel {

// The shim's range (model/sched/kernel/shim/blkmc_shim.h).
inline constexpr int kMinKv = (6 << 16) + (1 << 8);
inline constexpr int kMaxKv = (6 << 16) + (12 << 8) + 255;
constexpr int kernel_version(int a, int b, int c) { return (a << 16) + (b << 8) + (c > 255 ? 255 : c); }

// A further file of a family's code (BFQ's bfq-wf2q.c, bfq-iosched.h...).
struct SourceFile {
  std::string path;  // inside a tree: "block/bfq-wf2q.c"
  std::string text;
};

struct Source {
  std::string family;   // "deadline"
  std::string file;     // the path inside a tree: "block/mq-deadline.c"
  std::string origin;   // what the user named
  std::string text;     // the file's bytes
  std::vector<SourceFile> extra;  // the family's other files (family_extra_files), in order
  std::string version;  // "6.12.117", or "6.5-6.12" read off a lone file's interfaces
  int kv = 0;           // KERNEL_VERSION the shim presents
  std::string sha256;   // of text (and of each extra file's path and bytes after it), hex
  std::string name;     // the variant: version@sha8
  // The walker's view of the file's private structs (-D macros), and a
  // line for what it could not read ("" when it reads everything).
  std::vector<std::string> layout;
  std::string layout_note;
};

// The family's file inside a tree (block/mq-deadline.c for "deadline",
// block/bfq-iosched.c for "bfq").
const std::string& family_file(const std::string& family);  // throws UsageError
// The family's other files, read from the same tree or, for --source, the
// same directory: BFQ's bfq-iosched.h, bfq-wf2q.c and bfq-cgroup.c (group
// scheduling is off: bfq-cgroup.c gives the root group alone). The .c
// files among them are compiled with the main file.
const std::vector<std::string>& family_extra_files(const std::string& family);
// How many 8-byte words of struct request's head (shim/blkmc_shim.h) the
// family's scheduler writes: mq-deadline 8 (queuelist, rb_node, fifo_time,
// rq_flags, elv.priv[0]; not elv.priv[1] nor elv.icq), BFQ 10 (both
// elv.priv[] and elv.icq too).
int family_rq_state_words(const std::string& family);
// The families with a kernel-source harness ("deadline", "bfq").
const std::vector<std::string>& source_families();

// Reads the code: WHERE is a tree, a linux-source tarball or debian:X.Y
// (tree = true, --kernel), or a .c file (tree = false, --source). version:
// --kernel-version, "" to read it from the tree or the file. Throws
// UsageError with one line (no such file, version outside the shim's range).
// A tarball is read once per process (the same WHERE again is remembered).
Source read_source(const std::string& family, const std::string& where, bool tree,
                   const std::string& version = "");

// The sources this process knows, per family, in the order added: the
// variants of the family's kernel-code model. add_source keeps the number
// of a source already known (same family, hash and version).
int add_source(Source s);
int source_count(const std::string& family);
const Source& source_at(const std::string& family, int variant);  // throws UsageError
// The family's sources as variants; generation() changes when one is added.
std::vector<VariantInfo> source_variants(const std::string& family);
unsigned source_generation();

// Whether debian:X.Y names an installed linux-source-X.Y package.
bool debian_installed(const std::string& where);

// Hex SHA-256 of bytes (OpenSSL's libcrypto).
std::string sha256_hex(const std::string& bytes);

}  // namespace blkmc::kernel
