// Reading one 32-bit constant that a shared object exports (a SPANK
// plugin's `plugin_version`: the Slurm release it was built against)
// without loading it: dlopen would run its constructors and needs the
// symbols slurmstepd provides.
//
// Contract: elf_u32_symbol() reads the ELF64 little-endian file at `path`,
// finds `name` in its dynamic symbol table and returns the 4 bytes at the
// symbol's address in the file. Every offset and count read from the file
// is checked against its size (at most 64 MiB read); anything else (not
// ELF64, no such symbol, a symbol without bytes in the file) is nothing,
// with the reason in `error`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slipway::cli {

std::optional<std::uint32_t> elf_u32_symbol(const std::string& path, std::string_view name, std::string& error);

// Slurm's version number (SLURM_VERSION_NUMBER: major << 16 | minor << 8 |
// micro) as "MAJOR.MINOR" ("22.05"), the part Slurm checks when it loads a
// plugin.
std::string slurm_release_of(std::uint32_t version_number);

}  // namespace slipway::cli
