#include "generator/cubin_info.hpp"

#include <cstdint>
#include <cstring>

namespace jitsparse {
namespace {

// Little-endian reads with bounds: false when [at, at + sizeof(T)) is outside the bytes.
template <class T>
bool read(const std::vector<char>& b, uint64_t at, T* out) {
  if (at > b.size() || b.size() - at < sizeof(T)) return false;
  std::memcpy(out, b.data() + at, sizeof(T));
  return true;
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0;
};

std::string c_string(const std::vector<char>& b, uint64_t at) {
  std::string s;
  for (; at < b.size() && b[at] != '\0'; ++at) s.push_back(b[at]);
  return s;
}

// .nv.info entries: a format byte, an attribute byte and a 16-bit field; with format EIFMT_SVAL the field
// is the size of a payload that follows, otherwise it is the value itself.
constexpr uint8_t kFormatSizedValue = 0x04;
constexpr uint8_t kAttributeFrameSize = 0x11, kAttributeRegisterCount = 0x2f;

}  // namespace

std::map<std::string, CubinKernelInfo> cubin_kernel_info(const std::vector<char>& b) {
  std::map<std::string, CubinKernelInfo> out;
  const char elf64[] = {0x7f, 'E', 'L', 'F', 2};
  if (b.size() < 64 || std::memcmp(b.data(), elf64, sizeof elf64) != 0) return out;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!read(b, 0x28, &shoff) || !read(b, 0x3a, &shentsize) || !read(b, 0x3c, &shnum) || !read(b, 0x3e, &shstrndx) ||
      shentsize < 64 || shstrndx >= shnum)
    return out;
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + static_cast<uint64_t>(i) * shentsize;
    Section& s = sections[i];
    if (!read(b, at, &s.name) || !read(b, at + 4, &s.type) || !read(b, at + 24, &s.offset) ||
        !read(b, at + 32, &s.size) || !read(b, at + 40, &s.link))
      return out;
  }
  const Section* info = nullptr;
  for (const Section& s : sections)
    if (c_string(b, sections[shstrndx].offset + s.name) == ".nv.info") info = &s;
  if (!info || info->link >= shnum) return out;
  // The attributes name kernels by their index in the symbol table the section links to.
  const Section& symtab = sections[info->link];
  if (symtab.link >= shnum) return out;
  const Section& strtab = sections[symtab.link];
  auto symbol_name = [&](uint32_t index) {
    uint32_t name = 0;
    const uint64_t at = symtab.offset + static_cast<uint64_t>(index) * 24;  // sizeof(Elf64_Sym)
    if (at + 24 > symtab.offset + symtab.size || !read(b, at, &name)) return std::string();
    return c_string(b, strtab.offset + name);
  };
  for (uint64_t at = info->offset; at + 4 <= info->offset + info->size;) {
    uint8_t format = 0, attribute = 0;
    uint16_t field = 0;
    if (!read(b, at, &format) || !read(b, at + 1, &attribute) || !read(b, at + 2, &field)) break;
    at += 4;
    if (format != kFormatSizedValue) continue;
    if (at + field > info->offset + info->size) break;
    uint32_t symbol = 0, value = 0;
    if ((attribute == kAttributeFrameSize || attribute == kAttributeRegisterCount) && field == 8 &&
        read(b, at, &symbol) && read(b, at + 4, &value)) {
      const std::string name = symbol_name(symbol);
      if (!name.empty()) {
        CubinKernelInfo& k = out[name];
        (attribute == kAttributeFrameSize ? k.frame_bytes : k.registers) = static_cast<int>(value);
      }
    }
    at += field;
  }
  return out;
}

int cubin_frame_bytes(const CompiledKernel& program, const std::string& variant_name) {
  for (size_t i = 0; i < program.variant_names.size() && i < program.lowered_names.size(); ++i) {
    if (program.variant_names[i] != variant_name) continue;
    const auto info = cubin_kernel_info(program.cubin);
    const auto it = info.find(program.lowered_names[i]);
    return it == info.end() ? -1 : it->second.frame_bytes;
  }
  return -1;
}

}  // namespace jitsparse
