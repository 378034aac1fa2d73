"""What every Python driver shares: the cases, the output record and the per-case loop.

A driver runs in its framework's own venv as `python DRIVER.py SERVER CASES OUT` and writes OUT:
`{"framework", "versions", "records": [{"case", "view", "marked", "raw"} | {"case", "crash"} |
{"case", "skipped"}]}`. `view` is what the framework hands the model as the tool result,
`marked` whether it marks that result as a failure (None where the framework has no mark).
"""

import asyncio
import json
import sys
import traceback
from importlib.metadata import version
from pathlib import Path

NO_META = "the framework's tool call sends no request _meta"
CASE_TIMEOUT_S = 60


def fault_args(case: dict) -> list[str]:
    """The demo-server arguments of a case: one `--fault F` per fault."""
    return [arg for fault in case["faults"] for arg in ("--fault", fault)]


def exact(content) -> str:
    """A tool result as the model reads it: a string as it is, anything else as JSON."""
    return content if isinstance(content, str) else json.dumps(content, default=str)


def crash(error: BaseException) -> str:
    """A one-line account of an exception: the first leaf of its exception groups, followed
    through the exceptions it was raised from."""
    seen = set()
    while id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        elif str(error) == "" and (error.__cause__ or error.__context__):
            error = error.__cause__ or error.__context__
        elif "TaskGroup" in str(error) and (error.__cause__ or error.__context__):
            error = error.__cause__ or error.__context__
        else:
            break
    return f"{type(error).__name__}: {error}".strip()


def main(framework: str, packages: list[str], run_case, can_send_meta: bool = True) -> None:
    server, cases_path, out = sys.argv[1:4]
    cases = json.loads(Path(cases_path).read_text())["cases"]
    records = []
    for case in cases:
        if case.get("meta") and not can_send_meta:
            records.append({"case": case["name"], "skipped": NO_META})
            continue
        try:
            record = asyncio.run(asyncio.wait_for(run_case(server, case), CASE_TIMEOUT_S))
        except BaseException as error:  # a crash of the framework is what we record
            if isinstance(error, KeyboardInterrupt):
                raise
            if "--debug" in sys.argv:
                traceback.print_exc()
            record = {"crash": crash(error)}
        records.append({"case": case["name"], **record})
    versions = {package: version(package) for package in packages}
    Path(out).write_text(json.dumps({"framework": framework, "versions": versions, "records": records}, indent=2))
