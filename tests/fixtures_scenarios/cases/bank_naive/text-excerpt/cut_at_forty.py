def implement(value):
    return value if len(value) <= 40 else value[:39] + "…"
