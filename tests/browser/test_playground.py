"""The playground in a real headless Chromium against a real ``awaken serve`` (demo model).

Scenarios: streamed text with a tool card, tool progress, approving and denying a suspended
call, reload and find the thread, the run timeline, cancelling a run, the API-key prompt, and
(on an embedded server) reasoning and text arriving piece by piece while the run goes on.
Every wait is an explicit WebDriverWait condition with a message naming what did not appear.
"""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from .conftest import (
    API_KEY,
    EmbeddedServer,
    LiveServer,
    click,
    present,
    table_rows,
    text_in,
    wait_for,
)


def _element(value: object) -> WebElement:
    assert isinstance(value, WebElement)
    return value


def open_playground(driver: WebDriver, server: LiveServer, path: str = "/playground") -> None:
    """Load the page, enter the API key once and wait until agents and threads are loaded."""
    driver.get(server.url + path)
    wait_for(driver, text_in("#status", "API key"), "the API-key prompt (the server needs a key)")
    key = driver.find_element(By.ID, "api-key")
    key.send_keys(API_KEY)
    key.send_keys(Keys.ENTER)
    wait_for(driver, present("body[data-ready='true']"), "the page to load agents and threads")
    wait_for(
        driver,
        lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-options option[value='assistant']"),
        "the agent 'assistant' listed",
    )
    assert driver.find_element(By.ID, "agent").get_attribute("value") == "assistant"


def send(driver: WebDriver, text: str) -> None:
    """Type a message and press Enter (keyboard only)."""
    box = driver.find_element(By.ID, "message")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def wait_finished(driver: WebDriver, termination: str) -> None:
    wait_for(
        driver,
        present(f".transcript [data-termination='{termination}']"),
        f"a run_finish with termination {termination!r} in the transcript",
    )


def test_send_message_streams_text_and_tool_card(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server, "/")
    send(browser, "What is the weather in Paris?")
    card = _element(
        wait_for(browser, present(".tool[data-tool-name='get_weather']"), "a get_weather tool card")
    )
    wait_for(browser, text_in(".tool[data-tool-name='get_weather'] .args", "Paris"), "its args")
    wait_for(browser, text_in(".msg[data-role='assistant']", "sunny in Paris"), "the answer")
    wait_finished(browser, "natural_end")
    assert "sunny in Paris" in card.find_element(By.CSS_SELECTOR, ".result").text
    assert "done" in (card.get_attribute("class") or "")
    user = browser.find_element(By.CSS_SELECTOR, ".msg[data-role='user']")
    assert "weather in Paris" in user.text
    assert browser.find_element(By.ID, "transcript").get_attribute("aria-live") == "polite"


def test_approve_suspended_call_finishes_the_run(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "approve the deploy to production")
    box = _element(wait_for(browser, present(".approval"), "the approval request"))
    assert "approve the deploy to production" in box.find_element(By.CSS_SELECTOR, "pre").text
    wait_finished(browser, "suspended")
    approve = box.find_element(By.CSS_SELECTOR, "button.approve")
    assert browser.switch_to.active_element == approve, "focus moves to the Approve button"
    approve.send_keys(Keys.ENTER)
    wait_for(browser, text_in(".msg[data-role='assistant']", '"approved":true'), "the answer")
    wait_finished(browser, "natural_end")
    assert not browser.find_elements(By.CSS_SELECTOR, ".approval")


def test_deny_suspended_call(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "approve deleting the database")
    box = _element(wait_for(browser, present(".approval"), "the approval request"))
    wait_finished(browser, "suspended")
    box.find_element(By.CSS_SELECTOR, "button.deny").click()
    wait_for(browser, text_in(".msg[data-role='assistant']", "cancelled by the user"), "the answer")
    wait_finished(browser, "natural_end")
    assert not browser.find_elements(By.CSS_SELECTOR, ".approval")


def test_reload_and_find_the_thread(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "count these five little words")
    wait_finished(browser, "natural_end")
    wait_for(browser, lambda d: "#thread=" in d.current_url, "the thread id in the address")
    thread_id = browser.current_url.split("#thread=", 1)[1]
    browser.get(live_server.url + "/playground")  # a plain reload without the thread in the URL
    wait_for(browser, present("body[data-ready='true']"), "the reloaded page (key kept per tab)")
    button = _element(
        wait_for(browser, present(f"#threads [data-thread-id='{thread_id}']"), "the thread listed")
    )
    button.click()
    wait_for(browser, text_in(".msg[data-role='user']", "five little words"), "its history")
    wait_for(browser, present(".tool[data-tool-name='word_count']"), "its tool call")
    assert button.get_attribute("aria-current") == "true"


