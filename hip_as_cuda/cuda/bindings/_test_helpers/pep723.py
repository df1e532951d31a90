"""has_package_requirements_or_skip: skip an example whose PEP 723 dependencies are not installed."""
import os
import re

# The reference regular expression of PEP 723 for a `# /// TYPE` ... `# ///` comment block.
_BLOCK = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")


def _script_metadata(text: str):
    """The TOML of the `script` block as a dict, None where there is none."""
    for m in _BLOCK.finditer(text):
        if m.group("type") != "script":
            continue
        toml = "".join(line[2:] if line.startswith("# ") else line[1:]
                       for line in m.group("content").splitlines(keepends=True))
        try:
            import tomllib
        except ImportError:   # Python < 3.11: the one key read here, a list of strings
            import ast
            d = re.search(r"(?ms)^dependencies\s*=\s*(\[.*?\])", toml)
            return {"dependencies": ast.literal_eval(d.group(1))} if d else {}
        return tomllib.loads(toml)
    return None


def has_package_requirements_or_skip(example) -> None:
    """pytest.skip unless every distribution the PEP 723 `dependencies` of script `example` (a
    path) names is installed. ValueError where the script has no such metadata."""
    name = os.path.basename(example)
    with open(example, encoding="utf-8") as f:
        meta = _script_metadata(f.read())
    if meta is None:
        raise ValueError(f"PEP 723 metadata not found in {name}")
    if "dependencies" not in meta:
        raise ValueError(f"PEP 723 dependencies not found in {name}")
    import importlib.metadata
    missing = []
    for requirement in meta["dependencies"]:
        dist = re.match(r"[A-Za-z0-9._-]+", requirement)
        try:
            importlib.metadata.distribution(dist.group(0) if dist else requirement)
        except importlib.metadata.PackageNotFoundError:
            missing.append(requirement)
    if missing:
        import pytest
        pytest.skip(f"Skipping {example} due to missing package requirement: {', '.join(missing)}")
