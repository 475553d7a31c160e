class StreamingQueryListener:
    pass
