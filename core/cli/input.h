#pragma once
// Reading the documents the CLI is given, bounded while reading: /dev/zero, a FIFO or a 5 GB
// file costs at most `limit` + one chunk of memory, never everything it holds.

#include <cstddef>
#include <iosfwd>
#include <string>

namespace pplan::cli {

/// A document read from a path, or why it could not be.
struct ReadResult {
  std::string text;
  std::string
      code;  ///< empty on success; input.too_large, request.unreadable_file, request.empty_input
  std::string message;
  bool ok() const { return code.empty(); }
};

/// Reads `path` ("-" reads `in`) up to `limit` bytes. What holds only whitespace (an empty
/// file, /dev/null, an empty stdin) is request.empty_input; a directory, a missing or an
/// unreadable file request.unreadable_file; more than `limit` bytes input.too_large.
ReadResult read_document(const std::string& path, std::istream& in, std::size_t limit);

}  // namespace pplan::cli
