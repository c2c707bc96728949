def implement(value):
    return float(double(value) + 1)
