"""Runs the ```python examples of docs/python.md, in order, in one namespace, in a
temporary directory (blocks marked ```python no-run are shown, not run)."""

import os
import re

from conftest import REPO

_BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)


def test_examples(tmp_path, monkeypatch, capsys):
    with open(os.path.join(REPO, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    blocks = [(m.group(1).strip(), m.group(2)) for m in _BLOCK.finditer(text)]
    runnable = [code for tag, code in blocks if "no-run" not in tag]
    assert len(runnable) >= 8
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_python_md"}
    for i, code in enumerate(runnable):
        exec(compile(code, f"docs/python.md example {i + 1}", "exec"), namespace)
