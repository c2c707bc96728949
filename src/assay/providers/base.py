"""The one provider interface. Every adapter (simulated and replay included) implements it.

``Provider.complete`` sends at most one request and never raises for an expected failure:
refusals, HTTP errors, transport faults, malformed bodies and identity mismatches are
returned as a ``ProviderResult`` whose ``status``/``reason`` say what happened and whose
``halt`` says whether budget admission must stop. Only programming errors raise.

A request carries the rendered prompt and nothing else from the experiment: no task id,
arm, family, test vector or reference ever reaches a provider.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Annotated, Literal, Protocol, get_args

from pydantic import ConfigDict, Field, model_validator

from assay.core.records import CallKey, ExecutionStatus, Frozen, Usage
from assay.local.settings import LocalModel

NANO = 1_000_000_000
"""Nano-dollars per dollar: budgets are admitted in integer nano-USD."""


def nano_up(usd: float) -> int:
    """``usd`` in nano-dollars, rounded up (a reservation is never smaller than declared)."""
    return int((Decimal(str(usd)) * NANO).to_integral_value(rounding=ROUND_CEILING))


def nano_down(usd: float) -> int:
    """``usd`` in nano-dollars, rounded down (a ceiling is never larger than declared)."""
    return int((Decimal(str(usd)) * NANO).to_integral_value(rounding=ROUND_FLOOR))


class Money(Frozen):
    """Money parameters are finite: ``inf`` or ``nan`` would disable every comparison."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


Deviation = Literal[
    "mixed",
    "helper-in-branch",
    "stub",
    "extra-function",
    "module-statement",
    "decorator",
    "helper-import",
    "syntax-error",
    "truncated",
    "two-versions",
    "diff-only",
    "no-return",
    "tuple-return",
    "name-typo",
    "slow",
    "debug-loop",
    "memory-hog",
    "module-changed",
]
"""How the realistic simulated model departs from a clean answer (``assay.providers.realistic
.deviations`` says what each one writes and where it ends), in the order its draw walks them (a
profile's own key order never matters)."""

DEVIATIONS: tuple[Deviation, ...] = get_args(Deviation)


ProviderKind = Literal[
    "simulated", "replay", "openrouter", "openai-compatible", "azure-openai", "local", "inspect-log"
]


class PriceCaps(Money):
    """USD per million tokens; the most the route may charge."""

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)


