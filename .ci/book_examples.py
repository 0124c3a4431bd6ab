#!/usr/bin/env python3
"""Runs the marked code blocks of README.md and the book (CI; no third-party package).

The convention (a marker on the line right before a fenced block):

- `<!-- runnable -->` before a ```sh block (```bash and ```shell are taken too): it runs as
  a script with `bash -euo pipefail`, from the repository's root, standard input closed,
  within --timeout seconds (120). It passes if it ends with status 0; whatever it left
  running in the background is killed then.
- `<!-- runnable: tty -->` before a ```sh block: the block runs in a detached tmux session
  (120x40, its own tmux server). It passes if the screen shows something within --tty-wait
  seconds (10) and, two seconds later, the program is still running or ended with status 0.
  Then `q` and `y` are sent and the session is killed.
- `<!-- same-as: PATH -->` before any fenced block: the block's text must equal the file PATH
  (from the repository's root) byte for byte.

The blocks of a file run in order (a later block may use what an earlier one made); after a
failure the file's remaining blocks are skipped. The environment is this script's: the
caller (.ci/book-examples.sh) puts gin, gin-bot and gin-server first on PATH and sets
GIN_SERVER (without it nothing runs: exit 2). A marker this script does not know, or one not
followed at once by a fenced block, is a failure too. On a failure it prints the file, the line, the block, its output (a tty block:
its screen) and the tail of --server-log; it exits 1 if any block failed.

Usage: book_examples.py [--root DIR] [--server-log FILE] [FILE...]
(default files: README.md, then the book's pages in SUMMARY.md's order, then any other .md
under docs/book/src).
"""

import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARKER = re.compile(r"^\s*<!--\s*(runnable(?:\s*:\s*tty)?|same-as\s*:\s*(\S+))\s*-->\s*$")
LOOSE_MARKER = re.compile(r"^\s*<!--\s*(runnable|same-as)\b")
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)")
BOOK_SRC = os.path.join("docs", "book", "src")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SHELLS = ("sh", "bash", "shell")


class Block:
    def __init__(self, path, line, kind, lang, text, same_as=None):
        self.path = path  # the Markdown file, from the root
        self.line = line  # the marker's line (1-based)
        self.kind = kind  # "run", "tty" or "same-as"
        self.lang = lang
        self.text = text
        self.same_as = same_as

    def where(self):
        return f"{self.path}:{self.line}"


class Problem(Exception):
    pass


