#include "input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <vector>

namespace pplan::cli {

namespace {

ReadResult failure(std::string code, std::string message) {
  ReadResult r;
  r.code = std::move(code);
  r.message = std::move(message);
  return r;
}

/// Reads at most `limit` + 1 bytes, so an over-long input is seen without reading it all.
ReadResult read_stream(std::istream& stream, const std::string& name, std::size_t limit) {
  ReadResult r;
  std::vector<char> chunk(1 << 16);
  while (stream) {
    stream.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::size_t got = static_cast<std::size_t>(stream.gcount());
    if (got == 0) break;
    if (r.text.size() + got > limit) {
      return failure("input.too_large", name + " is larger than " + std::to_string(limit) +
                                            " bytes (64 MiB), the limit of every document");
    }
    r.text.append(chunk.data(), got);
  }
  if (stream.bad()) return failure("request.unreadable_file", "cannot read " + name);
  if (r.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return failure("request.empty_input",
                   name +
                       " is empty: it must hold a JSON document (an empty file, /dev/null or an "
                       "empty stdin holds none)");
  }
  return r;
}

}  // namespace

ReadResult read_document(const std::string& path, std::istream& in, std::size_t limit) {
  if (path == "-") return read_stream(in, "stdin", limit);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return failure("request.unreadable_file", "cannot read " + path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return failure("request.unreadable_file", "cannot read " + path + ": it is a directory");
  }
  if (S_ISREG(info.st_mode) && static_cast<unsigned long long>(info.st_size) > limit) {
    return failure("input.too_large", path + " is " + std::to_string(info.st_size) +
                                          " bytes, more than the limit of " +
                                          std::to_string(limit) + " (64 MiB)");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return failure("request.unreadable_file", "cannot read " + path + ": " + std::strerror(errno));
  return read_stream(file, path, limit);
}

}  // namespace pplan::cli
