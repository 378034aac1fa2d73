#!/usr/bin/env bash
# Draft: runs @modelcontextprotocol/conformance 0.1.16 (server mode) against a running
# Streamable HTTP server. Usage: e2e/conformance.sh URL SCENARIO...  (URL like
# http://127.0.0.1:18765/mcp). Installs into $CONF_DIR (default /tmp/mcp-conformance).
# Exits non-zero if any scenario fails (the runner exits 1 on a failed check).
set -euo pipefail
url=$1; shift
dir=${CONF_DIR:-/tmp/mcp-conformance}
if [ ! -x "$dir/node_modules/.bin/conformance" ] || [ ! -x "$dir/node_modules/.bin/node" ]; then
  mkdir -p "$dir"
  # The package imports fs.globSync (Node >= 22); node@22 from npm brings node_modules/.bin/node.
  (cd "$dir" && npm init -y >/dev/null && \
    npm install --save-exact --no-audit --no-fund @modelcontextprotocol/conformance@0.1.16 node@22.23.3)
fi
status=0
for scenario in "$@"; do
  "$dir/node_modules/.bin/node" "$dir/node_modules/.bin/conformance" server \
    --url "$url" --scenario "$scenario" || status=1
done
exit $status
