#include "generator/nvrtc_workers.hpp"

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "core/error.hpp"

#ifdef __linux__
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#define JITSPARSE_HAVE_WORKERS 1
#endif

namespace jitsparse {

#ifndef JITSPARSE_HAVE_WORKERS

void enable_nvrtc_workers(const std::string&, const std::string&) {}
bool nvrtc_workers_enabled() { return false; }
CompiledKernel compile_anywhere(const GeneratedSource& source, const CompileOptions& options) {
  return compile_with_nvrtc(source, options);
}
int nvrtc_worker_main(int, char**) {
  std::cerr << "NVRTC worker processes need Linux\n";
  return 2;
}
std::vector<int> nvrtc_worker_pids() { return {}; }

#else

namespace {

constexpr int kWorkerFd = 3;                      // the worker's end of its socket
constexpr uint64_t kMaxMessage = 1ull << 31;      // a cubin of many kernels is a few MB
constexpr int kHelloTimeoutMs = 20000;            // a worker that does not answer is not one

std::string hello() { return "jitsparse-nvrtc-worker " JITSPARSE_VERSION " " + device_headers().digest; }

// Messages: a 64-bit length, then fields, each a 64-bit length and its bytes.
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool send_message(int fd, const std::string& payload) {
  const uint64_t n = payload.size();
  return write_all(fd, reinterpret_cast<const char*>(&n), sizeof n) && write_all(fd, payload.data(), payload.size());
}

bool recv_message(int fd, std::string& payload) {
  uint64_t n = 0;
  if (!read_all(fd, reinterpret_cast<char*>(&n), sizeof n) || n > kMaxMessage) return false;
  payload.resize(n);
  return read_all(fd, payload.data(), n);
}

struct Writer {
  std::string buf;
  void u64(uint64_t v) { buf.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    buf += s;
  }
  void strs(const std::vector<std::string>& v) {
    u64(v.size());
    for (const auto& s : v) str(s);
  }
};

struct Reader {
  const std::string& buf;
  size_t pos = 0;
  uint64_t u64() {
    uint64_t v = 0;
    if (buf.size() - pos < sizeof v) throw CompileError("malformed message from an NVRTC worker process");
    std::memcpy(&v, buf.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string str() {
    const uint64_t n = u64();
    if (buf.size() - pos < n) throw CompileError("malformed message from an NVRTC worker process");
    std::string s = buf.substr(pos, n);
    pos += n;
    return s;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> v(u64());
    for (auto& s : v) s = str();
    return v;
  }
};

std::string encode_request(const GeneratedSource& source, const CompileOptions& options) {
  Writer w;
  w.str(source.name);
  w.str(source.source);
  w.strs(source.kernel_expressions);
  w.str(options.arch);
  w.strs(options.extra);
  return w.buf;
}

// The worker's answer to one request: the compiled program, or the message of what compile_with_nvrtc threw.
std::string serve(const std::string& request) {
  Writer w;
  try {
    Reader r{request};
    GeneratedSource source;
    source.name = r.str();
    source.source = r.str();
    source.kernel_expressions = r.strs();
    CompileOptions options;
    options.arch = r.str();
    options.extra = r.strs();
    const CompiledKernel k = compile_with_nvrtc(source, options);
    w.str("ok");
    w.str(k.log);
    w.strs(k.lowered_names);
    w.str(std::string(k.cubin.begin(), k.cubin.end()));
    w.str(std::to_string(k.compile_seconds));
  } catch (const std::exception& e) {
    w = Writer{};
    w.str("error");
    w.str(e.what());
  }
  return w.buf;
}

CompiledKernel decode_reply(const std::string& reply, const GeneratedSource& source, const CompileOptions& options) {
  Reader r{reply};
  if (r.str() != "ok") throw CompileError(r.str());
  CompiledKernel k;
  k.name = source.name;
  k.variant_names = source.variant_names;
  k.arch = options.arch;
  k.log = r.str();
  k.lowered_names = r.strs();
  const std::string cubin = r.str();
  k.cubin.assign(cubin.begin(), cubin.end());
  k.compile_seconds = std::stod(r.str());
  if (k.lowered_names.size() != source.kernel_expressions.size())
    throw CompileError("an NVRTC worker process returned " + std::to_string(k.lowered_names.size()) +
                       " kernels for " + std::to_string(source.kernel_expressions.size()) + " in " + source.name);
  return k;
}

std::string exit_description(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

// The calling thread's scheduling priority (Linux: per thread; the tuner lowers its compile-ahead thread's).
int thread_nice() {
  errno = 0;
  const int n = getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
  return errno ? 0 : n;
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
};

class Pool {
 public:
  void enable(const std::string& executable, const std::string& subcommand) {
    std::lock_guard<std::mutex> lock(mutex_);
    const char* env = std::getenv("JITSPARSE_NVRTC_WORKERS");
    if (env && std::string(env) == "threads") return;
    executable_ = executable;
    subcommand_ = subcommand;
    enabled_ = true;
  }
  bool usable() {
    std::lock_guard<std::mutex> lock(mutex_);
    return enabled_ && !broken_;
  }

  // An idle worker of this priority, a new one, or none (the pool is broken: compile in threads).
  std::optional<Worker> checkout(int nice) {
    std::unique_lock<std::mutex> lock(mutex_);
    const int cap = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (;;) {
      if (broken_) return std::nullopt;
      auto& idle = idle_[nice];
      if (!idle.empty()) {
        const Worker w = idle.back();
        idle.pop_back();
        return w;
      }
      if (live_[nice] < cap) break;
      changed_.wait(lock);
    }
    ++live_[nice];
    lock.unlock();
    std::string why;
    if (auto w = spawn(nice, why)) return w;
    lock.lock();
    --live_[nice];
    if (!broken_)
      std::cerr << "jitsparse: NVRTC worker processes could not start (" << why << "): compiling in threads\n";
    broken_ = true;
    changed_.notify_all();
    return std::nullopt;
  }

  void give_back(int nice, const Worker& w) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_[nice].push_back(w);
    changed_.notify_one();
  }

  // A worker that stopped answering: killed, reaped; returns how it ended.
  std::string discard(int nice, const Worker& w) {
    ::close(w.fd);
    ::kill(w.pid, SIGKILL);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --live_[nice];
    changed_.notify_one();
    return exit_description(status);
  }

  std::vector<int> pids() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int> out;
    for (const auto& [nice, idle] : idle_)
      for (const auto& w : idle) out.push_back(w.pid);
    return out;
  }

 private:
  std::optional<Worker> spawn(int nice, std::string& why) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      why = std::string("socketpair: ") + std::strerror(errno);
      return std::nullopt;
    }
    int child_end = sv[1];
    if (child_end == kWorkerFd) {  // dup2 onto itself would keep close-on-exec
      child_end = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
      ::close(sv[1]);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child_end, kWorkerFd);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);  // nothing a worker prints can reach our stdout
    const std::string parent = std::to_string(::getpid()), niceness = std::to_string(nice);
    std::vector<char*> argv = {const_cast<char*>(executable_.c_str()), const_cast<char*>(subcommand_.c_str()),
                               const_cast<char*>(parent.c_str()), const_cast<char*>(niceness.c_str()), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, executable_.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(child_end);
    if (rc != 0) {
      ::close(sv[0]);
      why = "cannot run " + executable_ + ": " + std::strerror(rc);
      return std::nullopt;
    }
    Worker w{pid, sv[0]};
    pollfd p{w.fd, POLLIN, 0};
    int ready = 0;
    while ((ready = ::poll(&p, 1, kHelloTimeoutMs)) < 0 && errno == EINTR) {
    }
    std::string greeting;
    if (ready == 1 && recv_message(w.fd, greeting) && greeting == hello()) return w;
    ::close(w.fd);
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    why = executable_ + " did not answer as a worker of this build (" +
          (ready == 1 && !greeting.empty() ? "it answered '" + greeting.substr(0, 80) + "'" : exit_description(status)) +
          ")";
    return std::nullopt;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::string executable_, subcommand_;
  bool enabled_ = false;
  bool broken_ = false;
  std::map<int, std::vector<Worker>> idle_;
  std::map<int, int> live_;
};

// Never destroyed: at exit the kernel closes the sockets and the workers read end of file and leave.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void enable_nvrtc_workers(const std::string& executable, const std::string& subcommand) {
  pool().enable(executable, subcommand);
}

bool nvrtc_workers_enabled() { return pool().usable(); }

CompiledKernel compile_anywhere(const GeneratedSource& source, const CompileOptions& options) {
  Pool& p = pool();
  if (!p.usable()) return compile_with_nvrtc(source, options);
  const std::string request = encode_request(source, options);
  const int nice = thread_nice();
  std::string death;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto w = p.checkout(nice);
    if (!w) return compile_with_nvrtc(source, options);
    std::string reply;
    if (send_message(w->fd, request) && recv_message(w->fd, reply)) {
      p.give_back(nice, *w);
      return decode_reply(reply, source, options);
    }
    death = p.discard(nice, *w);
  }
  throw CompileError("the NVRTC worker process compiling " + source.name + " died twice (last " + death +
                     "): NVRTC may crash on this source");
}

int nvrtc_worker_main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "this subcommand is jitsparse's NVRTC worker process, started by jitsparse itself\n";
    return 2;
  }
  // No PR_SET_PDEATHSIG: it fires when the spawning *thread* ends (build_all's threads are short-lived).
  // A worker leaves when its socket reads end of file, which the kernel gives when the parent dies.
  const int nice = std::atoi(argv[3]);
#ifdef SYS_close_range
  // Descriptors the parent left open without close-on-exec (a stream of the standard library, a lock
  // file) are not the worker's: closed, so none outlives the parent's use of it.
  ::syscall(SYS_close_range, kWorkerFd + 1, ~0u, 0);
#endif
  if (nice != 0) ::setpriority(PRIO_PROCESS, 0, nice);
  if (!send_message(kWorkerFd, hello())) return 1;
  for (std::string request; recv_message(kWorkerFd, request);)
    if (!send_message(kWorkerFd, serve(request))) return 1;
  return 0;
}

std::vector<int> nvrtc_worker_pids() { return pool().pids(); }

#endif

}  // namespace jitsparse
