def implement(value):
    return double(value)
