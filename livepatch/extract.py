#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""extract.py CONFIG FAIR_C SCHED_H LIST OUTDIR [STOCK_FAIR_C]: the livepatch's generated sources.

FAIR_C is kernel/sched/fair.c of the matching linux-source with the series'
compat-yield patch applied; CONFIG the binary kernel's .config; LIST names, one a
line, what the livepatch takes from FAIR_C:

    copy NAME   the definition of NAME (function, variable or #define), as
                written in FAIR_C: the series' code and the stock helpers the
                binary kernel inlined
    boot NAME   what the series adds for a kernel's boot only (its boot
                parameter, its initcall): not taken
    own NAME    a definition of the series that reads or writes what a
                module cannot add to the running kernel (a field of struct
                task_group): not taken, livepatch_compat_yield.c defines
                its own
    klp NAME    a function or variable the binary kernel has out of line:
                declared here as a weak external, resolved at load time
                through a livepatch relocation (klp-convert.py); one that
                fair.c does not define is taken from the prototype in SCHED_H

Writes OUTDIR/compat_yield.c (the copies, in LIST's order, each under a
#line that names its place in fair.c), OUTDIR/klp-syms.h (the declarations),
OUTDIR/klp-syms.list (the klp names) and OUTDIR/klp-syms.kind (each with
"text" for a function, "data" for a variable). Only the branches of #if/#ifdef
that CONFIG selects are searched; a name found in none of them, or twice,
is an error. With STOCK_FAIR_C (fair.c without the series), so is a "copy"
of a variable that STOCK_FAIR_C defines as FAIR_C does: the copy would be
the livepatch's own, a second state beside the running kernel's (a klp
entry reaches the kernel's).

extract.py --changed CONFIG STOCK_FAIR_C FAIR_C prints the names whose
definitions the series adds or changes (the ones LIST must copy).
"""
import re
import sys


def read_config(path):
    on = set()
    with open(path) as f:
        for line in f:
            m = re.match(r'(CONFIG_\w+)=[ym]', line)
            if m:
                on.add(m.group(1))
    return on


def cond_value(expr, on):
    """True/False for the #if expressions fair.c uses, None when unknown."""
    expr = re.sub(r'/\*.*?\*/', '', expr).strip()
    m = re.fullmatch(r'(!?)\s*(?:defined\s*\(?\s*(CONFIG_\w+)\s*\)?|IS_ENABLED\s*\(\s*(CONFIG_\w+)\s*\))', expr)
    if m:
        val = (m.group(2) or m.group(3)) in on
        return not val if m.group(1) else val
    parts = re.split(r'\s*(&&|\|\|)\s*', expr)
    if len(parts) > 1:
        vals = [cond_value(p, on) for p in parts[::2]]
        if None in vals:
            return None
        ops = set(parts[1::2])
        if len(ops) != 1:
            return None
        return all(vals) if ops == {'&&'} else any(vals)
    if re.fullmatch(r'\d+', expr):
        return expr != '0'
    return None


def active_lines(lines, on):
    """For each line: True if the preprocessor keeps it under CONFIG, False
    if not, None if it cannot tell."""
    stack = []  # (value of this branch, any earlier branch taken)
    out = []
    for line in lines:
        s = line.strip()
        m = re.match(r'#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)', s)
        if m:
            d, rest = m.group(1), m.group(2).split('//')[0]
            if d == 'ifdef':
                v = cond_value('defined(%s)' % rest.strip(), on)
                stack.append([v, v])
            elif d == 'ifndef' and re.fullmatch(r'_\w+_H', rest.strip()):
                v = True  # a header guard
                stack.append([v, v])
            elif d == 'ifndef':
                v = cond_value('defined(%s)' % rest.strip(), on)
                v = None if v is None else not v
                stack.append([v, v])
            elif d == 'if':
                v = cond_value(rest, on)
                stack.append([v, v])
            elif d == 'elif':
                v = cond_value(rest, on)
                taken = stack[-1][1]
                stack[-1] = [None if taken is None or v is None else (not taken and v),
                             None if taken is None or v is None else (taken or v)]
            elif d == 'else':
                taken = stack[-1][1]
                stack[-1] = [None if taken is None else not taken, True]
            else:
                stack.pop()
            out.append(False)
            continue
        vals = [b[0] for b in stack]
        out.append(False if False in vals else (None if None in vals else True))
    return out


def leading_comment(lines, start):
    """Index of the first line of the comment block right above start."""
    i = start
    if i > 0 and lines[i - 1].rstrip().endswith('*/'):
        j = i - 1
        while j >= 0 and not lines[j].lstrip().startswith('/*'):
            j -= 1
        if j >= 0:
            return j
    return start


def statements(lines):
    """(first, last) line indexes of each top-level statement: a function
    definition or prototype, a variable, a #define; comments, blank lines
    and other preprocessor lines are not statements."""
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        if re.match(r'#\s*define\b', line):
            j = i
            while lines[j].rstrip().endswith('\\'):
                j += 1
            yield i, j
            i = j + 1
            continue
        if (not line.strip() or line[:1].isspace() or line.startswith(('#', '/*', ' *', '}', '{'))):
            i += 1
            continue
        j = i
        while True:
            s = lines[j].rstrip()
            if lines[j].startswith('{') or s.endswith('{'):
                # a body or an initialiser: to the "}" in column 0
                while not lines[j].startswith('}'):
                    j += 1
                break
            if s.endswith(';') or (s.endswith('}') and '{' in s):
                break  # a declaration, or a body on one line
            j += 1
        yield i, j
        i = j + 1


def statement_name(text):
    """The name a statement defines or declares."""
    m = re.match(r'#\s*define\s+(\w+)', text)
    if m:
        return m.group(1), 'define'
    head = re.split(r'=|\{', text, 1)[0]
    m = re.search(r'\b(DEFINE_[A-Z_]+|DECLARE_[A-Z_]+)\(\s*(\w+)', head)
    if m:
        return m.group(2), 'var'
    m = re.search(r'(\w+)\s*\(', head)
    if m:
        body = re.search(r'^\{', text, re.M) is not None
        return m.group(1), 'function' if body else 'prototype'
    head = re.sub(r'\s__(initdata|read_mostly|ro_after_init)\b', '', head)
    m = re.search(r'(\w+)\s*(\[[^]]*\])?\s*;?\s*$', head.strip())
    return (m.group(1) if m else None), 'var'


def definitions(lines, active, name, kinds=('define', 'function', 'var')):
    """(first, last) line indexes of each active definition of name."""
    found = []
    for first, last in statements(lines):
        text = '\n'.join(lines[first:last + 1])
        sname, kind = statement_name(text)
        if sname != name or kind not in kinds or active[first] is False:
            continue
        if active[first] is None:
            sys.exit('extract.py: %s (line %d) is under a condition this tool cannot '
                     'evaluate' % (name, first + 1))
        found.append((first, last))
    return found


def declaration(lines, first, last, name):
    """An extern __weak declaration from a definition."""
    text = ' '.join(l.strip() for l in lines[first:last + 1])
    if '(' in text.split('=')[0] and re.search(r'\b%s\s*\(' % re.escape(name), text):
        sig = text.split('{')[0].strip()
    else:
        sig = text.split('=')[0].rstrip(';').strip()
    sig = re.sub(r'\b(extern|static|inline|__always_inline|noinline|__init)\b\s*', '', sig)
    return 'extern %s __weak;' % sig.strip().rstrip(';').strip()


def changed(config, stock, patched):
    """The names whose active definitions differ between two fair.c's."""
    on = read_config(config)

    def defs(path):
        with open(path) as f:
            lines = f.read().split('\n')
        active = active_lines(lines, on)
        out = {}
        for first, last in statements(lines):
            name, kind = statement_name('\n'.join(lines[first:last + 1]))
            if name and kind != 'prototype' and active[first] is not False:
                out.setdefault(name, []).append('\n'.join(lines[first:last + 1]))
        return out

    a, b = defs(stock), defs(patched)
    return [name for name in sorted(b) if a.get(name) != b[name]]


def main():
    if len(sys.argv) == 5 and sys.argv[1] == '--changed':
        for name in changed(*sys.argv[2:]):
            print(name)
        return
    if len(sys.argv) not in (6, 7):
        sys.exit('usage: extract.py CONFIG FAIR_C SCHED_H LIST OUTDIR [STOCK_FAIR_C]')
    config, src, header, listf, outdir = sys.argv[1:6]
    ours = set(changed(config, sys.argv[6], src)) if len(sys.argv) == 7 else None
    on = read_config(config)
    with open(src) as f:
        lines = f.read().split('\n')
    active = active_lines(lines, on)
    with open(header) as f:
        hlines = f.read().split('\n')
    hactive = active_lines(hlines, on)
    code, decls, klp = [], [], []
    with open(listf) as f:
        entries = [l.split() for l in f if l.strip() and not l.startswith('#')]
    for kind, name in entries:
        if kind == 'boot':
            continue
        if kind == 'own':
            if len(definitions(lines, active, name)) != 1:
                sys.exit('extract.py: %s: own %s: not defined once in the active code'
                         % (src, name))
            continue
        defs = definitions(lines, active, name)
        where = lines
        if kind == 'klp' and not defs:
            # defined elsewhere (core.c): sched.h's prototype
            defs = definitions(hlines, hactive, name, ('prototype', 'var'))
            where = hlines
        if len(defs) != 1:
            sys.exit('extract.py: %s: %d definitions of %s in the active code (expected 1)'
                     % (src, len(defs), name))
        first, last = defs[0]
        if (kind == 'copy' and ours is not None and name not in ours and
                statement_name('\n'.join(lines[first:last + 1]))[1] == 'var'):
            sys.exit('extract.py: %s: copy %s: a variable of the stock fair.c; a copy would '
                     'be a second state beside the kernel\'s (klp reaches it)' % (listf, name))
        if kind == 'copy':
            begin = leading_comment(lines, first)
            code.append('#line %d "kernel/sched/fair.c"\n%s\n' %
                        (begin + 1, '\n'.join(lines[begin:last + 1])))
        elif kind == 'klp':
            decls.append(declaration(where, first, last, name))
            what = statement_name('\n'.join(where[first:last + 1]))[1]
            klp.append((name, 'data' if what == 'var' else 'text'))
        else:
            sys.exit('extract.py: %s: unknown kind %s' % (listf, kind))
    head = ('/* Generated by livepatch/extract.py from kernel/sched/fair.c with the\n'
            ' * series applied; do not edit. */\n')
    with open(outdir + '/compat_yield.c', 'w') as f:
        f.write(head + '\n'.join(code))
    with open(outdir + '/klp-syms.h', 'w') as f:
        f.write(head + '\n'.join(decls) + '\n')
    with open(outdir + '/klp-syms.list', 'w') as f:
        f.write('\n'.join(n for n, _ in klp) + '\n')
    with open(outdir + '/klp-syms.kind', 'w') as f:
        f.write(''.join('%s %s\n' % k for k in klp))


main()
