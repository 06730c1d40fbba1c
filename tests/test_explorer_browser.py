"""The explorer in a real browser: headless Chromium (Debian's chromium and chromium-driver, which .ci/run
installs) through selenium opens a toy page's explorer (with records) and a published page's (without), loads
every view, checks that every table and chart (the per-instance ones and the figures') holds data and that the
console has no error, filters a table, sorts it, picks two variants in the scatter, and saves screenshots under the
test's tmp folder.

Measured (headless Chromium 150, the 2-core machine shared with other jobs; `-s` prints each run's numbers): a
page loads about 4.85 MB, 4.82 MB of it plotly.min.js; from disk the load event comes after 3-5 s cold and
0.8-1.7 s warm (the largest published page, 242 KB of HTML: 3.5 s, then 1.5-1.7 s; the toy page with 210
records: 5.2 s, then 1.1-1.4 s; the one-file explorer: 3.0 s, then 0.7-0.9 s)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from browser import chromium, console_errors
from explorer_toys import toy_page
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from decoders.tables.explorer import build


@pytest.fixture(scope="module")
def browser():
    with chromium() as driver:
        yield driver


def site_bytes(index: Path) -> int:
    """Bytes the page loads: index.html, data.js and the scripts and style it names."""
    html = index.read_text()
    names = [
        "data.js",
        *(part.split('"')[0] for part in html.split('src="')[1:] if ".js" in part.split('"')[0]),
    ]
    names += [part.split('"')[0] for part in html.split('rel="stylesheet" href="')[1:]]
    return index.stat().st_size + sum((index.parent / name).stat().st_size for name in set(names))


def open_site(driver, index: Path) -> float:
    """Open the site from disk; returns seconds until it is ready; fails on any console error."""
    driver.get_log("browser")  # drop what earlier pages said
    start = time.perf_counter()
    driver.get(index.resolve().as_uri())
    WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    seconds = time.perf_counter() - start
    assert_no_errors(driver)
    return seconds


def assert_no_errors(driver) -> None:
    errors = console_errors(driver)
    assert not errors, f"JavaScript errors: {errors}"


def check_tables(driver) -> list:
    blocks = driver.find_elements(By.CSS_SELECTOR, ".table-block")
    assert blocks
    for block in blocks:
        rows = block.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert rows, block.get_attribute("id")
        count = block.find_element(By.CSS_SELECTOR, ".count").get_attribute("textContent")
        assert count == f"{len(rows)} of {len(rows)} rows"
        csv = block.find_element(By.CSS_SELECTOR, "a.download").get_attribute("href")
        assert csv.startswith("file://") and csv.endswith(".csv")
        assert Path(csv.removeprefix("file://")).is_file()
    return blocks


def points(chart) -> int:
    return chart.parent.execute_script(
        "return arguments[0].data.filter(t => t.name !== 'y = x').reduce((n, t) => n + t.x.length, 0)", chart
    )


def test_toy_explorer_in_chromium(browser, tmp_path):
    page = toy_page(tmp_path / "page")
    index = build(page)
    seconds = open_site(browser, index)
    browser.save_screenshot(str(tmp_path / "toy-top.png"))
    blocks = check_tables(browser)
    assert len(blocks) == 6
    assert (
        browser.find_elements(By.CSS_SELECTOR, "section")[0].get_attribute("id") == "results"
    )  # scoreboard first

    # filter: the table 1 rows of wsj only, then one column's value, then excluded
    table1 = browser.find_element(By.ID, "table-1-exactness-and-speed")
    box = table1.find_element(By.CSS_SELECTOR, "input.filter")
    box.send_keys("wsj")
    visible = [r for r in table1.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]
    assert [r.find_elements(By.TAG_NAME, "td")[0].text for r in visible] == ["wsj"] * 3
    assert table1.find_element(By.CSS_SELECTOR, ".count").text == "3 of 6 rows"
    box.send_keys(" -variant:beam")
    assert table1.find_element(By.CSS_SELECTOR, ".count").text == "2 of 6 rows"
    box.clear()
    box.send_keys(" ")  # an input event with no token: every row back
    assert table1.find_element(By.CSS_SELECTOR, ".count").text == "6 of 6 rows"
    # sort by sent_per_s (numbers, not text): descending on the second click
    header = table1.find_elements(By.CSS_SELECTOR, "th")[4]
    header.click()
    header.click()
    speeds = [
        float(r.find_elements(By.TAG_NAME, "td")[4].text)
        for r in table1.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert speeds == sorted(speeds, reverse=True) and speeds[0] == 9900
    assert header.get_attribute("aria-sort") == "descending"

    # per instance: three charts with data; the titles section says it has no records
    block = browser.find_element(By.CSS_SELECTOR, '.instances[data-experiment="chains"]')
    browser.execute_script("arguments[0].scrollIntoView()", block)
    charts = {
        name: block.find_element(By.CSS_SELECTOR, f".{name}")
        for name in ("scatter-time", "scatter-value", "size-time")
    }
    for name, chart in charts.items():
        assert chart.find_elements(By.CSS_SELECTOR, ".main-svg"), name
        assert points(chart) == 70, name  # 40 wsj + 30 ewt instances of the pair / the variant
    assert "y = x" in charts["scatter-time"].text
    none = browser.find_element(By.CSS_SELECTOR, '.instances.none[data-experiment="titles"]')
    assert "need a page published with its records" in none.text
    Select(block.find_element(By.CSS_SELECTOR, ".variant-a")).select_by_visible_text("viterbi")
    Select(block.find_element(By.CSS_SELECTOR, ".variant-b")).select_by_visible_text("beam-1")
    Select(block.find_element(By.CSS_SELECTOR, ".metric")).select_by_visible_text("objective")
    title = charts["scatter-value"].find_element(By.CSS_SELECTOR, ".gtitle").text
    assert title.startswith("objective: beam-1 against viterbi (70 instances")
    below = browser.execute_script(
        "const t = arguments[0].data.filter(t => t.name !== 'y = x');"
        "return t.reduce((n, s) => n + s.x.filter((x, i) => s.y[i] < x - 1e-9).length, 0)",
        charts["scatter-value"],
    )
    assert below == 10 + 8  # beam-1 below the optimum on every fourth instance of each dataset
    Select(block.find_element(By.CSS_SELECTOR, ".metric")).select_by_visible_text("token accuracy")
    assert charts["scatter-value"].find_element(By.CSS_SELECTOR, ".gtitle").text.startswith("token accuracy")
    Select(block.find_element(By.CSS_SELECTOR, ".variant-size")).select_by_visible_text("cg")
    assert "cg" in charts["size-time"].find_element(By.CSS_SELECTOR, ".gtitle").text
    # the page's figure as an interactive chart: both datasets' lines and the y = 1 line, the PNG folded below
    figure = browser.find_element(By.CSS_SELECTOR, '.figure-block[data-chart="figures/chains/speed.png"]')
    browser.execute_script("arguments[0].scrollIntoView()", figure)
    chart = figure.find_element(By.CSS_SELECTOR, ".figure-chart")
    assert chart.find_elements(By.CSS_SELECTOR, ".main-svg")
    names = browser.execute_script("return arguments[0].data.map(t => [t.name || '', t.x.length])", chart)
    assert names == [["wsj", 3], ["ewt", 3], ["", 2]]
    assert {e.text for e in chart.find_elements(By.CSS_SELECTOR, ".legendtext")} == {"wsj", "ewt"}
    assert figure.find_element(By.CSS_SELECTOR, "details").get_attribute("open") is None
    browser.save_screenshot(str(tmp_path / "toy-figure.png"))
    # a section link of the sticky header lands with the section's heading below the header, not under it
    link = browser.find_element(By.CSS_SELECTOR, "header nav a:nth-child(2)")
    link.click()
    target = browser.find_element(By.ID, link.get_attribute("href").split("#")[1])
    header_bottom, heading_top, at_end = browser.execute_script(
        "const end = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;"
        "return [document.querySelector('header').getBoundingClientRect().bottom,"
        " arguments[0].querySelector('h2').getBoundingClientRect().top, end]",
        target,
    )
    assert header_bottom <= heading_top and (heading_top < header_bottom + 40 or at_end)
    assert_no_errors(browser)
    browser.save_screenshot(str(tmp_path / "toy-scatter.png"))
    print(f"\ntoy explorer: {site_bytes(index)} bytes loaded, ready in {seconds:.2f} s")


def test_single_file_explorer_in_chromium(browser, tmp_path):
    """The one-file explorer (the report's item): the same tables and charts, CSVs as data: links."""
    page = toy_page(tmp_path / "page")
    single = tmp_path / "explorer.html"
    build(page, tmp_path / "site", single=single)
    shutil.rmtree(tmp_path / "site")  # nothing beside it is needed
    seconds = open_site(browser, single)
    blocks = browser.find_elements(By.CSS_SELECTOR, ".table-block")
    assert len(blocks) == 6
    for block in blocks:
        assert block.find_elements(By.CSS_SELECTOR, "tbody tr")
        href = block.find_element(By.CSS_SELECTOR, "a.download").get_attribute("href")
        assert href.startswith("data:text/csv;base64,")
    block = browser.find_element(By.CSS_SELECTOR, '.instances[data-experiment="chains"]')
    for name in ("scatter-time", "scatter-value", "size-time"):
        assert points(block.find_element(By.CSS_SELECTOR, f".{name}")) == 70, name
    chart = browser.find_element(By.CSS_SELECTOR, ".figure-block .figure-chart")
    assert browser.execute_script("return arguments[0].data.length", chart) == 3
    assert_no_errors(browser)
    browser.save_screenshot(str(tmp_path / "single.png"))
    print(f"\none-file explorer: {single.stat().st_size} bytes, ready in {seconds:.2f} s")


def test_published_page_explorer_in_chromium(browser, tmp_path, repo_root):
    pages = sorted((repo_root / "docs" / "results").glob("*/RESULTS.md"))
    assert pages
    page = pages[0].parent
    index = build(page, tmp_path / "explorer")
    seconds = open_site(browser, index)
    browser.save_screenshot(str(tmp_path / "published-top.png"))
    blocks = check_tables(browser)
    assert blocks[0].get_attribute("id").startswith("scoreboard")
    for block in browser.find_elements(By.CSS_SELECTOR, ".instances"):
        records = Path(page, "records", block.get_attribute("data-experiment"), "records.tar.xz").is_file()
        if not records:
            assert "need a page published with its records" in block.text
        else:
            assert block.find_elements(By.CSS_SELECTOR, ".scatter-time .main-svg")
    for figure in browser.find_elements(By.CSS_SELECTOR, ".figure-block"):  # a figure published with its spec
        assert figure.find_elements(By.CSS_SELECTOR, ".figure-chart .main-svg"), figure.get_attribute(
            "data-chart"
        )
    box = blocks[0].find_element(By.CSS_SELECTOR, "input.filter")
    box.send_keys("verdict:reproduced")
    count = blocks[0].find_element(By.CSS_SELECTOR, ".count").text
    shown, total = int(count.split()[0]), int(count.split()[2])
    assert 0 < shown < total
    assert_no_errors(browser)
    print(f"\n{page.name} explorer: {site_bytes(index)} bytes loaded, ready in {seconds:.2f} s")
