def implement(value):
    if "charset=" in value:
        return value.split("charset=")[1].strip().lower()
    return "utf-8"
