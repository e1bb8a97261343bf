#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

namespace {

// What a non-regular file is, for the message.
const char* input_file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor on every path out.
struct InputFd {
  int fd;
  ~InputFd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool is_regular_input_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_input_file(const std::string& path, std::string_view what, std::size_t max_bytes, bool utf8) {
  // stat first, so a FIFO is never opened (opening one for reading blocks until a writer comes);
  // O_NONBLOCK as well, for a file swapped for a FIFO between the two calls; fstat on the open
  // descriptor decides.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(fmt::format("{} '{}': {}", what, path, errno == ENOENT ? "no such file" : std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(fmt::format("{} '{}': is {}; give a regular file", what, path, input_file_kind(st.st_mode)));
  }
  InputFd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) throw Error(fmt::format("{} '{}': cannot open: {}", what, path, std::strerror(errno)));
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(fmt::format("{} '{}': is {}; give a regular file", what, path, input_file_kind(st.st_mode)));
  }
  const auto too_big = [&](std::size_t bytes) {
    return Error(fmt::format("{} '{}': {} bytes or more, over the {} MiB limit for an input file", what, path, bytes,
                             max_bytes >> 20));
  };
  if (static_cast<std::size_t>(st.st_size) > max_bytes) throw too_big(static_cast<std::size_t>(st.st_size));
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  // Read to end of file (a file may grow while read, e.g. under /proc): never past the cap.
  for (;;) {
    if (got == text.size()) {
      if (text.size() >= max_bytes + 1) throw too_big(text.size());
      text.resize(std::min(max_bytes + 1, std::max<std::size_t>(4096, text.size() * 2)));
    }
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{} '{}': cannot read: {}", what, path, std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) throw too_big(got);
  text.resize(got);
  if (utf8) require_utf8(text, fmt::format("{} '{}'", what, path));
  return text;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (RFC 3629, table 3-7)
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + 1 >= n || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if (i + k >= n || s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::nullopt;
}

void require_utf8(std::string_view text, std::string_view what) {
  if (const auto at = first_invalid_utf8(text)) {
    throw Error(fmt::format("{}: byte offset {} (0x{:02X}) is not UTF-8; give UTF-8 text", what, *at,
                            static_cast<unsigned>(static_cast<unsigned char>(text[*at]))));
  }
}

}  // namespace gpuplan
