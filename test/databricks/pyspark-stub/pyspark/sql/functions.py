"""Just enough of pyspark.sql.functions for the listener test."""


class Column:
    def __init__(self, function, *args):
        self.function, self.args, self.name = function, args, None

    def alias(self, name):
        self.name = name
        return self


def to_timestamp(name):
    return Column("to_timestamp", name)


def current_timestamp():
    return Column("current_timestamp")
