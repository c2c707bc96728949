from datetime import datetime


def implement(value):
    at = datetime.fromisoformat(value)
    return at.weekday() < 6 and 7.5 <= at.hour + at.minute / 60 < 18
