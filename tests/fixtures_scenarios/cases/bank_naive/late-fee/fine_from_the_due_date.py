from datetime import date


def implement(value):
    days_late = (date.fromisoformat(value["returned"]) - date.fromisoformat(value["due"])).days
    return min(max(days_late, 0) * 25, 1000) if days_late > 3 else 0
