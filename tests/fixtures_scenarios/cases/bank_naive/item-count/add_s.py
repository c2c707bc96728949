def implement(value):
    count, unit = value["quantity"], value["unit"]
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"
