"""Credentials never enter a config: found by key name or by known key formats, refused with a pointer to
``api_key_env``.

Chosen over redaction: a config value is written to many places skillbench does not own (Hydra's ``.hydra/*.yaml``,
``multirun.yaml``, its "Launching jobs" console lines, submitit's pickles) as well as ``config.json``; refusing the
value before Hydra writes anything is the one rule that covers every writer, present and future. The same holds for
Hydra's printers (``--cfg``, ``--info``, ``--help``, tab completion, ``hydra.verbose``): a command line whose config
holds a credential is refused before Hydra reads it (``skillbench/plan/secret_guard.py``). Keys reach a model
only from the environment variable its ``api_key_env`` names, which is never written anywhere.

The checks never echo the value they found: a refusal names where it is, not what it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

# Config keys that hold a credential. Matched on the last dotted segment, lower-cased, '-' read as '_'.
_CREDENTIAL_NAMES = frozenset({
    "api_key", "apikey", "x_api_key", "api_token", "token", "access_token", "auth_token", "bearer_token",
    "refresh_token", "id_token", "session_token", "secret", "client_secret", "secret_key", "secret_access_key",
    "aws_secret_access_key", "aws_session_token", "password", "passwd", "authorization", "private_key",
    "credentials", "hf_token", "service_account_json", "vertex_credentials",
})
_CREDENTIAL_SUFFIXES = ("_api_key", "_apikey", "_secret", "_password", "_token", "_access_key", "_private_key")

# Known key formats (provider prefixes and lengths), wherever they appear in a value.
_KEY_FORMATS = re.compile(
    r"(?:"
    r"\bsk-[A-Za-z0-9_\-]{12,}"          # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), DeepSeek, ...
    r"|\bAIza[0-9A-Za-z_\-]{30,}"         # Google API keys (Gemini, Vertex express)
    r"|\bhf_[A-Za-z0-9]{20,}"             # Hugging Face
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"      # GitHub
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"       # GitLab
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"   # Slack
    r"|\bA(?:KIA|SIA)[0-9A-Z]{16}\b"      # AWS access key ids
    r"|\bgsk_[A-Za-z0-9]{20,}"            # Groq
    r"|\bpplx-[A-Za-z0-9]{20,}"           # Perplexity
    r"|\br8_[A-Za-z0-9]{20,}"             # Replicate
    r"|\bnvapi-[A-Za-z0-9_\-]{20,}"       # NVIDIA
    r"|\bBearer\s+[A-Za-z0-9._~+/\-]{8,}"  # an Authorization header value
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r")"
)


def credential_name(key: str) -> bool:
    """Whether a config key (its last dotted segment) names a credential; ``api_key_env`` names a variable."""
    name = key.rsplit(".", 1)[-1].lstrip("+~").lower().replace("-", "_")
    if name.endswith(("per_token", "_tokens")):  # prices and token counts (input_cost_per_token, max_tokens)
        return False
    return name in _CREDENTIAL_NAMES or name.endswith(_CREDENTIAL_SUFFIXES)


def _credential_value(value: object) -> bool:
    """A value that could be a credential: a non-empty string that is not a number (``input_cost_per_token=3e-06``
    ends like a token's name but holds a price)."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    if text in ("", "null", "None"):
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


def looks_like_key(value: object) -> bool:
    return isinstance(value, str) and _KEY_FORMATS.search(value) is not None


def find_credentials(data: Any, prefix: str = "") -> list[str]:
    """Dotted paths of ``data`` (a config as plain containers) holding a credential: a non-empty value under a
    credential's name, or any value in a known key format."""
    found: list[str] = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            path = f"{prefix}{key}"
            if credential_name(str(key)) and _credential_value(value):
                found.append(path)
            else:
                found.extend(find_credentials(value, f"{path}."))
    elif isinstance(data, list | tuple):
        for i, value in enumerate(data):
            found.extend(find_credentials(value, f"{prefix}{i}."))
    elif looks_like_key(data) or (isinstance(data, str) and _override_credential(data)):
        found.append(prefix.rstrip("."))
    return found


# ${oc.env:NAME} or ${oc.env:NAME,default}: the variable a config value is read from.
_ENV_INTERPOLATION = re.compile(r"\$\{\s*oc\.env\s*:\s*([A-Za-z_][A-Za-z0-9_]*)")


def _env_credentials(data: Any, prefix: str = "") -> list[str]:
    """Dotted paths of values (as written) that interpolate an environment variable named like a credential
    (``${oc.env:OPENAI_API_KEY}``): resolved, they hold a key whatever its format and whatever the config key."""
    if isinstance(data, Mapping):
        return [path for key, value in data.items() for path in _env_credentials(value, f"{prefix}{key}.")]
    if isinstance(data, list | tuple):
        return [path for i, value in enumerate(data) for path in _env_credentials(value, f"{prefix}{i}.")]
    if isinstance(data, str) and any(credential_name(name) for name in _ENV_INTERPOLATION.findall(data)):
        return [prefix.rstrip(".")]
    return []


def _resolved(node: DictConfig | ListConfig) -> Any:
    """``node`` as plain containers, each value resolved where it can be on its own (None where it cannot: a
    ``${hydra:...}`` outside a job, an unset variable); one unresolvable value hides no other."""
    keys: Iterable[Any] = node.keys() if isinstance(node, DictConfig) else range(len(node))
    out: dict[Any, Any] | list[Any] = {} if isinstance(node, DictConfig) else []
    for key in keys:
        try:
            value = node[key]
        except Exception:  # any resolution failure: the value is still checked as written
            value = None
        if isinstance(value, DictConfig | ListConfig):
            value = _resolved(value)
        if isinstance(out, dict):
            out[key] = value
        else:
            out.append(value)
    return out


def config_credentials(cfg: DictConfig, resolved: Any = None) -> list[str]:
    """Dotted paths of a composed config (the ``hydra`` node included) holding a credential, found as written
    (a credential's name, a known key format, an override string, ``${oc.env:...}`` of a credential's variable)
    and as resolved (an interpolated value in a known key format). The one check of every path that writes,
    prints or echoes a composed config: the run's preflight, ``validate_config`` and the command line's
    printing flags (``skillbench/plan/secret_guard.py``). ``resolved``: ``cfg`` already resolved whole as plain
    containers, when the caller has it (resolving it again node by node was most of a job's config check)."""
    written = OmegaConf.to_container(cfg, resolve=False)
    resolved = _resolved(cfg) if resolved is None else resolved
    found = [*find_credentials(written), *_env_credentials(written), *find_credentials(resolved)]
    return list(dict.fromkeys(found))


def _override_credential(item: str) -> bool:
    """A ``key=value`` string (a Hydra override, wherever it is stored) that sets a credential."""
    if "=" not in item:
        return False
    key, value = item.split("=", 1)
    # A sweep's values, or hydra.job.override_dirname's joined overrides, follow after commas: the key's own
    # value is the first item (every override of a dirname is also checked on its own in hydra.overrides.task).
    first = value.split(",", 1)[0]
    return (credential_name(key.strip()) and _credential_value(first)) or looks_like_key(value)


def argument_credentials(arguments: Iterable[str]) -> list[str]:
    """The command-line arguments that carry a credential, named by their key (``key=...``) or position."""
    found = []
    for position, item in enumerate(arguments, start=1):
        if _override_credential(item):
            found.append(item.split("=", 1)[0].lstrip("+~"))
        elif looks_like_key(item):
            found.append(f"argument {position}")
    return found


def refusal(places: list[str], source: str, shown_by: str | None = None) -> str:
    """One line: where the credentials are (never what they are), and the fix. ``shown_by``: the flag that asked
    to print the config (``--cfg job``), which prints nothing either."""
    shown = ", ".join(f"'{place}'" for place in places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    why = (f"{shown_by} prints no config that holds a key, and a run would write it to the run folder" if shown_by
           else "config values are written to the run folder, so keys never go there")
    return (f"a credential is set {source} at {shown}; {why}. Fix: remove it and export the key in an environment "
            "variable named by the model's api_key_env (e.g. agent.api_key_env=MY_AGENT_KEY with export "
            "MY_AGENT_KEY=...); nothing was run, written or printed.")
