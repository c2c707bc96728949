def implement(value):
    return value.title()
