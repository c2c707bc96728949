def implement(value):
    raise ValueError("no")
