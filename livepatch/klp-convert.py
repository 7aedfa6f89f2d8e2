#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""klp-convert.py MODULE.ko NAMES [NAME...]: turn the module's references
to the running kernel's functions and variables into livepatch relocations
(Documentation/livepatch/module-elf-format.rst).

NAMES is a file with one symbol name a line (extract.py's klp-syms.list);
further NAMEs may follow. Each such name the module references as an
undefined (weak) symbol becomes ".klp.sym.vmlinux.NAME,0" with section index
SHN_LIVEPATCH, and the relocations that use it move from .rela.SECTION to a
new section ".klp.rela.vmlinux.SECTION" (SHF_RELA_LIVEPATCH): the module
loader leaves them alone and the livepatch core resolves them by name in
vmlinux when the module loads (position 0: the name must be unique there).
Any other undefined weak symbol is an error, as is a listed name the module
does not reference. A module converted already is left as it is.
"""
import os
import struct
import sys

SHT_SYMTAB, SHT_RELA = 2, 4
SHF_ALLOC, SHF_INFO_LINK, SHF_RELA_LIVEPATCH = 0x2, 0x40, 0x00100000
SHN_UNDEF, SHN_LIVEPATCH = 0, 0xff20
STB_GLOBAL, STB_WEAK = 1, 2
EHDR = struct.Struct('<16sHHIQQQIHHHHHH')
SHDR = struct.Struct('<IIQQQQIIQQ')
SYM = struct.Struct('<IBBHQQ')
RELA = struct.Struct('<QQq')
PREFIX = '.klp.sym.vmlinux.'


def cstr(table, off):
    return table[off:table.index(b'\0', off)].decode()


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: klp-convert.py MODULE.ko NAMES [NAME...]')
    path = sys.argv[1]
    with open(sys.argv[2]) as f:
        names = {l.strip() for l in f if l.strip()}
    names.update(sys.argv[3:])
    data = bytearray(open(path, 'rb').read())
    eh = list(EHDR.unpack_from(data, 0))
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit('%s: not a little-endian ELF64 file' % path)
    shoff, shentsize, shnum, shstrndx = eh[6], eh[11], eh[12], eh[13]
    shdrs = [list(SHDR.unpack_from(data, shoff + i * shentsize)) for i in range(shnum)]
    shstr = bytes(data[shdrs[shstrndx][4]:shdrs[shstrndx][4] + shdrs[shstrndx][5]])
    secname = [cstr(shstr, s[0]) for s in shdrs]
    symidx = next(i for i, s in enumerate(shdrs) if s[1] == SHT_SYMTAB)
    symsh, strsh = shdrs[symidx], shdrs[shdrs[symidx][6]]
    strtab = bytearray(data[strsh[4]:strsh[4] + strsh[5]])
    nsyms = symsh[5] // SYM.size

    # The symbols: listed undefined ones to SHN_LIVEPATCH, under new names.
    klp, seen, converted = set(), set(), False
    for i in range(nsyms):
        off = symsh[4] + i * SYM.size
        name_off, info, other, shndx, value, size = SYM.unpack_from(data, off)
        name = cstr(strtab, name_off)
        if shndx == SHN_LIVEPATCH and name.startswith(PREFIX):
            converted = True
            continue
        if shndx != SHN_UNDEF or not name:
            continue
        if name in names:
            new_off = len(strtab)
            strtab += (PREFIX + name + ',0').encode() + b'\0'
            SYM.pack_into(data, off, new_off, (STB_GLOBAL << 4) | (info & 0xf), other,
                          SHN_LIVEPATCH, 0, 0)
            klp.add(i)
            seen.add(name)
        elif info >> 4 == STB_WEAK:
            sys.exit('%s: undefined weak symbol %s is not in the list of the kernel\'s '
                     'symbols' % (path, name))
    if converted and not klp:
        return
    missing = names - seen
    if missing:
        sys.exit('%s: does not reference %s' % (path, ' '.join(sorted(missing))))

    # The relocations that use them: out of .rela.X into .klp.rela.vmlinux.X.
    new_secs = []
    for idx, sh in enumerate(shdrs):
        if sh[1] != SHT_RELA or sh[6] != symidx or secname[idx].startswith('.klp.'):
            continue
        keep, move = [], []
        for k in range(sh[5] // RELA.size):
            rel = RELA.unpack_from(data, sh[4] + k * RELA.size)
            (move if rel[1] >> 32 in klp else keep).append(rel)
        if not move:
            continue
        for k, rel in enumerate(keep):
            RELA.pack_into(data, sh[4] + k * RELA.size, *rel)
        sh[5] = len(keep) * RELA.size
        target = secname[sh[7]]
        new_secs.append(('.klp.rela.vmlinux.' + target, sh[7],
                         b''.join(RELA.pack(*r) for r in move)))

    # Appended at the end: the string table, the relocation sections, the
    # section names and the section header table.
    def append(blob, align=8):
        data.extend(b'\0' * (-len(data) % align))
        off = len(data)
        data.extend(blob)
        return off

    strsh[4], strsh[5] = append(bytes(strtab), 1), len(strtab)
    shstr = bytearray(shstr)
    for name, target, blob in new_secs:
        name_off = len(shstr)
        shstr += name.encode() + b'\0'
        off = append(blob)
        shdrs.append([name_off, SHT_RELA, SHF_ALLOC | SHF_INFO_LINK | SHF_RELA_LIVEPATCH,
                      0, off, len(blob), symidx, target, 8, RELA.size])
    shdrs[shstrndx][4], shdrs[shstrndx][5] = append(bytes(shstr), 1), len(shstr)
    eh[6] = append(b''.join(SHDR.pack(*s) for s in shdrs))
    eh[12] = len(shdrs)
    EHDR.pack_into(data, 0, *eh)
    with open(path + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(path + '.tmp', path)


main()
