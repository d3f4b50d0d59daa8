"""Validates Kubernetes manifests offline, strictly, and reports every document as JSON.

Reads a multi-document YAML stream on stdin (what `helm template` prints) and writes one JSON
object on stdout: {"documents": [{"index", "apiVersion", "kind", "name", "ok", "error"}]}.

- Built-in kinds are checked by kubernetes-validate against the JSON schemas it bundles for
  the given Kubernetes version, in strict mode: an unknown field is an error, as it is for
  `kubectl apply` (server-side field validation is Strict by default).
- Kinds of the API groups given with --crd are checked against the openAPIV3Schema of the
  CustomResourceDefinition files, made strict the same way (a structural schema prunes unknown
  fields silently; a typo in a KEDA trigger would otherwise pass here and do nothing there).
- A kind with no schema is an error, never a skip: nothing reaches a cluster unchecked.

Exit code: 0 when every document is valid, 1 when one is not, 2 on bad input.
"""

import argparse
import copy
import json
import sys

import jsonschema
import kubernetes_validate
import yaml


def strict(schema):
    """A copy of an OpenAPI v3 schema in which objects reject properties they do not list."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (
                "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
            ):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def load_crds(paths):
    """{(group, version, kind): schema} from CustomResourceDefinition YAML files."""
    schemas = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for version in spec["versions"]:
                    schema = version["schema"]["openAPIV3Schema"]
                    key = (spec["group"], version["name"], spec["names"]["kind"])
                    schemas[key] = jsonschema.Draft7Validator(strict(schema))
    return schemas


def error_text(err):
    where = "/".join(str(p) for p in err.absolute_path) or "(document)"
    return f"{where}: {err.message}"


def check(doc, kube_version, crds):
    api_version = doc.get("apiVersion", "")
    kind = doc.get("kind", "")
    group, _, version = api_version.rpartition("/")
    if (group, version, kind) in crds:
        errors = sorted(crds[(group, version, kind)].iter_errors(doc), key=lambda e: list(e.absolute_path))
        return error_text(errors[0]) if errors else None
    if any(g == group for (g, _, _) in crds):
        return f"no schema for {kind} in {api_version} among the CRDs given"
    try:
        kubernetes_validate.validate(doc, kube_version, strict=True)
        return None
    except kubernetes_validate.ValidationError as err:
        return error_text(err)
    except kubernetes_validate.SchemaNotFoundError as err:
        return err.message


def kube_major_minor(version):
    return ".".join(version.lstrip("v").split(".")[:2])


def supported_versions():
    # A version it lacks would silently fall back to an older one's schemas: refuse instead.
    return {kube_major_minor(v) for v in kubernetes_validate.utils.all_versions()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kube-version", required=True)
    parser.add_argument("--crd", action="append", default=[])
    args = parser.parse_args()
    try:
        crds = load_crds(args.crd)
        docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
    except (OSError, yaml.YAMLError, KeyError) as err:
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}))
        return 2
    if kube_major_minor(args.kube_version) not in supported_versions():
        print(json.dumps({"error": f"kubernetes-validate has no schemas for Kubernetes {args.kube_version}"}))
        return 2
    results = []
    for index, doc in enumerate(docs):
        if not isinstance(doc, dict):
            results.append({"index": index, "ok": False, "error": "not a mapping"})
            continue
        error = check(doc, args.kube_version, crds)
        results.append(
            {
                "index": index,
                "apiVersion": doc.get("apiVersion"),
                "kind": doc.get("kind"),
                "name": (doc.get("metadata") or {}).get("name"),
                "ok": error is None,
                "error": error,
            }
        )
    print(json.dumps({"documents": results}))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
