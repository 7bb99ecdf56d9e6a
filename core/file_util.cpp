#include "core/file_util.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace jitsparse {

void make_private_dirs(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return;
  fs::create_directories(path, ec);
  if (ec && !fs::is_directory(path)) throw Error("cannot create folder '" + path + "': " + ec.message());
  ::chmod(path.c_str(), 0700);
}

std::string cache_root() {
  std::string root;
  if (const char* c = std::getenv("JITSPARSE_CACHE"); c && *c)
    root = c;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    root = std::string(x) + "/jitsparse";
  else if (const char* h = std::getenv("HOME"); h && *h)
    root = std::string(h) + "/.cache/jitsparse";
  else
    throw Error("no cache folder: set JITSPARSE_CACHE (or HOME)");
  make_private_dirs(root);
  return root;
}

void write_file_atomically(const std::string& path, const std::string& content, bool durable) {
  static std::atomic<unsigned> counter{0};
  std::ostringstream tmp;
  tmp << path << ".tmp." << ::getpid() << "." << std::hash<std::thread::id>()(std::this_thread::get_id()) << "."
      << counter++;
  const std::string tmp_path = tmp.str();
  // 0644 less the umask: reports are for reading; the cache stays private through its 0700 folder.
  int fd = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot write '" + tmp_path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp_path.c_str());
      throw Error("cannot write '" + tmp_path + "': " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (durable) ::fsync(fd);
  ::close(fd);
  if (::rename(tmp_path.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp_path.c_str());
    throw Error("cannot move '" + tmp_path + "' to '" + path + "': " + why);
  }
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  FileIdentity id;
  id.device = static_cast<unsigned long long>(st.st_dev);
  id.inode = static_cast<unsigned long long>(st.st_ino);
  id.size = static_cast<long long>(st.st_size);
  id.modified_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  id.changed_ns = static_cast<long long>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec;
  return id;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return s.str();
}

}  // namespace jitsparse
