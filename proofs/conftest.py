"""Collect every proof script in proofs/ as a test that runs it as ``__main__``."""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))


def _is_proof(path) -> bool:
    name = os.path.basename(str(path))
    return (
        name.endswith(".py")
        and not name.startswith("_")
        and not name.startswith("conftest")
        and os.path.dirname(os.path.abspath(str(path))) == _HERE
    )


class ProofFailed(Exception):
    """A proof script exited non-zero (or raised)."""


class ProofItem(pytest.Item):
    """Run one proof script in this process (like ``python proofs/<name>.py``)."""

    def runtest(self) -> None:
        out = io.StringIO()
        code: object = 0
        old_argv = sys.argv
        sys.argv = [str(self.path)]
        if _HERE not in sys.path:
            sys.path.insert(0, _HERE)
        try:
            with contextlib.redirect_stdout(out):
                try:
                    runpy.run_path(str(self.path), run_name="__main__")
                except SystemExit as e:
                    code = e.code
        except Exception as e:  # noqa: BLE001 - any exception is a failed proof
            raise ProofFailed(f"{type(e).__name__}: {e}\n\n{out.getvalue()}") from e
        finally:
            sys.argv = old_argv
        text = out.getvalue()
        sys.stdout.write(text)  # shown by pytest -s or on failure
        if code not in (0, None):
            raise ProofFailed(f"exit status {code!r}\n\n{text}")
        if "PROVED" not in text:
            raise ProofFailed(f"the script did not print a PROVED verdict\n\n{text}")

    def repr_failure(self, excinfo, style=None):  # type: ignore[override]
        if isinstance(excinfo.value, ProofFailed):
            return f"proof {self.path.name} failed: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"proof: {self.path.name}"


class ProofFile(pytest.File):
    """A proof script: one test item that runs it."""

    def collect(self):
        yield ProofItem.from_parent(self, name=self.path.stem)


def pytest_collect_file(parent, file_path):
    if _is_proof(file_path):
        return ProofFile.from_parent(parent, path=file_path)
    return None
