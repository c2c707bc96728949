import sys


def implement(value):
    sys.setrecursionlimit(10**7)

    def down(n):
        return down(n + 1) + 1

    return down(0)
