"""The documentation site's build (``SiteBuild``), run in a subprocess.

tests/docs/conftest.py starts it after collection when the site's tests will run, so
that the rest of the suite runs beside it; tests/docs/test_site.py waits for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
HTML = DOCS / "_build" / "html"
#: The modules the build needs (the docs extra).
DOCS_MODULES = ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme", "sphinxarg")


class SiteBuild:
    """One run of the site's build in a subprocess, its output in temporary files."""

    def __init__(self) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        }
        cmd = [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-n", "-q"]
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [*cmd, "-b", "html", str(DOCS), str(HTML)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=self._err,
            start_new_session=True,  # its notebook kernels in its own process group
        )
        self._result: tuple[int, str] | None = None

    def wait(self) -> tuple[int, str]:
        """(exit code, standard error) of the finished build."""
        if self._result is None:
            code = self._proc.wait()
            self._err.seek(0)
            self._result = (code, self._err.read().decode(errors="replace"))
            self._out.close()
            self._err.close()
        return self._result

    def stop(self) -> None:
        """End the build and its kernels if it is still running."""
        if self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGTERM)
                self._proc.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()


def docs_extra_missing() -> str | None:
    """The first module of the docs extra that is not installed, or None."""
    return next((m for m in DOCS_MODULES if find_spec(m) is None), None)