def parse(root, rel):
    """The marked blocks of a Markdown file; Problem if a marker marks no block."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        marker = MARKER.match(lines[i])
        if fence:
            # Skip any block (markers inside code are text).
            i = close(lines, i, fence)[1]
            continue
        if not marker:
            if LOOSE_MARKER.match(lines[i]):
                raise Problem(f"{rel}:{i + 1}: '{lines[i].strip()}' is no marker this runner knows "
                              "(<!-- runnable -->, <!-- runnable: tty -->, <!-- same-as: PATH -->)")
            i += 1
            continue
        where = f"{rel}:{i + 1}"
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            raise Problem(
                f"{where}: '{lines[i].strip()}' must be followed, on the next line, by a fenced code block"
            )
        body, end = close(lines, i + 1, fence)
        if end > len(lines):
            raise Problem(f"{where}: the code block after the marker is not closed")
        kind = marker.group(1)
        lang = fence.group(3)
        if marker.group(2):
            blocks.append(Block(rel, i + 1, "same-as", lang, body, same_as=marker.group(2)))
        else:
            if lang not in SHELLS:
                raise Problem(f"{where}: a runnable block must be ```sh (this one is '{lang or 'plain'}')")
            blocks.append(Block(rel, i + 1, "tty" if "tty" in kind else "run", lang, body))
        i = end
    return blocks


def close(lines, start, fence):
    """The text of the fenced block opened at `start`, and the index past its closing fence.
    As CommonMark: the content loses up to the fence's indentation; the block closes at a line
    of the same character at least as long, or at the end of the file."""
    indent, mark = len(fence.group(1)), fence.group(2)
    closing = re.compile(r"^ {0,3}" + re.escape(mark[0]) + "{" + str(len(mark)) + r",}\s*$")
    body = []
    j = start + 1
    while j < len(lines) and not closing.match(lines[j]):
        line = lines[j]
        k = 0
        while k < indent and k < len(line) and line[k] == " ":
            k += 1
        body.append(line[k:] + "\n")
        j += 1
    if j >= len(lines):
        return "".join(body), len(lines) + 1
    return "".join(body), j + 1


def default_files(root):
    files = [f for f in ["README.md"] if os.path.isfile(os.path.join(root, f))]
    src = os.path.join(root, BOOK_SRC)
    if not os.path.isdir(src):
        return files
    in_summary = []
    summary = os.path.join(src, "SUMMARY.md")
    if os.path.isfile(summary):
        with open(summary, encoding="utf-8") as f:
            for dest in re.findall(r"\]\(([^)#\s]+)", f.read()):
                rel = os.path.normpath(os.path.join(BOOK_SRC, dest))
                if os.path.isfile(os.path.join(root, rel)) and rel not in in_summary:
                    in_summary.append(rel)
    others = []
    for d, dirs, names in os.walk(src):
        dirs.sort()
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(d, n), root)
            if n.endswith(".md") and rel not in in_summary:
                others.append(rel)
    return files + in_summary + others


def show(title, text, limit=60):
    lines = text.rstrip("\n").split("\n") if text.strip() else ["(nothing)"]
    if len(lines) > limit:
        lines = [f"... ({len(lines) - limit} lines before)"] + lines[-limit:]
    print(f"--- {title}")
    for line in lines:
        print(f"    {line}")


class Runner:
    def __init__(self, root, server_log, timeout, tty_wait, work):
        self.root = root
        self.server_log = server_log
        self.timeout = timeout
        self.tty_wait = tty_wait
        self.work = work
        self.n = 0

    def script(self, block):
        self.n += 1
        path = os.path.join(self.work, f"block-{self.n}.sh")
        with open(path, "w") as f:
            f.write(block.text)
        return path

    def fail(self, block, why, output):
        print(f"FAILED {block.where()}: {why}")
        show(f"the block ({block.kind}, {block.lang or 'plain'})", block.text)
        show("its screen" if block.kind == "tty" else "its output", output)
        if self.server_log and os.path.isfile(self.server_log):
            with open(self.server_log, errors="replace") as f:
                tail = ANSI.sub("", "".join(f.readlines()[-30:]))
                show(f"server log, last lines ({self.server_log})", tail, 30)
        return False

    def run(self, block):
        return {"run": self.run_sh, "tty": self.run_tty, "same-as": self.same_as}[block.kind](block)

    def run_sh(self, block):
        script = self.script(block)
        # Output to a file, not a pipe: a process the block leaves in the background would
        # hold a pipe open.
        with open(script + ".out", "wb") as out:
            p = subprocess.Popen(
                ["bash", "-euo", "pipefail", script],
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                p.wait(timeout=self.timeout)
                why = None if p.returncode == 0 else f"exit status {p.returncode}"
            except subprocess.TimeoutExpired:
                why = f"still running after {self.timeout:g} s (killed)"
            # Whatever the block left running goes with it.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        with open(script + ".out", "rb") as f:
            output = f.read().decode(errors="replace")
        return self.fail(block, why, output) if why else True

    def run_tty(self, block):
        script = self.script(block)
        status = script + ".status"
        # A tmux server per block: a server that is still going away refuses a new session.
        sock = os.path.join(self.work, f"tmux-{self.n}.sock")
        wrapper = script + ".tty"
        with open(wrapper, "w") as f:
            # The status is written when the block ends; the pane (and its screen) stays.
            f.write(f'cd {sh_quote(self.root)}\nbash -euo pipefail {sh_quote(script)}\n'
                    f'echo $? > {sh_quote(status)}.tmp && mv {sh_quote(status)}.tmp {sh_quote(status)}\n'
                    'exec sleep 600\n')
        if shutil.which("tmux") is None:
            return self.fail(block, "tmux is not installed (Debian: apt-get install tmux)", "")
        tmux = ["tmux", "-S", sock]
        session = f"book-{self.n}"
        started = subprocess.run(
            tmux + ["new-session", "-d", "-s", session, "-x", "120", "-y", "40", "bash " + sh_quote(wrapper)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if started.returncode != 0:
            return self.fail(block, "tmux could not start a session", started.stdout + started.stderr)

        def screen():
            p = subprocess.run(tmux + ["capture-pane", "-p", "-t", session], capture_output=True, text=True)
            return p.stdout

        def ended():
            if not os.path.isfile(status):
                return None
            with open(status) as f:
                return int(f.read().strip() or "1")

        try:
            deadline = time.monotonic() + self.tty_wait
            drawn = ""
            while time.monotonic() < deadline:
                drawn = screen()
                if drawn.strip() or ended() is not None:
                    break
                time.sleep(0.2)
            code = ended()
            if code is not None and code != 0:
                return self.fail(block, f"ended with status {code}", screen())
            drawn = screen()
            if not drawn.strip():
                why = f"nothing on the screen after {self.tty_wait:g} s"
                if code is not None:
                    why = "ended without drawing"
                return self.fail(block, why, drawn)
            if code is None:
                # Drawn: it must not fail in the next seconds either.
                time.sleep(2)
                code = ended()
                if code is not None and code != 0:
                    return self.fail(block, f"ended with status {code} after drawing", screen())
            if code is None:
                subprocess.run(tmux + ["send-keys", "-t", session, "q"], check=False)
                time.sleep(0.5)
                subprocess.run(tmux + ["send-keys", "-t", session, "y"], check=False)
                for _ in range(25):
                    if ended() is not None:
                        break
                    time.sleep(0.2)
                code = ended()
                print(f"    {block.where()}: drew its screen; after q, y: "
                      + ("still running (killed)" if code is None else f"ended with status {code}"))
            return True
        finally:
            subprocess.run(tmux + ["kill-server"], capture_output=True)

    def same_as(self, block):
        path = os.path.join(self.root, block.same_as)
        if not os.path.isfile(path):
            return self.fail(block, f"same-as: no file {block.same_as}", "")
        with open(path, "rb") as f:
            want = f.read()
        if want == block.text.encode():
            return True
        diff = difflib.unified_diff(
            want.decode(errors="replace").splitlines(True),
            block.text.splitlines(True),
            fromfile=block.same_as,
            tofile=f"{block.where()} (the block)",
        )
        return self.fail(block, f"the block differs from {block.same_as}", "".join(diff))


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--server-log", help="its tail is printed on a failure")
    ap.add_argument("--timeout", type=float, default=120, help="seconds a runnable block may take")
    ap.add_argument("--tty-wait", type=float, default=10, help="seconds a tty block has to draw")
    ap.add_argument("files", nargs="*", help="Markdown files from the root (default: README.md, the book)")
    args = ap.parse_args(argv)
    root = os.path.realpath(args.root)
    files = args.files or default_files(root)
    if not os.environ.get("GIN_SERVER"):
        # Else `gin` would go to its default address: a server that is not this run's.
        print("GIN_SERVER is not set: run .ci/book-examples.sh, which starts a private server and sets it")
        return 2
    work = tempfile.mkdtemp(prefix="book-examples-")
    runner = Runner(root, args.server_log, args.timeout, args.tty_wait, work)
    passed = failed = skipped = 0
    rows = []
    try:
        for rel in files:
            try:
                blocks = parse(root, rel)
            except (Problem, OSError) as e:
                print(f"FAILED {e}")
                failed += 1
                rows.append((rel, "unreadable or badly marked"))
                continue
            counts = {"run": 0, "tty": 0, "same-as": 0}
            for i, block in enumerate(blocks):
                t = time.monotonic()
                ok = runner.run(block)
                took = time.monotonic() - t
                print(f"{'ok  ' if ok else 'FAIL'} {block.where()} {block.kind} ({took:.1f} s)")
                if ok:
                    passed += 1
                    counts[block.kind] += 1
                else:
                    failed += 1
                    skipped += len(blocks) - i - 1
                    if len(blocks) - i - 1:
                        print(f"     skipped: the {len(blocks) - i - 1} later block(s) of {rel}")
                    break
            if blocks:
                done = f"{counts['run']} run, {counts['tty']} tty, {counts['same-as']} same-as"
                rows.append((rel, f"{done} passed of {len(blocks)}"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\nmarked blocks per file:")
    for rel, what in rows:
        print(f"  {rel}: {what}")
    print(f"  ({len(files) - len(rows)} other file(s) have no marked block)")
    if skipped:
        print(f"{skipped} block(s) skipped after a failure in their file")
    print(f"examples: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
