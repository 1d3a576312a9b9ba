"""The OpenAPI document as users' tools read it: an established validator accepts it, and a
client generated from it by openapi-python-client builds and drives the demo login flow
against `serve --demo`.
"""

import io
import json
import os
import subprocess
import sys
import urllib.request

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from PIL import Image


def test_the_checked_in_document_validates(root):
    spec, _ = read_from_filename(str(root / "openapi" / "openapi.json"))
    validate(spec)
    assert spec["openapi"].startswith("3.1")


def test_the_served_document_is_the_checked_in_one(demo_server, root):
    with urllib.request.urlopen(f"{demo_server}/openapi.json") as r:
        served = json.load(r)
    validate(served)
    assert served == json.loads((root / "openapi" / "openapi.json").read_text())


@pytest.fixture(scope="module")
def client_package(root, tmp_path_factory):
    out = tmp_path_factory.mktemp("generated") / "client"
    bin_dir = os.path.dirname(sys.executable)
    run = subprocess.run(
        [os.path.join(bin_dir, "openapi-python-client"), "generate",
         "--path", str(root / "openapi" / "openapi.json"),
         "--config", str(root / "openapi" / "python-client.yaml"),
         "--output-path", str(out)],
        capture_output=True, text=True, timeout=300,
        # The generator formats its output with ruff, installed beside it.
        env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")},
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    # Every operation generated whole: no warning, no skipped response.
    assert "Warning" not in said and "WARNING" not in said, said
    sys.path.insert(0, str(out))
    yield out
    sys.path.remove(str(out))


def test_every_operation_has_a_generated_function(client_package, root):
    spec = json.loads((root / "openapi" / "openapi.json").read_text())
    ids = [op["operationId"] for item in spec["paths"].values() for op in item.values()]
    api = client_package / "mobilectl_client" / "api"
    generated = {p.stem for p in api.rglob("*.py") if p.stem != "__init__"}
    assert set(ids) <= generated, set(ids) - generated


def test_a_generated_client_drives_the_demo_login(client_package, demo_server):
    from mobilectl_client import Client
    from mobilectl_client.api.act import tap, type_text
    from mobilectl_client.api.inspect import screenshot, snapshot
    from mobilectl_client.api.verify import alert_accept, expect, wait
    from mobilectl_client.models import (
        AlertRequest, Condition, ErrorEnvelope, ExpectKind, ExpectRequest, Selector,
        SnapshotFormat, SnapshotView, TapRequest, TypeOptions, WaitRequest, WaitStatus,
    )

    client = Client(base_url=demo_server, timeout=60)
    snap = snapshot.sync(client=client, format_=SnapshotFormat.JSON)
    assert isinstance(snap, SnapshotView), snap
    by_id = {e.id: e for e in snap.elements if isinstance(e.id, str)}
    user = by_id["com.mobilectl.demo:id/username"].ref
    password = by_id["com.mobilectl.demo:id/password"].ref

    typed = type_text.sync(client=client, body=TypeOptions(ref=user, text="alice"))
    assert typed.success is True, typed
    assert typed.details["matched"] is True, typed.details
    typed = type_text.sync(client=client, body=TypeOptions(ref=password, text="secret"))
    assert typed.success is True, typed

    tapped = tap.sync(client=client, body=TapRequest(selector=Selector(text="LOG IN")))
    assert tapped.success is True, tapped
    waited = wait.sync(client=client, body=WaitRequest(
        selector=Selector(text="Allow"), condition=Condition.VISIBLE, timeout_ms=10000))
    assert waited.status == WaitStatus.SUCCESS, waited
    accepted = alert_accept.sync(client=client, body=AlertRequest())
    assert accepted.success is True, accepted
    seen = expect.sync(client=client, body=ExpectRequest(
        kind=ExpectKind.ELEMENT_VISIBLE, selector=Selector(text="Order #1001")))
    assert seen.success is True, seen

    # Errors come back as the typed envelope.
    missing = tap.sync(client=client, body=TapRequest(ref="e999"))
    assert isinstance(missing, ErrorEnvelope), missing
    assert missing.error.code.value == "ELEMENT_NOT_FOUND"

    # A screenshot comes back as its bytes.
    shot = screenshot.sync_detailed(client=client)
    assert shot.status_code == 200
    assert Image.open(io.BytesIO(shot.content)).format == "PNG"


def test_a_generated_client_works_under_a_w3c_session(client_package, demo_server):
    """The base URL of a Grid session (`…/session/{id}`) is all a generated client needs: the
    whole API is under it, on the session's device (mobilectl answers it directly too)."""
    import httpx
    from mobilectl_client import Client
    from mobilectl_client.api.inspect import snapshot
    from mobilectl_client.api.sessions import session_info
    from mobilectl_client.models import SessionInfo, SnapshotFormat, SnapshotView

    made = httpx.post(f"{demo_server}/session", timeout=60, headers={
        "content-type": "application/json; charset=utf-8"},
        json={"capabilities": {"alwaysMatch": {"platformName": "android"}}}).json()
    sid = made["value"]["sessionId"]
    client = Client(base_url=f"{demo_server}/session/{sid}", timeout=60)
    info = session_info.sync(client=client)
    assert isinstance(info, SessionInfo), info
    caps = made["value"]["capabilities"]
    # The W3C id is the session's secret; the session's public id is a capability.
    assert info.id == caps["mobilectl:session"] and info.udid == caps["appium:udid"]
    assert sid.startswith("mss-") and sid != info.id
    snap = snapshot.sync(client=client, format_=SnapshotFormat.JSON)
    assert isinstance(snap, SnapshotView), snap
    assert snap.device.udid == info.udid
    assert httpx.delete(f"{demo_server}/session/{sid}").status_code == 200
