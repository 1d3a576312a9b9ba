#!/usr/bin/env python3
"""Generates the demo app's screens (src/virtual_device/demo/*.xml) in the uiautomator dump
format (Android 14 attribute set: classic attributes plus `hint`). Run from the repo root."""
from xml.sax.saxutils import quoteattr

PKG = "com.mobilectl.demo"
SYSUI = "com.android.systemui"
PERM = "com.android.permissioncontroller"
W, H = 1080, 2400


def node(cls, b, text="", rid="", desc="", pkg=PKG, clickable=False, focusable=None,
         checkable=False, checked=False, scrollable=False, password=False, hint="",
         long_clickable=False, children=()):
    return dict(cls=cls, b=b, text=text, rid=rid, desc=desc, pkg=pkg, clickable=clickable,
                focusable=clickable if focusable is None else focusable, checkable=checkable,
                checked=checked, scrollable=scrollable, password=password, hint=hint,
                long_clickable=long_clickable, children=list(children))


def render(n, index):
    t = lambda v: "true" if v else "false"
    (x1, y1), (x2, y2) = n["b"]
    attrs = [("index", str(index)), ("text", n["text"]), ("resource-id", n["rid"]),
             ("class", n["cls"]), ("package", n["pkg"]), ("content-desc", n["desc"]),
             ("checkable", t(n["checkable"])), ("checked", t(n["checked"])),
             ("clickable", t(n["clickable"])), ("enabled", "true"),
             ("focusable", t(n["focusable"])), ("focused", "false"),
             ("scrollable", t(n["scrollable"])), ("long-clickable", t(n["long_clickable"])),
             ("password", t(n["password"])), ("selected", "false"),
             ("bounds", f"[{x1},{y1}][{x2},{y2}]"), ("hint", n["hint"])]
    s = "<node " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs)
    if not n["children"]:
        return s + " />"
    return s + ">" + "".join(render(c, i) for i, c in enumerate(n["children"])) + "</node>"


def status_bar():
    return node("android.widget.FrameLayout", ((0, 0), (W, 84)), rid=f"{SYSUI}:id/status_bar", pkg=SYSUI,
                children=[node("android.widget.TextView", ((42, 0), (170, 84)), text="12:00", rid=f"{SYSUI}:id/clock", pkg=SYSUI),
                          node("android.widget.ImageView", ((950, 14), (1040, 70)), desc="Battery 100 percent.", rid=f"{SYSUI}:id/battery", pkg=SYSUI)])


def app_window(toolbar_title, content, up=False, actions=()):
    bar = [node("android.widget.TextView", ((200 if up else 48, 120), (880, 216)), text=toolbar_title, rid=f"{PKG}:id/toolbar_title")]
    if up:
        bar.insert(0, node("android.widget.ImageButton", ((0, 84), (168, 252)), desc="Navigate up", clickable=True))
    bar.extend(actions)
    return node("android.widget.FrameLayout", ((0, 0), (W, H)), children=[
        node("android.widget.LinearLayout", ((0, 84), (W, H)), rid="android:id/content", children=[
            node("android.view.ViewGroup", ((0, 84), (W, 252)), rid=f"{PKG}:id/toolbar", children=bar),
            node("android.widget.FrameLayout", ((0, 252), (W, H)), rid=f"{PKG}:id/container", children=content)])])


def hierarchy(*roots):
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + "".join(render(r, i) for i, r in enumerate(roots)) + "</hierarchy>")


def login_window(heading):
    return app_window("Mobilectl Demo", [
    heading,
    node("android.widget.EditText", ((80, 700), (1000, 840)), rid=f"{PKG}:id/username", clickable=True, long_clickable=True, hint="Username"),
    node("android.widget.EditText", ((80, 880), (1000, 1020)), rid=f"{PKG}:id/password", clickable=True, long_clickable=True, password=True, hint="Password"),
    node("android.widget.CheckBox", ((80, 1060), (600, 1160)), text="Remember me", rid=f"{PKG}:id/remember", clickable=True, checkable=True),
    node("android.widget.Button", ((80, 1220), (1000, 1360)), text="LOG IN", rid=f"{PKG}:id/login", clickable=True),
    node("android.widget.TextView", ((340, 1420), (740, 1500)), text="Forgot password?", rid=f"{PKG}:id/forgot", clickable=True),
])


