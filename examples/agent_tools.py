#!/usr/bin/env python3
"""A small agent tool wrapper for mobilectl, with the Python standard library only.

It reads the server's `/openapi.json` and offers every operation as a tool: `tools()` gives
function-calling definitions (name, description, JSON Schema of the arguments) to hand to a
model, and `call(name, **arguments)` runs one, sending the arguments as the query or the JSON
body the operation takes. Answers are JSON (or text for `snapshot` with format=text); an error
answer raises `ToolError` with the server's code, message and hint, which is what a model
should read.

Run it to drive the demo login flow end to end against `mobilectl serve --demo`:

    python3 examples/agent_tools.py --url http://127.0.0.1:9100
"""

import argparse
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request


class ToolError(Exception):
    def __init__(self, code, message, hint=None):
        super().__init__(f"{code}: {message}" + (f" (hint: {hint})" if hint else ""))
        self.code, self.message, self.hint = code, message, hint


class Mobilectl:
    def __init__(self, url="http://127.0.0.1:9100", token=None):
        self.url, self.token = url.rstrip("/"), token
        spec = self._send("GET", "/openapi.json")
        self.spec = spec
        self.ops = {}
        for path, item in spec["paths"].items():
            for method, op in item.items():
                self.ops[op["operationId"]] = (method.upper(), path, op)

    def tools(self):
        """Function-calling definitions: one per operation answering once (not streams)."""
        out = []
        for name, (_, _, op) in self.ops.items():
            if "text/event-stream" in op["responses"]["200"].get("content", {}):
                continue
            params = {p["name"]: p.get("schema", {}) for p in op.get("parameters", [])}
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            schema = {"$ref": body["schema"]["$ref"]} if body else {
                "type": "object", "properties": params}
            out.append({"name": name, "description": op.get("summary", ""),
                        "parameters": schema})
        return out

    def call(self, name, **arguments):
        method, path, op = self.ops[name]
        for p in op.get("parameters", []):
            if p["in"] == "path":
                value = urllib.parse.quote(str(arguments.pop(p["name"])), safe="")
                path = path.replace("{" + p["name"] + "}", value)
        if "requestBody" in op:
            return self._send(method, path, body=arguments)
        query = {k: json.dumps(v) if isinstance(v, bool) else v
                 for k, v in arguments.items() if v is not None}
        if query:
            path += "?" + urllib.parse.urlencode(query)
        body = {} if method != "GET" else None
        return self._send(method, path, body=body)

    def _send(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=180) as resp:
                raw = resp.read()
                kind = resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            err = json.loads(e.read() or b"{}").get("error", {})
            raise ToolError(err.get("code", f"HTTP_{e.code}"), err.get("message", ""),
                            err.get("hint")) from None
        if kind.startswith("application/json"):
            return json.loads(raw)
        return raw.decode() if kind.startswith("text/") else raw


def ref_of(tree, element_id):
    """The ref on the line of the compact tree that names `#element_id`."""
    line = next(l for l in tree.splitlines() if f"#{element_id} " in l + " ")
    return re.search(r"\[(e\d+)\]", line).group(1)


def demo_login(m):
    """snapshot → type the user and the password → tap LOG IN → answer the permission dialog
    → verify the inbox. Returns the lines it printed."""
    said = []

    def step(what, answer):
        ok = answer.get("success", answer.get("status") == "success")
        said.append(f"{what}: {'ok' if ok else 'FAILED'}")
        print(said[-1])
        if not ok:
            raise SystemExit(f"{what} failed: {json.dumps(answer)}")

    tree = m.call("snapshot", format="text")
    print(tree)
    step("type user", m.call("type_text", ref=ref_of(tree, "username"), text="alice"))
    step("type password", m.call("type_text", ref=ref_of(tree, "password"), text="secret"))
    step("tap LOG IN", m.call("tap", selector={"text": "LOG IN"}))
    step("wait for the dialog", m.call("wait", selector={"text": "Allow"},
                                       condition="visible", timeout_ms=10000))
    step("allow", m.call("alert_accept"))
    step("inbox shown", m.call("expect", kind="element_visible",
                               selector={"text": "Order #1001"}))
    return said


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:9100")
    ap.add_argument("--token")
    args = ap.parse_args()
    m = Mobilectl(args.url, args.token)
    print(f"{len(m.tools())} tools")
    try:
        demo_login(m)
    except ToolError as e:
        print(f"tool error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
