from datetime import date


def implement(value):
    day = date.fromisoformat(value)
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return f"{day.day}{suffix} {day.strftime('%B')} {day.year}"
