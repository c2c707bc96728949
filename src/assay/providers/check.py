"""Pre-flight checks of a model profile against its provider, using free calls only.

For OpenRouter: the models list (the model exists), the model's endpoints (the pinned provider
serves it under the name responses will carry, at prices within the caps, with enough context
and output, supporting the parameters sent, and the reservation covers the worst case), and the
key's remaining limit (it covers the run's ceiling). Local endpoints and Azure deployments are
checked as far as their APIs allow; what cannot be read is a ``note``, not a pass.

Every check is one line saying what was found and, when it fails, what to change. ``assay
check-provider RUN`` prints them; the execute stage calls ``run_checks`` before its first paid
request and spends nothing if the report did not pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from assay.core.errors import InputError
from assay.core.records import Frozen
from assay.providers import azure_openai, openai_compatible, openrouter
from assay.providers.base import ModelProfile
from assay.providers.chat import parse_json
from assay.providers.factory import REAL_ADAPTERS, profile_problem
from assay.providers.http import Received, exchange, make_client
from assay.providers.secrets import read_key, redact_text

CheckOutcome = Literal["pass", "fail", "note"]
LISTING_BYTE_CAP = 32 * 1024 * 1024
"""Model lists are larger than completions; still capped."""
SENT_PARAMETERS = ("max_tokens", "temperature")
MILLION = Decimal(1_000_000)
EXTRA_FEES = ("request",)
"""Fees outside ``max_price``'s per-token caps that every request would pay (image and web
search prices apply only to inputs and plugins this study never sends)."""


class CheckLine(Frozen):
    check: str
    outcome: CheckOutcome
    message: str

    def render(self) -> str:
        return f"{self.outcome.upper():<4}  {self.check:<16}  {self.message}"


class CheckReport(Frozen):
    model: str
    lines: tuple[CheckLine, ...]

    @property
    def passed(self) -> bool:
        return all(line.outcome != "fail" for line in self.lines)

    def render(self) -> str:
        return "\n".join(line.render() for line in self.lines)


def run_checks(profile: ModelProfile, env: Mapping[str, str]) -> CheckReport:
    if profile.provider in ("simulated", "replay", "inspect-log"):
        lines = [_line("provider", "pass", f"{profile.provider} model: no provider to check")]
        return CheckReport(model=profile.model, lines=tuple(lines))
    if profile.provider == "local":
        return CheckReport(model=profile.model, lines=tuple(local_checks(profile)))
    problem = profile_problem(profile)
    if problem is not None:
        lines = [_line("profile", "fail", f"{problem}: fix the model's entry in params.yaml")]
        return CheckReport(model=profile.model, lines=tuple(lines))
    key, problem = read_key(profile.api_key_env, env) if profile.api_key_env else (None, None)
    if problem is not None and env.get(profile.api_key_env or "", ""):
        # a malformed key is never sent, not even to a free endpoint
        return CheckReport(model=profile.model, lines=(_line("api-key", "fail", problem),))
    lines = [_key_line(profile, problem)] if profile.api_key_env else []
    checker = _Checker(profile, key)
    if profile.provider == "openrouter":
        lines += checker.openrouter()
    elif profile.provider == "openai-compatible":
        lines += checker.openai_compatible()
    else:
        lines += checker.azure()
    lines = [line.model_copy(update={"message": redact_text(line.message, key)}) for line in lines]
    return CheckReport(model=profile.model, lines=tuple(lines))


def local_checks(profile: ModelProfile) -> list[CheckLine]:
    """A local model: its weights are here with the declared sha256, the runtime loads and
    reads them, and its prompting suits them. Starts no server and sends nothing."""
    from assay.local.runtime import identity

    assert profile.local is not None
    try:
        found = identity(profile.local, model=profile.model, context_tokens=profile.context_tokens)
    except InputError as exc:
        return [_line("weights", "fail", str(exc))]
    size = f", {found['size_label']}" if found.get("size_label") else ""
    template = "has a chat template" if found["chat_template_sha256"] else "has no chat template"
    return [
        _line(
            "weights",
            "pass",
            f"{found['weights_file']} ({found.get('name', '?')}{size}) has the declared sha256",
        ),
        _line("runtime", "pass", f"{found['runtime']} reads it"),
        _line("prompting", "pass", f"{profile.local.prompting} prompting; the model {template}"),
        _line("price", "pass", "a local model: free, no credit needed"),
    ]


def _line(check: str, outcome: CheckOutcome, message: str) -> CheckLine:
    return CheckLine(check=check, outcome=outcome, message=message)


def _key_line(profile: ModelProfile, problem: str | None) -> CheckLine:
    if problem is None:
        return _line("api-key", "pass", f"{profile.api_key_env} is set")
    return _line("api-key", "fail", problem)


class _Checker:
    def __init__(self, profile: ModelProfile, key: str | None) -> None:
        self.profile = profile
        self.headers = REAL_ADAPTERS[profile.provider](profile, api_key=key).auth_headers()

    def get(self, url: str) -> tuple[dict[str, Any] | None, str]:
        """The JSON object at ``url``, or ``None`` and why not."""
        with make_client(self.profile) as client:
            got = exchange(client, "GET", url, headers=self.headers, body_cap=LISTING_BYTE_CAP)
        if not isinstance(got, Received):
            return None, f"{got.kind} ({got.detail})"
        if got.status_code != 200:
            return None, f"http-{got.status_code}"
        data, problem = parse_json(got.body)
        if problem is not None or not isinstance(data, dict):
            return None, problem[0] if problem else "not a JSON object"
        return data, ""

    # OpenRouter --------------------------------------------------------------------------
    def openrouter(self) -> list[CheckLine]:
        base = openrouter.base_url(self.profile)
        lines = [self.model_listed(f"{base}/models", "OpenRouter's model list")]
        lines += self.openrouter_endpoint(f"{base}/models/{self.profile.model}/endpoints")
        lines.append(self.openrouter_credit(f"{base}/key"))
        return lines

    def model_listed(self, url: str, where: str) -> CheckLine:
        profile = self.profile
        data, why = self.get(url)
        entries = data.get("data") if data is not None else None
        if not isinstance(entries, list):
            return _line("model", "fail", f"could not read {where} at {url}: {why or 'no data'}")
        names = {profile.model, *profile.aliases}
        for entry in entries:
            if isinstance(entry, dict) and names & {entry.get("id"), entry.get("canonical_slug")}:
                return _line("model", "pass", f"{profile.model} is in {where}")
        return _line(
            "model",
            "fail",
            f"{profile.model} is not in {where}: correct `model` (or add the listed name "
            "to `aliases`) in params.yaml",
        )

    def openrouter_endpoint(self, url: str) -> list[CheckLine]:
        profile = self.profile
        pin = profile.provider_pin
        data, why = self.get(url)
        record = data.get("data") if data is not None else None
        endpoints = record.get("endpoints") if isinstance(record, dict) else None
        if not isinstance(endpoints, list):
            return [
                _line(
                    "provider",
                    "fail",
                    f"could not read the endpoints of "
                    f"{profile.model}: {why or 'no endpoints list'}",
                )
            ]
        pinned = [
            e
            for e in endpoints
            if isinstance(e, dict)
            and isinstance(e.get("tag"), str)
            and (e["tag"] == pin or e["tag"].startswith(f"{pin}/"))
        ]
        if not pinned:
            offered = ", ".join(sorted(str(e.get("tag")) for e in endpoints if isinstance(e, dict)))
            return [
                _line(
                    "provider",
                    "fail",
                    f"{pin} does not serve {profile.model} "
                    f"(served by: {offered or 'nobody'}): pick one as provider_pin",
                )
            ]
        endpoint = pinned[0]
        lines = [_line("provider", "pass", f"{pin} serves {profile.model}")]
        lines.append(self.provider_name(endpoint))
        lines += self.prices(endpoint.get("pricing"))
        lines += self.limits(endpoint)
        return lines

    def provider_name(self, endpoint: dict[str, Any]) -> CheckLine:
        profile = self.profile
        name = endpoint.get("provider_name")
        if name in (profile.provider_pin, *profile.provider_aliases):
            return _line("identity", "pass", f"responses will name the provider {name!r}")
        return _line(
            "identity",
            "fail",
            f"responses will name the provider {name!r}, which the identity check would reject: "
            f"add {name!r} to provider_aliases",
        )

    def prices(self, pricing: Any) -> list[CheckLine]:
        caps = self.profile.price_caps
        if not isinstance(pricing, dict):
            return [_line("price", "fail", "the endpoint lists no prices: cannot bound spend")]
        lines = []
        for part, cap in (("prompt", caps.prompt), ("completion", caps.completion)):
            per_million = _per_million(pricing.get(part))
            cap_text = f"${_money(Decimal(str(cap)))}/M"
            if per_million is None:
                lines.append(
                    _line(f"{part}-price", "fail", f"no {part} price listed: cannot bound spend")
                )
            elif per_million > Decimal(str(cap)):
                lines.append(
                    _line(
                        f"{part}-price",
                        "fail",
                        f"{part} costs ${_money(per_million)}/M, above the cap {cap_text}: the request "
                        f"would be refused; raise price_caps.{part} only after re-planning the budget",
                    )
                )
            else:
                lines.append(
                    _line(
                        f"{part}-price",
                        "pass",
                        f"{part} ${_money(per_million)}/M within the cap {cap_text}",
                    )
                )
        extras = {
            name: value
            for name in EXTRA_FEES
            if (value := _decimal(pricing.get(name))) is not None and value != 0
        }
        if extras:
            listed = ", ".join(f"{name} ${_money(value)}" for name, value in extras.items())
            lines.append(
                _line(
                    "extra-fees",
                    "fail",
                    f"charges outside the caps ({listed}): choose another endpoint",
                )
            )
        else:
            lines.append(_line("extra-fees", "pass", "no per-request or other fees"))
        return lines

    def limits(self, endpoint: dict[str, Any]) -> list[CheckLine]:
        profile = self.profile
        lines = []
        context = endpoint.get("context_length")
        if not isinstance(context, int) or context < profile.context_tokens:
            lines.append(
                _line(
                    "context",
                    "fail",
                    f"endpoint context {context} < profile context_tokens "
                    f"{profile.context_tokens}: lower context_tokens or pick a route",
                )
            )
        else:
            lines.append(_line("context", "pass", f"endpoint context {context:,} tokens"))
        most = endpoint.get("max_completion_tokens")
        if isinstance(most, int) and most < profile.max_output_tokens:
            lines.append(
                _line(
                    "output",
                    "fail",
                    f"endpoint allows {most} output tokens < max_output_tokens "
                    f"{profile.max_output_tokens}: lower max_output_tokens",
                )
            )
        else:
            lines.append(
                _line("output", "pass", f"{profile.max_output_tokens} output tokens allowed")
            )
        supported = endpoint.get("supported_parameters")
        missing = [p for p in SENT_PARAMETERS if isinstance(supported, list) and p not in supported]
        if missing:
            lines.append(
                _line(
                    "parameters",
                    "fail",
                    f"endpoint does not support {', '.join(missing)}, and "
                    "require_parameters would refuse every request",
                )
            )
        else:
            lines.append(_line("parameters", "pass", "max_tokens and temperature supported"))
        window = max(context if isinstance(context, int) else 0, profile.context_tokens)
        caps = profile.price_caps
        worst = (
            Decimal(window) * Decimal(str(caps.prompt))
            + Decimal(profile.max_output_tokens) * Decimal(str(caps.completion))
        ) / MILLION
        if Decimal(str(profile.reservation)) < worst:
            lines.append(
                _line(
                    "reservation",
                    "fail",
                    f"reservation ${_money(Decimal(str(profile.reservation)))} is below "
                    f"the worst case ${_money(worst)} ({window:,} context + "
                    f"{profile.max_output_tokens:,} output at the caps): raise "
                    "reservation_usd",
                )
            )
        else:
            lines.append(
                _line(
                    "reservation",
                    "pass",
                    f"reservation ${_money(Decimal(str(profile.reservation)))} covers "
                    f"the worst case ${_money(worst)}",
                )
            )
        return lines

    def openrouter_credit(self, url: str) -> CheckLine:
        ceiling = Decimal(str(self.profile.ceiling_usd))
        data, why = self.get(url)
        record = data.get("data") if data is not None else None
        if not isinstance(record, dict):
            return _line(
                "credit",
                "fail",
                f"could not read the key's limit at {url}: {why or 'no data'}; check the key",
            )
        remaining = record.get("limit_remaining")
        if remaining is None:
            return _line(
                "credit",
                "fail",
                f"the key has no credit limit, so nothing caps spend at the provider: "
                f"set a limit of at least ${_money(ceiling)} on the key",
            )
        left = Decimal(str(remaining))
        if left < ceiling:
            return _line(
                "credit",
                "fail",
                f"the key has ${_money(left)} left, less than the ceiling "
                f"${_money(ceiling)}: raise the key's limit or lower ceiling_usd",
            )
        return _line(
            "credit",
            "pass",
            f"the key has ${_money(left)} left, covering the ceiling ${_money(ceiling)}",
        )

    # other kinds -------------------------------------------------------------------------
    def openai_compatible(self) -> list[CheckLine]:
        base = openai_compatible.base_url(self.profile)
        return [self.model_listed(f"{base}/models", f"the model list at {base}"), self.price_note()]

    def azure(self) -> list[CheckLine]:
        profile = self.profile
        base = (profile.base_url or "").rstrip("/")
        url = f"{base}/openai/models?api-version={profile.api_version}"
        lines = [self.model_listed(url, "the Azure resource's model list")]
        lines.append(
            _line(
                "deployment",
                "note",
                f"deployment {profile.deployment!r} at {azure_openai.chat_url(profile)}"
                " is not listable with a data-plane key; a wrong one fails the first "
                "request with http-404",
            )
        )
        lines.append(self.price_note())
        return lines

    def price_note(self) -> CheckLine:
        if self.profile.is_free:
            return _line("price", "pass", "priced at zero: free, no credit needed")
        return _line(
            "price",
            "note",
            f"{self.profile.provider} publishes no prices or credit to a key: confirm "
            "in the provider's console that prices are within price_caps and the "
            "account covers ceiling_usd",
        )


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _per_million(value: Any) -> Decimal | None:
    """OpenRouter lists prices as strings in USD per token."""
    per_token = _decimal(value)
    return None if per_token is None else per_token * MILLION


def _money(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return text if "." in text else f"{text}.00"
