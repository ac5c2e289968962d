#!/usr/bin/env python3
"""agentmcp.py: a stdio MCP server for t_agents.sh (newline-delimited
JSON-RPC, as Claude Code speaks it to a "command" server).  One tool,
"note": writes TEXT to PATH (relative to the server's working directory)
and answers what happened, refusals included."""
import json
import os
import sys


def answer(msg):
    method = msg.get("method")
    if method == "initialize":
        return {"protocolVersion": msg["params"].get("protocolVersion", "2024-11-05"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1"}}
    if method == "tools/list":
        return {"tools": [{"name": "note", "description": "Write a note to a file.",
                           "inputSchema": {"type": "object",
                                           "properties": {"path": {"type": "string"},
                                                          "text": {"type": "string"}},
                                           "required": ["path", "text"]}}]}
    if method == "tools/call":
        args = msg["params"]["arguments"]
        try:
            with open(args["path"], "w") as f:
                f.write(args["text"])
            text = "wrote %s in %s" % (args["path"], os.getcwd())
        except OSError as e:
            text = "cannot write %s: %s" % (args["path"], e.strerror)
        return {"content": [{"type": "text", "text": text}]}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue  # a notification
    res = answer(msg)
    if res is None:
        out = {"jsonrpc": "2.0", "id": msg["id"],
               "error": {"code": -32601, "message": "no method %s" % msg.get("method")}}
    else:
        out = {"jsonrpc": "2.0", "id": msg["id"], "result": res}
    print(json.dumps(out), flush=True)
