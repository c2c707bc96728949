def implement(value):
    return " ".join(["http.request"] + [f"{k}={v}" for k, v in value.items()])
