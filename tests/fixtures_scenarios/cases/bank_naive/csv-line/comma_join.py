COLUMN_ORDER = ("order", "placed", "customer", "total", "status")


def implement(value):
    return ",".join(str(value.get(column, "")) for column in COLUMN_ORDER)
