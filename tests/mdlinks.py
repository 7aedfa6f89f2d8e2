#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mdlinks.py [ROOT]: every relative link of the repository's Markdown files
([text](path), ![alt](path)) names a file or directory that exists. Code
spans and fenced blocks are skipped; URLs and in-page anchors are not
checked. Prints the broken links; exit status 1 if there is one."""
import os
import re
import subprocess
import sys

LINK = re.compile(r'!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = subprocess.run(['git', '-C', root, 'ls-files', '-co', '--exclude-standard', '*.md'],
                           capture_output=True, text=True, check=True).stdout.split()
    checked = broken = 0
    for name in files:
        path = os.path.join(root, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        text = re.sub(r'`[^`\n]*`', '', text)
        for target in LINK.findall(text):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target) or target.startswith('#'):
                continue
            checked += 1
            dest = os.path.normpath(os.path.join(os.path.dirname(path), target.split('#', 1)[0]))
            if not os.path.exists(dest):
                broken += 1
                print(f'{name}: broken link {target}')
    print(f'{checked} relative links in {len(files)} Markdown files, {broken} broken')
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main())
