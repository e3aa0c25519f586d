"""Synthetic caller identities: Faker names and addresses, seeded, combined per scenario.

Only Faker's name and address providers are used, never its date helpers (they depend on today's
date); dates of birth, ids, phones and emails come from the scenario's own seeded generator.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import unicodedata

from faker import Faker

from skillbench.benchmark.generator.model import REFERENCE_DATE

# Callers with a non_native persona get names from these locales; everyone else from en_US.
_NAME_LOCALES = ("es_MX", "pl_PL", "vi_VN", "de_DE", "pt_BR", "fr_FR", "it_IT", "nl_NL")
_FAKERS: dict[str, Faker] = {}


def faker(locale: str = "en_US") -> Faker:
    if locale not in _FAKERS:
        _FAKERS[locale] = Faker(locale)
    return _FAKERS[locale]


def seed_for(*parts: object) -> int:
    """A stable 63-bit seed from any parts (independent of Python's hash randomisation)."""
    digest = hashlib.blake2b(":".join(str(p) for p in parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def ascii_name(text: str) -> str:
    """Lower-case ASCII letters, digits, dots and hyphens of ``text`` (for email addresses)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii() and (c.isalnum() or c in ".-")).lower()


def phone(rng: random.Random) -> str:
    # 555 exchange numbers are reserved for fiction.
    return f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def email_for(first: str, last: str, rng: random.Random) -> str:
    domain = rng.choice(("example.com", "example.net", "example.org"))
    return f"{ascii_name(first)}.{ascii_name(last)}{rng.randint(1, 99)}@{domain}"


class IdentityPool:
    """Names and addresses drawn once from Faker (seeded with the build seed), then sampled per scenario.

    Sampling a pre-drawn pool keeps a build of ~2,000 candidates fast; the pool itself is Faker output,
    fixed by ``Faker.seed_instance``.
    """

    SIZE = 600

    def __init__(self, seed: int) -> None:
        self.names: dict[str, list[tuple[str, str]]] = {}
        for locale in ("en_US", *_NAME_LOCALES):
            fake = faker(locale)
            fake.seed_instance(seed_for(seed, "names", locale))
            size = self.SIZE if locale == "en_US" else self.SIZE // 6
            self.names[locale] = [(fake.first_name(), fake.last_name()) for _ in range(size)]
        place = faker("en_US")
        place.seed_instance(seed_for(seed, "places"))
        self.places = [(place.street_address(), place.city(), place.zipcode()) for _ in range(self.SIZE)]


_POOLS: dict[int, IdentityPool] = {}


def pool_for(seed: int) -> IdentityPool:
    if seed not in _POOLS:
        _POOLS[seed] = IdentityPool(seed)
    return _POOLS[seed]


def make_identity(
    rng: random.Random, pool: IdentityPool, *, persona_label: str = "", taken: set[str] | None = None
) -> dict[str, str]:
    """A customer record: customer_id, full_name, date_of_birth, postal_code, email, phone, address."""
    locale = rng.choice(_NAME_LOCALES) if persona_label == "non_native" else "en_US"
    first, last = rng.choice(pool.names[locale])
    street, city, zipcode = rng.choice(pool.places)
    youngest, oldest = (72, 88) if persona_label == "elderly" else (21, 68)
    born = REFERENCE_DATE - dt.timedelta(days=rng.randint(youngest * 365, oldest * 365))
    taken = taken if taken is not None else set()
    while True:
        customer_id = f"C-{rng.randint(10000, 99999)}"
        if customer_id not in taken:
            taken.add(customer_id)
            break
    return {
        "customer_id": customer_id,
        "full_name": f"{first} {last}",
        "date_of_birth": born.isoformat(),
        "postal_code": zipcode,
        "email": email_for(first, last, rng),
        "phone": phone(rng),
        "address": f"{street}, {city}",
    }
