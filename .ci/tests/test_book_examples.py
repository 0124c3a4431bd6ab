"""Tests of .ci/book_examples.py on small repositories it writes into temporary folders (the
tty cases start tmux).

Run: python3 -m unittest discover -s .ci/tests -v
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "book_examples.py")

BOT = 'print("a first bot")\n'


def page(*parts):
    return "\n".join(parts) + "\n"


PASSING = page(
    "# Tour",
    "",
    "<!-- runnable -->",
    "```sh",
    "echo made > made.txt",
    "```",
    "",
    "Not run (no marker):",
    "",
    "```sh",
    "exit 1",
    "```",
    "",
    "- In a list:",
    "",
    "  <!-- runnable -->",
    "  ```sh",
    "  grep -q made made.txt   # the earlier block's file, from the root",
    "  test -f examples/first_bot.py",
    "  ```",
    "",
    "<!-- same-as: examples/first_bot.py -->",
    "```python",
    BOT.rstrip("\n"),
    "```",
    "",
    "````md",
    "<!-- runnable -->",
    "```sh",
    "exit 1   # inside a code block: text, not a marker",
    "```",
    "````",
)


class BookExamples(unittest.TestCase):
    def repo(self, files):
        d = tempfile.mkdtemp(prefix="book-examples-test-")
        self.addCleanup(shutil.rmtree, d, True)
        files = {"examples/first_bot.py": BOT, "server.log": "line 1\n\x1b[32m INFO\x1b[0m the server's last line\n", **files}
        for path, text in files.items():
            full = os.path.join(d, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return d

    def run_tool(self, root, *args, **env):
        p = subprocess.run(
            [sys.executable, SCRIPT, "--root", root, "--server-log", os.path.join(root, "server.log"), *args],
            capture_output=True,
            text=True,
            timeout=120,
            # No server: the blocks here do not call one (port 9 is discard's).
            env={**os.environ, "GIN_SERVER": "http://127.0.0.1:9", **env},
        )
        return p.returncode, p.stdout + p.stderr

    def test_without_gin_server_nothing_runs(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "```sh", "touch ran", "```")})
        rc, out = self.run_tool(root, GIN_SERVER="")
        self.assertEqual(rc, 2, out)
        self.assertIn("GIN_SERVER is not set", out)
        self.assertFalse(os.path.exists(os.path.join(root, "ran")))

    def test_passing_blocks_pass_in_order_from_the_root(self):
        root = self.repo({"README.md": PASSING})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 0, out)
        self.assertIn("README.md: 2 run, 0 tty, 1 same-as passed of 3", out)
        self.assertIn("examples: 3 passed, 0 failed", out)
        self.assertTrue(os.path.isfile(os.path.join(root, "made.txt")))

    def test_book_pages_in_summary_order(self):
        root = self.repo({
            "docs/book/src/SUMMARY.md": "# Summary\n\n- [B](b.md)\n- [A](a.md)\n",
            "docs/book/src/a.md": page("<!-- runnable -->", "```sh", "grep -q b order.txt", "```"),
            "docs/book/src/b.md": page("<!-- runnable -->", "```sh", "echo b > order.txt", "```"),
        })
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 0, out)
        self.assertLess(out.index("docs/book/src/b.md:1"), out.index("docs/book/src/a.md:1"))

    def test_failing_block_fails_with_file_line_output_and_server_log(self):
        root = self.repo({"README.md": page(
            "# Tour", "",
            "<!-- runnable -->", "```sh", "echo before", "false | cat", "echo after", "```", "",
            "<!-- runnable -->", "```sh", "echo never run", "```",
        )})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED README.md:3: exit status 1", out)
        self.assertIn("    before", out)  # its output
        self.assertNotIn("    after", out)  # pipefail and -e: stopped at the failing pipeline
        self.assertIn("    false | cat", out)  # the block
        self.assertIn("     INFO the server's last line", out)  # its colours gone
        self.assertIn("skipped: the 1 later block(s) of README.md", out)
        self.assertIn("examples: 0 passed, 1 failed", out)

    def test_unset_variable_fails(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "```sh", "echo \"$NO_SUCH_VARIABLE\"", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("NO_SUCH_VARIABLE: unbound variable", out)

    def test_block_past_its_timeout_fails(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "```sh", "sleep 30", "```")})
        rc, out = self.run_tool(root, "--timeout", "1")
        self.assertEqual(rc, 1, out)
        self.assertIn("still running after 1 s (killed)", out)

    def test_background_process_is_stopped_with_its_block(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "```sh", "sleep 60 &", "echo started", "```")})
        t = subprocess.run(["date", "+%s"], capture_output=True, text=True)
        rc, out = self.run_tool(root, "--timeout", "20")
        self.assertEqual(rc, 0, out)
        # It did not wait for the background sleep.
        self.assertLess(int(subprocess.run(["date", "+%s"], capture_output=True, text=True).stdout) - int(t.stdout), 15)

    def test_same_as_mismatch_fails_with_a_diff(self):
        root = self.repo({"README.md": page(
            "<!-- same-as: examples/first_bot.py -->", "```python", 'print("a second bot")', "```",
        )})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED README.md:1: the block differs from examples/first_bot.py", out)
        self.assertIn('-print("a first bot")', out)
        self.assertIn('+print("a second bot")', out)

    def test_same_as_missing_file_fails(self):
        root = self.repo({"README.md": page("<!-- same-as: examples/gone.py -->", "```python", "x", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("same-as: no file examples/gone.py", out)

    def test_marker_without_block_fails(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "", "```sh", "true", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:1: '<!-- runnable -->' must be followed, on the next line, by a fenced code block", out)

    def test_unknown_marker_fails(self):
        root = self.repo({"README.md": page("<!-- runnable: slow -->", "```sh", "true", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:1: '<!-- runnable: slow -->' is no marker this runner knows", out)

    def test_runnable_python_block_is_refused(self):
        root = self.repo({"README.md": page("<!-- runnable -->", "```python", "print(1)", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("a runnable block must be ```sh", out)

    def test_tty_block_that_draws_and_keeps_running_passes(self):
        # Reads a line at a time as a full-screen program reads keys; `q` then `y` end it.
        root = self.repo({"README.md": page(
            "<!-- runnable: tty -->", "```sh",
            "test -t 0 && test -t 1   # a terminal",
            "test \"$(tput cols) $(tput lines)\" = '120 40'",
            "echo 'the screen'",
            "read -rn1 a; read -rn1 b; test \"$a$b\" = qy",
            "```",
        )})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 0, out)
        self.assertIn("README.md:1: drew its screen; after q, y: ended with status 0", out)
        self.assertIn("README.md: 0 run, 1 tty, 0 same-as passed of 1", out)

    def test_tty_blocks_one_after_another(self):
        tty = ["<!-- runnable: tty -->", "```sh", "echo 'the screen'", "```", ""]
        root = self.repo({"README.md": page(*tty * 4)})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 0, out)
        self.assertIn("README.md: 0 run, 4 tty, 0 same-as passed of 4", out)

    def test_tty_block_that_fails_fails_with_its_screen(self):
        root = self.repo({"README.md": page(
            "<!-- runnable: tty -->", "```sh", "echo 'error: no such game' >&2", "exit 2", "```",
        )})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED README.md:1: ended with status 2", out)
        self.assertIn("    error: no such game", out)

    def test_tty_block_that_fails_after_drawing_fails(self):
        root = self.repo({"README.md": page(
            "<!-- runnable: tty -->", "```sh", "echo 'the screen'", "sleep 1", "exit 3", "```",
        )})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("ended with status 3 after drawing", out)

    def test_tty_block_that_ends_at_once_without_drawing_fails(self):
        root = self.repo({"README.md": page("<!-- runnable: tty -->", "```sh", "true", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED README.md:1: ended without drawing", out)

    def test_tty_block_that_draws_and_ends_passes(self):
        root = self.repo({"README.md": page("<!-- runnable: tty -->", "```sh", "echo 'usage: gin play'", "```")})
        rc, out = self.run_tool(root)
        self.assertEqual(rc, 0, out)

    def test_tty_block_that_draws_nothing_fails(self):
        root = self.repo({"README.md": page("<!-- runnable: tty -->", "```sh", "sleep 30", "```")})
        rc, out = self.run_tool(root, "--tty-wait", "2")
        self.assertEqual(rc, 1, out)
        self.assertIn("nothing on the screen after 2 s", out)


if __name__ == "__main__":
    unittest.main()
