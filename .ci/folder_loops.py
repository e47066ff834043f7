#!/usr/bin/env python3
"""Folder-level import loops: files grouped by their folder (src/radio/engine/*.rs is
folder radio/engine, src/radio/*.rs folder radio); an edge A -> B when a file of A
names `crate::...` or `super::...` items of a file in B. Prints each loop (a strongly
connected set of folders) and `folder loops: N`; exits 1 when N > 0.

usage: folder_loops.py [SRC] [--under PREFIX] [--edges]"""
import os
import re
import sys

args = [a for a in sys.argv[1:]]
show_edges = "--edges" in args
under = ""
if "--under" in args:
    under = args[args.index("--under") + 1]
    args.remove("--under")
    args.remove(under)
args = [a for a in args if not a.startswith("--")]
src = args[0] if args else "src"

mods = {}  # module path tuple -> file
for root, _, files in os.walk(src):
    for f in files:
        if not f.endswith(".rs"):
            continue
        rel = os.path.relpath(os.path.join(root, f), src)
        # test-only files (tests.rs, *_tests.rs, tests/ folders) do not count
        if f == "tests.rs" or f.endswith("_tests.rs") or "tests" in rel.split(os.sep)[:-1]:
            continue
        parts = rel[:-3].split(os.sep)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        mods[tuple(parts)] = rel


def folder(rel):
    d = os.path.dirname(rel)
    return d if d else "."


# re-exported child modules (`pub use engine::{request, scope};` in radio/mod.rs): the
# short name `radio::request` stands for the file it re-exports
aliases = {}
REEXPORT = re.compile(r"^pub use (\w+)::(?:\{([^}]*)\}|(\w+));", re.M)
for mod, rel in mods.items():
    text = open(os.path.join(src, rel), encoding="utf-8").read()
    for m in REEXPORT.finditer(text):
        names = m.group(2).split(",") if m.group(2) is not None else [m.group(3)]
        for name in (n.strip() for n in names):
            if name and (*mod, m.group(1), name) in mods:
                aliases[(*mod, name)] = (*mod, m.group(1), name)


def resolve(path):
    """The longest known module prefix of `path` (through re-exports)."""
    for n in range(len(path), 0, -1):
        prefix = tuple(path[:n])
        prefix = aliases.get(prefix, prefix)
        if prefix in mods:
            return prefix
    return None


USE = re.compile(r"\b(crate|super)((?:::\w+)+)")
edges = {}
for mod, rel in mods.items():
    text = open(os.path.join(src, rel), encoding="utf-8").read()
    # test-only code does not count
    text = re.split(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)[0]
    # visibility paths (`pub(in crate::lan)`) name no item
    text = re.sub(r"pub\(in [\w:]+\)", "pub", text)
    for m in USE.finditer(text):
        head, tail = m.group(1), m.group(2).split("::")[1:]
        if head == "crate":
            path = tail
        else:
            # `super` is the parent module, each further `super` one more up
            base = list(mod[:-1])
            while tail and tail[0] == "super":
                base, tail = base[:-1], tail[1:]
            path = base + tail
        target = resolve(path)
        if target is None or target == mod:
            continue
        a, b = folder(rel), folder(mods[target])
        if a != b and a.startswith(under) and b.startswith(under):
            edges.setdefault(a, set()).add(b)

# strongly connected components (Tarjan)
index, low, stack, on, sccs = {}, {}, [], set(), []
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
    if v not in index:
        visit(v)
if show_edges:
    for a in sorted(edges):
        print(a, "->", ", ".join(sorted(edges[a])))
for c in sccs:
    inner = [f"{a} -> {b}" for a in c for b in sorted(edges.get(a, ())) if b in c]
    print("loop:", " | ".join(inner))
print(f"folder loops: {len(sccs)}")
sys.exit(1 if sccs else 0)
