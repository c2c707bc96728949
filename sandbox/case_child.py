"""The trusted wrapper of one case, run in a fresh child Python (standard library only).

The supervisor starts it with the combined repository in the working directory, the request
(``{"module", "input", "answer_cap"}``) on stdin and the answer pipe on fd 3. Everything it
needs after the candidate is imported is captured into locals first: the answer descriptor is
duplicated, the encoder's primitives (exact ``type`` checks, ``int``/``float`` reprs, the C
string escaper) are bound, and only then is the target module imported and ``implement``
called. The answer is exactly one frame ``ASSAY-ANSWER <n>\\n<n bytes of JSON>`` whose JSON is
``{"kind": "value", "value": …}``, ``{"kind": "exception", "type": name, "message": text}``
(``BaseException.__str__`` of an exception whose arguments are all exact ``str``/``int``/
``float``, cut to :data:`MESSAGE_CHARS` characters and to the answer budget; ``null`` otherwise,
so no candidate code runs to make it) or
``{"kind": "unsupported"}`` (a value that is not built of exact JSON builtin types, or is too
large). The process then ends with ``os._exit(0)`` so no candidate hook runs after it.
"""

OOM_SCORE_ADJ = "1000"
MESSAGE_CHARS = 200


def _run():
    import os
    import sys
    from _json import encode_basestring_ascii
    from importlib import import_module
    from json import loads

    with open("/proc/self/oom_score_adj", "w", encoding="ascii") as adjust:
        adjust.write(OOM_SCORE_ADJ)  # the OOM killer takes candidates before the supervisor

    write = os.write
    hard_exit = os._exit
    exact_type = type
    type_name = type.__dict__["__name__"].__get__
    int_repr = int.__repr__
    float_repr = float.__repr__
    list_copy = list.copy
    dict_items = dict.items
    join = "".join
    encode_text = str.encode
    length = len
    reversed_range = range
    exception_text = BaseException.__str__
    exception_args = BaseException.__dict__["args"].__get__
    str_slice = str.__getitem__
    make_slice = slice
    tuple_type = tuple
    kinds = (type(None), bool, int, float, str, list, dict)
    none_type, bool_type, int_type, float_type, str_type, list_type, dict_type = kinds

    answer_fd = os.dup(3)
    os.close(3)
    raw = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        raw += chunk
    request = loads(raw.decode("utf-8"))
    module_name = request["module"]
    case_input = request["input"]
    budget = request["answer_cap"]

    def encode(value):
        """JSON text of ``value`` if built only of exact JSON builtin types within budget."""
        pieces = []
        size = 0
        stack = [(False, value)]
        while stack:
            literal, item = stack.pop()
            if literal:
                pieces.append(item)
                size += 1
                continue
            kind = exact_type(item)
            if kind is none_type:
                piece = "null"
            elif kind is bool_type:
                piece = "true" if item is True else "false"
            elif kind is int_type:
                piece = int_repr(item)
            elif kind is float_type:
                if item - item != 0.0:  # inf or nan (nan != 0.0 too)
                    return None
                piece = float_repr(item)
            elif kind is str_type:
                piece = encode_basestring_ascii(item)
            elif kind is list_type:
                items = list_copy(item)
                if length(items) > budget:
                    return None
                stack.append((True, "]"))
                for position in reversed_range(length(items) - 1, -1, -1):
                    stack.append((False, items[position]))
                    if position:
                        stack.append((True, ","))
                piece = "["
            elif kind is dict_type:
                entries = list_copy([pair for pair in dict_items(item)])
                if length(entries) > budget:
                    return None
                stack.append((True, "}"))
                for position in reversed_range(length(entries) - 1, -1, -1):
                    key, entry = entries[position]
                    if exact_type(key) is not str_type:
                        return None
                    stack.append((False, entry))
                    stack.append((True, ":"))
                    stack.append((True, encode_basestring_ascii(key)))
                    if position:
                        stack.append((True, ","))
                piece = "{"
            else:
                return None
            pieces.append(piece)
            size += length(piece)
            if size > budget:
                return None
        return join(pieces)

    def answer(body):
        data = encode_text(body, "ascii")
        frame = encode_text("ASSAY-ANSWER " + int_repr(length(data)) + "\n", "ascii") + data
        view = memoryview(frame)
        while length(view):
            view = view[write(answer_fd, view) :]
        hard_exit(0)

    try:
        sys.path.insert(0, os.getcwd())
        module = import_module(module_name)
        result = module.implement(case_input)
    except BaseException as exc:  # noqa: BLE001 - every failure of candidate code is an answer
        name = type_name(exact_type(exc))
        message = "null"
        try:  # only plain arguments, through BaseException.__str__: no candidate code runs
            arguments = exception_args(exc)
            plain = exact_type(arguments) is tuple_type
            if plain:
                for argument in arguments:
                    kind = exact_type(argument)
                    if not (kind is str_type or kind is int_type or kind is float_type):
                        plain = False
            text = exception_text(exc) if plain else None
            if exact_type(text) is str_type:
                room = (budget - 64 - length(name)) // 6
                # not min(): candidate code has run and may have replaced any builtin
                limit = MESSAGE_CHARS if room > MESSAGE_CHARS else room  # noqa: FURB136
                if limit > 0:
                    message = encode_basestring_ascii(str_slice(text, make_slice(0, limit)))
        except BaseException:  # noqa: BLE001 - e.g. an int too long to print: no message
            message = "null"
        answer(
            '{"kind":"exception","type":' + encode_basestring_ascii(name)
            + ',"message":' + message + "}"
        )  # fmt: skip
    try:
        text = encode(result)
    except BaseException:  # noqa: BLE001 - e.g. an int too long to print
        text = None
    if text is None:
        answer('{"kind":"unsupported"}')
    answer('{"kind":"value","value":' + text + "}")


_run()
