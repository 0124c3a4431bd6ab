#!/usr/bin/env python3
"""Fails on a broken internal link in the project's Markdown (CI; no third-party package).

Checks README.md, ARCHITECTURE.md, CONTRIBUTING.md, CHANGELOG.md (those present) and every
.md under docs/book/src:

- every relative link (inline `[text](dest)`, image, reference definition `[id]: dest`,
  HTML `href=`/`src=`) reaches a file or folder that exists in the repository; a path that
  leaves docs/book/src is resolved like any other, against the repository;
- every `#anchor` into a Markdown file (or the same file) matches one of its headings, by
  GitHub's and mdBook's slug rule (lowercase; letters, digits, `-` and `_` kept; a space is
  `-`; other punctuation dropped; a repeated heading gets `-1`, `-2`...), a heading's
  explicit `{#id}`, or an HTML `id=`/`name=` (`<a id="...">`);
- every page that docs/book/src/SUMMARY.md names exists, and every .md under docs/book/src
  is in SUMMARY.md.

Links with a scheme (https:, mailto:...) are not checked; nor is text in code blocks or code
spans. Usage: check-links.py [--root DIR] (default: the repository this script is in).
Prints each problem as FILE:LINE: ..., then a count; exits 1 if there was any.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
from urllib.parse import unquote

TOP_FILES = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "CHANGELOG.md"]
BOOK_SRC = os.path.join("docs", "book", "src")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# [text](dest) or ![alt](dest "title"); dest may be <...>. Text may hold one level of [...].
INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # [text], which may hold one [...]
    r"\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"  # (dest, which may hold one (...)
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"  # an optional "title")
)
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(
    r"<(?:a|img|link|script|source)\b[^>]*?\b(?:href|src)\s*=\s*(\"[^\"]*\"|'[^']*')", re.I
)
HTML_ID = re.compile(r"<[A-Za-z][^>]*?\b(?:id|name)\s*=\s*(\"[^\"]*\"|'[^']*')")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HEADING_ID = re.compile(r"\s*\{#([^}\s]+)[^}]*\}\s*$")
TAG = re.compile(r"<[^>]+>")


def blank_fences(lines):
    """The lines with fenced code blocks blanked (line numbers stay)."""
    out, fence = [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
            continue
        if fence is not None:
            mark = m.group(1) if m else ""
            if mark[:1] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            out.append("")
            continue
        out.append(line)
    return out


def blank_spans(lines):
    """The lines with code spans replaced by spaces."""
    text = "\n".join(lines)
    text = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text.split("\n")


def heading_text(raw):
    """A heading's text as rendered (the slug is made from it): code spans keep their
    content, links their text, emphasis and HTML tags go."""
    parts = []
    pos = 0
    for m in CODE_SPAN.finditer(raw):
        parts.append(("md", raw[pos:m.start()]))
        parts.append(("code", m.group(2).strip() if m.group(2).strip() else m.group(2)))
        pos = m.end()
    parts.append(("md", raw[pos:]))
    out = []
    for kind, s in parts:
        if kind == "md":
            s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)
            s = re.sub(r"!?\[([^\]]*)\]\[[^\]]*\]", r"\1", s)
            s = TAG.sub("", s)
            s = s.replace("*", "")
            s = re.sub(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])", "", s)
            s = s.replace("\\", "")
        out.append(s)
    return "".join(out).strip()


def slug(text):
    """GitHub's and mdBook's anchor of a heading's text."""
    out = []
    for ch in text.lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


