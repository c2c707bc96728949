def implement(value):
    parts = [f"{k}={v!r}" if " " in str(v) else f"{k}={v}" for k, v in sorted(value.items())]
    return " ".join(["http.request", *parts])
