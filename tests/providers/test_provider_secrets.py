"""Keys: malformed ones are refused before any request by a message without the key, and the
key is redacted in every form a message can carry it."""

from __future__ import annotations

import base64
from urllib.parse import quote

import pytest
from provider_server import PLANTED_KEY, LocalServer

from assay.providers.base import ModelProfile, PriceCaps
from assay.providers.check import run_checks
from assay.providers.factory import ProviderConfigError, make_provider
from assay.providers.secrets import REDACTED, key_problem, redact_bytes, redact_text

MALFORMED = {
    "trailing-cr": (PLANTED_KEY + "\r", "a carriage return"),
    "trailing-lf": (PLANTED_KEY + "\n", "a line feed"),
    "crlf": (PLANTED_KEY + "\r\n", "a carriage return, a line feed"),
    "leading-space": (" " + PLANTED_KEY, "a space"),
    "inner-tab": (PLANTED_KEY[:10] + "\t" + PLANTED_KEY[10:], "a tab"),
    "nul": (PLANTED_KEY + "\x00", "the character U+0000"),
    "no-break-space": (PLANTED_KEY + "\u00a0", "the character U+00A0"),
}


def profile(server: LocalServer) -> ModelProfile:
    return ModelProfile(
        provider="openrouter",
        model="anthropic/claude-3-haiku",
        provider_pin="amazon-bedrock",
        price_caps=PriceCaps(prompt=0.25, completion=1.25),
        ceiling_usd=0.06,
        api_key_env="OPENROUTER_API_KEY",
        base_url=server.url + "/api/v1",
    )


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_key_is_refused_without_being_shown_or_sent(
    case: str, server: LocalServer
) -> None:
    key, named = MALFORMED[case]
    env = {"OPENROUTER_API_KEY": key}
    problem = key_problem("OPENROUTER_API_KEY", key)
    assert problem is not None and f"OPENROUTER_API_KEY contains {named}" in problem
    with pytest.raises(ProviderConfigError) as raised:
        make_provider(profile(server), env=env)
    report = run_checks(profile(server), env)
    assert not report.passed
    assert [line.check for line in report.lines] == ["api-key"]
    for text in (str(raised.value), report.render()):
        assert PLANTED_KEY[8:] not in text and repr(key)[1:-1] not in text
    assert server.requests == [], "a malformed key went out"


def test_a_clean_key_is_usable() -> None:
    assert key_problem("K", PLANTED_KEY) is None


KEY = PLANTED_KEY + "\r"
FORMS = {
    "raw": f"Bearer {KEY}",
    "repr": f"header value {KEY!r} rejected",
    "url-encoded": f"https://x/?key={quote(KEY, safe='')}",
    "base64": base64.b64encode(KEY.encode()).decode(),
    "basic": "Basic " + base64.b64encode(b":" + KEY.encode()).decode(),
    "bearer-base64": base64.b64encode(b"Bearer " + KEY.encode()).decode(),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_of_the_key_is_redacted(form: str) -> None:
    message = f"LocalProtocolError: {FORMS[form]} (while sending)"
    redacted = redact_text(message, KEY)
    assert REDACTED in redacted
    assert PLANTED_KEY not in redacted and PLANTED_KEY[8:30] not in redacted
    assert redacted.endswith("(while sending)")
    assert PLANTED_KEY.encode() not in redact_bytes(message.encode(), KEY)
