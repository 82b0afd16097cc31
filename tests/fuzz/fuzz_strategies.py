"""Hypothesis strategies for actions that must be rejected: raw action tuples and tool-call texts.

Every value drawn here is invalid by construction (a wrong shape, index, type or range, a missing required
parameter, text that is empty, too long or holds a control character), so the env must answer each one with
an invalid action and a reason, touching no device.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import strategies as st

from crab_gym.spaces import ActionCodec, ParamCodec
from crab_gym.wrappers.tool_table import MAX_CALL_CHARS, ToolTable

CONTROL = [chr(c) for c in [*range(0, 9), *range(11, 32), *range(0x7F, 0xA0)]]
WEIRD = "ü中文é€😀\u202e\u200b\ufeff\uffff\U0010ffff\\\"'`$;|&<>{}"

nonfinite = st.sampled_from([float("nan"), float("inf"), float("-inf")])
fractions = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not float(x).is_integer())
garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.binary(max_size=20),
    st.text(max_size=20),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.lists(st.integers(), min_size=2, max_size=4),
    st.just(object()),
)


def texts_with_control(max_len: int) -> st.SearchStrategy[str]:
    """Within the length limit, but holding at least one control character (not newline or tab)."""
    return st.tuples(
        st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=min(max_len - 1, 40)),
        st.sampled_from(CONTROL),
        st.integers(0, 40),
    ).map(lambda t: (t[0][: t[2]] + t[1] + t[0][t[2] :])[:max_len])


def huge_texts(max_len: int) -> st.SearchStrategy[str]:
    """Longer than allowed, of non-ASCII letters, symbols and control characters."""
    unit = st.text(alphabet=st.sampled_from(list(WEIRD) + CONTROL + list("ab \n\t")), min_size=1, max_size=8)
    return st.tuples(unit, st.integers(1, 3)).map(lambda t: (t[0] * (max_len + 1))[: max_len * t[1] + 1])


def bad_value(codec: ParamCodec) -> st.SearchStrategy[Any]:
    """A value the parameter must refuse, for its kind (see crab_gym.spaces.codec_for)."""
    if codec.kind == "point":
        coord_out = st.one_of(
            st.floats(max_value=-1e-6, allow_nan=False),
            st.floats(min_value=1.000001, allow_nan=False),
            nonfinite,
        )
        coord_ok = st.floats(0, 1)
        return st.one_of(
            st.tuples(coord_out, coord_ok).map(list),
            st.tuples(coord_ok, coord_out).map(lambda t: np.asarray(t, np.float64)),
            st.lists(coord_ok, max_size=1),
            st.lists(coord_ok, min_size=3, max_size=6).map(np.asarray),
            st.tuples(st.text(max_size=4), st.text(max_size=4)),
            st.tuples(st.booleans(), st.booleans()),
            st.none(),
            st.dictionaries(st.sampled_from("xy"), coord_ok, min_size=1),
        )
    if codec.kind == "text":
        space = codec.space
        lo, hi = space.min_length, space.max_length  # type: ignore[attr-defined]
        options = [huge_texts(hi), texts_with_control(hi), st.integers(), st.binary(min_size=1), st.none()]
        options += [st.lists(st.text(min_size=1), min_size=1, max_size=3), st.floats()]
        if lo > 0:
            options.append(st.just(""))
        return st.one_of(*options)
    if codec.kind == "choices":
        slots = codec.space.nvec.shape[0]  # type: ignore[attr-defined]
        n = len(codec.values)
        out = st.one_of(st.integers(max_value=-1), st.integers(min_value=n + 1))
        return st.one_of(
            st.lists(out, min_size=slots, max_size=slots).map(np.asarray),
            st.just(np.zeros(slots, np.int64)),  # no key at all
            st.lists(st.text(max_size=3), min_size=1, max_size=slots),
        )
    space = codec.space
    start, n = int(getattr(space, "start", 0)), int(space.n)  # type: ignore[attr-defined]
    return st.one_of(
        st.integers(max_value=start - 1),
        st.integers(min_value=start + n),
        nonfinite,
        fractions,
        st.text(max_size=4),
        st.none(),
        st.booleans().map(np.bool_),
        st.lists(st.integers(start, start + n - 1), min_size=2, max_size=3),
    )


def invalid_tuple_actions(codec: ActionCodec) -> st.SearchStrategy[Any]:
    """Raw actions (device, action, params) that the env must reject."""
    n_dev = len(codec.subenvs)
    bad_index = st.one_of(
        st.integers(max_value=-1), st.integers(min_value=max(n_dev, codec.max_actions)), nonfinite, fractions,
        st.text(max_size=3), st.none(), st.lists(st.integers(0, 1), min_size=2, max_size=2),
    )  # fmt: skip
    wrong_shape = st.one_of(
        garbage,
        st.lists(st.integers(0, 2), max_size=5).filter(lambda x: len(x) != 3),
        st.tuples(st.integers(0, 2), st.integers(0, 2)),
        st.tuples(st.integers(0, 2), st.integers(0, 2), st.just({}), st.just({})),
    )

    def params_for(dev: int, act: int) -> st.SearchStrategy[Any]:
        spec = codec.subenvs[dev].actions[act]
        base = {p.name: c.default() for p, c in ((p, codec.codecs[p.name]) for p in spec.params)}
        choices: list[st.SearchStrategy[Any]] = [st.one_of(st.none(), st.lists(st.integers()), st.text())]
        for p in spec.params:
            choices.append(bad_value(codec.codecs[p.name]).map(lambda v, name=p.name: {**base, name: v}))
            if p.required:
                choices.append(st.just({k: v for k, v in base.items() if k != p.name}))
        return st.one_of(*choices)

    pairs = [(d, a) for d, sub in enumerate(codec.subenvs) for a in range(len(sub.actions))]
    bad_params = st.sampled_from(pairs).flatmap(
        lambda da: params_for(*da).map(lambda prm: (da[0], da[1], prm))
    )
    bad_action_index = st.integers(0, n_dev - 1).flatmap(
        lambda d: st.integers(len(codec.subenvs[d].actions), codec.max_actions + 3).map(lambda a: (d, a, {}))
    )
    return st.one_of(
        wrong_shape,
        st.tuples(bad_index, st.integers(0, 2), st.just({})),
        st.tuples(st.integers(0, n_dev - 1), bad_index, st.just({})),
        bad_action_index,
        bad_params,
    )


def _json_bad(codec: ParamCodec) -> st.SearchStrategy[Any]:
    """A JSON value the tool parameter must refuse (pydantic reads numeric strings as numbers, so none)."""
    if codec.kind == "point":
        return st.one_of(
            st.tuples(st.floats(min_value=1.01), st.floats(0, 1)).map(list),
            st.tuples(st.floats(0, 1), nonfinite).map(list),
            st.lists(st.floats(0, 1), max_size=1),
            st.lists(st.floats(0, 1), min_size=3, max_size=4),
            st.just([True, False]),
            st.just({"x": 0.5, "y": 0.5}),
            st.text(alphabet="abc ", max_size=5),
            st.none(),
        )
    if codec.kind == "text":
        hi = codec.space.max_length  # type: ignore[attr-defined]
        return st.one_of(
            huge_texts(hi), texts_with_control(hi), st.just(""), st.integers(), st.none(), st.lists(st.text())
        )
    not_a_value = st.text(max_size=4).map(lambda t: "zz-" + t)  # no key, button or direction is named so
    if codec.kind == "choices":
        return st.one_of(st.just([]), st.lists(not_a_value, min_size=1, max_size=3))
    if codec.kind == "choice":
        return st.one_of(not_a_value, st.integers(), st.none(), st.just([]))
    start, n = int(getattr(codec.space, "start", 0)), int(codec.space.n)  # type: ignore[attr-defined]
    return st.one_of(
        st.integers(max_value=start - 1),
        st.integers(min_value=start + n),
        nonfinite,
        st.just(True),
        st.text(alphabet="xy", min_size=1),
    )


def invalid_tool_calls(table: ToolTable, codecs: dict[str, ParamCodec]) -> st.SearchStrategy[Any]:
    """Tool calls (mostly as the text a model would send) that FunctionCalls must reject."""
    names = sorted(table.tools)
    devices = sorted(table.devices)

    def call_for(tool: str) -> st.SearchStrategy[dict[str, Any]]:
        specs = table.tools[tool].specs
        options: list[st.SearchStrategy[dict[str, Any]]] = [
            st.sampled_from([d for d in devices if d not in specs] or ["nowhere"]).map(
                lambda d: {"name": tool, "arguments": {"device": d}}
            ),
            st.one_of(st.integers(), st.text(alphabet="qz", max_size=3)).map(  # null means "not given"
                lambda d: {"name": tool, "arguments": {"device": d}}
            ),
            st.text(alphabet="qwz_", min_size=1, max_size=6).map(
                lambda k: {"name": tool, "arguments": {"device": next(iter(specs)), f"zz_{k}": 1}}
            ),
        ]
        for dev, spec in specs.items():
            for p in spec.params:
                bad = _json_bad(codecs[p.name]).map(
                    lambda v, d=dev, n=p.name: {"name": tool, "arguments": {"device": d, n: v}}
                )
                options.append(bad)
                if p.required:
                    options.append(st.just({"name": tool, "arguments": {"device": dev}}))
        return st.one_of(*options)

    structured = st.sampled_from(names).flatmap(call_for)
    unknown = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() not in table.tools)
    needy = next(n for n in names if any(p.required for s in table.tools[n].specs.values() for p in s.params))
    malformed = st.one_of(
        unknown.map(lambda n: {"name": n, "arguments": {}}),
        st.one_of(garbage, st.integers()).map(lambda a: {"name": needy, "arguments": a}),
        st.just({"arguments": {}}),
        st.lists(structured, min_size=2, max_size=3),
    )

    def as_text(call: Any, style: int) -> Any:
        """The call as it is (0), as JSON text (1, 4), in a fenced block in prose (2) or as an OpenAI tool
        call with the arguments as a JSON string (3); a call JSON cannot hold (bytes) stays as it is."""
        try:
            text = json.dumps(call, ensure_ascii=bool(style % 2))  # NaN and Infinity as JSON's extensions
        except TypeError:
            return call
        if style == 0:
            return call
        if style == 2:
            return f"I will act now.\n```json\n{text}\n```\nDone."
        if style == 3 and isinstance(call, dict) and "arguments" in call:
            arguments = json.dumps(call["arguments"], ensure_ascii=False)
            return {"type": "function", "function": {"name": call.get("name"), "arguments": arguments}}
        return text

    texts = st.one_of(
        st.text(max_size=200),
        st.lists(st.sampled_from([*'{}[]":, ', "name", "arguments", "device", *names]), max_size=30).map(
            "".join
        ),
        st.integers(MAX_CALL_CHARS + 1, MAX_CALL_CHARS + 5).map(lambda n: '{"name": "' + "x" * n + '"}'),
        st.binary(max_size=60),
    )
    return st.one_of(
        st.tuples(st.one_of(structured, malformed), st.integers(0, 4)).map(lambda t: as_text(*t)),
        texts.filter(lambda t: not table.is_valid(t)),
    )
