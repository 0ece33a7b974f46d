"""The Python client against live PowerContext servers on loopback (started by
`test/client/python-client.test.ts`, which runs this suite from `npm test`).

Environment (set by the runner):
  POWERCONTEXT_TEST_SERVER_URL   a server with a scripted OpenAI-compatible generation model
  POWERCONTEXT_TEST_SERVER_DB    that server's SQLite file
  POWERCONTEXT_TEST_DAMAGE_URL   a server whose SQLite file POWERCONTEXT_TEST_DAMAGE_DB a test damages
  POWERCONTEXT_TEST_AUTH_URL     a server that requires POWERCONTEXT_TEST_AUTH_TOKEN
  POWERCONTEXT_TEST_UNBOUND_URL  an app whose runtime is not bound (runtime_not_ready)

The scripted model answers by markers in the captured text: `[[invalid]]` (output that is not
the schema), `[[slow-model]]` (slower than the server's 3 s model timeout), `[[down]]` (HTTP 429),
`[[hang]]` (1.5 s, slower than this suite's client timeout); anything else becomes a fact.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import unittest
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import powercontext_client as pc  # noqa: E402
from powercontext_client import (  # noqa: E402
    ArtifactRef,
    ClientTimeoutError,
    GetRequest,
    PowerContextClient,
    PowerContextError,
)

URL = os.environ["POWERCONTEXT_TEST_SERVER_URL"]
DB = os.environ["POWERCONTEXT_TEST_SERVER_DB"]
DAMAGE_URL = os.environ["POWERCONTEXT_TEST_DAMAGE_URL"]
DAMAGE_DB = os.environ["POWERCONTEXT_TEST_DAMAGE_DB"]
AUTH_URL = os.environ["POWERCONTEXT_TEST_AUTH_URL"]
AUTH_TOKEN = os.environ["POWERCONTEXT_TEST_AUTH_TOKEN"]
UNBOUND_URL = os.environ["POWERCONTEXT_TEST_UNBOUND_URL"]


def scope() -> str:
    return f"py:{uuid.uuid4().hex[:12]}"


def raises(test: unittest.TestCase, cls: type, status: int, call):  # type: ignore[no-untyped-def]
    """Runs `call`, expects the error class `cls` with `status`, and returns the error."""
    with test.assertRaises(cls) as caught:
        call()
    err = caught.exception
    test.assertIsInstance(err, PowerContextError)
    test.assertEqual(err.status, status)
    test.assertEqual(err.code, cls.code_name)
    test.assertIsInstance(err.message, str)
    test.assertRegex(err.request_id or "", r"^[A-Za-z0-9._:-]{1,128}$")
    return err


class Lifecycle(unittest.TestCase):
    def setUp(self) -> None:
        self.pc = PowerContextClient(URL, timeout=20)

    def test_health_and_capabilities(self) -> None:
        self.assertEqual(self.pc.live().status, "ok")
        ready = self.pc.ready()
        self.assertIn(ready.status, ("ready", "degraded"))
        self.assertEqual(ready.checks["database"], "ready")
        caps = self.pc.capabilities(request_id="py:caps")
        self.assertIsInstance(caps, pc.CapabilitiesResponse)
        self.assertEqual(caps.extraction.mode, "model")
        self.assertIn("fts", caps.search_modes)
        self.assertEqual(caps.limits.remember_entries, 100)
        self.assertEqual(self.pc.openapi_document().openapi, "3.1.0")

    def test_full_memory_lifecycle(self) -> None:
        s = scope()
        captured = self.pc.capture_content(
            scope_id=s,
            source_id="standup-1",
            content="Kim: releases need owner approval.",
            metadata={"channel": "standup", "attendees": ["kim", "lee"]},
        )
        self.assertEqual((captured.status, captured.source.source_id, captured.created), ("accepted", "standup-1", True))
        again = self.pc.capture_content(
            scope_id=s, source_id="standup-1", content="Kim: releases need owner approval.",
            metadata={"channel": "standup", "attendees": ["kim", "lee"]},
        )
        self.assertEqual((again.position, again.created), (captured.position, False))

        made = self.pc.remember(
            scope_id=s,
            entries=[
                pc.RememberEntry(kind="decision", text="Production releases need owner approval",
                                 sources=[pc.SourceRef(name="content", source_id="standup-1")]),
                {"kind": "preference", "text": "Kim prefers squash merges 中文"},
            ],
        )
        self.assertEqual([r.status for r in made.results], ["created", "created"])
        decision, preference = (r.memory for r in made.results)
        self.assertIsInstance(decision, pc.Memory)
        self.assertEqual(decision.sources, [pc.SourceRef("content", "standup-1")])
        dup = self.pc.remember(scope_id=s, entries=[{"kind": "preference", "text": " Kim prefers squash merges 中文 "}])
        self.assertEqual(dup.results[0].status, "unchanged")

        got = self.pc.get(GetRequest(scope_id=s, memory_ref=decision.memory_ref))
        self.assertEqual((got.memory.text, got.current_revision, got.state), (decision.text, 1, "active"))

        updated = self.pc.update(scope_id=s, memory_ref=decision.memory_ref, text="Production releases need two approvals")
        self.assertEqual((updated.status, updated.memory.memory_ref.revision), ("updated", 2))
        # A stale base is a revision conflict, with the current revision in the details.
        err = raises(self, pc.RevisionConflictError, 409,
                     lambda: self.pc.update(scope_id=s, memory_ref=decision.memory_ref, text="stale"))
        self.assertEqual(err.details["current_revision"], 2)
        self.assertEqual(self.pc.get(scope_id=s, memory_id=decision.memory_ref.artifact_id,).memory.memory_ref.revision, 2)
        old = self.pc.get(scope_id=s, memory_ref=ArtifactRef(decision.memory_ref.artifact_id, 1))
        self.assertEqual(old.memory.text, "Production releases need owner approval")

        hits = self.pc.search(scope_id=s, query="two approvals", limit=5)
        self.assertEqual(hits.mode, "fts")
        self.assertEqual(hits.hits[0].memory_ref.artifact_id, decision.memory_ref.artifact_id)
        self.assertEqual(hits.hits[0].matched_by, ["fts"])

        forgotten = self.pc.forget(scope_id=s, memory_id=preference.memory_ref.artifact_id, reason="obsolete")
        self.assertEqual((forgotten.status, forgotten.memory.state), ("forgotten", "forgotten"))
        self.assertEqual(self.pc.forget(scope_id=s, memory_id=preference.memory_ref.artifact_id).status, "unchanged")
        active = self.pc.list(scope_id=s)
        self.assertEqual([m.memory_ref.artifact_id for m in active.memories], [decision.memory_ref.artifact_id])
        everything = self.pc.list(scope_id=s, states=["active", "forgotten"], limit=1)
        self.assertEqual(len(everything.memories), 1)
        self.assertIsNotNone(everything.next_after)

        restored = self.pc.restore(scope_id=s, memory_id=preference.memory_ref.artifact_id, reason="needed again")
        self.assertEqual((restored.status, restored.memory.state), ("restored", "active"))
        history = self.pc.history(scope_id=s, memory_id=preference.memory_ref.artifact_id)
        self.assertEqual([t.op for t in history.transitions], ["add", "forget", "restore"])
        self.assertEqual([t.reason for t in history.transitions], [None, "obsolete", "needed again"])

        changes = self.pc.changes(scope_id=s, since=0)
        self.assertEqual([c.op for c in changes.changes], ["add", "add", "update", "forget", "restore"])
        self.assertEqual(changes.head_seq, 5)
        self.assertEqual(self.pc.changes(scope_id=s, since=5).changes, [])

        prepared = self.pc.prepare_context(scope_id=s, query="two approvals for releases")
        self.assertEqual((prepared.schema, prepared.status), ("powercontext.prepared-context.v1", "ready"))
        self.assertIn("Production releases need two approvals", prepared.content or "")
        self.assertEqual(prepared.content_bytes, len((prepared.content or "").encode("utf-8")))

        sources = self.pc.get_sources(scope_id=s, source_ids=["standup-1"])
        self.assertEqual(sources.sources[0].metadata, {"channel": "standup", "attendees": ["kim", "lee"]})
        scopes = self.pc.list_scopes(limit=500)
        self.assertIsInstance(scopes, pc.ListScopesResponse)

    def test_merge_and_restore_with_preview(self) -> None:
        s = scope()
        made = self.pc.remember(scope_id=s, entries=[
            {"kind": "fact", "text": "Deploys run on Fridays"},
            {"kind": "fact", "text": "The CI has two cores"},
            {"kind": "fact", "text": "Builds use pnpm"},
        ])
        a, b, d = (r.memory.memory_ref for r in made.results)
        merged = self.pc.merge(scope_id=s, inputs=[a, b], kind="fact", text="Friday deploys on a 2-core CI")
        self.assertEqual(merged.status, "merged")
        c = merged.memory.memory_ref
        self.assertEqual(sorted(m.state for m in merged.inputs), ["merged", "merged"])
        again = self.pc.merge(scope_id=s, inputs=[c, d], kind="fact", text="Friday deploys, 2-core CI, pnpm")
        e = again.memory.memory_ref

        preview = self.pc.restore_preview(scope_id=s, memory_id=b.artifact_id)
        self.assertEqual(sorted(r.memory_id for r in preview.plan.restore),
                         sorted([a.artifact_id, b.artifact_id, d.artifact_id]))
        self.assertEqual(sorted(r.memory_id for r in preview.plan.retire), sorted([c.artifact_id, e.artifact_id]))
        self.assertIsNone(preview.plan.new_version)

        # Something moves after the preview: its token is stale and nothing changes.
        self.pc.update(scope_id=s, memory_ref=e, text="Friday deploys, 2-core CI, pnpm 9")
        raises(self, pc.PreviewStaleError, 409,
               lambda: self.pc.restore(scope_id=s, memory_id=b.artifact_id, preview_token=preview.preview_token))
        fresh = self.pc.restore_preview(scope_id=s, memory_id=b.artifact_id)
        done = self.pc.restore(scope_id=s, memory_id=b.artifact_id, preview_token=fresh.preview_token)
        self.assertEqual(done.status, "restored")
        self.assertEqual(sorted(m.memory_ref.artifact_id for m in done.retired), sorted([c.artifact_id, e.artifact_id]))
        self.assertEqual(self.pc.get(scope_id=s, memory_id=a.artifact_id).state, "active")
        raises(self, pc.StateConflictError, 409, lambda: self.pc.restore(scope_id=s, memory_id=c.artifact_id))

    def test_capture_and_flush(self) -> None:
        s = scope()
        structured = self.pc.capture_content(
            scope_id=s,
            content=json.dumps({"entries": [{"kind": "constraint", "text": "Never push to main"}]}),
            media_type="application/vnd.powercontext.memory+json",
        )
        free = self.pc.capture_content(scope_id=s, content="We moved the staging cluster to eu-west-2.")
        cursor = 0
        for _ in range(5):
            flushed = self.pc.flush(scope_id=s, limit=1)
            cursor = flushed.cursor
            if cursor >= free.position:
                break
        self.assertEqual(cursor, free.position)
        self.assertGreater(free.position, structured.position)
        texts = sorted(m.text for m in self.pc.list(scope_id=s).memories)
        self.assertEqual(texts, ["Never push to main", "Noted: We moved the staging cluster to eu-west-2."])
        self.assertEqual(self.pc.flush(scope_id=s).status, "idle")
        records = self.pc.flush_records(scope_id=s)
        self.assertEqual([r.to_position for r in records.records], [1, 2])
        journal = self.pc.list_sources(scope_id=s)
        self.assertEqual([v.status for v in journal.sources], ["processed", "processed"])


class Errors(unittest.TestCase):
    """Every error code a server can send, each raised as its own class."""

    def setUp(self) -> None:
        self.pc = PowerContextClient(URL, timeout=20)

    def test_request_errors(self) -> None:
        s = scope()
        err = raises(self, pc.InvalidRequestError, 422, lambda: self.pc.search(scope_id=s, query="x", limit=500))
        self.assertTrue(err.details["errors"])
        err = raises(self, pc.CapabilityNotSupportedError, 422,
                     lambda: self.pc.search(scope_id=s, query="x", mode="vector"))
        self.assertEqual(err.details["capability"], "vector")
        raises(self, pc.MemoryNotFoundError, 404, lambda: self.pc.get(scope_id=s, memory_id="mem_missing"))
        raises(self, pc.SourceNotFoundError, 404, lambda: self.pc.remember(
            scope_id=s, entries=[{"kind": "fact", "text": "cites nothing", "sources": [{"name": "content", "source_id": "nope"}]}]))
        self.pc.capture_content(scope_id=s, source_id="one", content="first")
        raises(self, pc.SourceConflictError, 409,
               lambda: self.pc.capture_content(scope_id=s, source_id="one", content="second"))
        m = self.pc.remember(scope_id=s, entries=[{"kind": "fact", "text": "to forget"}]).results[0].memory
        self.pc.forget(scope_id=s, memory_id=m.memory_ref.artifact_id)
        raises(self, pc.StateConflictError, 409,
               lambda: self.pc.update(scope_id=s, memory_ref=m.memory_ref, text="too late"))
        raises(self, pc.PayloadTooLargeError, 413,
               lambda: self.pc.capture_content(scope_id=s, content="x" * (3 * 1024 * 1024)))
        # The client checks what it can before sending: a missing required argument.
        with self.assertRaises(TypeError):
            self.pc.remember(scope_id=s)  # type: ignore[call-arg]

    def test_unauthorized(self) -> None:
        err = raises(self, pc.UnauthorizedError, 401, lambda: PowerContextClient(AUTH_URL).capabilities())
        self.assertIn("token", err.message.lower())
        raises(self, pc.UnauthorizedError, 401, lambda: PowerContextClient(AUTH_URL, token="wrong").capabilities())
        good = PowerContextClient(AUTH_URL, token=AUTH_TOKEN)
        self.assertEqual(good.capabilities().version, pc.CONTRACT_VERSION)
        # Health routes stay public.
        self.assertEqual(PowerContextClient(AUTH_URL).live().status, "ok")

    def test_runtime_not_ready(self) -> None:
        unbound = PowerContextClient(UNBOUND_URL)
        raises(self, pc.RuntimeNotReadyError, 503, lambda: unbound.list(scope_id=scope()))
        # `ready` declares 503 with a body: it is an answer, not an error.
        self.assertEqual(unbound.ready().status, "not_ready")

    def test_inference_errors(self) -> None:
        s = scope()
        self.pc.capture_content(scope_id=s, content="[[invalid]] the model answers nonsense")
        raises(self, pc.InvalidInferenceOutputError, 502, lambda: self.pc.flush(scope_id=s))
        s = scope()
        self.pc.capture_content(scope_id=s, content="[[slow-model]] the model is too slow")
        raises(self, pc.InferenceTimeoutError, 503, lambda: self.pc.flush(scope_id=s))
        s = scope()
        self.pc.capture_content(scope_id=s, content="[[down]] the model is rate limited")
        raises(self, pc.InferenceUnavailableError, 503, lambda: self.pc.flush(scope_id=s))

    def test_damaged_row(self) -> None:
        """A stored version whose bytes no longer match its hash is a damaged row, named, never served
        (on a server of its own: once damage is found, that server refuses writes)."""
        damaged = PowerContextClient(DAMAGE_URL, timeout=20)
        s = scope()
        m = damaged.remember(scope_id=s, entries=[{"kind": "fact", "text": "to be damaged"}]).results[0].memory
        with sqlite3.connect(DAMAGE_DB, timeout=10) as db:
            db.execute("UPDATE memory_versions SET text = 'forged' WHERE memory_id = ?", (m.memory_ref.artifact_id,))
        err = raises(self, pc.StorageUnavailableError, 503, lambda: damaged.get(scope_id=s, memory_ref=m.memory_ref))
        self.assertEqual(err.details["reason"], "corrupt")
        self.assertEqual(err.details["row"], f"memory_versions {m.memory_ref.artifact_id}@1")
        self.assertNotIn("forged", str(err))

    def test_every_contract_code_has_its_class(self) -> None:
        for code in pc.CONTRACT_ERROR_CODES:
            cls = pc.ERROR_CLASSES[code]
            self.assertTrue(issubclass(cls, PowerContextError))
            self.assertEqual(cls.code_name, code)

    def test_connection_failed(self) -> None:
        closed = PowerContextClient("http://127.0.0.1:9", timeout=5)
        with self.assertRaises(pc.ConnectionFailedError) as caught:
            closed.live(request_id="py:refused")
        self.assertEqual((caught.exception.status, caught.exception.request_id), (0, "py:refused"))


class Timeout(unittest.TestCase):
    def test_a_call_past_its_timeout_raises_and_is_not_retried(self) -> None:
        s = scope()
        client = PowerContextClient(URL, timeout=20)
        client.capture_content(scope_id=s, source_id="hang", content="[[hang]] a slow model call")
        started = time.monotonic()
        with self.assertRaises(ClientTimeoutError) as caught:
            client.flush(scope_id=s, timeout=0.5, request_id="py:timeout")
        self.assertLess(time.monotonic() - started, 1.4)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertEqual((caught.exception.code, caught.exception.status), ("timeout", 0))
        self.assertEqual(caught.exception.request_id, "py:timeout")
        # The server finished the one call it received; the runner checks the model saw it once.
        for _ in range(50):
            if client.list_sources(scope_id=s).cursor == 1:
                break
            time.sleep(0.1)
        self.assertEqual(client.flush(scope_id=s).status, "idle")


class Configuration(unittest.TestCase):
    def test_environment(self) -> None:
        saved = {k: os.environ.get(k) for k in ("POWERCONTEXT_CLIENT_SERVER_URL", "POWERCONTEXT_CLIENT_API_TOKEN", "POWERCONTEXT_CLIENT_TIMEOUT")}
        try:
            os.environ["POWERCONTEXT_CLIENT_SERVER_URL"] = AUTH_URL
            os.environ["POWERCONTEXT_CLIENT_API_TOKEN"] = AUTH_TOKEN
            os.environ["POWERCONTEXT_CLIENT_TIMEOUT"] = "7.5"
            client = PowerContextClient()
            self.assertEqual((client.base_url, client.timeout), (AUTH_URL.rstrip("/"), 7.5))
            self.assertEqual(client.capabilities().version, pc.CONTRACT_VERSION)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        with self.assertRaises(ValueError):
            PowerContextClient("ftp://example")
        with self.assertRaises(ValueError):
            PowerContextClient(URL, timeout=0)

    def test_models_round_trip(self) -> None:
        req = pc.RememberRequest(scope_id="s", entries=[pc.RememberEntry(kind="fact", text="t")])
        self.assertEqual(req.to_dict(), {"scope_id": "s", "entries": [{"kind": "fact", "text": "t"}]})
        with self.assertRaises(pc.ResponseShapeError):
            pc.Memory.from_dict({"memory_ref": {"artifact_id": "x", "revision": "1"}})
        with self.assertRaises(TypeError):
            PowerContextClient(URL).remember(req, scope_id="other")
        self.assertEqual(sorted(pc.OPERATIONS), sorted(pc.OPERATIONS.keys()))


if __name__ == "__main__":
    unittest.main()
