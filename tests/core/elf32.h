// elf32.h - minimal reader for the little-endian ELF32 RISC-V images that
// the tile core runs: loadable segments and symbol lookup. No libelf.
#ifndef WSEMU_TESTS_ELF32_H
#define WSEMU_TESTS_ELF32_H

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

struct Elf32Segment {
	uint32_t paddr;
	uint32_t memsz;
	std::vector<uint8_t> data;  // filesz bytes; the rest up to memsz is zero
};

struct Elf32Image {
	uint32_t entry = 0;
	std::vector<Elf32Segment> segments;
	std::map<std::string, uint32_t> symbols;

	bool symbol(const std::string &name, uint32_t *value) const
	{
		auto it = symbols.find(name);
		if (it == symbols.end())
			return false;
		*value = it->second;
		return true;
	}

	// Returns an empty string on success, else what is wrong.
	std::string load(const std::string &path)
	{
		std::ifstream f(path, std::ios::binary);
		if (!f)
			return "cannot open " + path;
		std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
		auto u16 = [&](size_t o) -> uint32_t { return o + 2 <= b.size() ? b[o] | (b[o + 1] << 8) : 0; };
		auto u32 = [&](size_t o) -> uint32_t {
			return o + 4 <= b.size() ? (uint32_t)b[o] | (uint32_t)b[o + 1] << 8 | (uint32_t)b[o + 2] << 16 |
							   (uint32_t)b[o + 3] << 24
						 : 0;
		};
		if (b.size() < 52 || memcmp(b.data(), "\177ELF", 4) != 0 || b[4] != 1 || b[5] != 1)
			return path + ": not a little-endian ELF32 file";
		if (u16(18) != 243)
			return path + ": not a RISC-V ELF file";
		entry = u32(24);
		uint32_t phoff = u32(28), shoff = u32(32);
		uint32_t phentsize = u16(42), phnum = u16(44), shentsize = u16(46), shnum = u16(48);
		for (uint32_t i = 0; i < phnum; i++) {
			size_t p = phoff + (size_t)i * phentsize;
			if (p + 32 > b.size())
				return path + ": truncated program header";
			if (u32(p) != 1 /* PT_LOAD */)
				continue;
			uint32_t off = u32(p + 4), paddr = u32(p + 12), filesz = u32(p + 16), memsz = u32(p + 20);
			if ((size_t)off + filesz > b.size() || filesz > memsz)
				return path + ": bad segment";
			if (memsz == 0)
				continue;
			Elf32Segment s;
			s.paddr = paddr;
			s.memsz = memsz;
			s.data.assign(b.begin() + off, b.begin() + off + filesz);
			segments.push_back(s);
		}
		for (uint32_t i = 0; i < shnum; i++) {
			size_t sh = shoff + (size_t)i * shentsize;
			if (sh + 40 > b.size() || u32(sh + 4) != 2 /* SHT_SYMTAB */)
				continue;
			uint32_t off = u32(sh + 16), size = u32(sh + 20), link = u32(sh + 24);
			size_t strsh = shoff + (size_t)link * shentsize;
			uint32_t stroff = u32(strsh + 16), strsize = u32(strsh + 20);
			for (uint32_t s = 0; s + 16 <= size; s += 16) {
				uint32_t name = u32(off + s), value = u32(off + s + 4);
				if (name >= strsize || stroff + name >= b.size())
					continue;
				const char *n = (const char *)&b[stroff + name];
				size_t maxlen = b.size() - (stroff + name);
				symbols[std::string(n, strnlen(n, maxlen))] = value;
			}
		}
		return "";
	}
};

#endif
