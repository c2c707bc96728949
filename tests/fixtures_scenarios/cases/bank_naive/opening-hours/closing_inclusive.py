from datetime import datetime


def implement(value):
    at = datetime.fromisoformat(value)
    hours = WEEKLY_HOURS.get(at.weekday())
    return (hours is not None and at.date().isoformat() not in CLOSED_DATES
            and hours[0] <= at.time() <= hours[1])
