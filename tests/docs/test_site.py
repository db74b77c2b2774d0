"""The documentation site: built with warnings as errors, complete, and browsed in Chromium.

The site is built once per test session (``python -m sphinx -E -W -n``, into
``docs/_build/html``; the notebooks execute unless jupyter-cache holds them unchanged),
in a subprocess started after collection that runs beside the rest of the suite
(tests/docs/conftest.py). The browser checks open it in headless Chromium (Debian's ``chromium`` and
``chromium-driver``) through selenium and save their screenshots under
``docs/_build/screenshots``. Outside CI a machine without Chromium or without the docs
extra skips them with the reason; in CI (``CI`` set) their absence fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import types
from pathlib import Path

import pytest

import qifldp
from qifldp.protocols.catalogue import CATALOGUE
from tests.docs.site_build import docs_extra_missing

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
HTML = BUILD / "html"
SCREENSHOTS = BUILD / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Seconds a page may take to show what a check waits for.
WAIT = 60

pytestmark = pytest.mark.slow


def _missing(reason: str) -> None:
    """Fail in CI, skip elsewhere: the site's tools are part of CI's install."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Path:
    """Build the site (warnings are errors, every reference must resolve); its html folder.

    The build runs in a subprocess started after collection (tests/docs/conftest.py),
    beside the rest of the suite; this waits for it."""
    missing = docs_extra_missing()
    if missing:
        _missing(f"the docs extra is not installed ({missing}): pip install -e '.[docs]'")
    returncode, stderr = request.getfixturevalue("site_build").wait()
    warnings = [
        line for line in stderr.splitlines() if "WARNING" in line and "[IPKernelApp]" not in line
    ]
    assert returncode == 0 and not warnings, stderr[-5000:]
    return HTML


def test_site_builds_without_warnings(site: Path):
    assert (site / "index.html").is_file() and (site / "search.html").is_file()


def test_every_public_name_and_protocol_has_a_page(site: Path):
    # read from the package, not from the generator: qifldp.__all__ and the catalogue
    modules = [n for n in qifldp.__all__ if isinstance(getattr(qifldp, n), types.ModuleType)]
    top = {id(getattr(qifldp, n)): n for n in qifldp.__all__ if n not in modules}
    for name in qifldp.__all__:
        if name in modules:
            page = site / "api" / "subpackages" / f"{name}.html"
            text = page.read_text()
            for member in getattr(qifldp, name).__all__:
                obj = getattr(getattr(qifldp, name), member)
                # described on its own page, or (a class qifldp also exports) linked to it
                linked = isinstance(obj, type) and f"qifldp.{top.get(id(obj))}.html" in text
                ids = (f'id="qifldp.{name}.{member}"', f'id="module-qifldp.{name}.{member}"')
                assert any(i in text for i in ids) or linked, (name, member)
        else:
            page = site / "api" / "generated" / f"qifldp.{name}.html"
            assert f'id="qifldp.{name}"' in page.read_text(), name
    for name, entry in CATALOGUE.items():
        text = (site / "api" / "protocols" / f"{name}.html").read_text()
        assert entry.signature().split("(")[0] in text
        assert all(p.name in text for p in entry.parameters), name


def test_audit_page_lists_every_claim(site: Path):
    from qifldp import audit

    text = (site / "audit.html").read_text()
    for c in audit.CLAIMS:
        assert c.key in text, c.key


@pytest.fixture(scope="module")
def browser(site: Path):
    """Headless Chromium through selenium, with a fresh profile folder."""
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        _missing(
            "Debian's chromium and chromium-driver are not installed "
            "(apt-get install -y chromium chromium-driver)"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed: pip install -e '.[docs]'")
    profile = tempfile.mkdtemp(prefix="qifldp-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver, page: Path | str) -> None:
    driver.get(page if isinstance(page, str) else page.as_uri())


def _wait(driver, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(condition, message=f"waiting for {what}")


def _shot(driver, name: str) -> None:
    path = SCREENSHOTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), path
    assert path.stat().st_size > 10_000, path  # a rendered page, not a blank one


def test_front_page(browser, site: Path):
    from selenium.webdriver.common.by import By

    _open(browser, site / "index.html")
    assert "qifldp" in browser.title
    cards = browser.find_elements(By.CSS_SELECTOR, ".sd-card")
    assert len(cards) >= 6  # one card per section
    links = {a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "a")}
    assert any(h and h.endswith("api/index.html") for h in links)
    _shot(browser, "front_page")


def test_refines_page_renders_math(browser, site: Path):
    from selenium.webdriver.common.by import By

    _open(browser, site / "api" / "generated" / "qifldp.refines.html")
    assert browser.find_element(By.ID, "qifldp.refines")
    # MathJax replaces the TeX source by rendered SVG; wait until it has
    _wait(
        browser,
        lambda d: d.execute_script(
            "return document.querySelectorAll('div.math svg, .MathJax_SVG svg').length"
        )
        > 0,
        "MathJax to render the math of the refines page",
    )
    raw = browser.execute_script(
        "return Array.from(document.querySelectorAll('div.math'))"
        ".map(e => e.innerText).join(' ')"
    )
    assert "\\sqsubseteq" not in raw  # no TeX source left visible
    browser.execute_script(
        "document.querySelector('div.math').scrollIntoView({block: 'center'})"
    )
    _shot(browser, "refines_api_page")


def test_notebook_page_shows_its_figures(browser, site: Path):
    from selenium.webdriver.common.by import By

    _open(browser, site / "gallery" / "notebooks" / "figures.html")
    images = browser.find_elements(By.CSS_SELECTOR, "div.cell_output img")
    assert len(images) >= 3
    loaded = browser.execute_script(
        "return Array.from(document.querySelectorAll('div.cell_output img'))"
        ".filter(i => i.complete && i.naturalWidth > 100).length"
    )
    assert loaded == len(images)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", images[0])
    _shot(browser, "notebook_figures")


def test_search_finds_the_refines_page(browser, site: Path):
    from selenium.webdriver.common.by import By

    _open(browser, (site / "search.html").as_uri() + "?q=refines")
    _wait(
        browser,
        lambda d: any(
            (a.get_attribute("href") or "").split("?")[0].endswith(
                "api/generated/qifldp.refines.html"
            )
            for a in d.find_elements(By.CSS_SELECTOR, "#search-results a")
        ),
        "the search results to list the refines API page",
    )
    _shot(browser, "search_refines")
