#pragma once
// Reading a user-named file. Every failure (missing, unreadable, a name the OS rejects such as one
// over NAME_MAX) is an InputError naming the file; std::filesystem's throwing overloads are never used
// on user paths because their filesystem_error would escape as a crash instead of exit status 2.
#include <filesystem>
#include <string>

namespace k3::core {

// True when the path names something that exists; false for anything the OS refuses to look up.
bool path_exists(const std::filesystem::path& path) noexcept;

// The whole file as text, or InputError({path}, "no such file" | "cannot read the file", expected).
std::string read_text_file(const std::string& path, const std::string& expected);

// Writes `text` to `path`, replacing it; InputError({flag}, "cannot write '<path>'") when it cannot be.
void write_text_file(const std::string& path, const std::string& text, const std::string& flag);

}  // namespace k3::core
