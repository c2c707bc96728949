def implement(value):
    words = value.split()
    return " ".join(
        w.lower() if w.lower() in MINOR_WORDS and 0 < i < len(words) - 1 else w.capitalize()
        for i, w in enumerate(words)
    )
