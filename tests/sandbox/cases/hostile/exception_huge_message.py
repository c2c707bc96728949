def implement(value):
    raise ValueError("x" * 100_000)
