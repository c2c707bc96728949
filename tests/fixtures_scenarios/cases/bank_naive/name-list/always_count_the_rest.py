def implement(value):
    names = [name for name in value if name]
    if len(names) > 3:
        return ", ".join(names[:3]) + f" and {len(names) - 3} others"
    return " and ".join(names)
