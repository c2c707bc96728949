def implement(value):
    return double(value) + 1