login = login_window(node("android.widget.TextView", ((80, 520), (1000, 620)), text="Welcome back", rid=f"{PKG}:id/welcome"))
# The login after its API answered an error (app.json: the LOG IN transition's `fail_to`).
login_error = login_window(node("android.widget.TextView", ((80, 520), (1000, 620)), text="Sign-in failed. Try again.", rid=f"{PKG}:id/error"))

permission = node("android.widget.FrameLayout", ((0, 0), (W, H)), pkg=PERM, children=[
    node("android.widget.LinearLayout", ((60, 780), (1020, 1620)), rid=f"{PERM}:id/grant_dialog", pkg=PERM, children=[
        node("android.widget.ImageView", ((492, 820), (588, 916)), rid=f"{PERM}:id/permission_icon", pkg=PERM),
        node("android.widget.TextView", ((108, 940), (972, 1120)), text="Allow Mobilectl Demo to send you notifications?", rid=f"{PERM}:id/permission_message", pkg=PERM),
        node("android.widget.Button", ((108, 1200), (972, 1340)), text="Allow", rid=f"{PERM}:id/permission_allow_button", pkg=PERM, clickable=True),
        node("android.widget.Button", ((108, 1380), (972, 1520)), text="Don\u2019t allow", rid=f"{PERM}:id/permission_deny_button", pkg=PERM, clickable=True),
    ])])

items = []
for i, (title, sub) in enumerate([("Order #1001", "Shipped \u00b7 2 items"), ("Order #1002", "Processing \u00b7 1 item"),
                                  ("Order #1003", "Delivered \u00b7 5 items"), ("Order #1004", "Cancelled"),
                                  ("Order #1005", "Shipped \u00b7 3 items")]):
    y = 252 + i * 220
    items.append(node("android.widget.LinearLayout", ((0, y), (W, y + 220)), rid=f"{PKG}:id/item", clickable=True, long_clickable=True, children=[
        node("android.widget.TextView", ((48, y + 30), (1032, y + 110)), text=title, rid=f"{PKG}:id/item_title"),
        node("android.widget.TextView", ((48, y + 120), (1032, y + 190)), text=sub, rid=f"{PKG}:id/item_subtitle")]))
lst = app_window("Inbox", [
    node("androidx.recyclerview.widget.RecyclerView", ((0, 252), (W, H)), rid=f"{PKG}:id/list", scrollable=True, focusable=True, children=items),
    node("android.widget.ImageButton", ((880, 2180), (1040, 2340)), desc="Compose", rid=f"{PKG}:id/fab", clickable=True),
], actions=[node("android.widget.ImageButton", ((940, 100), (1064, 236)), desc="Log out", rid=f"{PKG}:id/logout", clickable=True)])

detail = app_window("Order #1001", [
    node("android.widget.TextView", ((48, 300), (1032, 420)), text="Shipped \u00b7 2 items \u00b7 Total $42.00", rid=f"{PKG}:id/detail_body"),
    node("android.widget.Switch", ((48, 480), (1032, 600)), text="Notify me", rid=f"{PKG}:id/notify", clickable=True, checkable=True),
    # Developer buttons: an uncaught exception, and a main thread blocked long enough for an ANR.
    node("android.widget.Button", ((48, 660), (520, 780)), text="CRASH", rid=f"{PKG}:id/crash", clickable=True),
    node("android.widget.Button", ((560, 660), (1032, 780)), text="FREEZE", rid=f"{PKG}:id/freeze", clickable=True),
    node("android.widget.EditText", ((40, 1900), (800, 2040)), rid=f"{PKG}:id/reply", clickable=True, long_clickable=True, hint="Write a reply"),
    node("android.widget.Button", ((820, 1900), (1040, 2040)), text="SEND", rid=f"{PKG}:id/send", clickable=True),
], up=True)

for name, roots in [("login", [login, status_bar()]), ("login_error", [login_error, status_bar()]),
                    ("permission", [permission, status_bar()]),
                    ("list", [lst, status_bar()]), ("detail", [detail, status_bar()])]:
    with open(f"src/virtual_device/demo/{name}.xml", "w", encoding="utf-8") as f:
        f.write(hierarchy(*roots))
