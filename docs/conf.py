"""Sphinx configuration of the qifldp documentation site.

Build it with ``python -m sphinx -E -W -n -b html docs docs/_build/html`` (warnings are
errors, every cross-reference must resolve). The API reference, the protocol pages, the
audit page and the gallery's notebook copies are generated at each build from the
package itself (``docs/_ext/generate.py``): ``qifldp.__all__``, the protocol catalogue
and the audit's claim table, never a hand-kept list.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import generate  # noqa: E402  (docs/_ext/generate.py: the generated pages)

import qifldp  # noqa: E402

generate.write_all(DOCS)

project = "qifldp"
author = "the qifldp authors"
copyright = "the qifldp authors"  # noqa: A001
release = version = qifldp.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinxarg.ext",
    "qifldp_refs",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_templates", "gallery/_notebooks.md"]
templates_path = ["_templates"]

# every cross-reference must resolve (-n): a name of the package resolves to its page, or,
# for a private helper the site does not document, to the real object it names
# (docs/_ext/qifldp_refs.py); only the standard library's and third-party types, which
# have no page here (no intersphinx: the build runs offline), are listed below
nitpicky = True
nitpick_ignore: list[tuple[str, str]] = [("py:class", "fractions.Fraction")]

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc sections state the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
# The notebooks run during the build (once per build folder: jupyter-cache keeps the
# outputs of unchanged notebooks); a failing cell fails the build.
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# Math: MathJax from Debian's libjs-mathjax, copied into the site when it is installed
# (.ci/run installs it), so that the pages render math offline; otherwise MathJax's CDN.
DEBIAN_MATHJAX = Path("/usr/share/javascript/mathjax")
html_static_path: list[str] = []
if (DEBIAN_MATHJAX / "MathJax.js").is_file():
    html_static_path.append(str(generate.copy_mathjax(DEBIAN_MATHJAX, DOCS / "_build" / "_mathjax")))
    mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_SVG-full"

html_theme = "pydata_sphinx_theme"
html_title = "qifldp"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
}
html_show_sourcelink = False
