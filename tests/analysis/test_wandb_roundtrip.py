"""Loading through W&B gives the frames the run folders give, for real tiny runs.

Two tiny runs are trained with W&B offline (``wandb_runs`` in tests/conftest.py). The W&B server
is replaced by answers built from those runs' own `.wandb` records (``wandb_records``): the runs
query, history scans and artifact queries are answered at the wandb client's single request point
(``ServiceApi.send_api_request``), and artifact files are served over real HTTP from the files the
client staged for upload. Runs come one per page, so pagination is exercised.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import wandb
import wandb_records as wr
from wandb.apis.public import service_api
from wandb_api import ApiStandIn

from mcsweep.analysis import load, load_report, load_samples
from mcsweep.analysis import load_wandb as lw

ENTITY, PROJECT = "rt-entity", "mcsweep"


_PROJECT_INFO = {"id": "UHJvamVjdDox", "internalId": "1", "name": PROJECT, "entity": {"name": ENTITY}}


def _artifact_id(run_id: str, index: int) -> str:
    return base64.b64encode(f"Artifact:{run_id}:{index}".encode()).decode()


class FileServer:
    """A real local HTTP server for artifact files (wandb downloads them with requests)."""

    def __init__(self) -> None:
        self.files: dict[str, Path] = {}
        self.by_digest: dict[str, Path] = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = server.files.get(self.path) or next(
                    (p for d, p in server.by_digest.items() if d in self.path), None
                )
                if path is None:
                    self.send_error(404)
                    return
                body = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, key: str, path: Path) -> str:
        self.files[f"/{key}"] = path
        return f"http://127.0.0.1:{self.httpd.server_port}/{key}"


class RecordedServer(ApiStandIn):
    """Answers the public API's requests from the runs' `.wandb` records; unknown requests fail."""

    def __init__(self, run_dirs: list[Path], files: FileServer, scratch: Path) -> None:
        self.scratch = scratch
        self.runs = {}
        for d in run_dirs:
            records = wr.run_records(d)
            self.runs[wr.run_record(records).run_id] = records
        self.files = files
        super().__init__()

    def graphql(self, op: str, variables: dict[str, Any], query: str) -> dict[str, Any]:
        answer = getattr(self, f"gql_{op}", None)
        if answer is None:
            raise AssertionError(f"unexpected GraphQL operation {op}: {query[:300]}")
        return answer(variables)

    def history_rows(self, run_id: str) -> list[dict[str, Any]]:
        return wr.history(self.runs[run_id])

    def forget(self, record_type: str, key_prefix: str = "") -> None:
        """Drop what an older tracker never logged: whole records, or history keys with a prefix."""
        for run_id, records in self.runs.items():
            kept = [r for r in records if r.WhichOneof("record_type") != record_type or key_prefix]
            for r in kept:
                if key_prefix and r.WhichOneof("record_type") == record_type:
                    items = [i for i in r.history.item if not "/".join(i.nested_key).startswith(key_prefix)]
                    del r.history.item[:]
                    r.history.item.extend(items)
            self.runs[run_id] = kept

    def gql_GetDefaultEntity(self, v: dict[str, Any]) -> dict[str, Any]:
        return {"viewer": {"id": "VXNlcjox", "entity": ENTITY}}

    def _node(self, run_id: str) -> dict[str, Any]:
        records = self.runs[run_id]
        run, history = wr.run_record(records), wr.history(records)
        exits = [r.exit for r in records if r.WhichOneof("record_type") == "exit"]
        return {
            "id": base64.b64encode(f"Run:v1:{run_id}:{PROJECT}:{ENTITY}".encode()).decode(),
            "projectId": "1",
            "tags": list(run.tags),
            "name": run_id,
            "displayName": run.display_name,
            "sweepName": None,
            "state": "finished" if exits and exits[-1].exit_code == 0 else "crashed",
            "group": run.run_group,
            "jobType": run.job_type,
            "commit": None,
            "readOnly": False,
            "createdAt": "2026-12-01T00:00:00",
            "heartbeatAt": "2026-12-01T00:10:00",
            "description": None,
            "notes": None,
            "historyLineCount": len(history),
            "user": {"name": "rt", "username": "rt"},
            "config": json.dumps({k: {"value": v, "desc": None} for k, v in wr.config(records).items()}),
            "summaryMetrics": json.dumps(wr.summary(records)),
            "systemMetrics": "{}",
            "historyKeys": {"lastStep": len(history) - 1, "keys": {}},
        }

    def gql_Runs(self, v: dict[str, Any]) -> dict[str, Any]:
        ids = sorted(self.runs)
        if v.get("filters"):
            group = json.loads(v["filters"]) if isinstance(v["filters"], str) else v["filters"]
            ids = [i for i in ids if wr.run_record(self.runs[i]).run_group == group.get("group", group)]
        start = ids.index(v["cursor"]) + 1 if v.get("cursor") else 0
        page = ids[start : start + v["perPage"]]
        return {
            "project": {
                "internalId": "1",
                "runCount": len(ids),
                "readOnly": False,
                "runs": {
                    "edges": [{"node": self._node(i), "cursor": i} for i in page],
                    "pageInfo": {
                        "endCursor": page[-1] if page else None,
                        "hasNextPage": start + len(page) < len(ids),
                    },
                },
            }
        }

    def gql_RunHistoryKeys(self, v: dict[str, Any]) -> dict[str, Any]:
        last = len(wr.history(self.runs[v["name"]])) - 1
        return {"project": {"run": {"historyKeys": {"lastStep": last, "keys": {}}}}}

    # --- artifacts: the versions each run logged, the latest alias on the newest
    def _versions(self, run_id: str) -> list[Any]:
        return wr.artifacts(self.runs[run_id])

    def _artifact_node(self, run_id: str, index: int) -> dict[str, Any]:
        versions = self._versions(run_id)
        art = versions[index]
        aliases = [a for a in art.aliases if a != "latest"] + (["latest"] if index == len(versions) - 1 else [])
        collection = {"__typename": "ArtifactSequence", "name": art.name, "project": _PROJECT_INFO}
        return {
            "__typename": "Artifact",
            "id": _artifact_id(run_id, index),
            "artifactSequence": collection,
            "versionIndex": index,
            "artifactType": {"name": art.type},
            "description": None,
            "metadata": "{}",
            "ttlDurationSeconds": -2,
            "ttlIsInherited": True,
            "tags": [],
            "historyStep": None,
            "state": "COMMITTED",
            "size": sum(c.size for c in art.manifest.contents),
            "digest": art.digest,
            "digestAlgorithm": "MANIFEST_MD5",
            "commitHash": art.digest[:12],
            "fileCount": len(art.manifest.contents),
            "createdAt": "2026-12-01T00:10:00",
            "updatedAt": None,
            "aliases": [
                {"__typename": "ArtifactAlias", "id": f"{index}:{a}", "alias": a, "artifactCollection": collection}
                for a in aliases
            ],
        }

    def gql_FetchArtifactManifest(self, v: dict[str, Any]) -> dict[str, Any]:
        run_id, index = base64.b64decode(v["id"]).decode().split(":")[1:]
        art = self._versions(run_id)[int(index)]
        manifest = {
            "version": art.manifest.version,
            "storagePolicy": art.manifest.storage_policy,
            "storagePolicyConfig": {c.key: json.loads(c.value_json) for c in art.manifest.storage_policy_config},
            "contents": {c.path: {"digest": c.digest, "size": c.size} for c in art.manifest.contents},
        }
        path = self.scratch / f"manifest-{run_id}-{index}.json"
        path.write_text(json.dumps(manifest))
        for c in art.manifest.contents:  # the file the client staged for upload, by content digest
            self.files.by_digest[base64.b64decode(c.digest).hex()] = Path(c.local_path)
        return {"artifact": {"currentManifest": {"file": {"directUrl": self.files.url(path.name, path)}}}}

    def gql_GetArtifactMembershipFileUrls(self, v: dict[str, Any]) -> dict[str, Any]:
        run_id = v["collection"].removeprefix("run-store-")
        index = int(v["alias"].removeprefix("v"))
        art = self._versions(run_id)[index]
        urls = {c.path: self.files.url(f"{index}/{c.path}", Path(c.local_path)) for c in art.manifest.contents}
        edges = [{"node": {"__typename": "File", "name": name, "directUrl": url}} for name, url in urls.items()]
        info = {"__typename": "PageInfo", "endCursor": None, "hasNextPage": False}
        files = {"pageInfo": info, "edges": edges}
        membership = {"__typename": "ArtifactSequence", "artifactMembership": {"files": files}}
        return {"project": {"artifactCollection": membership}}

    def gql_RunOutputArtifacts(self, v: dict[str, Any]) -> dict[str, Any]:
        n = len(self._versions(v["run"]))
        edges = [{"node": self._artifact_node(v["run"], i)} for i in range(n)]
        info = {"__typename": "PageInfo", "endCursor": None, "hasNextPage": False}
        return {"project": {"run": {"artifacts": {"totalCount": n, "pageInfo": info, "edges": edges}}}}


@pytest.fixture
def server(wandb_runs: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[RecordedServer]:
    files = FileServer()
    rec = RecordedServer(wandb_runs, files, tmp_path)
    monkeypatch.setattr(service_api.ServiceApi, "send_api_request", rec.send)
    monkeypatch.setattr(service_api.ServiceApi, "finalize", lambda *_a, **_k: lambda: None)
    monkeypatch.setattr(lw, "RUNS_PER_PAGE", 1)
    monkeypatch.setenv("WANDB_BASE_URL", files.url("", tmp_path).rstrip("/"))
    monkeypatch.setenv("WANDB_CACHE_DIR", str(tmp_path / "wandb-cache"))
    monkeypatch.setenv("WANDB_ARTIFACT_DIR", str(tmp_path / "wandb-artifacts"))
    yield rec
    files.httpd.shutdown()


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in one order whatever the source's order (cells may be lists: token ids)."""
    key = [json.dumps(row, default=str) for row in frame.astype(object).to_numpy().tolist()]
    return frame.iloc[sorted(range(len(key)), key=key.__getitem__)].reset_index(drop=True).astype(object)


