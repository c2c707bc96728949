def implement(value):
    handles = [open("/dev/null") for _ in range(10_000)]
    return double(value) + 1 + len(handles)
