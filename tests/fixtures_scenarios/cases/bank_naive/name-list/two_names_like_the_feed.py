def implement(value):
    return name_list(value)
