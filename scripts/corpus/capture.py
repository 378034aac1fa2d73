#!/usr/bin/env python3
"""Captures real MCP servers' answers to failing tool calls, byte for byte, into tests/corpus/.

Each server runs over stdio from the pinned installs beside this script (see README.md); the
JSON-RPC lines are written by hand here. Every `tools/call` answer is kept as the exact line
the server wrote on stdout. A call with no answer within its time limit is kept with
`"answer": null`. Hand labels already in a case file are kept when the case is captured again.

Usage: capture.py [SERVER...]    (all servers when none is named)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "corpus")
sys.path.insert(0, HERE)

from fixture import Fixture  # noqa: E402
from mcphttp import HttpSession  # noqa: E402
from mcpstdio import Session  # noqa: E402

NODE_BIN = os.path.join(HERE, "node_modules", ".bin")
VENV = os.path.join(HERE, ".venv", "bin")
VENV_MCP1 = os.path.join(HERE, ".venv-mcp1", "bin")
VENV_FASTMCP = os.path.join(HERE, ".venv-fastmcp", "bin")
VENV_FASTMCP4 = os.path.join(HERE, ".venv-fastmcp4", "bin")
VENV_DUCKDB = os.path.join(HERE, ".venv-duckdb", "bin")
CARGO_BIN = os.path.join(HERE, ".cargo-bin", "bin")
SERVERS_DIR = os.path.join(HERE, "servers")
CHROMIUM = "/usr/bin/chromium"


def npm_version(package):
    with open(os.path.join(HERE, "node_modules", package, "package.json")) as f:
        return json.load(f)["version"]


def pip_version(venv, package):
    out = subprocess.run([os.path.join(venv, "pip"), "show", package], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError(f"no version for {package}")


class Case:
    """One call to provoke: the tool, its arguments and what it provokes."""

    def __init__(self, name, tool, arguments, provokes, timeout=20, user=None, restart=False,
                 before=None, after=None):
        self.name = name
        self.tool = tool
        self.arguments = arguments
        self.provokes = provokes
        self.timeout = timeout
        self.user = user
        # A case after which the session is not reused (a local timeout leaves a call running).
        self.restart = restart
        # Called just before and just after the call (to take and release a lock, say).
        self.before = before
        self.after = after


def write_case(server, meta, case, tools, line):
    directory = os.path.join(OUT, server)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, case.name + ".json")
    labels = None
    if os.path.exists(path):
        with open(path) as f:
            labels = json.load(f).get("labels")
    answer = None if line is None else line.decode("utf-8")
    kind = None
    if answer is not None:
        message = json.loads(answer)
        if "error" in message:
            kind = "jsonrpc_error"
        elif isinstance(message.get("result"), dict) and message["result"].get("isError") is True:
            kind = "result_is_error"
        else:
            kind = "result"
    tool = next((t for t in tools if t.get("name") == case.tool), None)
    record = {
        "server": server,
        "package": meta["package"],
        "version": meta["version"],
        "sdk": meta["sdk"],
        "serverInfo": meta.get("serverInfo"),
        "tool": case.tool,
        "toolAnnotations": None if tool is None else tool.get("annotations"),
        "arguments": case.arguments,
        "provokes": case.provokes,
        "runAs": case.user or "root",
        "timeoutSeconds": case.timeout,
        "answer": answer,
        "answerKind": kind,
        "labels": labels,
    }
    with open(path, "w") as f:
        json.dump(record, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"  {server}/{case.name}: {kind}")


def run(server, meta, argv, cases, env=None, cwd=None, http_url=None):
    """Runs the cases against one server, a session per user, restarting when a case asks.
    With `http_url`, the server listens there and is spoken to over Streamable HTTP."""
    print(server)
    session = None
    tools = []
    current_user = "unset"
    for case in cases:
        if session is None or case.user != current_user:
            if session is not None:
                session.close()
            if http_url is None:
                session = Session(argv, env=env, cwd=cwd, user=case.user)
            else:
                session = HttpSession(argv, http_url, env=env, cwd=cwd, user=case.user)
            meta["serverInfo"] = session.initialize()
            tools = session.list_tools()
            current_user = case.user
        if case.before is not None:
            case.before()
        line = session.call(case.tool, case.arguments, timeout=case.timeout)
        if case.after is not None:
            case.after()
        write_case(server, meta, case, tools, line)
        if case.restart or line is None:
            session.close()
            session = None
    if session is not None:
        session.close()


def world_readable_tmp():
    path = tempfile.mkdtemp(prefix="mcp-corpus-")
    os.chmod(path, 0o755)
    return path


def root_only_file(directory, name, content):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(content)
    os.chmod(path, 0o600)
    return path


def filesystem():
    root = world_readable_tmp()
    allowed = os.path.join(root, "allowed")
    os.makedirs(os.path.join(allowed, "sub"))
    os.chmod(allowed, 0o777)
    os.chmod(os.path.join(allowed, "sub"), 0o755)
    with open(os.path.join(allowed, "notes.txt"), "w") as f:
        f.write("one\ntwo\nthree\n")
    os.chmod(os.path.join(allowed, "notes.txt"), 0o644)
    root_only_file(allowed, "secret.txt", "root only\n")
    locked = os.path.join(allowed, "locked")
    os.makedirs(locked)
    os.chmod(locked, 0o700)
    outside = os.path.join(root, "outside.txt")
    with open(outside, "w") as f:
        f.write("outside\n")
    os.symlink(outside, os.path.join(allowed, "escape-link"))
    a = lambda *p: os.path.join(allowed, *p)  # noqa: E731
    cases = [
        Case("read_missing_file", "read_text_file", {"path": a("missing.txt")}, "a missing file"),
        Case("read_file_missing_deprecated", "read_file", {"path": a("nope.md")}, "a missing file through the deprecated tool"),
        Case("read_outside_root", "read_text_file", {"path": outside}, "a path outside the allowed roots"),
        Case("read_etc_passwd", "read_text_file", {"path": "/etc/passwd"}, "a path outside the allowed roots"),
        Case("read_dotdot_escape", "read_text_file", {"path": a("..", "outside.txt")}, "a .. path out of the allowed root"),
        Case("read_symlink_escape", "read_text_file", {"path": a("escape-link")}, "a symlink pointing outside the allowed roots"),
        Case("read_directory_as_file", "read_text_file", {"path": a("sub")}, "reading a directory as a file"),
        Case("read_path_wrong_type", "read_text_file", {"path": 42}, "a number where the path string goes"),
        Case("read_missing_path", "read_text_file", {}, "a missing required argument"),
        Case("read_head_and_tail", "read_text_file", {"path": a("notes.txt"), "head": 1, "tail": 1}, "two arguments that exclude each other"),
        Case("read_head_wrong_type", "read_text_file", {"path": a("notes.txt"), "head": "two"}, "a string where a number goes"),
        Case("read_multiple_one_missing", "read_multiple_files", {"paths": [a("notes.txt"), a("gone.txt")]}, "one of several files missing"),
        Case("read_multiple_empty", "read_multiple_files", {"paths": []}, "an empty list where one item is required"),
        Case("read_media_missing", "read_media_file", {"path": a("pic.png")}, "a missing media file"),
        Case("write_outside_root", "write_file", {"path": os.path.join(root, "new.txt"), "content": "x"}, "writing outside the allowed roots"),
        Case("write_into_missing_dir", "write_file", {"path": a("no", "such", "dir.txt"), "content": "x"}, "writing into a directory that does not exist"),
        Case("edit_no_match", "edit_file", {"path": a("notes.txt"), "edits": [{"oldText": "four", "newText": "4"}]}, "an edit whose old text is not in the file"),
        Case("edit_missing_file", "edit_file", {"path": a("gone.txt"), "edits": [{"oldText": "a", "newText": "b"}]}, "editing a missing file"),
        Case("edit_bad_edits_shape", "edit_file", {"path": a("notes.txt"), "edits": "replace one"}, "a string where a list of edits goes"),
        Case("list_missing_dir", "list_directory", {"path": a("nodir")}, "listing a missing directory"),
        Case("list_a_file", "list_directory", {"path": a("notes.txt")}, "listing a file as a directory"),
        Case("list_sizes_bad_sort", "list_directory_with_sizes", {"path": allowed, "sortBy": "date"}, "a value outside an enum"),
        Case("tree_missing_dir", "directory_tree", {"path": a("nodir")}, "a tree of a missing directory"),
        Case("move_missing_source", "move_file", {"source": a("gone.txt"), "destination": a("moved.txt")}, "moving a missing file"),
        Case("move_onto_existing", "move_file", {"source": a("notes.txt"), "destination": a("sub")}, "moving onto an existing destination"),
        Case("move_out_of_root", "move_file", {"source": a("notes.txt"), "destination": os.path.join(root, "x.txt")}, "moving out of the allowed roots"),
        Case("search_missing_dir", "search_files", {"path": a("nodir"), "pattern": "*.txt"}, "searching a missing directory"),
        Case("info_missing", "get_file_info", {"path": a("gone.txt")}, "info on a missing file"),
        Case("create_dir_outside", "create_directory", {"path": "/tmp/elsewhere-corpus"}, "creating a directory outside the allowed roots"),
        Case("unknown_tool", "delete_file", {"path": a("notes.txt")}, "a tool the server does not have"),
        Case("read_root_only_file", "read_text_file", {"path": a("secret.txt")}, "permission denied (server as nobody, file root-only)", user="nobody"),
        Case("list_root_only_dir", "list_directory", {"path": locked}, "permission denied on a directory (server as nobody)", user="nobody"),
        Case("write_root_only_file", "write_file", {"path": a("secret.txt"), "content": "x"}, "permission denied on write (server as nobody)", user="nobody"),
    ]
    meta = {"package": "@modelcontextprotocol/server-filesystem",
            "version": npm_version("@modelcontextprotocol/server-filesystem"), "sdk": "typescript"}
    run("filesystem", meta, [os.path.join(NODE_BIN, "mcp-server-filesystem"), allowed], cases)
    shutil.rmtree(root, ignore_errors=True)


def everything():
    cases = [
        Case("sum_wrong_types", "get-sum", {"a": "one", "b": 2}, "a string where a number goes"),
        Case("sum_missing_argument", "get-sum", {"a": 1}, "a missing required argument"),
        Case("sum_no_arguments", "get-sum", None, "no arguments at all"),
        Case("echo_missing_message", "echo", {}, "a missing required argument"),
        Case("echo_wrong_type", "echo", {"message": {"text": "hi"}}, "an object where a string goes"),
        Case("structured_bad_enum", "get-structured-content", {"location": "Paris"}, "a value outside an enum"),
        Case("resource_reference_bad_id", "get-resource-reference", {"resourceType": "Text", "resourceId": 100000}, "a resource id out of range"),
        Case("resource_links_too_many", "get-resource-links", {"count": 50}, "a number above the maximum"),
        Case("annotated_bad_type", "get-annotated-message", {"messageType": "fatal"}, "a value outside an enum"),
        Case("annotated_error_message", "get-annotated-message", {"messageType": "error"}, "the demo's error-annotated message"),
        Case("gzip_connection_refused", "gzip-file-as-resource", {"name": "x.gz", "data": "http://127.0.0.1:1/readme"}, "connection refused upstream"),
        Case("gzip_dns_failure", "gzip-file-as-resource", {"name": "x.gz", "data": "http://no-such-host.invalid/readme"}, "a DNS failure upstream"),
        Case("unknown_tool", "get-product", {"a": 1}, "a tool the server does not have"),
        Case("research_missing_topic", "simulate-research-query", {}, "a missing required argument"),
        Case("long_running_local_timeout", "trigger-long-running-operation", {"duration": 30, "steps": 3}, "no answer within the local limit", timeout=5, restart=True),
    ]
    meta = {"package": "@modelcontextprotocol/server-everything",
            "version": npm_version("@modelcontextprotocol/server-everything"), "sdk": "typescript"}
    run("everything", meta, [os.path.join(NODE_BIN, "mcp-server-everything")], cases)


def memory():
    root = world_readable_tmp()
    good = os.path.join(root, "memory.jsonl")
    corrupt = os.path.join(root, "corrupt.jsonl")
    with open(corrupt, "w") as f:
        f.write('{"type":"entity","name":"A","entityType":"t","observations":[]}\nnot json\n')
    locked = root_only_file(root, "locked.jsonl", '{"type":"entity","name":"A","entityType":"t","observations":[]}\n')
    entity = {"name": "Alice", "entityType": "person", "observations": ["likes tea"]}
    cases = [
        Case("create_entities_wrong_shape", "create_entities", {"entities": "Alice"}, "a string where a list goes"),
        Case("create_entities_missing_field", "create_entities", {"entities": [{"name": "Bob"}]}, "an entity without its required fields"),
        Case("create_entities_ok", "create_entities", {"entities": [entity]}, "a successful create (for contrast)"),
        Case("create_entities_duplicate", "create_entities", {"entities": [entity]}, "creating an entity that already exists"),
        Case("add_observations_unknown_entity", "add_observations", {"observations": [{"entityName": "Zed", "contents": ["x"]}]}, "observations for an entity that does not exist"),
        Case("create_relations_unknown_entities", "create_relations", {"relations": [{"from": "Nobody", "to": "Noone", "relationType": "knows"}]}, "a relation between entities that do not exist"),
        Case("delete_entities_unknown", "delete_entities", {"entityNames": ["Ghost"]}, "deleting an entity that does not exist"),
        Case("open_nodes_unknown", "open_nodes", {"names": ["Ghost"]}, "opening a node that does not exist"),
        Case("search_missing_query", "search_nodes", {}, "a missing required argument"),
        Case("unknown_tool", "delete_graph", {}, "a tool the server does not have"),
    ]
    meta = {"package": "@modelcontextprotocol/server-memory",
            "version": npm_version("@modelcontextprotocol/server-memory"), "sdk": "typescript"}
    argv = [os.path.join(NODE_BIN, "mcp-server-memory")]
    run("memory", meta, argv, cases, env={"MEMORY_FILE_PATH": good})
    run("memory", meta, argv, [
        Case("read_graph_corrupt_file", "read_graph", {}, "a memory file with a line that is not JSON"),
        Case("create_entities_corrupt_file", "create_entities", {"entities": [entity]}, "writing to a memory file with a line that is not JSON"),
    ], env={"MEMORY_FILE_PATH": corrupt})
    run("memory", meta, argv, [
        Case("read_graph_permission_denied", "read_graph", {}, "permission denied on the memory file (server as nobody)", user="nobody"),
        Case("create_entities_permission_denied", "create_entities", {"entities": [entity]}, "permission denied on write (server as nobody)", user="nobody"),
    ], env={"MEMORY_FILE_PATH": locked})
    shutil.rmtree(root, ignore_errors=True)


def sequential_thinking():
    base = {"thought": "t", "nextThoughtNeeded": True, "thoughtNumber": 1, "totalThoughts": 2}
    cases = [
        Case("missing_thought", "sequentialthinking", {k: v for k, v in base.items() if k != "thought"}, "a missing required argument"),
        Case("number_as_string", "sequentialthinking", dict(base, thoughtNumber="one"), "a string where a number goes"),
        Case("zero_thought_number", "sequentialthinking", dict(base, thoughtNumber=0), "a number below the minimum"),
        Case("negative_total", "sequentialthinking", dict(base, totalThoughts=-3), "a negative total"),
        Case("next_needed_bad_string", "sequentialthinking", dict(base, nextThoughtNeeded="maybe"), "a string that is not a boolean"),
        Case("revision_of_missing_thought", "sequentialthinking", dict(base, isRevision=True, revisesThought=99), "a revision of a thought that does not exist"),
        Case("no_arguments", "sequentialthinking", None, "no arguments at all"),
        Case("unknown_tool", "think", {"thought": "t"}, "a tool the server does not have"),
    ]
    meta = {"package": "@modelcontextprotocol/server-sequential-thinking",
            "version": npm_version("@modelcontextprotocol/server-sequential-thinking"), "sdk": "typescript"}
    run("sequential-thinking", meta, [os.path.join(NODE_BIN, "mcp-server-sequential-thinking")], cases,
        env={"DISABLE_THOUGHT_LOGGING": "true"})


def gitlab():
    fixture = Fixture()
    meta = {"package": "@modelcontextprotocol/server-gitlab",
            "version": npm_version("@modelcontextprotocol/server-gitlab"), "sdk": "typescript"}
    argv = [os.path.join(NODE_BIN, "mcp-server-gitlab")]
    env = {"GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-corpus", "GITLAB_API_URL": fixture.url("/api/v4")}
    cases = []
    for code in ["401", "403", "404", "409", "422", "429", "500", "502", "503"]:
        cases.append(Case(f"get_file_http_{code}", "get_file_contents",
                          {"project_id": f"s{code}", "file_path": "README.md"}, f"upstream HTTP {code}"))
    cases += [
        Case("create_issue_http_401", "create_issue", {"project_id": "s401", "title": "t"}, "upstream HTTP 401 on a write"),
        Case("create_issue_http_429", "create_issue", {"project_id": "s429", "title": "t"}, "upstream HTTP 429 on a write"),
        Case("create_issue_http_500", "create_issue", {"project_id": "s500", "title": "t"}, "upstream HTTP 500 on a write"),
        Case("create_branch_http_409", "create_branch", {"project_id": "s409", "branch": "b", "ref": "main"}, "upstream HTTP 409 on a write"),
        Case("search_html_page", "search_repositories", {"search": "anything"}, "an upstream answer that is HTML, not JSON"),
        Case("search_http_503", "search_repositories", {"search": "s503"}, "upstream HTTP 503 on a search"),
        Case("get_file_missing_args", "get_file_contents", {"project_id": "p"}, "a missing required argument"),
        Case("create_issue_wrong_type", "create_issue", {"project_id": "p", "title": 5}, "a number where a string goes"),
        Case("no_arguments", "create_issue", None, "no arguments at all"),
        Case("unknown_tool", "delete_project", {"project_id": "p"}, "a tool the server does not have"),
        Case("create_issue_local_timeout", "create_issue", {"project_id": "slow30", "title": "t"}, "no answer within the local limit to a write", timeout=5, restart=True),
    ]
    run("gitlab", meta, argv, cases, env=env)
    run("gitlab", meta, argv, [
        Case("get_file_connection_refused", "get_file_contents", {"project_id": "p", "file_path": "README.md"}, "connection refused (127.0.0.1:1)"),
        Case("create_issue_connection_refused", "create_issue", {"project_id": "p", "title": "t"}, "connection refused on a write (127.0.0.1:1)"),
    ], env=dict(env, GITLAB_API_URL="http://127.0.0.1:1/api/v4"))
    run("gitlab", meta, argv, [
        Case("get_file_dns_failure", "get_file_contents", {"project_id": "p", "file_path": "README.md"}, "a DNS failure (a .invalid name)"),
    ], env=dict(env, GITLAB_API_URL="http://gitlab.corpus.invalid/api/v4"))
    fixture.close()


PG_BIN = "/usr/lib/postgresql/15/bin"


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_postgres(root):
    """A throwaway PostgreSQL cluster on 127.0.0.1, owned by the `postgres` user.

    Role `corpus` (password `corpus`, statement timeout 2 s) owns database `corpus`, which
    has one table, `users`."""
    data = os.path.join(root, "pg")
    pwfile = os.path.join(root, "pw")
    with open(pwfile, "w") as f:
        f.write("corpus-admin\n")
    os.chmod(pwfile, 0o644)
    port = free_port()
    os.makedirs(data)
    shutil.chown(data, "postgres", "postgres")
    log = os.path.join(root, "pg.log")
    with open(log, "w"):
        pass
    shutil.chown(log, "postgres", "postgres")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    as_pg = ["runuser", "-u", "postgres", "--"]
    subprocess.run(as_pg + [os.path.join(PG_BIN, "initdb"), "-D", data, "-U", "postgres",
                            "-A", "scram-sha-256", "--pwfile", pwfile], check=True, **quiet)
    subprocess.run(as_pg + [os.path.join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-l", log, "-o",
                            f"-c listen_addresses=127.0.0.1 -p {port} -k {data}", "start"],
                   check=True, **quiet)
    sql = ("CREATE ROLE corpus LOGIN PASSWORD 'corpus';"
           "ALTER ROLE corpus SET statement_timeout = '2s';"
           "CREATE DATABASE corpus OWNER corpus;")
    env = dict(os.environ, PGPASSWORD="corpus-admin")
    psql = ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port)]
    for statement in sql.split(";")[:-1]:
        subprocess.run(psql + ["-U", "postgres", "-d", "postgres", "-c", statement],
                       check=True, env=env, **quiet)
    subprocess.run(psql + ["-U", "corpus", "-d", "corpus", "-c",
                           "CREATE TABLE users(id serial PRIMARY KEY, email text UNIQUE NOT NULL);"
                           "INSERT INTO users(email) VALUES ('a@example.invalid');"],
                   check=True, env=dict(os.environ, PGPASSWORD="corpus"), **quiet)
    return data, port


def stop_postgres(data):
    subprocess.run(["runuser", "-u", "postgres", "--", os.path.join(PG_BIN, "pg_ctl"), "-D", data,
                    "-w", "-m", "fast", "stop"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def postgres():
    meta = {"package": "@modelcontextprotocol/server-postgres",
            "version": npm_version("@modelcontextprotocol/server-postgres"), "sdk": "typescript"}
    binary = os.path.join(NODE_BIN, "mcp-server-postgres")
    run("postgres", meta, [binary, "postgresql://corpus:corpus@127.0.0.1:1/corpus"], [
        Case("query_connection_refused", "query", {"sql": "SELECT 1"}, "connection refused (127.0.0.1:1)"),
        Case("query_missing_sql", "query", {}, "a missing required argument"),
        Case("query_sql_wrong_type", "query", {"sql": 7}, "a number where the SQL string goes"),
        Case("unknown_tool", "execute", {"sql": "DROP TABLE t"}, "a tool the server does not have"),
    ])
    run("postgres", meta, [binary, "postgresql://corpus:corpus@db.corpus.invalid:5432/corpus"], [
        Case("query_dns_failure", "query", {"sql": "SELECT 1"}, "a DNS failure (a .invalid name)"),
    ])
    if not os.path.exists(os.path.join(PG_BIN, "initdb")):
        print("postgres: no PostgreSQL 15 binaries, the database cases are skipped")
        return
    root = world_readable_tmp()
    data, port = start_postgres(root)
    try:
        url = f"postgresql://corpus:corpus@127.0.0.1:{port}/corpus"
        run("postgres", meta, [binary, url], [
            Case("query_ok", "query", {"sql": "SELECT email FROM users"}, "a query that works (for contrast)"),
            Case("query_missing_table", "query", {"sql": "SELECT * FROM orders"}, "a missing table"),
            Case("query_missing_column", "query", {"sql": "SELECT phone FROM users"}, "a missing column"),
            Case("query_syntax_error", "query", {"sql": "SELEC 1"}, "bad SQL"),
            Case("query_bad_cast", "query", {"sql": "SELECT 'abc'::int"}, "a value that does not cast"),
            Case("query_division_by_zero", "query", {"sql": "SELECT 1/0"}, "a division by zero"),
            Case("query_write_in_read_only", "query", {"sql": "INSERT INTO users(email) VALUES ('b@example.invalid')"}, "a write in the server's read-only transaction"),
            Case("query_statement_timeout", "query", {"sql": "SELECT pg_sleep(10)"}, "the database's own statement timeout (2 s)"),
            Case("query_sql_wrong_type_connected", "query", {"sql": 7}, "a number where the SQL string goes, with the database up"),
            Case("query_local_timeout", "query", {"sql": "SET LOCAL statement_timeout = 0; SELECT pg_sleep(20)"}, "no answer within the local limit", timeout=4, restart=True),
        ])
        run("postgres", meta, [binary, f"postgresql://corpus:wrong@127.0.0.1:{port}/corpus"], [
            Case("query_wrong_password", "query", {"sql": "SELECT 1"}, "a wrong password"),
        ])
        run("postgres", meta, [binary, f"postgresql://corpus:corpus@127.0.0.1:{port}/nosuchdb"], [
            Case("query_missing_database", "query", {"sql": "SELECT 1"}, "a database that does not exist"),
        ])
    finally:
        stop_postgres(data)
        shutil.rmtree(root, ignore_errors=True)


def fetch():
    meta = {"package": "mcp-server-fetch", "version": pip_version(VENV, "mcp-server-fetch"), "sdk": "python"}
    binary = os.path.join(VENV, "mcp-server-fetch")
    allow = Fixture("allow")
    # By default the server refuses loopback addresses.
    run("fetch", meta, [binary], [
        Case("private_address_refused", "fetch", {"url": allow.url("/page")}, "a loopback URL the server refuses by default"),
    ])
    # The fixture is on loopback: every other case allows private addresses.
    binary = [binary, "--allow-private-ips"]
    cases = []
    for code in ["401", "403", "404", "429", "500", "503"]:
        cases.append(Case(f"http_{code}", "fetch", {"url": allow.url(f"/status/{code}")}, f"upstream HTTP {code}"))
    cases += [
        Case("raw_http_404", "fetch", {"url": allow.url("/status/404"), "raw": True}, "upstream HTTP 404, raw content asked"),
        Case("connection_refused", "fetch", {"url": "http://127.0.0.1:1/"}, "connection refused (127.0.0.1:1)"),
        Case("dns_failure", "fetch", {"url": "http://no-such-host.corpus.invalid/page"}, "a DNS failure (a .invalid name)"),
        Case("not_a_url", "fetch", {"url": "not a url"}, "a string that is not a URL"),
        Case("unsupported_scheme", "fetch", {"url": "ftp://127.0.0.1/file"}, "a URL scheme the server does not fetch"),
        Case("missing_url", "fetch", {}, "a missing required argument"),
        Case("max_length_wrong_type", "fetch", {"url": allow.url("/ok"), "max_length": "lots"}, "a string where a number goes"),
        Case("max_length_zero", "fetch", {"url": allow.url("/ok"), "max_length": 0}, "a number below the minimum"),
        Case("start_index_negative", "fetch", {"url": allow.url("/ok"), "start_index": -5}, "a negative start index"),
        Case("start_index_past_end", "fetch", {"url": allow.url("/ok"), "start_index": 100000}, "a start index past the end of the content"),
        Case("unknown_tool", "fetch_json", {"url": allow.url("/ok")}, "a tool the server does not have"),
        Case("slow_upstream", "fetch", {"url": allow.url("/slow/8")}, "an upstream that answers after 8 s", timeout=30),
        Case("slow_upstream_server_timeout", "fetch", {"url": allow.url("/slow/45")}, "an upstream slower than the server's own timeout", timeout=60, restart=True),
        Case("slow_upstream_local_timeout", "fetch", {"url": allow.url("/slow/20")}, "no answer within the local limit", timeout=3, restart=True),
    ]
    run("fetch", meta, binary, cases)
    # Without --ignore-robots-txt the server asks the upstream's robots.txt first.
    disallow = Fixture("disallow")
    run("fetch", meta, binary, [
        Case("robots_disallow", "fetch", {"url": disallow.url("/page")}, "robots.txt disallows autonomous fetching"),
    ])
    robots_401 = Fixture("401")
    run("fetch", meta, binary, [
        Case("robots_401", "fetch", {"url": robots_401.url("/page")}, "robots.txt answers HTTP 401"),
    ])
    robots_500 = Fixture("500")
    run("fetch", meta, binary, [
        Case("robots_500", "fetch", {"url": robots_500.url("/page")}, "robots.txt answers HTTP 500"),
    ])
    for fixture in (allow, disallow, robots_401, robots_500):
        fixture.close()


def fetch_ignoring_robots():
    meta = {"package": "mcp-server-fetch", "version": pip_version(VENV, "mcp-server-fetch"), "sdk": "python"}
    binary = os.path.join(VENV, "mcp-server-fetch")
    fixture = Fixture("500")
    run("fetch", meta, [binary, "--allow-private-ips", "--ignore-robots-txt"], [
        Case("ignore_robots_http_404", "fetch", {"url": fixture.url("/status/404")}, "upstream HTTP 404 with robots.txt ignored"),
        Case("ignore_robots_http_429", "fetch", {"url": fixture.url("/status/429")}, "upstream HTTP 429 (Retry-After: 30) with robots.txt ignored"),
        Case("ignore_robots_http_503", "fetch", {"url": fixture.url("/status/503")}, "upstream HTTP 503 (Retry-After: 5) with robots.txt ignored"),
        Case("ignore_robots_connection_refused", "fetch", {"url": "http://127.0.0.1:1/page"}, "connection refused with robots.txt ignored"),
        Case("ignore_robots_dns_failure", "fetch", {"url": "http://no-such-host.corpus.invalid/"}, "a DNS failure with robots.txt ignored"),
    ])
    fixture.close()


def time_server():
    meta = {"package": "mcp-server-time", "version": pip_version(VENV, "mcp-server-time"), "sdk": "python"}
    cases = [
        Case("unknown_timezone", "get_current_time", {"timezone": "Mars/Olympus_Mons"}, "a timezone that does not exist"),
        Case("timezone_abbreviation", "get_current_time", {"timezone": "PST"}, "an abbreviation instead of an IANA name"),
        Case("empty_timezone", "get_current_time", {"timezone": ""}, "an empty timezone"),
        Case("timezone_wrong_type", "get_current_time", {"timezone": 5}, "a number where the timezone goes"),
        Case("missing_timezone", "get_current_time", {}, "a missing required argument"),
        Case("convert_bad_time_format", "convert_time", {"source_timezone": "Europe/London", "time": "25:99", "target_timezone": "Asia/Tokyo"}, "a time that is not HH:MM"),
        Case("convert_time_with_seconds", "convert_time", {"source_timezone": "Europe/London", "time": "14:30:15", "target_timezone": "Asia/Tokyo"}, "a time with seconds"),
        Case("convert_unknown_target", "convert_time", {"source_timezone": "Europe/London", "time": "14:30", "target_timezone": "Nowhere/City"}, "an unknown target timezone"),
        Case("convert_missing_target", "convert_time", {"source_timezone": "Europe/London", "time": "14:30"}, "a missing required argument"),
        Case("unknown_tool", "get_timezone_list", {}, "a tool the server does not have"),
    ]
    run("time", meta, [os.path.join(VENV, "mcp-server-time"), "--local-timezone", "Etc/UTC"], cases)


def git():
    meta = {"package": "mcp-server-git", "version": pip_version(VENV, "mcp-server-git"), "sdk": "python"}
    root = world_readable_tmp()
    repo = os.path.join(root, "repo")
    plain = os.path.join(root, "plain")
    os.makedirs(plain)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, **quiet)
    with open(os.path.join(repo, "a.txt"), "w") as f:
        f.write("a\n")
    git_env = dict(os.environ, GIT_AUTHOR_NAME="c", GIT_AUTHOR_EMAIL="c@example.invalid",
                   GIT_COMMITTER_NAME="c", GIT_COMMITTER_EMAIL="c@example.invalid")
    subprocess.run(["git", "-C", repo, "add", "a.txt"], check=True, env=git_env, **quiet)
    subprocess.run(["git", "-C", repo, "commit", "-q", "-m", "first"], check=True, env=git_env, **quiet)
    empty = os.path.join(root, "empty")
    subprocess.run(["git", "init", "-q", "-b", "main", empty], check=True, **quiet)
    cases = [
        Case("status_not_a_repo", "git_status", {"repo_path": plain}, "a directory that is not a repository"),
        Case("status_missing_dir", "git_status", {"repo_path": os.path.join(root, "gone")}, "a directory that does not exist"),
        Case("show_bad_revision", "git_show", {"repo_path": repo, "revision": "deadbeef"}, "a revision that does not exist"),
        Case("show_bad_ref_name", "git_show", {"repo_path": repo, "revision": "no-such-branch"}, "a ref that does not exist"),
        Case("diff_bad_target", "git_diff", {"repo_path": repo, "target": "nope"}, "diffing against a ref that does not exist"),
        Case("diff_option_injection", "git_diff", {"repo_path": repo, "target": "--output=/tmp/x"}, "a target that starts with a dash"),
        Case("checkout_missing_branch", "git_checkout", {"repo_path": repo, "branch_name": "feature-x"}, "checking out a branch that does not exist"),
        Case("create_existing_branch", "git_create_branch", {"repo_path": repo, "branch_name": "main"}, "creating a branch that already exists"),
        Case("create_branch_bad_base", "git_create_branch", {"repo_path": repo, "branch_name": "f", "base_branch": "nope"}, "a base branch that does not exist"),
        Case("add_missing_file", "git_add", {"repo_path": repo, "files": ["nope.txt"]}, "adding a file that does not exist"),
        Case("add_empty_list", "git_add", {"repo_path": repo, "files": []}, "an empty list where one item is required"),
        Case("commit_nothing_staged", "git_commit", {"repo_path": repo, "message": "nothing"}, "a commit with nothing staged"),
        Case("log_empty_repo", "git_log", {"repo_path": empty}, "the log of a repository with no commits"),
        Case("log_bad_timestamp", "git_log", {"repo_path": repo, "start_timestamp": "the day before yesterday-ish"}, "a timestamp git cannot read"),
        Case("log_max_count_wrong_type", "git_log", {"repo_path": repo, "max_count": "ten"}, "a string where an integer goes"),
        Case("branch_bad_type", "git_branch", {"repo_path": repo, "branch_type": "everything"}, "a branch type the tool does not know"),
        Case("missing_repo_path", "git_status", {}, "a missing required argument"),
        Case("unknown_tool", "git_push", {"repo_path": repo}, "a tool the server does not have"),
    ]
    run("git", meta, [os.path.join(VENV, "mcp-server-git")], cases)
    run("git", meta, [os.path.join(VENV, "mcp-server-git"), "--repository", repo], [
        Case("status_outside_repository", "git_status", {"repo_path": empty}, "a repository outside the one the server was started with"),
    ])
    shutil.rmtree(root, ignore_errors=True)


def sqlite():
    meta = {"package": "mcp-server-sqlite", "version": pip_version(VENV_MCP1, "mcp-server-sqlite"), "sdk": "python"}
    root = world_readable_tmp()
    db = os.path.join(root, "corpus.db")
    subprocess.run(["sqlite3", db, "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL); INSERT INTO users(email) VALUES ('a@example.invalid');"], check=True)
    os.chmod(db, 0o644)
    os.chmod(root, 0o755)
    binary = os.path.join(VENV_MCP1, "mcp-server-sqlite")
    cases = [
        Case("read_not_select", "read_query", {"query": "SELEC * FROM users"}, "a misspelt SELECT keyword"),
        Case("read_syntax_error", "read_query", {"query": "SELECT * FRM users"}, "bad SQL"),
        Case("read_incomplete_sql", "read_query", {"query": "SELECT * FROM users WHERE"}, "SQL cut short"),
        Case("read_missing_table", "read_query", {"query": "SELECT * FROM orders"}, "a missing table"),
        Case("read_missing_column", "read_query", {"query": "SELECT phone FROM users"}, "a missing column"),
        Case("read_with_write_statement", "read_query", {"query": "DELETE FROM users"}, "a write statement sent to the read tool"),
        Case("write_with_select", "write_query", {"query": "SELECT * FROM users"}, "a SELECT sent to the write tool"),
        Case("write_unique_violation", "write_query", {"query": "INSERT INTO users(email) VALUES ('a@example.invalid')"}, "a UNIQUE constraint violated"),
        Case("write_not_null_violation", "write_query", {"query": "INSERT INTO users(email) VALUES (NULL)"}, "a NOT NULL constraint violated"),
        Case("write_missing_table", "write_query", {"query": "UPDATE orders SET x = 1"}, "a write to a missing table"),
        Case("create_table_exists", "create_table", {"query": "CREATE TABLE users(id INTEGER)"}, "creating a table that exists"),
        Case("create_table_not_create", "create_table", {"query": "DROP TABLE users"}, "a statement that is not CREATE TABLE"),
        Case("describe_missing_table", "describe_table", {"table_name": "orders"}, "describing a missing table"),
        Case("describe_missing_argument", "describe_table", {}, "a missing required argument"),
        Case("read_query_wrong_type", "read_query", {"query": 1}, "a number where the SQL string goes"),
        Case("insight_missing_argument", "append_insight", {}, "a missing required argument"),
        Case("unknown_tool", "drop_table", {"table_name": "users"}, "a tool the server does not have"),
    ]
    holder = {}

    def lock():
        holder["proc"] = subprocess.Popen(["sqlite3", db], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        holder["proc"].stdin.write(b"BEGIN EXCLUSIVE;\nSELECT 1;\n")
        holder["proc"].stdin.flush()
        time.sleep(1)

    def unlock():
        holder["proc"].stdin.close()
        holder["proc"].wait()

    cases += [
        Case("write_database_locked", "write_query", {"query": "INSERT INTO users(email) VALUES ('b@example.invalid')"}, "a write while another process holds an exclusive lock", timeout=30, before=lock, after=unlock),
        Case("write_locked_local_timeout", "write_query", {"query": "INSERT INTO users(email) VALUES ('c@example.invalid')"}, "no answer within the local limit to a write while the database is locked", timeout=2, before=lock, after=unlock, restart=True),
        Case("read_database_locked", "read_query", {"query": "SELECT * FROM users"}, "a read while another process holds an exclusive lock", timeout=30, before=lock, after=unlock),
    ]
    run("sqlite", meta, [binary, "--db-path", db], cases)
    shutil.rmtree(root, ignore_errors=True)


def airflow():
    meta = {"package": "astro-airflow-mcp", "version": pip_version(VENV_FASTMCP, "astro-airflow-mcp"), "sdk": "fastmcp"}
    fixture = Fixture()
    binary = os.path.join(VENV_FASTMCP, "astro-airflow-mcp")
    env = {"AIRFLOW_API_URL": fixture.url(""), "AIRFLOW_AUTH_TOKEN": "corpus-token",
           "AF_TELEMETRY_DISABLED": "1", "AF_TELEMETRY_API_URL": "http://127.0.0.1:1"}
    cases = []
    for code in ["401", "403", "404", "409", "429", "500", "503"]:
        cases.append(Case(f"get_dag_http_{code}", "get_dag_details", {"dag_id": f"s{code}"}, f"upstream HTTP {code}"))
    cases += [
        Case("trigger_dag_http_409", "trigger_dag", {"dag_id": "s409"}, "upstream HTTP 409 on a write"),
        Case("trigger_dag_http_500", "trigger_dag", {"dag_id": "s500"}, "upstream HTTP 500 on a write"),
        Case("trigger_dag_http_503", "trigger_dag", {"dag_id": "s503"}, "upstream HTTP 503 on a write"),
        Case("pause_dag_http_404", "pause_dag", {"dag_id": "s404"}, "upstream HTTP 404 on an idempotent write"),
        Case("get_variable_http_403", "get_variable", {"variable_key": "s403"}, "upstream HTTP 403"),
        Case("get_dag_not_json", "get_dag_details", {"dag_id": "plain"}, "an upstream answer that is HTML, not JSON"),
        Case("get_dag_missing_argument", "get_dag_details", {}, "a missing required argument"),
        Case("get_dag_wrong_type", "get_dag_details", {"dag_id": ["a", "b"]}, "a list where a string goes"),
        Case("unknown_tool", "delete_dag", {"dag_id": "x"}, "a tool the server does not have"),
        Case("trigger_dag_local_timeout", "trigger_dag", {"dag_id": "slow30"}, "no answer within the local limit to a trigger", timeout=5, restart=True),
    ]
    run("airflow", meta, [binary, "--transport", "stdio"], cases, env=env, cwd=world_readable_tmp())
    run("airflow", meta, [binary, "--transport", "stdio"], [
        Case("list_dags_connection_refused", "list_dags", {}, "connection refused (127.0.0.1:1)"),
        Case("trigger_dag_connection_refused", "trigger_dag", {"dag_id": "x"}, "connection refused on a write (127.0.0.1:1)"),
    ], env=dict(env, AIRFLOW_API_URL="http://127.0.0.1:1"), cwd=world_readable_tmp())
    run("airflow", meta, [binary, "--transport", "stdio"], [
        Case("list_dags_dns_failure", "list_dags", {}, "a DNS failure (a .invalid name)"),
    ], env=dict(env, AIRFLOW_API_URL="http://airflow.corpus.invalid:8080"), cwd=world_readable_tmp())
    fixture.close()


def fastmcp_notes():
    meta = {"package": "fastmcp", "version": pip_version(VENV_FASTMCP4, "fastmcp"), "sdk": "fastmcp"}
    root = world_readable_tmp()
    db = os.path.join(root, "notes.db")
    subprocess.run(["sqlite3", db, "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT UNIQUE NOT NULL, body TEXT NOT NULL); "
                    "INSERT INTO notes(title, body) VALUES ('groceries', 'milk, eggs'), "
                    "('Error handling', 'Error: lines in the log are expected during the drill'), "
                    "('Failed to launch: postmortem', 'the rocket did not start'), ('empty', '');"], check=True)
    os.chmod(db, 0o644)
    readonly_db = os.path.join(root, "readonly.db")
    shutil.copy(db, readonly_db)
    os.chmod(readonly_db, 0o444)
    secret = root_only_file(root, "secret.txt", "root only\n")
    fixture = Fixture()
    argv = [os.path.join(VENV_FASTMCP4, "python"), os.path.join(SERVERS_DIR, "fastmcp_notes.py")]
    env = {"NOTES_DB": db, "NOTES_UPSTREAM": fixture.url("")}
    cases = [
        Case("get_note_missing", "get_note", {"note_id": 999}, "a note that does not exist (ToolError)"),
        Case("get_note_wrong_type", "get_note", {"note_id": "seven"}, "a string where an integer goes"),
        Case("get_note_ok_mentions_error", "get_note", {"note_id": 2}, "a success whose note text starts with Error: (for contrast)"),
        Case("create_note_title_too_long", "create_note", {"title": "x" * 60}, "a title over the maximum length"),
        Case("create_note_empty_title", "create_note", {"title": ""}, "an empty title below the minimum length"),
        Case("create_note_duplicate", "create_note", {"title": "groceries"}, "a UNIQUE constraint violated (sqlite3.IntegrityError)"),
        Case("save_note_duplicate", "save_note", {"title": "groceries"}, "a UNIQUE constraint violated, answered as a success"),
        Case("search_limit_out_of_range", "search_notes", {"query": "a", "limit": 500}, "a limit outside its range (ValueError)"),
        Case("search_ok_failed_title", "search_notes", {"query": "launch"}, "a success listing a note titled Failed to launch (for contrast)"),
        Case("run_sql_not_select", "run_sql", {"sql": "DELETE FROM notes"}, "a write statement refused, answered as success:false"),
        Case("run_sql_missing_table", "run_sql", {"sql": "SELECT * FROM tags"}, "a missing table, answered as success:false"),
        Case("delete_without_confirm", "delete_note", {"note_id": 1}, "a delete without the confirmation, answered as a success"),
        Case("delete_missing_note", "delete_note", {"note_id": 999, "confirm": True}, "deleting a note that does not exist, answered as a success"),
        Case("export_missing_note", "export_note", {"note_id": 999, "path": os.path.join(root, "out.md")}, "a KeyError for a missing note"),
        Case("export_into_missing_dir", "export_note", {"note_id": 1, "path": os.path.join(root, "no", "dir", "out.md")}, "writing into a directory that does not exist"),
        Case("read_attachment_missing", "read_attachment", {"path": os.path.join(root, "gone.txt")}, "a missing file (FileNotFoundError)"),
        Case("read_attachment_directory", "read_attachment", {"path": root}, "a directory read as a file (IsADirectoryError)"),
        Case("average_empty_list", "average_length", {"note_ids": []}, "an empty list (ZeroDivisionError)"),
        Case("average_missing_note", "average_length", {"note_ids": [1, 999]}, "a missing note (TypeError on None)"),
        Case("fetch_http_404", "fetch_page", {"url": fixture.url("/status/404")}, "upstream HTTP 404 (httpx raise_for_status)"),
        Case("fetch_http_429", "fetch_page", {"url": fixture.url("/status/429")}, "upstream HTTP 429 with Retry-After"),
        Case("fetch_http_503", "fetch_page", {"url": fixture.url("/status/503")}, "upstream HTTP 503 with Retry-After"),
        Case("fetch_connection_refused", "fetch_page", {"url": "http://127.0.0.1:1/page"}, "connection refused"),
        Case("fetch_dns_failure", "fetch_page", {"url": "http://notes.corpus.invalid/page"}, "a host name that does not resolve"),
        Case("fetch_not_a_url", "fetch_page", {"url": "notes page"}, "a string that is not a URL"),
        Case("fetch_slow_upstream", "fetch_page", {"url": fixture.url("/slow/8")}, "an upstream slower than the tool's 5 s timeout", timeout=30),
        Case("render_bad_format", "render_note", {"note_id": 1, "fmt": "pdf"}, "a format the tool does not render (ToolError)"),
        Case("render_missing_note", "render_note", {"note_id": 999}, "a missing note, answered as a success starting Error:"),
        Case("unknown_tool", "archive_note", {"note_id": 1}, "a tool the server does not have"),
    ]
    run("fastmcp", meta, argv, cases, env=env)
    for code in ["401", "404", "429", "503"]:
        run("fastmcp", meta, argv, [
            Case(f"sync_http_{code}", "sync_note", {"note_id": 1}, f"upstream HTTP {code} on a write, answered as an error object"),
        ], env=dict(env, NOTES_UPSTREAM=fixture.url(f"/s{code}")))
    run("fastmcp", meta, argv, [
        Case("sync_connection_refused", "sync_note", {"note_id": 1}, "connection refused on a write"),
    ], env=dict(env, NOTES_UPSTREAM="http://127.0.0.1:1"))
    run("fastmcp", meta, argv, [
        Case("create_note_readonly_db", "create_note", {"title": "new"}, "a write to a database file the server cannot write (server as nobody)", user="nobody"),
        Case("save_note_readonly_db", "save_note", {"title": "new"}, "a write to a read-only database, answered as a success (server as nobody)", user="nobody"),
        Case("read_attachment_permission", "read_attachment", {"path": secret}, "a root-only file (server as nobody)", user="nobody"),
    ], env=dict(env, NOTES_DB=readonly_db))
    masked = dict(env, NOTES_MASK="1")
    run("fastmcp", meta, argv, [
        Case("masked_get_note_missing", "get_note", {"note_id": 999}, "a ToolError with mask_error_details on"),
        Case("masked_create_note_duplicate", "create_note", {"title": "groceries"}, "an IntegrityError with mask_error_details on"),
        Case("masked_search_limit_out_of_range", "search_notes", {"query": "a", "limit": 500}, "a ValueError with mask_error_details on"),
        Case("masked_read_attachment_missing", "read_attachment", {"path": os.path.join(root, "gone.txt")}, "a FileNotFoundError with mask_error_details on"),
        Case("masked_fetch_http_404", "fetch_page", {"url": fixture.url("/status/404")}, "upstream HTTP 404 with mask_error_details on"),
        Case("masked_fetch_dns_failure", "fetch_page", {"url": "http://notes.corpus.invalid/page"}, "a DNS failure with mask_error_details on"),
        Case("masked_create_note_title_too_long", "create_note", {"title": "x" * 60}, "a title over the maximum length with mask_error_details on"),
        Case("masked_average_empty_list", "average_length", {"note_ids": []}, "a ZeroDivisionError with mask_error_details on"),
        Case("masked_render_bad_format", "render_note", {"note_id": 1, "fmt": "pdf"}, "a ToolError with mask_error_details on"),
        Case("masked_unknown_tool", "archive_note", {}, "a tool the server does not have, mask_error_details on"),
    ], env=masked)
    run("fastmcp", meta, argv, [
        Case("masked_create_note_readonly_db", "create_note", {"title": "new"}, "a read-only database with mask_error_details on (server as nobody)", user="nobody"),
    ], env=dict(masked, NOTES_DB=readonly_db))
    fixture.close()
    shutil.rmtree(root, ignore_errors=True)


def start_redis(port, *extra):
    proc = subprocess.Popen(["/usr/bin/redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return proc


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis():
    meta = {"package": "@modelcontextprotocol/server-redis",
            "version": npm_version("@modelcontextprotocol/server-redis"), "sdk": "typescript"}
    binary = os.path.join(NODE_BIN, "mcp-server-redis")
    port = free_port()
    server = start_redis(port)
    subprocess.run(["redis-cli", "-p", str(port), "rpush", "queue", "a"], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}"
    run("redis", meta, [binary, url], [
        Case("get_missing_key", "get", {"key": "nope"}, "a key that does not exist"),
        Case("get_wrong_type", "get", {"key": "queue"}, "GET on a list (WRONGTYPE)"),
        Case("get_missing_argument", "get", {}, "a missing required argument"),
        Case("set_wrong_type", "set", {"key": "k", "value": 5}, "a number where the value string goes"),
        Case("set_negative_expiry", "set", {"key": "k", "value": "v", "expireSeconds": -5}, "a negative expiry"),
        Case("delete_missing_key", "delete", {"key": "nope"}, "deleting a key that does not exist"),
        Case("list_bad_pattern_type", "list", {"pattern": ["a"]}, "a list where the pattern string goes"),
        Case("unknown_tool", "flushall", {}, "a tool the server does not have"),
    ])
    subprocess.run(["redis-cli", "-p", str(port), "config", "set", "maxmemory", "1"], stdout=subprocess.DEVNULL)
    run("redis", meta, [binary, url], [
        Case("set_out_of_memory", "set", {"key": "big", "value": "v"}, "a write past maxmemory (OOM)"),
    ])
    subprocess.run(["redis-cli", "-p", str(port), "config", "set", "maxmemory", "0"], stdout=subprocess.DEVNULL)
    subprocess.run(["redis-cli", "-p", str(port), "config", "set", "requirepass", "s3cret"], stdout=subprocess.DEVNULL)
    run("redis", meta, [binary, url], [
        Case("get_no_auth", "get", {"key": "queue"}, "a server that requires a password, none given (NOAUTH)"),
        Case("set_no_auth", "set", {"key": "k", "value": "v"}, "a write to a server that requires a password, none given"),
    ])
    server.terminate()
    server.wait()
    replica_port = free_port()
    replica = start_redis(replica_port, "--replicaof", "127.0.0.1", "1")
    run("redis", meta, [binary, f"redis://127.0.0.1:{replica_port}"], [
        Case("set_on_read_only_replica", "set", {"key": "k", "value": "v"}, "a write to a read-only replica (READONLY)"),
        Case("get_on_replica_ok", "get", {"key": "k"}, "a read from the replica of a key it does not hold"),
    ])
    killed_port = free_port()
    killed = start_redis(killed_port)

    def stop():
        killed.kill()
        killed.wait()
        time.sleep(0.5)

    run("redis", meta, [binary, f"redis://127.0.0.1:{killed_port}"], [
        Case("set_after_redis_stopped", "set", {"key": "k", "value": "v"}, "a write after the Redis server stopped", timeout=15, before=stop, restart=True),
    ])
    replica.terminate()
    replica.wait()


def duckdb():
    meta = {"package": "mcp-server-duckdb", "version": pip_version(VENV_DUCKDB, "mcp-server-duckdb"), "sdk": "python"}
    root = world_readable_tmp()
    db = os.path.join(root, "shop.duckdb")
    subprocess.run([os.path.join(VENV_DUCKDB, "python"), "-c",
                    "import duckdb,sys; c=duckdb.connect(sys.argv[1]); "
                    "c.execute(\"CREATE TABLE orders(id INTEGER PRIMARY KEY, total DECIMAL(8,2) NOT NULL CHECK (total >= 0), note VARCHAR)\"); "
                    "c.execute(\"INSERT INTO orders VALUES (1, 10.5, 'error: customer typo fixed'), (2, 3, NULL)\"); c.close()", db], check=True)
    os.chmod(db, 0o666)
    binary = os.path.join(VENV_DUCKDB, "mcp-server-duckdb")
    q = lambda sql: {"query": sql}  # noqa: E731
    run("duckdb", meta, [binary, "--db-path", db], [
        Case("select_missing_table", "query", q("SELECT * FROM customers"), "a missing table (Catalog Error)"),
        Case("select_missing_column", "query", q("SELECT phone FROM orders"), "a missing column (Binder Error)"),
        Case("syntax_error", "query", q("SELEC * FROM orders"), "bad SQL (Parser Error)"),
        Case("insert_duplicate_key", "query", q("INSERT INTO orders VALUES (1, 2, NULL)"), "a duplicate primary key (Constraint Error)"),
        Case("insert_not_null", "query", q("INSERT INTO orders VALUES (3, NULL, NULL)"), "a NULL in a NOT NULL column"),
        Case("insert_check_violation", "query", q("INSERT INTO orders VALUES (4, -1, NULL)"), "a CHECK constraint violated"),
        Case("cast_failure", "query", q("SELECT CAST('abc' AS INTEGER)"), "a value that does not convert (Conversion Error)"),
        Case("divide_by_zero_integer", "query", q("SELECT 1 // 0"), "an integer division by zero"),
        Case("read_missing_csv", "query", q(f"SELECT * FROM read_csv('{root}/gone.csv')"), "reading a CSV file that does not exist (IO Error)"),
        Case("select_ok_mentions_error", "query", q("SELECT note FROM orders WHERE id = 1"), "a success whose row text starts with error: (for contrast)"),
        Case("missing_query", "query", {}, "a missing required argument"),
        Case("query_wrong_type", "query", {"query": 42}, "a number where the SQL string goes"),
        Case("unknown_tool", "describe", {"table": "orders"}, "a tool the server does not have"),
    ])
    run("duckdb", meta, [binary, "--db-path", db, "--readonly"], [
        Case("readonly_insert", "query", q("INSERT INTO orders VALUES (5, 1, NULL)"), "a write to a database opened read-only"),
        Case("readonly_create_table", "query", q("CREATE TABLE t(x INTEGER)"), "a CREATE on a database opened read-only"),
    ])
    holder = {}

    def lock():
        holder["proc"] = subprocess.Popen([os.path.join(VENV_DUCKDB, "python"), "-c",
                                           "import duckdb,sys,time; c=duckdb.connect(sys.argv[1]); time.sleep(30)", db])
        time.sleep(2)

    def unlock():
        holder["proc"].kill()
        holder["proc"].wait()

    run("duckdb", meta, [binary, "--db-path", db], [
        Case("database_locked_by_other_process", "query", q("SELECT 1"), "a database file another process holds open for writing", before=lock, after=unlock),
    ])
    shutil.rmtree(root, ignore_errors=True)


def playwright():
    meta = {"package": "@playwright/mcp", "version": npm_version("@playwright/mcp"), "sdk": "typescript"}
    fixture = Fixture()
    root = world_readable_tmp()
    argv = [os.path.join(NODE_BIN, "playwright-mcp"), "--headless", "--isolated", "--no-sandbox",
            "--browser", "chromium", "--executable-path", CHROMIUM, "--output-dir", root,
            "--timeout-action", "2000", "--timeout-navigation", "10000"]
    page = fixture.url("/page")
    cases = [
        Case("click_before_navigate", "browser_click", {"element": "Submit button", "target": "e5"}, "a click before any page is open"),
        Case("navigate_dns_failure", "browser_navigate", {"url": "http://shop.corpus.invalid/"}, "a host name that does not resolve"),
        Case("navigate_connection_refused", "browser_navigate", {"url": f"http://127.0.0.1:{free_port()}/"}, "connection refused (a closed port)"),
        Case("navigate_unsafe_port", "browser_navigate", {"url": "http://127.0.0.1:1/"}, "a port the browser refuses to connect to"),
        Case("navigate_not_a_url", "browser_navigate", {"url": "shop home page"}, "a string that is not a URL"),
        Case("navigate_http_404", "browser_navigate", {"url": fixture.url("/status/404")}, "a page that answers HTTP 404"),
        Case("navigate_http_503", "browser_navigate", {"url": fixture.url("/status/503")}, "a page that answers HTTP 503"),
        Case("navigate_ok", "browser_navigate", {"url": page}, "a page that loads (for contrast)"),
        Case("click_unknown_ref", "browser_click", {"element": "Submit button", "target": "e99"}, "a ref that is not in the page snapshot"),
        Case("click_unmatched_selector", "browser_click", {"element": "Buy button", "target": "#buy-now"}, "a selector that matches nothing on the page"),
        Case("type_unknown_ref", "browser_type", {"element": "Search box", "target": "e42", "text": "shoes"}, "typing into a ref that is not in the page"),
        Case("hover_not_visible", "browser_hover", {"element": "Page body", "target": "head"}, "hovering an element that is never visible"),
        Case("click_missing_target", "browser_click", {"element": "Submit button"}, "a missing required argument"),
        Case("evaluate_throws", "browser_evaluate", {"function": "() => { throw new Error('cart is empty') }"}, "page code that throws"),
        Case("evaluate_syntax_error", "browser_evaluate", {"function": "() => {"}, "page code that does not parse"),
        Case("evaluate_ok_error_text", "browser_evaluate", {"function": "() => 'Error: none, 3 items in cart'"}, "a success whose value starts with Error: (for contrast)"),
        Case("press_unknown_key", "browser_press_key", {"key": "NotAKey"}, "a key name the browser does not know"),
        Case("select_option_unknown_ref", "browser_select_option", {"element": "Size", "target": "e77", "values": ["XL"]}, "selecting in a ref that is not in the page"),
        Case("select_option_not_a_select", "browser_select_option", {"element": "Page text", "target": "p", "values": ["XL"]}, "selecting in an element that is not a select"),
        Case("wait_for_wrong_type", "browser_wait_for", {"time": "soon"}, "a string where a number goes"),
        Case("file_upload_without_chooser", "browser_file_upload", {"paths": [os.path.join(root, "a.txt")]}, "an upload with no file chooser open"),
        Case("tab_select_out_of_range", "browser_tabs", {"action": "select", "index": 7}, "a tab index that does not exist"),
        Case("unknown_tool", "browser_scroll", {"y": 100}, "a tool the server does not have"),
    ]
    run("playwright", meta, argv, cases, cwd=root)
    run("playwright", meta, argv + ["--timeout-navigation", "2000"], [
        Case("navigate_slow_page", "browser_navigate", {"url": fixture.url("/slow/8")}, "a page slower than the navigation timeout", timeout=40),
    ], cwd=root)
    fixture.close()
    shutil.rmtree(root, ignore_errors=True)


INVENTORY_SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Inventory", "version": "1.0.0"},
    "servers": [{"url": "http://127.0.0.1:1"}],
    "paths": {
        "/items/{itemId}": {
            "get": {"operationId": "getItem", "summary": "An item by id",
                    "parameters": [{"name": "itemId", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "the item"}}},
            "delete": {"operationId": "deleteItem", "summary": "Deletes an item",
                       "parameters": [{"name": "itemId", "in": "path", "required": True, "schema": {"type": "string"}}],
                       "responses": {"204": {"description": "deleted"}}},
        },
        "/lists/{listId}/items": {
            "post": {"operationId": "createItem", "summary": "Adds an item to a list",
                     "parameters": [{"name": "listId", "in": "path", "required": True, "schema": {"type": "string"}}],
                     "requestBody": {"required": True, "content": {"application/json": {"schema": {
                         "type": "object", "required": ["name", "quantity"],
                         "properties": {"name": {"type": "string", "minLength": 1},
                                        "quantity": {"type": "integer", "minimum": 1, "maximum": 100}}}}}},
                     "responses": {"201": {"description": "created"}}},
        },
        "/search": {
            "get": {"operationId": "searchItems", "summary": "Searches items",
                    "parameters": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}},
                                   {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 50}}],
                    "responses": {"200": {"description": "matches"}}},
        },
    },
}


def openapi():
    meta = {"package": "rmcp-openapi-server", "version": "0.32.1", "sdk": "rmcp"}
    root = world_readable_tmp()
    spec = os.path.join(root, "inventory.json")
    with open(spec, "w") as f:
        json.dump(INVENTORY_SPEC, f)
    binary = os.path.join(CARGO_BIN, "rmcp-openapi-server")
    fixture = Fixture()

    def serve(base, cases):
        port = free_port()
        run("openapi", meta, [binary, spec, "--base-url", base, "--port", str(port)], cases,
            cwd=root, http_url=f"http://127.0.0.1:{port}/mcp")

    cases = []
    for code in ["400", "401", "403", "404", "409", "422", "429", "500", "502", "503"]:
        cases.append(Case(f"get_item_http_{code}", "getItem", {"itemId": f"s{code}"}, f"upstream HTTP {code}"))
    cases += [
        Case("create_item_http_409", "createItem", {"listId": "s409", "request_body": {"name": "pen", "quantity": 2}}, "upstream HTTP 409 on a write"),
        Case("create_item_http_500", "createItem", {"listId": "s500", "request_body": {"name": "pen", "quantity": 2}}, "upstream HTTP 500 on a write"),
        Case("create_item_http_503", "createItem", {"listId": "s503", "request_body": {"name": "pen", "quantity": 2}}, "upstream HTTP 503 on a write"),
        Case("delete_item_http_404", "deleteItem", {"itemId": "s404"}, "upstream HTTP 404 on a delete"),
        Case("create_item_quantity_out_of_range", "createItem", {"listId": "main", "request_body": {"name": "pen", "quantity": 500}}, "a quantity above the schema's maximum"),
        Case("create_item_missing_body", "createItem", {"listId": "main"}, "a missing request body"),
        Case("search_limit_wrong_type", "searchItems", {"q": "pen", "limit": "ten"}, "a string where an integer goes"),
        Case("search_missing_query", "searchItems", {"limit": 5}, "a missing required query parameter"),
        Case("get_item_missing_argument", "getItem", {}, "a missing required path parameter"),
        Case("get_item_html_answer", "getItem", {"itemId": "plain"}, "an upstream answer that is HTML, not JSON (HTTP 200)"),
        Case("unknown_tool", "updateItem", {"itemId": "a"}, "a tool the server does not have"),
        Case("get_item_slow_local_timeout", "getItem", {"itemId": "slow30"}, "no answer within the local limit", timeout=5),
    ]
    serve(fixture.url(""), cases)
    serve("http://127.0.0.1:1", [
        Case("get_item_connection_refused", "getItem", {"itemId": "a"}, "connection refused (127.0.0.1:1)"),
        Case("create_item_connection_refused", "createItem", {"listId": "main", "request_body": {"name": "pen", "quantity": 2}}, "connection refused on a write"),
    ])
    serve("http://inventory.corpus.invalid", [
        Case("get_item_dns_failure", "getItem", {"itemId": "a"}, "a host name that does not resolve"),
    ])
    fixture.close()
    shutil.rmtree(root, ignore_errors=True)


SERVERS = {
    "filesystem": filesystem,
    "everything": everything,
    "memory": memory,
    "sequential-thinking": sequential_thinking,
    "gitlab": gitlab,
    "postgres": postgres,
    "fetch": lambda: (fetch(), fetch_ignoring_robots()),
    "time": time_server,
    "git": git,
    "sqlite": sqlite,
    "airflow": airflow,
    "fastmcp": fastmcp_notes,
    "redis": redis,
    "duckdb": duckdb,
    "playwright": playwright,
    "openapi": openapi,
}


def main(names):
    for name in names or SERVERS:
        SERVERS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
