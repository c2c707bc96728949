def implement(value):
    count, noun = value["quantity"], value["unit"]
    if count == 1:
        return f"1 {noun}"
    plural = IRREGULAR_PLURALS.get(noun)
    if plural is None:
        if noun.endswith(("s", "x", "z", "ch", "sh")):
            plural = noun + "es"
        elif noun.endswith("y") and not noun.endswith(("ay", "ey", "oy", "uy")):
            plural = noun[:-1] + "ies"
        else:
            plural = noun + "s"
    return f"{count} {plural}"
