import hashlib
import json


def implement(value):
    canonical = json.dumps(value, separators=(",", ":"))
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).hexdigest()
    return f"catalogue:v3:search:{digest}"