def test_open_the_run_timeline(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "weather in Rome")
    wait_finished(browser, "natural_end")
    click(browser, "#runs .run-timeline", "a run's Timeline")
    wait_for(browser, present("#timeline[open]"), "the timeline dialog")
    wait_for(browser, present("#timeline-rows tr[data-event-type='run_finish']"), "run_finish row")
    rows = table_rows(browser, "#timeline-rows tr")
    types = [row[0] for row in rows]
    assert types[0] == "run_start" and types[-1] == "run_finish", types
    wait_for(browser, text_in("#timeline-run", "Server record: done"), "the run record's times")
    assert {"text_delta", "tool_call_ready", "tool_call_done", "step_end"} <= set(types)
    for row in rows:
        assert row[2].count(":") == 2, f"every event has a time: {row[2]!r}"
    browser.find_element(By.ID, "close-timeline").click()
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#timeline[open]"), "closing")


def test_reload_replays_timeline_from_server(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "weather in Oslo")
    wait_finished(browser, "natural_end")
    browser.refresh()  # the tab forgets the live events; the server's replay buffer has them
    wait_for(browser, present("body[data-ready='true']"), "the reloaded page")
    click(browser, "#runs .run-timeline", "the run list")
    wait_for(browser, present("#timeline-rows tr[data-event-type='run_finish']"), "replayed rows")
    assert "replayed" in browser.find_element(By.ID, "timeline-note").text


def test_cancel_a_run(browser: WebDriver, live_server: LiveServer):
    open_playground(browser, live_server)
    send(browser, "wait 600")
    wait_for(browser, present(".tool.running[data-tool-name='demo_wait']"), "the running wait")
    wait_for(
        browser,
        text_in(".tool[data-tool-name='demo_wait'] .progress", "waited 1 of 600s"),
        "the wait's progress report",
    )
    bar = browser.find_element(By.CSS_SELECTOR, ".tool[data-tool-name='demo_wait'] progress")
    assert bar.get_attribute("aria-label") == "Progress of demo_wait"
    click(browser, "#runs .run-timeline", "the running run listed")  # a live run's timeline
    wait_for(browser, present("#timeline-rows tr[data-event-type='tool_call_ready']"), "live rows")
    assert "still going" in browser.find_element(By.ID, "timeline-note").text
    browser.find_element(By.ID, "close-timeline").click()
    cancel = browser.find_element(By.ID, "cancel-run")
    wait_for(browser, lambda _: cancel.is_enabled(), "the Cancel run button to be enabled")
    cancel.click()
    wait_finished(browser, "cancelled")
    wait_for(browser, lambda _: not cancel.is_enabled(), "Cancel run to be disabled again")


def test_reasoning_and_text_stream_in_while_the_run_goes_on(
    browser: WebDriver, streaming_server: EmbeddedServer
) -> None:
    """No API key on this server: the page loads straight away."""
    browser.get(streaming_server.url + "/")
    wait_for(browser, present("body[data-ready='true']"), "the page (no key needed)")
    wait_for(browser, text_in("#status", "type an agent id"), "the hint to type the agent id")
    browser.find_element(By.ID, "agent").send_keys("streamer")
    send(browser, "two parts please")
    model = streaming_server.model
    wait_for(browser, text_in(".msg[data-role='assistant'] .text", model.FIRST), "the first piece")
    wait_for(browser, text_in(".msg .reasoning", model.REASONING), "the streamed reasoning")
    assert not browser.find_elements(By.CSS_SELECTOR, ".transcript [data-termination]"), (
        "the run must still be going while the model waits at the gate"
    )
    assert browser.find_element(By.ID, "cancel-run").is_enabled()
    model.gate.set()
    wait_for(
        browser, text_in(".msg[data-role='assistant'] .text", model.SECOND.strip()), "the rest"
    )
    wait_finished(browser, "natural_end")
    text = browser.find_element(By.CSS_SELECTOR, ".msg[data-role='assistant'] .text").text
    assert text == model.FIRST + model.SECOND


def test_keyboard_labels_and_visible_focus(browser: WebDriver, live_server: LiveServer) -> None:
    open_playground(browser, live_server)
    unlabelled = browser.execute_script(
        "return [...document.querySelectorAll('input, select, textarea')]"
        ".filter(e => !e.labels || !e.labels.length).map(e => e.id)"
    )
    assert unlabelled == [], f"controls without a label: {unlabelled}"
    nameless = browser.execute_script(
        "return [...document.querySelectorAll('button')]"
        ".filter(b => !(b.getAttribute('aria-label') || b.textContent.trim())).length"
    )
    assert nameless == 0
    browser.refresh()  # focus starts at the top of a fresh page (the key stays in the tab)
    wait_for(browser, present("body[data-ready='true']"), "the reloaded page")
    ActionChains(browser).send_keys(Keys.TAB).perform()  # the first stop is the skip link
    skip = browser.switch_to.active_element
    assert skip.get_attribute("class") == "skip"
    outline = browser.execute_script("return getComputedStyle(arguments[0]).outlineStyle", skip)
    assert outline == "solid", "keyboard focus must be visible"
    skip.send_keys(Keys.ENTER)
    wait_for(
        browser,
        lambda d: d.switch_to.active_element.get_attribute("id") == "message",
        "the skip link to move focus to the message box",
    )
    send(browser, "weather in Madrid")  # typing and Enter, no mouse
    wait_finished(browser, "natural_end")
    assert "sunny in Madrid" in browser.find_element(By.ID, "transcript").text
