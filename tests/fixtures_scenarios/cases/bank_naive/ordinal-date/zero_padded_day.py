from datetime import date


def implement(value):
    day = date.fromisoformat(value)
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return day.strftime("%d") + suffix + day.strftime(" %B %Y")
