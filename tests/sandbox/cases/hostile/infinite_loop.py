def implement(value):
    while True:
        pass
