#!/usr/bin/env python3
"""agenthook.py LOG: a Claude Code command hook for t_agents.sh.  Appends
"EVENT TOOL COMMAND" (from the hook's JSON on stdin) to LOG."""
import json
import sys

d = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write("%s %s %s\n" % (d.get("hook_event_name"), d.get("tool_name"),
                            (d.get("tool_input") or {}).get("command", "")))
