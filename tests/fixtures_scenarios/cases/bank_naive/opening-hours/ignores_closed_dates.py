from datetime import datetime


def implement(value):
    at = datetime.fromisoformat(value)
    hours = WEEKLY_HOURS.get(at.weekday())
    return hours is not None and hours[0] <= at.time() < hours[1]
