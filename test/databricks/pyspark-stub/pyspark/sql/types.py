class _Type:
    pass


class LongType(_Type):
    pass


class StringType(_Type):
    pass


class StructField:
    def __init__(self, name, data_type, nullable=True):
        self.name = name


class StructType:
    def __init__(self, fields):
        self.fields = fields