class Page:
    """A Markdown file's anchors and links."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        no_fences = blank_fences(self.lines)
        self.code_free = blank_spans(no_fences)
        self.anchors = set()
        seen = {}
        prev = ""
        for i, line in enumerate(no_fences):
            title = None
            m = ATX.match(line)
            if m:
                title = m.group(2) or ""
            elif SETEXT.match(line) and prev.strip() and not ATX.match(prev) and i > 0:
                # A line of `=`/`-` under a paragraph line; `---` after a blank line is a rule.
                if not re.match(r"^ {0,3}([-*_])( *\1){2,} *$", prev):
                    title = prev.strip()
            prev = line
            if title is None:
                continue
            explicit = HEADING_ID.search(title)
            if explicit:
                self.anchors.add(explicit.group(1))
                title = title[: explicit.start()]
            base = slug(heading_text(title))
            n = seen.get(base, 0)
            seen[base] = n + 1
            self.anchors.add(base if n == 0 else f"{base}-{n}")
        for line in self.code_free:
            for m in HTML_ID.finditer(line):
                self.anchors.add(m.group(1)[1:-1])

    def links(self):
        """(line number, destination) of every link outside code."""
        # Over the whole text: a link's text (or an HTML tag) may wrap onto the next line.
        text = "\n".join(self.code_free)
        found = []
        for m in INLINE.finditer(text):
            found.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
        for m in HTML_LINK.finditer(text):
            found.append((text.count("\n", 0, m.start()) + 1, m.group(1)[1:-1]))
        for i, line in enumerate(self.code_free, 1):
            m = REFDEF.match(line)
            if m:
                found.append((i, m.group(1)))
        return sorted(found)


def repo_paths(root):
    """A test of whether a path (from the root) is in the repository: in a git work tree, a
    file git tracks or would track (not ignored, such as docs/book/book or target/), or a
    folder holding one; elsewhere, anything on disk."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True,
        ).stdout.decode()
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, check=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return lambda rel: os.path.exists(os.path.join(root, rel))
    if os.path.realpath(top) != root:
        return lambda rel: os.path.exists(os.path.join(root, rel))
    known = set()
    for f in out.split("\0"):
        if f and os.path.exists(os.path.join(root, f)):  # not deleted in the work tree
            known.add(os.path.normpath(f))
            d = os.path.dirname(f)
            while d and d not in known:
                known.add(d)
                d = os.path.dirname(d)
    return lambda rel: rel in known or rel == "."


def book_pages(root):
    src = os.path.join(root, BOOK_SRC)
    found = []
    for d, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".md"):
                found.append(os.path.relpath(os.path.join(d, f), root))
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args(argv)
    root = os.path.realpath(args.root)
    files = [f for f in TOP_FILES if os.path.isfile(os.path.join(root, f))]
    files += book_pages(root)
    problems = []
    pages = {}

    def page(rel):
        if rel not in pages:
            pages[rel] = Page(os.path.join(root, rel))
        return pages[rel]

    exists = repo_paths(root)
    nlinks = 0
    for rel in files:
        here = os.path.dirname(rel)
        for line, dest in page(rel).links():
            if dest.startswith("<") and dest.endswith(">"):
                dest = dest[1:-1]
            if not dest or SCHEME.match(dest) or dest.startswith("//"):
                continue
            nlinks += 1
            path, _, anchor = dest.partition("#")
            path = unquote(path)
            where = f"{rel}:{line}"
            if path.startswith("/"):
                problems.append(f"{where}: link '{dest}': an absolute path; use a relative one")
                continue
            target = os.path.normpath(os.path.join(here, path)) if path else rel
            full = os.path.join(root, target)
            if target == ".." or target.startswith(".." + os.sep) or os.path.isabs(target):
                problems.append(f"{where}: link '{dest}': leaves the repository")
                continue
            if not exists(target):
                hint = ""
                # The usual slip: a count of `../` right for a page at the top of the book, not
                # for one in a folder of it. Name the path that reaches the file from the page.
                bare = re.sub(r"^(\.\./)+", "", path)
                if bare != path and exists(os.path.normpath(bare)):
                    fixed = os.path.relpath(os.path.join(root, bare), os.path.join(root, here))
                    hint = f" (from {rel}, the repository's {bare} is {fixed}{'#' + anchor if anchor else ''})"
                problems.append(f"{where}: link '{dest}': no file {target}{hint}")
                continue
            if anchor and target.endswith(".md") and os.path.isfile(full):
                anchor = unquote(anchor)
                anchors = page(target).anchors
                if anchor not in anchors:
                    near = difflib.get_close_matches(anchor, sorted(anchors), n=1)
                    hint = f" (did you mean #{near[0]}?)" if near else ""
                    problems.append(f"{where}: link '{dest}': no heading or id '#{anchor}' in {target}{hint}")

    summary = os.path.join(BOOK_SRC, "SUMMARY.md")
    if os.path.isfile(os.path.join(root, summary)):
        listed = set()
        for line, dest in page(summary).links():
            path = unquote(dest.partition("#")[0])
            if not path or SCHEME.match(path):
                continue
            target = os.path.normpath(os.path.join(BOOK_SRC, path))
            listed.add(target)
            if not os.path.isfile(os.path.join(root, target)):
                problems.append(f"{summary}:{line}: the book's page {target} does not exist")
        for rel in book_pages(root):
            if rel != summary and rel not in listed:
                problems.append(f"{rel}: not in {summary} (mdBook would not build it)")
    elif os.path.isdir(os.path.join(root, BOOK_SRC)):
        problems.append(f"{summary}: missing")

    for p in problems:
        print(p)
    print(f"links: {nlinks} relative links in {len(files)} files checked; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
