"""contrib/kubernetes: the manifests are valid Kubernetes objects and the scripts they run work.

- Every manifest validates against the Kubernetes API schemas (kubernetes-validate, strict:
  unknown fields are errors), pinned to one API version so the test does not move.
- The collector script runs one pass (``ONESHOT=1``) with fake host tools first on ``PATH``
  (tests/fakehost.py prints the gpu01 fixture), then the audit script reads that slot with the
  ConfigMap's inventory: the node collected is audited, the inventory's other host has no
  snapshot (exit 3, named in the report).
- The containers' commands are the shipped scripts, and the environment the manifests set is
  what the scripts read.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import fakehost
from tests.paths import ROOT

kubernetes_validate = pytest.importorskip("kubernetes_validate")

HERE = ROOT / "contrib" / "kubernetes"
K8S_VERSION = "1.30.0"
GPU01 = ROOT / "tests" / "fixtures" / "linux_host" / "gpu01"
MANIFESTS = sorted(HERE.glob("*.yaml"))


def _objects(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj["spec"]
    if obj["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return list(spec["template"]["spec"]["containers"])


def test_manifests_exist() -> None:
    kinds = {obj["kind"] for path in MANIFESTS for obj in _objects(path)}
    assert kinds == {
        "Namespace",
        "PersistentVolumeClaim",
        "DaemonSet",
        "ConfigMap",
        "Job",
        "CronJob",
    }


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_is_valid_kubernetes(path: Path) -> None:
    for obj in _objects(path):
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)


def test_schema_validation_catches_a_mistake() -> None:
    """The validator really checks: a misspelt field of the DaemonSet is refused."""
    (daemonset,) = _objects(HERE / "daemonset.yaml")
    daemonset["spec"]["template"]["spec"]["hostNetwrk"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(daemonset, K8S_VERSION, strict=True)


def _documented_env(script: Path) -> set[str]:
    head = script.read_text(encoding="utf-8").split("set -u", 1)[0]
    return set(re.findall(r"^#\s+([A-Z_]+)\s{2,}", head, re.M))


def test_containers_run_the_shipped_scripts_with_their_documented_environment() -> None:
    seen = set()
    for path in MANIFESTS:
        for obj in _objects(path):
            if obj["kind"] not in {"DaemonSet", "Job", "CronJob"}:
                continue
            for container in _containers(obj):
                (command,) = container["command"]
                script = HERE / command
                assert script.is_file(), command
                assert os.access(script, os.X_OK), command
                env = {item["name"] for item in container.get("env", [])}
                assert env <= _documented_env(script), (path.name, env)
                seen.add(command)
    assert seen == {"rocetune-node-collect", "rocetune-fabric-audit"}


def _inventory(tmp_path: Path) -> Path:
    (configmap,) = _objects(HERE / "inventory-configmap.yaml")
    path = tmp_path / "inventory.yaml"
    path.write_text(configmap["data"]["inventory.yaml"], encoding="utf-8")
    return path


def test_collect_pass_then_audit_of_its_slot(tmp_path: Path) -> None:
    bin_dir = fakehost.install(tmp_path / "bin", GPU01)
    wrapper = bin_dir / "rocetune"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m rocetune "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    snapshots = tmp_path / "snapshots"
    env = {
        **os.environ,
        "PATH": fakehost.path_with(bin_dir),
        "PYTHONPATH": str(ROOT),
        "ROCETUNE": str(wrapper),
        "SNAPSHOTS": str(snapshots),
        "INTERVAL": "3600",
        "NODE_NAME": "gpu-node-01",
        "ROCETUNE_TIMEOUT": "20",
        "ONESHOT": "1",
    }
    collect = subprocess.run(
        [str(HERE / "rocetune-node-collect")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert collect.returncode == 0, collect.stderr
    (slot,) = [p for p in snapshots.iterdir() if p.is_dir()]
    assert re.fullmatch(r"\d{8}T\d{4}Z", slot.name)
    meta = json.loads((slot / "gpu-node-01" / "meta.json").read_text(encoding="utf-8"))
    assert meta["platform"] == "linux_host"
    assert meta["device"] == "gpu-node-01"
    status = {c["command"]: c["status"] for c in meta["commands"]}
    assert status["mlnx_qos -i eth2"] == "ok"

    env = {**env, "SLOT": slot.name, "INVENTORY": str(_inventory(tmp_path))}
    audit = subprocess.run(
        [str(HERE / "rocetune-fabric-audit")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert audit.returncode == 3, audit.stderr  # gpu-node-02 has no snapshot
    report = json.loads((snapshots / f"{slot.name}.audit.json").read_text(encoding="utf-8"))
    assert report["devices"]["gpu-node-01"]["status"] == "ok"
    assert report["devices"]["gpu-node-02"]["status"] != "ok"
    assert json.loads(audit.stdout) == report


@pytest.mark.parametrize(
    ("script", "env", "message"),
    [
        ("rocetune-node-collect", {"INTERVAL": "7"}, "INTERVAL must divide a day"),
        ("rocetune-node-collect", {"INTERVAL": "1h"}, "INTERVAL must be seconds"),
        ("rocetune-fabric-audit", {"SLOT": "../etc"}, "bad SLOT"),
    ],
)
def test_scripts_refuse_bad_settings(
    tmp_path: Path, script: str, env: dict[str, str], message: str
) -> None:
    done = subprocess.run(
        [str(HERE / script)],
        env={**os.environ, "SNAPSHOTS": str(tmp_path), "ONESHOT": "1", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr
