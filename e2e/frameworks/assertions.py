"""The checks of what a model reads, shared by every framework's record (see `run`).

A record (written by a driver) is `{"case", "view", "marked", "raw"}`, `{"case", "crash"}` or
`{"case", "skipped"}`. For a failure case (`expect.channel` `isError` or `protocol`) the view
must carry the code, the retry advice as the payload's text writes it (`Not retryable.`,
`Retryable.`, `Retryable after ...`), the hint (`hintContains`) and `textContains`; the
framework's failure mark must be set where it has one; no string of `textExcludes` may appear
anywhere in the record. For a success the view must carry the string values of the expected
`structuredContent` and must not be marked as a failure.
"""

import json
import re


def strings(value) -> list[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def values(value) -> list[str]:
    """The string values inside a JSON value, keys left out."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [s for v in value for s in values(v)]
    return [value] if isinstance(value, str) else []


def haystack(view: str) -> str:
    """The view, and when it is JSON every string in it decoded (a JSON-encoded text block
    escapes quotes the model reads plainly)."""
    parts = [view]
    try:
        decoded = json.loads(view)
    except ValueError:
        decoded = None
    for text in strings(decoded):
        parts.append(text)
        try:
            parts.extend(strings(json.loads(text)))
        except ValueError:
            pass
    return "\n".join(parts)


def retry_advice(expect: dict) -> str | None:
    """The retry advice a failure's text must carry, None where the case gives no `retryable`."""
    if "retryable" not in expect:
        return None
    if not expect["retryable"]:
        return "Not retryable."
    return "Retryable after " if "retryAfterMs" in expect else "Retryable."


def failure_code(expect: dict) -> str | None:
    return expect.get("code") or (expect.get("data") or {}).get("code")


def check(case: dict, record: dict, has_mark: bool) -> list[str]:
    """The problems of one record; an empty list is a pass."""
    if "crash" in record:
        return [f"crash: {record['crash']}"]
    expect = case["expect"]
    text = haystack(record.get("view") or "")
    problems = []
    whole = json.dumps(record)
    problems += [f"leaks {needle!r}" for needle in expect.get("textExcludes", []) if needle in whole]
    if expect["channel"] == "result":
        if has_mark and record.get("marked"):
            problems.append("a success marked as a failure")
        problems += [f"no {s!r} in the result" for s in values(expect.get("structuredContent")) if s not in text]
        return problems
    code = failure_code(expect)
    if code and code not in text:
        problems.append(f"no code {code}")
    advice = retry_advice(expect)
    if advice is None:
        if "retryable" not in text.lower():
            problems.append("no retry advice")
    elif advice not in text:
        problems.append(f"no retry advice {advice.strip()!r}")
    if "hintContains" in expect and "Hint: " not in text:
        problems.append("no hint")
    elif "hintContains" in expect and expect["hintContains"] not in text:
        problems.append(f"hint without {expect['hintContains']!r}")
    if "textContains" in expect and expect["textContains"] not in text:
        problems.append(f"no {expect['textContains']!r}")
    if has_mark and not record.get("marked"):
        problems.append("not marked as a failure")
    return problems


# Hex runs bounded by anything but hex digits (`lc_<uuid>` has a word character before it).
_PLAIN_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")
_SPAN_ID = re.compile(r"(4bf92f3577b34da6a3ce929d0e0e4736)\.[0-9a-f]{16}(?![0-9a-f])")
# A date the demo computes from the day it runs ("delivered on 2026-10-18, 45 days ago").
_RELATIVE_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?=, \d+ days? ago)")
_UUID = re.compile(r"(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])")


def stable(text: str) -> str:
    """The text with the ids and dates that change from run to run replaced by placeholders."""
    text = _RELATIVE_DATE.sub("<date>", text)
    text = _SPAN_ID.sub(r"\1.<span-id>", text)
    text = _PLAIN_ID.sub(lambda m: m.group(0) if m.group(0).startswith("4bf92f35") else "<id>", text)
    return _UUID.sub("<uuid>", text)


def self_test() -> list[str]:
    """`check` rejects a view that lacks each piece it asks for: the problems of a check that
    let one through (run by `run` before the drivers)."""
    case = {
        "expect": {"channel": "isError", "code": "SEAT_TAKEN", "retryable": False, "hintContains": "A2",
                   "textExcludes": ["hunter2"]}
    }
    good = {"view": "SEAT_TAKEN: seat A1 is taken. Not retryable. Hint: free seats now: A2", "marked": True}
    slow = {"expect": {"channel": "isError", "code": "SLOW", "retryable": True, "retryAfterMs": 2000}}
    success = {"expect": {"channel": "result", "structuredContent": {"id": "A2", "status": "reserved"}}}
    wrong = [
        (case, {**good, "view": good["view"].replace("SEAT_TAKEN", "TAKEN")}, True),
        (case, {**good, "view": good["view"].replace("Not retryable.", "")}, True),
        (case, {**good, "view": good["view"].replace(" Hint: free seats now: A2", "")}, True),
        (case, {**good, "view": good["view"].replace("A2", "B1")}, True),
        (case, {**good, "marked": False}, True),
        (case, {**good, "raw": "password=hunter2"}, True),
        (case, {"crash": "McpError: boom"}, True),
        (slow, {"view": "SLOW: busy. Retryable.", "marked": True}, True),
        (success, {"view": '{"id":"A2","status":"reserved"}', "marked": True}, True),
        (success, {"view": '{"id":"A2"}', "marked": False}, True),
    ]
    problems = [] if not check(case, good, True) else ["check rejects a good failure view"]
    problems += [] if not check(success, {"view": '{"id":"A2","status":"reserved"}', "marked": False}, True) else [
        "check rejects a good success view"]
    problems += [f"check lets through {record}" for c, record, mark in wrong if not check(c, record, mark)]
    return problems
