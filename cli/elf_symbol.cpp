// Reading a 32-bit constant from a shared object's dynamic symbols (see header).
#include "elf_symbol.hpp"

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace slipway::cli {
namespace {

constexpr std::size_t kMaxBytes = 64u << 20;

template <typename T>
bool read_at(const std::vector<char>& file, std::uint64_t offset, T& out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::optional<std::uint32_t> elf_u32_symbol(const std::string& path, std::string_view name, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  std::vector<char> file(kMaxBytes);
  in.read(file.data(), static_cast<std::streamsize>(file.size()));
  file.resize(static_cast<std::size_t>(in.gcount()));
  Elf64_Ehdr header;
  if (!read_at(file, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    error = path + " is not a 64-bit little-endian ELF file";
    return std::nullopt;
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum > 4096) {
    error = path + ": unexpected section headers";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    if (!read_at(file, header.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) {
      error = path + ": truncated section headers";
      return std::nullopt;
    }
  }
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_entsize != sizeof(Elf64_Sym)) continue;
    if (symtab.sh_link >= sections.size()) break;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    const std::uint64_t count = symtab.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t i = 0; i < count && i < 1000000; ++i) {
      Elf64_Sym sym;
      if (!read_at(file, symtab.sh_offset + i * sizeof(Elf64_Sym), sym)) break;
      if (sym.st_name >= strtab.sh_size || strtab.sh_offset + sym.st_name >= file.size()) continue;
      const char* at = file.data() + strtab.sh_offset + sym.st_name;
      const std::size_t room = std::min<std::uint64_t>(strtab.sh_size - sym.st_name, file.size() - (strtab.sh_offset + sym.st_name));
      if (std::string_view(at, strnlen(at, room)) != name) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size() || sym.st_size < 4) {
        error = path + ": " + std::string(name) + " has no value in the file";
        return std::nullopt;
      }
      const Elf64_Shdr& home = sections[sym.st_shndx];
      if (home.sh_type == SHT_NOBITS || sym.st_value < home.sh_addr) break;
      std::uint32_t value = 0;
      if (!read_at(file, home.sh_offset + (sym.st_value - home.sh_addr), value)) break;
      return value;
    }
  }
  error = path + " exports no " + std::string(name);
  return std::nullopt;
}

std::string slurm_release_of(std::uint32_t version_number) {
  char text[16];
  std::snprintf(text, sizeof text, "%u.%02u", (version_number >> 16) & 0xffu, (version_number >> 8) & 0xffu);
  return text;
}

}  // namespace slipway::cli
