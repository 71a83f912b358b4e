"""Runs an interactive shell on a pseudo-terminal and types into it.

Usage: terminal.py PROGRAM [ARGUMENT...], with standard input holding four
lines: the set-up line (typed at once; it ends with a prompt of its own),
that prompt, the keys to type once the prompt is shown (so that the shell's
line editor, not the terminal, reads them; \\t, \\a and \\x15 are escaped
as in Python), and the text that ends the run. Prints everything the shell
wrote. Exits 1 when the shell ends or the end text is not seen before the
bound on reading (a generous one: a hung shell, never a slow one).
"""
import os
import pty
import select
import sys

BOUND_SECONDS = 120

setup, prompt, keys, end = (line.rstrip("\n") for line in sys.stdin.read().split("\n")[:4])
keys = keys.encode().decode("unicode_escape")
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
output = b""


def read_until(text):
    global output
    while text.encode() not in output:
        ready, _, _ = select.select([fd], [], [], BOUND_SECONDS)
        if not ready:
            return False
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        output += chunk
    return True


os.write(fd, (setup + "\r").encode())
found = read_until(prompt) and (os.write(fd, keys.encode()) > 0) and read_until(end)
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.stdout.write(output.decode(errors="replace"))
sys.exit(0 if found else 1)
