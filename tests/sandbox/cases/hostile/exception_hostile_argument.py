class Endless:
    def __str__(self):
        while True:
            pass

    __repr__ = __str__


def implement(value):
    raise ValueError(Endless())
