"""The report opened in a real browser: Debian's headless Chromium driven by Selenium through the system
chromedriver (no driver download). Reports of real stand-in runs — one run, and a two-variant sweep — opened from
file:// URLs at a phone's width and a desktop's: no console errors, no horizontal scroll, the headline and the
timeline drawn and on screen.

Skipped, saying why, where Chromium, chromedriver or selenium are not installed (.ci/run installs them).
"""
import os
import shutil
import tempfile

import pytest

from tests.conftest import HAVE_MPL, STANDIN, run_phasewrap

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
WIDTHS = (600, 1400)
HEIGHT = 900
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed: pip install selenium")
pytestmark = [
    pytest.mark.skipif(not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)),
                       reason=f"{CHROMIUM} / {CHROMEDRIVER} not installed: apt-get install chromium chromium-driver"),
    pytest.mark.skipif(not HAVE_MPL, reason="the report's timeline needs matplotlib: pip install 'phasewrap[plot]'"),
]


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="phasewrap-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def standin(*extra: str) -> list:
    return STANDIN + ["--load-s", "0.2", "--tokens", "8", "--interval-s", "0.01", "-p", "a <b>prompt</b>"] + list(extra)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Two real reports: of one captured stand-in run, and of a sweep of two variants × two runs."""
    tmp = tmp_path_factory.mktemp("browser")
    one = run_phasewrap(["run", "-q", "--format", "none", "--ready", "model loaded", "--capture", str(tmp / "caps"),
                         "--jsonl", str(tmp / "one.jsonl"), "--"] + standin("--ttft-s", "0.1"))
    sweep = run_phasewrap(["run", "-q", "--format", "none", "--ready", "model loaded", "-n", "2", "-L", "ttft=0.05,0.2",
                           "--jsonl", str(tmp / "sweep.jsonl"), "--"] + standin("--ttft-s", "{ttft}"))
    assert one.returncode == 0 and sweep.returncode == 0, (one.stderr, sweep.stderr)
    out = {}
    for name, inputs in (("one", [str(tmp / "caps")]), ("sweep", [str(tmp / "sweep.jsonl")])):
        path = tmp / f"{name}.html"
        proc = run_phasewrap(["report"] + inputs + ["-o", str(path)])
        assert proc.returncode == 0, proc.stderr
        out[name] = "file://" + str(path)
    return out


def errors(driver) -> list:
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def open_at(driver, url: str, width: int) -> None:
    driver.set_window_size(width, HEIGHT)
    driver.get(url)
    driver.execute_script("window.scrollTo(0, 0)")


def box(driver, selector: str) -> dict:
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height,"
        " vw: document.documentElement.clientWidth, vh: window.innerHeight};", selector)


def test_the_console_check_sees_an_error(browser):
    """The log read below does report a page's console error (so an empty one means there was none)."""
    browser.get("data:text/html,<script>console.error('phasewrap-check')</script>")
    assert any("phasewrap-check" in e["message"] for e in errors(browser))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["one", "sweep"])
def test_report_in_a_browser(browser, reports, name, width):
    browser.get_log("browser")  # start from an empty log
    open_at(browser, reports[name], width)
    assert errors(browser) == []
    scroll = browser.execute_script("return [document.documentElement.scrollWidth, "
                                    "document.documentElement.clientWidth]")
    assert scroll[0] <= scroll[1], f"horizontal scroll at {width} px: {scroll}"
    head = box(browser, "#headline")
    assert head["width"] > 0 and head["height"] > 0
    assert 0 <= head["top"] < head["vh"] / 2 and head["right"] <= head["vw"]  # starts on the first screen
    browser.execute_script("document.querySelector('svg.timeline').scrollIntoView()")
    svg = box(browser, "svg.timeline")
    assert svg["width"] > 0.8 * (width - 60) and svg["height"] > 0
    assert svg["left"] >= 0 and svg["right"] <= svg["vw"] and svg["top"] < svg["vh"]
    text = browser.find_element("css selector", "#headline").text
    assert "dominates" in text or "variants" in text


def test_a_sweep_report_has_one_row_per_variant(browser, reports):
    open_at(browser, reports["sweep"], WIDTHS[1])
    rows = browser.execute_script(
        "const h = [...document.querySelectorAll('h2')].find(h => h.textContent === 'variants');"
        "return [...h.nextElementSibling.nextElementSibling.querySelectorAll('tr')].map("
        "tr => [...tr.children].slice(0, 2).map(td => td.textContent));")
    assert rows == [["variant", "runs"], ["ttft=0.05", "2"], ["ttft=0.2", "2"]]
    assert "2 variants (ttft)" in browser.find_element("css selector", "#headline").text
