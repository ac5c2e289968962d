#!/usr/bin/env python3
"""agentmodel.py: a scripted model server for the real agents (t_agents.sh),
on 127.0.0.1, port 0.

    agentmodel.py PORTFILE LOGDIR anthropic|responses SCRIPT

SCRIPT is a JSON list of turns, played in order; each is one tool call,
{"tool": NAME, "input": {...}}, or the last one, {"text": "..."}.  The turn
a request asks for is the number of tool results it already holds (the
agent resends the whole conversation each time, so a retried request gets
the same answer).  A request that offers no tool (a title, a quota probe)
gets a short text and is not a turn.

  anthropic  the Messages API (POST /v1/messages, streamed or not, and
             /v1/messages/count_tokens): Claude Code with ANTHROPIC_BASE_URL
  responses  the Responses API (POST /v1/responses, streamed): Codex with a
             model provider whose base_url is http://127.0.0.1:PORT/v1

LOGDIR/requests.jsonl gets one line per request (time, method, path, body);
LOGDIR/results.json, rewritten after each turn, holds what the agent sent
back for each tool call: [{"content": TEXT, "is_error": BOOL}, ...].
The chosen port is written to PORTFILE (atomically) once the server listens.
"""
import http.server
import json
import os
import sys
import threading
import time

LOCK = threading.Lock()


def publish(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def flatten(content):
    """The text of a tool result: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return json.dumps(content)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.record(None)
        self.reply(404, {"error": {"type": "not_found", "message": "scripted server"}})

    def do_HEAD(self):
        self.record(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        self.record(body)
        path = self.path.split("?", 1)[0]
        if API == "anthropic" and path.endswith("/messages/count_tokens"):
            self.reply(200, {"input_tokens": 100})
        elif API == "anthropic" and path.endswith("/messages"):
            self.serve_anthropic(body)
        elif API == "responses" and path.endswith("/responses"):
            self.serve_responses(body)
        else:
            self.reply(404, {"error": {"type": "not_found", "message": "scripted server"}})

    def record(self, body):
        line = json.dumps({"time": time.time(), "method": self.command, "path": self.path,
                           "body": body})
        with LOCK, open(os.path.join(LOGDIR, "requests.jsonl"), "a") as f:
            f.write(line + "\n")

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events):
        data = "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def turn(self, results):
        """The scripted turn for a request holding RESULTS (tool results)."""
        with LOCK:
            for i, r in enumerate(results):
                if i < len(RESULTS):
                    RESULTS[i] = r
                else:
                    RESULTS.append(r)
            publish(os.path.join(LOGDIR, "results.json"), json.dumps(RESULTS, indent=1))
        k = len(results)
        return SCRIPT[k] if k < len(SCRIPT) else {"text": "script over"}

    # --- Anthropic Messages ------------------------------------------------
    def serve_anthropic(self, body):
        results = []
        for m in body.get("messages", []):
            if m.get("role") == "user" and isinstance(m.get("content"), list):
                for b in m["content"]:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        results.append({"content": flatten(b.get("content", "")),
                                        "is_error": bool(b.get("is_error", False))})
        offered = {t.get("name") for t in body.get("tools") or []}
        step = self.turn(results) if offered else {"text": "ok"}
        if "tool" in step and step["tool"] not in offered:
            step = {"text": "tool %s not offered" % step["tool"]}
        model = body.get("model", "scripted")
        usage = {"input_tokens": 100, "output_tokens": 10,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if "tool" in step:
            block = {"type": "tool_use", "id": "toolu_%02d" % len(results),
                     "name": step["tool"], "input": step["input"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": step["text"]}
            stop = "end_turn"
        msg = {"id": "msg_%02d" % len(results), "type": "message", "role": "assistant",
               "model": model, "content": [block], "stop_reason": stop,
               "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            self.reply(200, msg)
            return
        start = dict(msg, content=[], stop_reason=None)
        if block["type"] == "tool_use":
            first = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            first = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        self.sse([
            {"type": "message_start", "message": start},
            {"type": "content_block_start", "index": 0, "content_block": first},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": 10}},
            {"type": "message_stop"},
        ])

    # --- OpenAI Responses --------------------------------------------------
    def serve_responses(self, body):
        results = []
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output",
                                                              "custom_tool_call_output"):
                results.append({"content": flatten(item.get("output", "")), "is_error": False})
        offered = {t.get("name") for t in body.get("tools") or []}
        step = self.turn(results) if offered else {"text": "ok"}
        if "tool" in step and step["tool"] not in offered:
            step = {"text": "tool %s not offered (offered: %s)" % (step["tool"], sorted(offered))}
        rid = "resp_%02d" % len(results)
        if "tool" in step:
            item = {"type": "function_call", "id": "fc_%02d" % len(results),
                    "call_id": "call_%02d" % len(results), "name": step["tool"],
                    "arguments": json.dumps(step["input"])}
        else:
            item = {"type": "message", "role": "assistant", "id": "msg_%02d" % len(results),
                    "content": [{"type": "output_text", "text": step["text"], "annotations": []}]}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 110}
        resp = {"id": rid, "object": "response", "status": "in_progress",
                "model": body.get("model", "scripted"), "output": []}
        self.sse([
            {"type": "response.created", "response": resp},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed",
             "response": dict(resp, status="completed", output=[item], usage=usage)},
        ])


def main():
    global API, LOGDIR, SCRIPT, RESULTS
    portfile, LOGDIR, API, script = sys.argv[1:5]
    with open(script) as f:
        SCRIPT = json.load(f)
    RESULTS = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    publish(portfile, "%d\n" % srv.server_address[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
