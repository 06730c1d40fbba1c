"""Headless Chromium for the tests that look at pages as a reader does: Debian's chromium and chromium-driver
(which .ci/run installs) through selenium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@contextmanager
def chromium() -> Iterator[webdriver.Chrome]:
    """A headless Chromium that keeps its console log; fails (never skips) where the browser is missing."""
    if not (Path(CHROMIUM).is_file() and Path(DRIVER).is_file()):
        pytest.fail(f"{CHROMIUM} or {DRIVER} missing: apt-get install -y chromium chromium-driver")
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver) -> list[dict]:
    """The console's errors since the last call."""
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
