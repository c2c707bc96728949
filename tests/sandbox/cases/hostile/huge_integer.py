def implement(value):
    return pow(3, 10**9) + double(value)