class ModelProfile(Money):
    """A model as ``params.yaml: models`` declares it.

    Money fields are finite and non-negative; a paid profile's ceiling admits at least one
    reservation (otherwise every call would end ``budget-halted`` three stages later)."""

    provider: ProviderKind
    model: str
    provider_pin: str | None = None
    """The one upstream provider slug a router may use (OpenRouter ``provider.only``)."""
    aliases: tuple[str, ...] = ()
    """Other model names a response may carry for the same model (dated canonical slugs)."""
    provider_aliases: tuple[str, ...] = ()
    """Other names a response may give the pinned provider (OpenRouter reports display names
    such as ``Amazon Bedrock`` for the slug ``amazon-bedrock``)."""
    price_caps: PriceCaps = PriceCaps(prompt=0, completion=0)
    context_tokens: int = Field(default=200_000, gt=0)
    max_output_tokens: int = Field(default=2_048, gt=0)
    request_bytes_cap: int | None = Field(default=None, gt=0)
    temperature: float = 0.0
    reservation_usd: float | None = Field(default=None, ge=0)
    """Per-request reservation; defaults to the worst case at the price caps."""
    ceiling_usd: float = Field(default=0.0, ge=0)
    base_url: str | None = None
    api_key_env: str | None = None
    api_version: str | None = None
    deployment: str | None = None
    timeout_seconds: float = Field(default=120.0, gt=0)
    """Read timeout: the longest silence allowed while waiting for or reading the response."""
    connect_timeout_seconds: float = Field(default=10.0, gt=0)
    max_response_bytes: int = Field(default=4 * 1024 * 1024, gt=0)
    # simulated models only
    follow_rate: float = Field(default=0.8, ge=0, le=1)
    seed: int = 0
    behaviour: Literal["follower", "reuser", "duplicator", "realistic"] = "follower"
    own_step_rate: float = Field(default=0.0, ge=0, le=1)
    """At a chain's later steps, how often the stand-in calls its own latest step instead."""
    deviations: dict[Deviation, Annotated[float, Field(ge=0, le=1)]] = Field(default_factory=dict)
    """``behaviour: realistic`` only: how often an answer departs from a clean one, per kind
    (``assay.providers.realistic.deviations``); at most one per answer, so they sum to 1 at
    most."""
    # replay only
    replay_ledger: str | None = None
    # local only: an open-weight model run on this machine (assay.local)
    local: LocalModel | None = None
    # inspect-log only: answers read from an Inspect eval log (assay.providers.inspect_log)
    log: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """The log's path, relative to the repository, inside ``params.yaml: inspect_logs``. Left
    out of the profile's JSON when absent, so the plans of every other provider keep the hash
    they had before this field existed (an authorization names that hash)."""

    @model_validator(mode="after")
    def _local_section(self) -> ModelProfile:
        if (self.provider == "local") != (self.local is not None):
            raise ValueError(
                "a local profile needs its local: section (weights_sha256, prompting, ...)"
                if self.provider == "local"
                else "local: describes a provider: local profile; remove it or set provider: local"
            )
        if self.provider == "local" and not self.is_free:
            raise ValueError(
                "a local model runs on this machine and costs nothing per token: remove "
                "price_caps (a local profile is free and needs no authorization)"
            )
        if self.provider == "local" and self.base_url is not None:
            raise ValueError(
                "a local model's server is started by the send stage on 127.0.0.1 at a port of "
                "its choosing: remove base_url (an already running server is provider: "
                "openai-compatible)"
            )
        return self

    @model_validator(mode="after")
    def _inspect_log(self) -> ModelProfile:
        if (self.provider == "inspect-log") != (self.log is not None):
            raise ValueError(
                "an inspect-log profile needs log: the Inspect eval log its answers are read from"
                if self.provider == "inspect-log"
                else "log: names the Inspect log of a provider: inspect-log profile; remove it or "
                "set provider: inspect-log"
            )
        if self.provider == "inspect-log" and (
            self.price_caps.prompt or self.price_caps.completion or self.ceiling_usd
        ):
            raise ValueError(
                "an inspect-log run reads answers made outside assay and sends nothing, so "
                "assay spends nothing: remove price_caps and ceiling_usd (what the answers cost "
                "is not assay's to control)"
            )
        return self

    @model_validator(mode="after")
    def _deviations_of_the_realistic_stand_in(self) -> ModelProfile:
        if self.deviations and (self.provider, self.behaviour) != ("simulated", "realistic"):
            raise ValueError(
                "deviations are the rates of the simulated model's realistic behaviour: set "
                "provider: simulated and behaviour: realistic, or remove deviations"
            )
        total = sum(self.deviations.values())
        if total > 1 + 1e-9:
            raise ValueError(
                f"deviations sum to {total:.6g}; an answer makes at most one, so they must sum "
                "to 1 at most"
            )
        return self

    @model_validator(mode="after")
    def _ceiling_admits_a_request(self) -> ModelProfile:
        if not self.is_free and nano_down(self.ceiling_usd) < nano_up(self.reservation):
            raise ValueError(
                f"ceiling_usd ${self.ceiling_usd} is below one reservation "
                f"(${self.reservation:.6g}), so it admits no request: raise ceiling_usd to "
                "the number of requests you accept to pay for times reservation_usd"
            )
        return self

    @model_validator(mode="after")
    def _reservation_covers_the_worst_case(self) -> ModelProfile:
        if (
            not self.is_free
            and self.reservation_usd is not None
            and nano_up(self.reservation_usd) < nano_up(self.worst_case_usd)
        ):
            caps = self.price_caps
            raise ValueError(
                f"reservation_usd ${self.reservation_usd} is below what one request can cost, "
                f"${self.worst_case_usd:.6g} (context_tokens {self.context_tokens:,} at "
                f"${caps.prompt}/M plus max_output_tokens {self.max_output_tokens:,} at "
                f"${caps.completion}/M), so the ceiling would not bound spend: raise "
                "reservation_usd to at least that, lower context_tokens or max_output_tokens, or "
                "remove reservation_usd (it defaults to the worst case)"
            )
        return self

    @property
    def worst_case_usd(self) -> float:
        """Full context plus maximum output at the price caps."""
        return (
            self.context_tokens * self.price_caps.prompt
            + self.max_output_tokens * self.price_caps.completion
        ) / 1_000_000

    @property
    def reservation(self) -> float:
        return self.reservation_usd if self.reservation_usd is not None else self.worst_case_usd

    @property
    def answers_fixed(self) -> bool:
        """Its answers are read, not asked (an Inspect log): asking again gives the same ones,
        so a failed call is final and a refused run waits for a new log, which is a new plan."""
        return self.provider == "inspect-log"

    @property
    def is_free(self) -> bool:
        """Simulated, replay, an Inspect log (assay sends nothing), or an endpoint priced at
        zero: needs no authorization."""
        if self.provider in ("simulated", "replay", "inspect-log"):
            return True
        return self.price_caps.prompt == 0 and self.price_caps.completion == 0


class ProviderRequest(Frozen):
    key: CallKey
    """Which call this is (a stand-in draws from it; a real provider never sees it)."""
    prompt: str
    """The rendered prompt: the only experiment content a provider receives."""


class Reply(Frozen):
    """What a provider replied to one request, as read: the body, the completion, its usage
    and cost, who served it, how long it took. The chat adapters' finding (before any decision)
    and the provider's result (after it) both carry it."""

    text: str | None = None
    raw: bytes = b""
    """The response body as received (stored content-addressed by the ledger)."""
    usage: Usage = Usage()
    cost_usd: float | None = None
    """Provider-reported cost; ``None`` when the provider reports none."""
    generation_id: str | None = None
    served_model: str | None = None
    served_provider: str | None = None
    finish_reason: str | None = None
    detail: str | None = None
    """Human-readable cause (the provider's error message, shortened; never headers or keys)."""
    latency_seconds: float = 0.0


class ProviderResult(Reply):
    status: ExecutionStatus
    reason: str | None = None
    """Machine-readable cause for anything but ``completed`` (``http-429``, ``read-timeout`` …)."""
    halt: bool = False
    """True when admission must stop: any failure whose no-charge status is not proven."""
    no_charge_proven: bool = False


class Provider(Protocol):
    def complete(self, request: ProviderRequest) -> ProviderResult: ...
