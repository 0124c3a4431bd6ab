"""Tests of .ci/check-links.py on small repositories it writes into temporary folders.

Run: python3 -m unittest discover -s .ci/tests -v
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check-links.py")

SUMMARY = """\
# Summary

[Introduction](introduction.md)

# Players

- [Playing](players/terminal.md)
  - [Tables](players/tables.md)
- [Reference](reference/api.md)
"""

INTRO = """\
# Introduction

See [playing](players/terminal.md#keys-and-colours), [the API](reference/api.md#service-ginv1lobbyservice),
the [example](../../../examples/bot.py) and [ARCHITECTURE](../../../ARCHITECTURE.md#the-codemap-server).
![a picture](pic.png "title") and <a href="players/tables.md#at-3">a table</a>.
An [external link](https://example.invalid/x#y) is not checked, nor `[code](missing.md)`:

```sh
echo [not a link](missing.md)
```

[ref]: players/tables.md#explicit-id
"""

TERMINAL = """\
# Playing in the terminal

## Keys and colours

## The `gin play` command: *all* of it

## Keys and colours

Setext heading
--------------

[back](../introduction.md#introduction), [same page](#keys-and-colours-1),
[code heading](#the-gin-play-command-all-of-it), [setext](#setext-heading).
"""

TABLES = """\
# At 3 {#explicit-id}

<a id="at-3"></a>
"""

ARCH = """\
# Architecture

## The codemap: `server/`
"""


class CheckLinks(unittest.TestCase):
    def repo(self, files=None):
        """A repository with a good book, with `files` (path -> text, None: absent) over it."""
        d = tempfile.mkdtemp(prefix="links-")
        self.addCleanup(subprocess.run, ["rm", "-rf", d])
        base = {
            "README.md": "# Gin\n\nThe [book](docs/book/src/introduction.md#introduction).\n",
            "ARCHITECTURE.md": ARCH,
            "examples/bot.py": "print()\n",
            "docs/book/src/SUMMARY.md": SUMMARY,
            "docs/book/src/introduction.md": INTRO,
            "docs/book/src/pic.png": "",
            "docs/book/src/players/terminal.md": TERMINAL,
            "docs/book/src/players/tables.md": TABLES,
            "docs/book/src/reference/api.md": "# gRPC API\n\n## Service `gin.v1.LobbyService`\n",
        }
        base.update(files or {})
        for path, text in base.items():
            if text is None:
                continue
            full = os.path.join(d, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(textwrap.dedent(text))
        return d

    def run_checker(self, root):
        p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_good_links_pass(self):
        rc, out = self.run_checker(self.repo())
        self.assertEqual(rc, 0, out)
        self.assertIn("0 problem(s)", out)
        # README 1, SUMMARY 4, introduction 7 (not the external one, nor those in code), terminal 4.
        self.assertIn("16 relative links in 7 files", out)

    def test_broken_file_link_fails(self):
        rc, out = self.run_checker(self.repo({"README.md": "See [x](docs/book/src/nope.md).\n"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:1: link 'docs/book/src/nope.md': no file docs/book/src/nope.md", out)

    def test_broken_anchor_fails(self):
        rc, out = self.run_checker(
            self.repo({"README.md": "See [x](docs/book/src/players/terminal.md#keys-and-colors).\n"})
        )
        self.assertEqual(rc, 1, out)
        self.assertIn(
            "no heading or id '#keys-and-colors' in docs/book/src/players/terminal.md (did you mean #keys-and-colours?)",
            out,
        )

    def test_broken_link_with_wrapped_text_fails(self):
        rc, out = self.run_checker(self.repo({"README.md": "# Gin\n\nSee [the book's\nintroduction](docs/book/src/intro.md).\n"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:3: link 'docs/book/src/intro.md': no file docs/book/src/intro.md", out)

    def test_broken_anchor_in_same_page_fails(self):
        rc, out = self.run_checker(self.repo({"ARCHITECTURE.md": ARCH + "\n[up](#the-codemap-server-1)\n"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("ARCHITECTURE.md:5: link '#the-codemap-server-1'", out)

    def test_broken_outside_book_link_fails(self):
        rc, out = self.run_checker(
            self.repo({"docs/book/src/reference/api.md": "## Service `gin.v1.LobbyService`\n\n[bot](../../../examples/bot.py)\n"})
        )
        self.assertEqual(rc, 1, out)
        self.assertIn(
            "docs/book/src/reference/api.md:3: link '../../../examples/bot.py': no file docs/examples/bot.py "
            "(from docs/book/src/reference/api.md, the repository's examples/bot.py is ../../../../examples/bot.py)",
            out,
        )

    def test_link_to_a_file_git_ignores_fails(self):
        # In a git work tree, "in the repository" is what git tracks or would track: a build's
        # output is on this disk but not in a fresh clone.
        root = self.repo({
            ".gitignore": "/target\n",
            "target/debug/gin": "",
            "README.md": "[gin](target/debug/gin), [folder](examples), [bot](examples/bot.py)\n",
        })
        subprocess.run(["git", "init", "-q", root], check=True)
        rc, out = self.run_checker(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:1: link 'target/debug/gin': no file target/debug/gin", out)
        self.assertIn("1 problem(s)", out)  # examples/ and examples/bot.py, untracked but not ignored, are in

    def test_page_missing_from_summary_fails(self):
        rc, out = self.run_checker(self.repo({"docs/book/src/players/extra.md": "# Extra\n"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/book/src/players/extra.md: not in docs/book/src/SUMMARY.md", out)

    def test_summary_page_missing_fails(self):
        rc, out = self.run_checker(self.repo({"docs/book/src/players/tables.md": None}))
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/book/src/SUMMARY.md:8: the book's page docs/book/src/players/tables.md does not exist", out)


if __name__ == "__main__":
    unittest.main()
