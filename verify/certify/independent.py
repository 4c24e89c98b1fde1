"""Starting the independent checker's process (verify/checker/process.py) from the parent: the
request as plain data in, its lines and exit code out.  It imports nothing of the engine, so a
command that only asks the checker (`verify recheck --independent`) loads none of the code that
wrote the certificate."""
from __future__ import annotations

import json
import subprocess
import tempfile
from typing import Callable

from ..checker.process import command


def ask(request: dict, echo: Callable[[str], None] | None = None) -> tuple[int, list[str], str]:
    """The parent's side: start the child (:func:`command`), hand it ``request`` (the
    certificate's path, the registered claim, the constants' values as strings; optionally
    ``workers``, ``any_box``, ``corners``) and return its exit code, its lines (each passed to
    ``echo`` as it comes) and its standard error.  Nothing of the engine is imported here."""
    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(
            command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors,
            text=True) as child:
        child.stdin.write(json.dumps(request))
        child.stdin.close()
        for line in child.stdout:
            lines.append(line.rstrip("\n"))
            if echo:
                echo(lines[-1])
        child.wait()
        errors.seek(0)
        return child.returncode, lines, errors.read()
