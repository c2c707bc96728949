def implement(value):
    return 10**5000
