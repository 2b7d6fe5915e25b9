// blkmc's version (project() in CMakeLists.txt) and the commit it was built
// from, for `blkmc --version` (written at build time by cmake/version.cmake).
#pragma once

namespace blkmc {

const char* version();
// The commit's short hash, with "-dirty" when tracked files had changed
// since; "unknown" outside a git checkout.
const char* build_commit();
const char* build_commit_date();  // YYYY-MM-DD; empty when unknown

}  // namespace blkmc
