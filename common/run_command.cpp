#include "common/run_command.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace blkmc {

int run_command(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  if (argv.empty()) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 1);
    const int efd = err.empty() ? fd : ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (efd >= 0) dup2(efd, 2);
    setenv("LC_ALL", "C", 1);  // plain quotes in the compiler's messages
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace blkmc
