//! Tests of mcp-errors live in `tests/`; this library is empty.
