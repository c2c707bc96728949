def implement(value):
    shown = []
    for size in (value["sent"], value["total"]):
        amount, unit = float(size), "bytes"
        for larger in ("KB", "MB", "GB", "TB"):
            if amount < 1024:
                break
            amount, unit = amount / 1024, larger
        shown.append(f"{amount:.1f} {unit}")
    return " of ".join(shown)