def test_wandb_frame_equals_the_run_folder_frame(wandb_runs: list[Path], server: RecordedServer) -> None:
    local = load(*wandb_runs)
    remote = load(f"wandb:{ENTITY}/{PROJECT}/temperature", api=wandb.Api(api_key="0" * 40))
    assert server.asked.count("Runs") >= 2  # one run per page: two pages
    assert set(remote["file"]) == {"metrics", "evals"} and remote["run_id"].nunique() == 2
    # config_key hashes a run folder's config.yaml; W&B's client reshapes configs, so its runs have none
    assert remote["config_key"].isna().all() and local["config_key"].notna().all()
    pd.testing.assert_frame_equal(_sorted(remote.drop(columns="config_key")), _sorted(local.drop(columns="config_key")))
    assert load_report(remote).partial_runs() == []
    assert _costs(remote) == _costs(local) and {c[1] for c in _costs(local)} == {"recorded"}


def _costs(frame: pd.DataFrame) -> list[tuple]:
    """Each run's cost as the load report has it: W&B's from its summary, the folder's from its card."""
    return sorted((r["run_id"], r["cost"], r["wall_s"], r["cpu_s"]) for r in load_report(frame).runs)


def test_wandb_samples_come_from_the_run_store_artifact(wandb_runs: list[Path], server: RecordedServer) -> None:
    local = load_samples(*wandb_runs)
    remote = load_samples(f"wandb:{ENTITY}/{PROJECT}/temperature", api=wandb.Api(api_key="0" * 40))
    assert set(remote["eval_temperature"].dropna()) > {0.5, 2.0}  # training and temperature evaluations
    pd.testing.assert_frame_equal(_sorted(remote.drop(columns="config_key")), _sorted(local.drop(columns="config_key")))
    assert not load_report(remote).issues


def test_what_wandb_lacks_is_reported(wandb_runs: list[Path], server: RecordedServer) -> None:
    """Runs logged without evaluation rows or run-store artifacts (an older tracker) load what
    they have, and the load report names each gap instead of leaving a silent hole."""
    server.forget("history", key_prefix="evals/")
    server.forget("artifact")
    api = wandb.Api(api_key="0" * 40)
    frame = load(f"wandb:{ENTITY}/{PROJECT}/temperature", api=api)
    assert set(frame["file"]) == {"metrics"} and frame["run_id"].nunique() == 2
    problems = [i.problem for i in load_report(frame).issues]
    assert sum("evaluation rows" in p and "unavailable" in p for p in problems) == 2
    samples = load_samples(f"wandb:{ENTITY}/{PROJECT}/temperature", api=api)
    assert samples.empty
    problems = [i.problem for i in load_report(samples).issues]
    assert sum("no run-store artifact" in p for p in problems) == 2
