def implement(value):
    s = value["settings"]
    delay = s.get("backoff_base", 0.5) * s.get("backoff_factor", 2) ** value["failures"]
    return round(float(min(delay, s.get("backoff_max", 30))), 3)
