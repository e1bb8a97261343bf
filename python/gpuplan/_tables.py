"""Tables for the compiled module: a pandas DataFrame where pandas imports, else the rows."""


def table(rows):
    """Rows (a list of dicts, as the JSON report writes them) as a pandas DataFrame.

    Nested objects (a search row's "plan") become dotted columns ("plan.tp"). Without pandas
    the list of dicts is returned unchanged.
    """
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.json_normalize(rows) if rows else pandas.DataFrame()
