#!/usr/bin/python3
"""Runs every code example of README.md and docs/*.md, or fails on one it may not skip.

    run_doc_examples.py --source SRC --build BUILD [--lint] [FILE.md ...]

A fenced block's info string says what happens to it (docs/README.md, "How the examples
are tested", is the rule for writers):

  cpp                 a complete program: compiled against the installed C++ package
                      (pkg-config lancet, -Wall -Wextra -Werror) and run; status 0 expected
  sh, bash            run by bash -euo pipefail
  python              run by the build's Python module; the blocks of one page share
                      one namespace, as a reader typing them into one interpreter would
  json                parsed; ndjson: every line parsed
  text                never run: output, synopses, grammars, layouts
  LANG file=NAME      not run, written to NAME in the page's directory (a plugin's source
                      the next sh block compiles, a header the C++ examples include, a
                      schema); written before anything of the page compiles or runs

Any block, whatever its language, is skipped when the line before its fence is
`<!-- not-run: REASON -->` with a reason. A block none of these rules covers (no
language, or another language without file=) fails the run, so a new example is either
tested or visibly marked.

The blocks of one page run in order in one fresh directory, so later blocks see what
earlier ones wrote. That directory holds `build`, a link to the build tree, so pages
name the build's files as a reader at the top of a checkout does (build/plugins/...);
the build's bin/ is on PATH and its python/ on PYTHONPATH. C++ programs are compiled
first, all pages' at once, against the dev component installed into a temporary prefix
(docs/install.md), the way a user's program builds.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>\S.*?)\s*-->\s*$")
RUN_LANGS = {"cpp", "sh", "bash", "python", "json", "ndjson"}
CXX_FLAGS = ["-std=c++20", "-O0", "-Wall", "-Wextra", "-Werror"]
# Long enough for python.md's index builds on a loaded machine, short enough that a hung
# server example cannot stall the suite.
BLOCK_TIMEOUT_S = 300


class Block:
    def __init__(self, path, line, lang, attrs, text, skip_reason):
        self.path = path            # relative to the source tree
        self.line = line            # 1-based line of the opening fence
        self.lang = lang
        self.attrs = attrs          # {"file": "x.c", ...}; bare words map to ""
        self.text = text
        self.skip_reason = skip_reason
        self.binary = None          # a compiled cpp block

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    def action(self):
        """What the runner does with the block, or None when no rule covers it."""
        if self.skip_reason:
            return "skip"
        if self.lang == "text":
            return "text"
        if "file" in self.attrs:
            return "file"
        if self.lang in RUN_LANGS:
            return self.lang
        return None


def parse_blocks(source, rel):
    """The fenced blocks of one Markdown file, in order."""
    with open(os.path.join(source, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").strip()
        start = i
        body = []
        i += 1
        while i < len(lines):
            close = lines[i].strip()
            if close.startswith(fence[0] * len(fence)) and close.strip(fence[0]) == "":
                break
            # Blocks inside list items are indented like the fence.
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        if i == len(lines):
            raise SystemExit(f"{rel}:{start + 1}: a code fence that is never closed")
        i += 1
        words = info.split()
        lang = words[0].lower() if words else ""
        attrs = {}
        for w in words[1:]:
            key, _, value = w.partition("=")
            attrs[key] = value
        prev = start - 1
        while prev >= 0 and lines[prev].strip() == "":
            prev -= 1
        skip = None
        if prev >= 0:
            n = NOT_RUN.match(lines[prev])
            if n:
                skip = n.group("reason")
        blocks.append(Block(rel, start + 1, lang, attrs, "\n".join(body) + "\n", skip))
    return blocks


def pages(source, files):
    if files:
        return [os.path.relpath(os.path.abspath(f), source) for f in files]
    found = ["README.md"] + sorted(
        os.path.relpath(p, source) for p in glob.glob(os.path.join(source, "docs", "**", "*.md"), recursive=True))
    return found


def install_prefix(build, work):
    """The dev component installed into work/prefix; returns its pkg-config directory."""
    prefix = os.path.join(work, "prefix")
    subprocess.run(["cmake", "--install", build, "--prefix", prefix, "--component", "dev"], check=True,
                   stdout=subprocess.DEVNULL)
    pcs = glob.glob(os.path.join(prefix, "**", "lancet.pc"), recursive=True)
    if not pcs:
        raise SystemExit(f"no lancet.pc under {prefix} after cmake --install")
    return os.path.dirname(pcs[0])


def page_dir_of(work, rel):
    return os.path.join(work, "pages", rel.replace("/", "_"))


def make_page_dir(work, rel, blocks, build):
    """The page's directory, with `build` and the page's file= blocks already there, so
    that the C++ examples can include a header the page defines."""
    page_dir = page_dir_of(work, rel)
    os.makedirs(page_dir)
    os.symlink(build, os.path.join(page_dir, "build"))
    for b in blocks:
        if b.action() == "file":
            write_file_block(page_dir, b)
    return page_dir


def write_file_block(page_dir, b):
    path = os.path.join(page_dir, b.attrs["file"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(b.text)


def compile_cpp(block, work, env, cxx):
    """Compiles one cpp block (its page's directory on the include path, for headers the
    page defines with file=); returns an error text or None."""
    name = f"{block.path.replace('/', '_').replace('.', '_')}_{block.line}"
    src = os.path.join(work, "cpp", name + ".cc")
    exe = os.path.join(work, "cpp", name)
    with open(src, "w", encoding="utf-8") as f:
        f.write(block.text)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lancet"], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
    launcher = [shutil.which("ccache")] if shutil.which("ccache") else []
    include = ["-I" + page_dir_of(work, block.path)]
    r = subprocess.run(launcher + [cxx] + CXX_FLAGS + include + [src, "-o", exe] + flags, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"does not compile:\n{r.stderr}"
    block.binary = exe
    return None


class PythonSession:
    """One interpreter per page: blocks are sent to it one at a time and run in one
    namespace, in the page's directory."""

    DRIVER = r"""
import contextlib, json, sys, traceback
namespace = {"__name__": "__doc_example__"}
commands = sys.stdin
replies = sys.stdout
sys.stdout = sys.stderr  # the examples' prints go to the log, the protocol stays clean
for line in commands:
    request = json.loads(line)
    try:
        exec(compile(request["code"], request["where"], "exec"), namespace)
        reply = {"ok": True}
    except BaseException:
        reply = {"ok": False, "error": traceback.format_exc()}
    replies.write(json.dumps(reply) + "\n")
    replies.flush()
"""

    def __init__(self, cwd, env, log):
        self.proc = subprocess.Popen(["/usr/bin/python3", "-c", self.DRIVER], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)

    def run(self, block):
        self.proc.stdin.write(json.dumps({"code": block.text, "where": block.where}) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            return "the interpreter died"
        reply = json.loads(reply)
        return None if reply["ok"] else reply["error"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def run_page(rel, blocks, work, env, verbose):
    """Runs one page's blocks in order; returns a list of failure texts."""
    page_dir = page_dir_of(work, rel)
    log_path = page_dir + ".log"
    failures = []
    python = None
    with open(log_path, "w+", encoding="utf-8") as log:
        try:
            for b in blocks:
                action = b.action()
                log.write(f"--- {b.where} ({action})\n")
                log.flush()
                error = None
                started = time.monotonic()
                if action in ("skip", "text"):
                    continue
                if action == "file":
                    write_file_block(page_dir, b)
                    continue
                if action == "json":
                    try:
                        json.loads(b.text)
                    except ValueError as e:
                        error = f"is not JSON: {e}"
                elif action == "ndjson":
                    for n, line in enumerate(b.text.splitlines(), 1):
                        try:
                            if line.strip():
                                json.loads(line)
                        except ValueError as e:
                            error = f"line {n} is not JSON: {e}"
                elif action in ("sh", "bash"):
                    try:
                        r = subprocess.run(["bash", "-euo", "pipefail", "-c", b.text], cwd=page_dir, env=env,
                                           stdout=log, stderr=log, timeout=BLOCK_TIMEOUT_S)
                        if r.returncode != 0:
                            error = f"exited with status {r.returncode}"
                    except subprocess.TimeoutExpired:
                        error = f"still running after {BLOCK_TIMEOUT_S} s"
                elif action == "python":
                    if python is None:
                        python = PythonSession(page_dir, env, log)
                    error = python.run(b)
                elif action == "cpp":
                    if b.binary is None:
                        continue  # its compile error is already reported
                    try:
                        r = subprocess.run([b.binary], cwd=page_dir, env=env, stdout=log, stderr=log,
                                           timeout=BLOCK_TIMEOUT_S)
                        if r.returncode != 0:
                            error = f"the program exited with status {r.returncode}"
                    except subprocess.TimeoutExpired:
                        error = f"still running after {BLOCK_TIMEOUT_S} s"
                log.flush()
                took = time.monotonic() - started
                if error:
                    log.seek(0)
                    failures.append(f"{b.where}: {b.lang} block {error}\n--- log of {rel} ---\n{log.read()}")
                    break  # later blocks of the page build on this one
                if verbose:
                    print(f"ok   {b.where} {action} ({took:.1f} s)", flush=True)
        finally:
            if python is not None:
                python.close()
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--build")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--lint", action="store_true", help="only check that every block is tested or marked")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (pages' files and logs)")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    source = os.path.abspath(args.source)

    started = time.monotonic()
    all_blocks = {}
    unmarked = []
    for rel in pages(source, args.files):
        blocks = parse_blocks(source, rel)
        all_blocks[rel] = blocks
        for b in blocks:
            if b.action() is None:
                lang = b.lang or "(no language)"
                unmarked.append(f"{b.where}: a {lang} block that is neither tested nor marked: give it a "
                                f"language the tests run, `text`, file=NAME, or a `<!-- not-run: reason -->` line")
            if b.lang == "cpp" and b.action() == "cpp" and "int main" not in b.text:
                unmarked.append(f"{b.where}: a cpp block without main(): make it a complete program or mark it")
    counts = {}
    for blocks in all_blocks.values():
        for b in blocks:
            counts[b.action() or "unmarked"] = counts.get(b.action() or "unmarked", 0) + 1
    print("doc examples: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())), flush=True)
    if unmarked:
        print("\n".join(unmarked), file=sys.stderr)
        return 1
    if args.lint:
        return 0
    if not args.build:
        ap.error("--build is needed to run the examples")
    build = os.path.abspath(args.build)

    work = tempfile.mkdtemp(prefix="lancet-docs.")
    failures = []
    try:
        env = dict(os.environ)
        env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = os.path.join(build, "python")
        # Nothing from the caller may decide which Lancet an example sees.
        for k in ("PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "LANCET_PLUGIN_DIR"):
            env.pop(k, None)
        os.makedirs(os.path.join(work, "pages"))
        runnable = {rel: blocks for rel, blocks in all_blocks.items()
                    if any(b.action() not in ("skip", "text") for b in blocks)}
        for rel, blocks in runnable.items():
            make_page_dir(work, rel, blocks, build)
        cpp = [b for blocks in all_blocks.values() for b in blocks if b.action() == "cpp"]
        needs_package = cpp or any(
            b.action() in ("sh", "bash") and "pkg-config" in b.text for blocks in all_blocks.values() for b in blocks)
        if needs_package:
            env["PKG_CONFIG_PATH"] = install_prefix(build, work)
        if cpp:
            os.makedirs(os.path.join(work, "cpp"))
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                errors = list(pool.map(lambda b: compile_cpp(b, work, env, args.cxx), cpp))
            for b, e in zip(cpp, errors):
                if e:
                    failures.append(f"{b.where}: cpp block {e}")
            print(f"compiled {len(cpp) - sum(1 for e in errors if e)}/{len(cpp)} C++ examples "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
        for rel, blocks in runnable.items():
            page_started = time.monotonic()
            page_failures = run_page(rel, blocks, work, env, args.verbose)
            failures += page_failures
            status = "FAILED" if page_failures else "ok"
            print(f"{status:6} {rel} ({time.monotonic() - page_started:.1f} s)", flush=True)
    finally:
        if failures or args.keep:
            print(f"(kept {work} for inspection)", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f, file=sys.stderr)
    print(f"doc examples: {'FAILED' if failures else 'passed'} in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
