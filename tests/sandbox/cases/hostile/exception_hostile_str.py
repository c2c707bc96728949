class Loud(Exception):
    def __str__(self):
        while True:
            pass


def implement(value):
    raise Loud("from args")
