"""Headless Chromium driven by Selenium for the tests of slipway's live page
(observe/page/): start it, wait on the page, read the drawn graph back.
Debian's chromium, chromium-driver and python3-selenium (scripts/setup.sh).
Shared by unit:observe:page_browser (a fixture server) and the integration
test against a running program's endpoint."""

import os
import shutil
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Browser:
    """One headless Chromium with its own profile directory, closed on exit."""

    def __init__(self, width=1400, height=900):
        self.profile = tempfile.mkdtemp(prefix="slipway-page-chromium.")
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                    "--disable-extensions", "--disable-background-networking",
                    f"--window-size={width},{height}", f"--user-data-dir={self.profile}"):
            options.add_argument(arg)
        if os.geteuid() == 0:
            options.add_argument("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait_until(self, what, predicate, timeout):
        """Polls predicate() every 50 ms; returns its first true value and the
        seconds it took, or raises AssertionError naming `what`."""
        start = time.monotonic()
        last = None
        while True:
            last = predicate()
            if last:
                return last, time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise AssertionError(f"after {timeout} s still waiting for {what} (last: {last!r})")
            time.sleep(0.05)

    def open_drawn(self, url, timeout=20):
        """Loads the page and waits for its first complete draw."""
        self.driver.get(url)
        self.wait_until("the page's first draw (body[data-drawn=1])",
                        lambda: self.js("return document.body.dataset.drawn === '1'"), timeout)

    def nodes(self):
        """{name: {"state", "fill", "x", "y", "width", "count"}} of every drawn node."""
        return self.js("""
            const out = {};
            for (const g of document.querySelectorAll('#graph g.node')) {
              const rect = g.querySelector('rect.box');
              const box = g.getBoundingClientRect();
              out[g.dataset.node] = {
                state: g.dataset.state, restarts: g.dataset.restarts,
                fill: getComputedStyle(rect).fill,
                x: box.x, y: box.y, width: rect.width.baseVal.value,
                transform: g.getAttribute('transform'),
                count: g.querySelector('text.count').textContent};
            }
            return out;""")

    def node(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, f'#graph g.node[data-node="{name}"]')

    def text(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css).text
