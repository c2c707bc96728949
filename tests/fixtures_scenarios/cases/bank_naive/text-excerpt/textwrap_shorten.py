import textwrap


def implement(value):
    return textwrap.shorten(value, width=40, placeholder="…")
