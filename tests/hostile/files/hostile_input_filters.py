"""Misbehaving input filters for the input_filter_python_*.yaml hostile scenario files."""

import sys


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def returns_a_dict(call):
    return {"task": "not a ToolCall"}


def raises_unprintable(call):
    raise _Unprintable()


def recurses(call):
    return recurses(call)


def keeps_everything(call):
    return None


NOT_CALLABLE = ["a", "list"]


async def is_async(call):
    return None


def exits(call):
    sys.exit(4)
