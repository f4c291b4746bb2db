#!/usr/bin/env python3
"""Lists the Swift functions, initializers and accessors in Sources longer than a limit
(80 lines: the house rule), longest first, and exits 1 when there is one.

A body is measured from the line of its opening brace to the line of its closing one;
string literals (plain, multi-line, raw) and comments are skipped, so a brace inside
"{" is not counted. A nested function is part of the function around it.

    scripts/long-functions.py [--limit 80] [--top N] [DIR]
"""
import os
import re
import sys

DECLARATION = re.compile(r'\b(func|init|deinit|subscript)\b')


def code_only(text):
    """`text` with string literals and comments blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text[i] == '#' and re.match(r'#+"', text[i:]):
            hashes = re.match(r'#+', text[i:]).group(0)
            triple = text.startswith(hashes + '"""', i)
            close = ('"""' if triple else '"') + hashes
            j = text.find(close, i + len(hashes) + (3 if triple else 1))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text[i] == '"':
            j = i + 1
            depth = 0  # interpolations \( ... ) may hold strings of their own
            while j < n and not (text[j] == '"' and depth == 0) and text[j] != '\n':
                if text[j] == '\\' and j + 1 < n and text[j + 1] == '(':
                    depth += 1; j += 2; continue
                if text[j] == '\\':
                    j += 2; continue
                if depth and text[j] == ')':
                    depth -= 1
                j += 1
            out.append(' ' * (j + 1 - i)); i = j + 1
        else:
            out.append(text[i]); i += 1
    return ''.join(out)


def long_functions(path, limit):
    code = code_only(open(path, encoding='utf-8').read())
    found = []
    stack = []  # for each open brace: (line, name or None)
    pending = None
    line = 1
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == '\n':
            line += 1
        elif ch.isalpha() and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] in '_.')):
            m = DECLARATION.match(code, i)
            word = re.match(r'\w+', code[i:]).group(0)
            if m and word == m.group(1):
                rest = code[i:i + 120].split('\n')[0]
                pending = (line, rest.strip()[:70])
            i += len(word)
            continue
        elif ch == '{':
            stack.append((line, pending))
            pending = None
        elif ch == '}':
            if stack:
                start, declaration = stack.pop()
                if declaration and line - start + 1 > limit:
                    found.append((line - start + 1, path, declaration[0], declaration[1]))
            pending = None
        i += 1
    return found


def main():
    args = sys.argv[1:]
    limit, top = 80, None
    if '--limit' in args:
        k = args.index('--limit'); limit = int(args[k + 1]); del args[k:k + 2]
    if '--top' in args:
        k = args.index('--top'); top = int(args[k + 1]); del args[k:k + 2]; limit = 0
    root = args[0] if args else os.path.join(os.path.dirname(__file__), '..', 'Sources')
    found = []
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith('.swift'):
                found += long_functions(os.path.join(directory, name), limit)
    found.sort(reverse=True)
    for count, path, start, declaration in found[:top]:
        print(f'{count:4d}  {os.path.relpath(path)}:{start}  {declaration}')
    if top is None and found:
        sys.exit(1)


if __name__ == '__main__':
    main()
