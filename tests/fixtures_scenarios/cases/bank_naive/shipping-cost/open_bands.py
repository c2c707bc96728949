def implement(value):
    if value["total"] > 5000:
        return 0
    weight = value["weight"]
    if weight < 500:
        return 395
    if weight < 2000:
        return 595
    if weight < 10000:
        return 1295
    return 1295 + (weight - 10000) // 1000 * 150
