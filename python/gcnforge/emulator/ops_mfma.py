HANDLERS: dict = {}


def lookup(base):
    return None


def info_for(base):
    return None
