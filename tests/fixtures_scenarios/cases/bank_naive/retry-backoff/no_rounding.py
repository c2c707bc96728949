def implement(value):
    s = value["settings"]
    delay = s.get("backoff_base", 0.5) * s.get("backoff_factor", 2) ** (value["failures"] - 1)
    return min(delay, s.get("backoff_max", 30))
