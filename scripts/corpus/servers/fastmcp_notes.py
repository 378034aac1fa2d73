"""A notes server on FastMCP, written the way FastMCP's documentation shows: plain Python
tools that raise ordinary exceptions or FastMCP's `ToolError`, some returning a failure as a
value. `NOTES_DB` is the SQLite file, `NOTES_UPSTREAM` the base URL of an HTTP API, and
`NOTES_MASK=1` turns on `mask_error_details`.

Usage: fastmcp_notes.py    (stdio)
"""

import os
import sqlite3
from typing import Annotated

import httpx
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field

mcp = FastMCP("notes", mask_error_details=os.environ.get("NOTES_MASK") == "1")
DB = os.environ.get("NOTES_DB", "notes.db")
UPSTREAM = os.environ.get("NOTES_UPSTREAM", "http://127.0.0.1:1")
READ_ONLY = {"readOnlyHint": True, "idempotentHint": True}


def connect():
    return sqlite3.connect(DB, isolation_level=None)


@mcp.tool(annotations=READ_ONLY)
def get_note(note_id: int) -> dict:
    """A note by its id."""
    row = connect().execute("SELECT id, title, body FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        raise ToolError(f"Note {note_id} not found")
    return {"id": row[0], "title": row[1], "body": row[2]}


@mcp.tool()
def create_note(title: Annotated[str, Field(min_length=1, max_length=40)], body: str = "") -> dict:
    """Creates a note."""
    db = connect()
    cursor = db.execute("INSERT INTO notes(title, body) VALUES (?, ?)", (title, body))
    return {"id": cursor.lastrowid, "title": title}


@mcp.tool()
def save_note(title: str, body: str = "") -> str:
    """Creates a note; answers with a sentence."""
    try:
        db = connect()
        db.execute("INSERT INTO notes(title, body) VALUES (?, ?)", (title, body))
    except sqlite3.Error as e:
        return f"Database error: {e}"
    return f"Saved note {title!r}"


@mcp.tool(annotations=READ_ONLY)
def search_notes(query: str, limit: int = 10) -> dict:
    """Notes whose title holds the query."""
    if not 1 <= limit <= 100:
        raise ValueError("limit must be between 1 and 100")
    rows = connect().execute(
        "SELECT id, title FROM notes WHERE title LIKE ? LIMIT ?", (f"%{query}%", limit)
    ).fetchall()
    return {"notes": [{"id": r[0], "title": r[1]} for r in rows], "count": len(rows)}


@mcp.tool(annotations=READ_ONLY)
def run_sql(sql: str) -> dict:
    """A read-only SQL query; answers with a JSON object."""
    if not sql.strip().lower().startswith("select"):
        return {"success": False, "error": "Only SELECT queries are allowed"}
    try:
        rows = connect().execute(sql).fetchall()
    except sqlite3.Error as e:
        return {"success": False, "error": str(e)}
    return {"success": True, "rows": rows}


@mcp.tool()
def delete_note(note_id: int, confirm: bool = False) -> str:
    """Deletes a note."""
    if not confirm:
        return "Cannot delete a note without confirm=true"
    db = connect()
    cursor = db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
    if cursor.rowcount == 0:
        return f"Failed to delete note {note_id}: no such note"
    return f"Deleted note {note_id}"


@mcp.tool(annotations=READ_ONLY)
def export_note(note_id: int, path: str) -> str:
    """Writes a note to a file."""
    row = connect().execute("SELECT title, body FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        raise KeyError(note_id)
    with open(path, "w") as f:
        f.write(f"# {row[0]}\n\n{row[1]}\n")
    return f"Wrote {path}"


@mcp.tool(annotations=READ_ONLY)
def read_attachment(path: str) -> str:
    """The text of an attachment file."""
    with open(path) as f:
        return f.read()


@mcp.tool(annotations=READ_ONLY)
def average_length(note_ids: list[int]) -> float:
    """The mean body length of some notes."""
    db = connect()
    lengths = [len(db.execute("SELECT body FROM notes WHERE id = ?", (i,)).fetchone()[0]) for i in note_ids]
    return sum(lengths) / len(lengths)


@mcp.tool(annotations=READ_ONLY)
async def fetch_page(url: str) -> str:
    """Fetches a page of the notes site."""
    async with httpx.AsyncClient(timeout=5) as client:
        response = await client.get(url)
        response.raise_for_status()
        return response.text


@mcp.tool()
async def sync_note(note_id: int) -> dict:
    """Sends a note to the upstream notes API."""
    async with httpx.AsyncClient(base_url=UPSTREAM, timeout=5) as client:
        response = await client.put(f"/notes/{note_id}", json={"id": note_id})
        if response.status_code >= 400:
            return {"error": f"upstream answered {response.status_code}", "status": response.status_code}
        return {"synced": note_id}


@mcp.tool(annotations=READ_ONLY)
def render_note(note_id: int, fmt: str = "markdown") -> str:
    """A note rendered as markdown or html."""
    if fmt not in ("markdown", "html"):
        raise ToolError(f"Unsupported format {fmt!r}; use markdown or html")
    row = connect().execute("SELECT title, body FROM notes WHERE id = ?", (note_id,)).fetchone()
    if row is None:
        return f"Error: note {note_id} not found"
    return f"# {row[0]}\n\n{row[1]}" if fmt == "markdown" else f"<h1>{row[0]}</h1><p>{row[1]}</p>"


if __name__ == "__main__":
    mcp.run()
